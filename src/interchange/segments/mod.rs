//! Translations made elsewhere, read as segments (a source text and its
//! translation) for `glossa check`: TMX, XLIFF 1.2 and 2.x, gettext PO, a
//! pair of line-aligned plain-text files, and JSONL. Every reader streams:
//! memory stays bounded by the longest segment, not the file (a 1 GB TMX is
//! read in a few MiB). The mapping of each format is documented in
//! docs/formats.md ("Translations to check: `glossa check` inputs").
//!
//! One file a format; `xml` holds what the XML readers share (decoding,
//! line numbers, entity and size rules, inline tags) and `text` the
//! bounded line reader of the others.

mod jsonl;
mod lines;
mod po;
mod text;
mod tmx;
mod xliff;
mod xml;

use crate::error::InputError;
use serde::Serialize;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// Longest text of one segment's source or target, in bytes (UTF-8), the
/// same as a post's: longer texts are refused naming the file and line.
pub use crate::limits::MAX_SEGMENT_BYTES;

/// One translated segment: a source text and its translation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    pub id: String,
    pub source: String,
    pub target: String,
    /// 1-based line of the segment's start in its file
    pub line: usize,
}

/// A format of translations to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentFormat {
    Tmx,
    Xliff,
    Po,
    Lines,
    Jsonl,
}

impl SegmentFormat {
    pub(crate) const ALL: [SegmentFormat; 5] = [
        SegmentFormat::Tmx,
        SegmentFormat::Xliff,
        SegmentFormat::Po,
        SegmentFormat::Lines,
        SegmentFormat::Jsonl,
    ];

    /// The name `FromStr` reads: `tmx`, `xliff`, `po`, `lines`, `jsonl`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SegmentFormat::Tmx => "tmx",
            SegmentFormat::Xliff => "xliff",
            SegmentFormat::Po => "po",
            SegmentFormat::Lines => "lines",
            SegmentFormat::Jsonl => "jsonl",
        }
    }
}

impl fmt::Display for SegmentFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SegmentFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SegmentFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown format `{s}`: expected tmx, xliff, po, lines or jsonl"))
    }
}

/// How to read a file of segments.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The format; `None`: from the file's name, else its first bytes.
    pub format: Option<SegmentFormat>,
    /// The source language (TMX: which `<tuv>` is the source, default the
    /// header's `srclang`; XLIFF: must match the file's when both are given).
    pub source_lang: Option<&'a str>,
    /// The target language (TMX: which `<tuv>` is the translation, needed
    /// when a unit has several; XLIFF: must match the file's).
    pub target_lang: Option<&'a str>,
    /// the translation file of a line-aligned pair (`FILE` is then the source)
    pub target_file: Option<&'a Path>,
}

/// The segments of a file, read as they are asked for. An error ends them:
/// nothing follows an `Err`.
pub(crate) type Segments = Box<dyn Iterator<Item = Result<Segment, InputError>> + Send>;

/// Open a file of segments. Errors found before the first segment (no such
/// file, an unknown format, a missing target file) come here; errors inside
/// the file come as an item of the iterator, naming the file and line.
pub fn open(path: &Path, options: &Options) -> Result<Segments, InputError> {
    let shown = path.display().to_string();
    let format = match options.format {
        Some(format) => format,
        None if options.target_file.is_some() => SegmentFormat::Lines,
        None => {
            let first = first_bytes(path)?;
            detect(path, &first).ok_or_else(|| {
                InputError::file(
                    &shown,
                    "cannot tell the format from the name or the first lines; name it: \
                     tmx, xliff, po, lines (with the translation file) or jsonl",
                )
            })?
        }
    };
    if format == SegmentFormat::Lines {
        let Some(target) = options.target_file else {
            return Err(InputError::file(
                &shown,
                "a line-aligned pair needs its translation file too (FILE holds the sources)",
            ));
        };
        return lines::open(path, target);
    }
    if let Some(target) = options.target_file {
        return Err(InputError::file(
            &shown,
            format!(
                "a translation file ({}) goes only with a line-aligned pair, not with {format}",
                target.display()
            ),
        ));
    }
    match format {
        SegmentFormat::Tmx => tmx::open(path, options),
        SegmentFormat::Xliff => xliff::open(path, options),
        SegmentFormat::Po => po::open(path),
        SegmentFormat::Jsonl => jsonl::open(path),
        SegmentFormat::Lines => unreachable!("handled above"),
    }
}

/// The first few KiB of a file, to tell its format.
fn first_bytes(path: &Path) -> Result<Vec<u8>, InputError> {
    use std::io::Read;
    let file = open_file(path)?;
    let mut first = Vec::with_capacity(4096);
    file.take(4096)
        .read_to_end(&mut first)
        .map_err(|e| InputError::file(&path.display().to_string(), format!("cannot read: {e}")))?;
    Ok(first)
}

