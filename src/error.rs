//! Errors about input files, always naming the file and, where there is
//! one, the line (and column) and what is wrong.

use std::fmt;
use std::path::Path;

/// A problem with an input file: rendered as `path:line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub(crate) path: String,
    pub line: Option<usize>,
    pub(crate) column: Option<usize>,
    pub(crate) message: String,
}

impl InputError {
    pub fn file(path: &str, message: impl Into<String>) -> Self {
        InputError {
            path: path.to_string(),
            line: None,
            column: None,
            message: message.into(),
        }
    }

    pub(crate) fn at_line(path: &str, line: usize, message: impl Into<String>) -> Self {
        InputError {
            line: Some(line),
            ..InputError::file(path, message)
        }
    }

    /// A serde_json error inside a document that starts at `first_line` of
    /// the file (1 for a whole file, the line of an object in JSONL).
    pub fn json(path: &str, first_line: usize, err: &serde_json::Error) -> Self {
        InputError::json_at(path, first_line, 1, err)
    }

    /// A serde_json error inside a document that starts at `first_line`,
    /// `first_column` of the file (an indented glossary entry): on the
    /// document's first line, columns are shifted by where it starts.
    pub(crate) fn json_at(
        path: &str,
        first_line: usize,
        first_column: usize,
        err: &serde_json::Error,
    ) -> Self {
        // serde_json appends " at line L column C" to its message; we print
        // the position ourselves, relative to the file.
        let text = err.to_string();
        let message = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        let message = if err.is_syntax() || err.is_eof() {
            format!("invalid JSON: {message}")
        } else {
            message
        };
        InputError {
            path: path.to_string(),
            line: Some(first_line + err.line().max(1) - 1),
            column: (err.line() > 0 && err.column() > 0).then(|| {
                let shift = if err.line() == 1 { first_column - 1 } else { 0 };
                err.column() + shift
            }),
            message,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

/// Read a whole input file as UTF-8 text, with errors naming the file and,
/// for bad bytes, the line. A leading byte-order mark is dropped.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let shown = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| InputError::file(&shown, format!("cannot read: {e}")))?;
    decode_text(&shown, bytes)
}

/// Decode file contents as UTF-8 (see [`read_text`]).
pub fn decode_text(path: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    match String::from_utf8(bytes) {
        Ok(mut text) => {
            if text.starts_with('\u{feff}') {
                text.drain(..3);
            }
            Ok(text)
        }
        Err(e) => {
            let good = e.utf8_error().valid_up_to();
            let bytes = e.as_bytes();
            let line = 1 + bytes[..good].iter().filter(|&&b| b == b'\n').count();
            Err(InputError::at_line(
                path,
                line,
                format!(
                    "not UTF-8 text (invalid byte 0x{:02x} at byte {good}); save the file as UTF-8",
                    bytes[good]
                ),
            ))
        }
    }
}

/// 1-based line number of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// Lines (and columns) of increasing byte offsets in one text, counting
/// each stretch once: finding the lines of every entry of a large file
/// stays linear, where [`line_of`] per entry would be quadratic.
pub(crate) struct LineCounter<'a> {
    text: &'a str,
    counted_to: usize,
    line: usize,
    line_start: usize,
}

impl<'a> LineCounter<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        LineCounter {
            text,
            counted_to: 0,
            line: 1,
            line_start: 0,
        }
    }

    /// 1-based line of byte `offset`; offsets asked for may only grow (an
    /// earlier one is counted from the start, correct but slower).
    pub(crate) fn line_at(&mut self, offset: usize) -> usize {
        self.position_at(offset).0
    }

    /// 1-based line and byte column of byte `offset` (columns in bytes, as
    /// serde_json counts them).
    pub(crate) fn position_at(&mut self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let bytes = self.text.as_bytes();
        if offset < self.counted_to {
            let start = bytes[..offset]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            return (line_of(self.text, offset), offset - start + 1);
        }
        let stretch = &bytes[self.counted_to..offset];
        self.line += memchr::memchr_iter(b'\n', stretch).count();
        if let Some(i) = memchr::memrchr(b'\n', stretch) {
            self.line_start = self.counted_to + i + 1;
        }
        self.counted_to = offset;
        (self.line, offset - self.line_start + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_counter_agrees_with_line_of() {
        let text = "a\nbb\n\nccc\nd";
        let mut counter = LineCounter::new(text);
        for offset in [0, 1, 2, 5, 6, 9, 11, 40] {
            assert_eq!(counter.line_at(offset), line_of(text, offset), "{offset}");
        }
        assert_eq!(
            counter.position_at(3),
            (2, 2),
            "an earlier offset is still right"
        );
        let mut counter = LineCounter::new(text);
        assert_eq!(counter.position_at(4), (2, 3));
        assert_eq!(counter.position_at(8), (4, 3));
    }

    proptest::proptest! {
        /// Positions of growing offsets are the ones counted from the start.
        #[test]
        fn line_counter_counts_as_from_the_start(
            text in "[ab\n]{0,60}",
            mut offsets in proptest::collection::vec(0usize..70, 0..12),
        ) {
            offsets.sort_unstable();
            let mut counter = LineCounter::new(&text);
            for offset in offsets {
                let at = offset.min(text.len());
                let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                proptest::prop_assert_eq!(
                    counter.position_at(offset),
                    (line_of(&text, offset), at - line_start + 1)
                );
            }
        }
    }
}
