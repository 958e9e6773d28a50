//! The TMX and XLIFF readers of `glossa check` on arbitrary bytes (UTF-8,
//! UTF-16 with or without a mark, anything): the first byte picks the
//! format and whether a target language is given. Segments or an error
//! naming a line, never a panic; no segment text over the limit.
#![no_main]

use glossa::interchange::segments::{open, Options, SegmentFormat, MAX_SEGMENT_BYTES};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

/// One file per fuzzing process, rewritten for each input.
fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("glossa-fuzz-segments-xml-{}", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let path = scratch();
    std::fs::write(&path, bytes).unwrap();
    let options = Options {
        format: Some(if pick & 1 == 0 {
            SegmentFormat::Tmx
        } else {
            SegmentFormat::Xliff
        }),
        source_lang: (pick & 2 != 0).then_some("en"),
        target_lang: (pick & 4 != 0).then_some("de"),
        target_file: None,
    };
    let segments = open(&path, &options).expect("the file exists");
    let mut failed = false;
    for item in segments {
        assert!(!failed, "nothing follows an error");
        match item {
            Ok(segment) => {
                assert!(segment.line >= 1);
                assert!(segment.source.len() <= MAX_SEGMENT_BYTES);
                assert!(segment.target.len() <= MAX_SEGMENT_BYTES);
                assert!(!segment.target.trim().is_empty());
            }
            Err(e) => {
                assert!(e.line.is_some_and(|l| l >= 1), "no line: {e}");
                failed = true;
            }
        }
    }
});