pub(crate) fn open_file(path: &Path) -> Result<std::fs::File, InputError> {
    std::fs::File::open(path)
        .map_err(|e| InputError::file(&path.display().to_string(), format!("cannot read: {e}")))
}

/// The format a file's name says (`.tmx`; `.xlf`, `.xliff`, `.sdlxliff`,
/// `.mqxliff`; `.po`, `.pot`; `.jsonl`, `.ndjson`), else the one its first
/// bytes show: `<tmx` or `<xliff` (UTF-8 or UTF-16), a line starting
/// `msgid "`, a first character `{`. A line-aligned pair (`.txt`) is told
/// by its translation file, not here.
pub fn detect(path: &Path, first_bytes: &[u8]) -> Option<SegmentFormat> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("tmx") => return Some(SegmentFormat::Tmx),
        Some("xlf" | "xliff" | "sdlxliff" | "mqxliff") => return Some(SegmentFormat::Xliff),
        Some("po" | "pot") => return Some(SegmentFormat::Po),
        Some("jsonl" | "ndjson") => return Some(SegmentFormat::Jsonl),
        _ => {}
    }
    let text = xml::sniff_text(first_bytes);
    let text = text.trim_start_matches('\u{feff}');
    if text.contains("<tmx") {
        return Some(SegmentFormat::Tmx);
    }
    if text.contains("<xliff") {
        return Some(SegmentFormat::Xliff);
    }
    if text
        .lines()
        .any(|l| l.starts_with("msgid \"") || l.starts_with("msgctxt \""))
    {
        return Some(SegmentFormat::Po);
    }
    if text.trim_start().starts_with('{') {
        return Some(SegmentFormat::Jsonl);
    }
    None
}

/// Whether language tag `got` is the language `wanted` names: equal
/// ignoring case (and `_` for `-`), or one is the other plus subtags
/// (`en` ~ `en-US` ~ `EN_us`; `en-US` ≁ `en-GB`).
pub(crate) fn lang_matches(got: &str, wanted: &str) -> bool {
    let norm = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
    let (g, w) = (norm(got), norm(wanted));
    let prefix = |long: &str, short: &str| {
        long.len() > short.len() && long.starts_with(short) && long.as_bytes()[short.len()] == b'-'
    };
    !w.is_empty() && (g == w || prefix(&g, &w) || prefix(&w, &g))
}

/// A text over [`MAX_SEGMENT_BYTES`], as an error.
pub(crate) fn too_long(path: &str, line: usize, what: &str) -> InputError {
    InputError::at_line(
        path,
        line,
        format!(
            "{what} is longer than {}; a segment this long is not a translation unit",
            crate::limits::show_bytes(MAX_SEGMENT_BYTES)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in SegmentFormat::ALL {
            assert_eq!(f.name().parse::<SegmentFormat>(), Ok(f));
        }
        assert_eq!("TMX".parse::<SegmentFormat>(), Ok(SegmentFormat::Tmx));
        assert!("xlsx"
            .parse::<SegmentFormat>()
            .unwrap_err()
            .contains("xlsx"));
    }

    #[test]
    fn languages_match_by_primary_subtag_ignoring_case() {
        assert!(lang_matches("en-US", "en"));
        assert!(lang_matches("EN-GB", "en"));
        assert!(lang_matches("en", "en-us"));
        assert!(lang_matches("pt_BR", "pt-br"));
        assert!(!lang_matches("en-US", "en-GB"));
        assert!(!lang_matches("eng", "en"));
        assert!(!lang_matches("de", ""));
    }

    #[test]
    fn formats_are_told_by_name_then_content() {
        let d = |name: &str, bytes: &[u8]| detect(Path::new(name), bytes);
        assert_eq!(d("a.sdlxliff", b""), Some(SegmentFormat::Xliff));
        assert_eq!(d("a.POT", b""), Some(SegmentFormat::Po));
        assert_eq!(d("a.ndjson", b""), Some(SegmentFormat::Jsonl));
        assert_eq!(
            d(
                "export.xml",
                b"<?xml version=\"1.0\"?>\n<tmx version=\"1.4\">"
            ),
            Some(SegmentFormat::Tmx)
        );
        let utf16: Vec<u8> = "\u{feff}<xliff version=\"2.0\">"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(d("export.xml", &utf16), Some(SegmentFormat::Xliff));
        assert_eq!(
            d("messages", b"# German\nmsgid \"\"\nmsgstr \"\"\n"),
            Some(SegmentFormat::Po)
        );
        assert_eq!(
            d("out", b"{\"source\": \"a\", \"target\": \"b\"}\n"),
            Some(SegmentFormat::Jsonl)
        );
        assert_eq!(d("notes.txt", b"Hello\n"), None);
    }
}

#[cfg(test)]
mod fixtures;
