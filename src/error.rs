//! Errors about input files, always naming the file and, where there is
//! one, the line (and column) and what is wrong.

use std::fmt;
use std::path::Path;

/// A problem with an input file: rendered as `path:line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub path: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
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

    pub fn at_line(path: &str, line: usize, message: impl Into<String>) -> Self {
        InputError {
            line: Some(line),
            ..InputError::file(path, message)
        }
    }

    /// A serde_json error inside a document that starts at `first_line` of
    /// the file (1 for a whole file, the line of an object in JSONL).
    pub fn json(path: &str, first_line: usize, err: &serde_json::Error) -> Self {
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
            column: (err.line() > 0 && err.column() > 0).then_some(err.column()),
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
pub fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}
