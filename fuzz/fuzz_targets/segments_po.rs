//! The gettext PO reader of `glossa check` on arbitrary bytes: segments or
//! an error naming a line, never a panic; no fuzzy header or empty
//! translation comes out.
#![no_main]

use glossa::interchange::segments::{open, Options, SegmentFormat, MAX_SEGMENT_BYTES};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("glossa-fuzz-segments-po-{}", std::process::id()))
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(&path, data).unwrap();
    let options = Options {
        format: Some(SegmentFormat::Po),
        ..Options::default()
    };
    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    let mut failed = false;
    for item in open(&path, &options).expect("the file exists") {
        assert!(!failed, "nothing follows an error");
        match item {
            Ok(segment) => {
                assert!(segment.line >= 1 && segment.line <= lines);
                assert!(!segment.source.is_empty() && !segment.target.is_empty());
                assert!(segment.target.len() <= MAX_SEGMENT_BYTES);
            }
            Err(e) => {
                assert!(e.line.is_some_and(|l| l >= 1 && l <= lines), "line: {e}");
                failed = true;
            }
        }
    }
});
