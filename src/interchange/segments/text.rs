//! Decoding and bounded line reading shared by the readers: UTF-8 (with
//! or without a byte-order mark) and UTF-16 with a mark are read as UTF-8;
//! a line is read up to a limit, so one endless line cannot exhaust memory.

use crate::error::InputError;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

/// A file's text as UTF-8 bytes, whatever of UTF-8 and UTF-16 it is in.
pub(super) type Decoded = Box<dyn BufRead + Send>;

/// Open `path` decoded: a UTF-8 mark is dropped, UTF-16 with a mark is
/// converted; `sniff` may name another encoding from the first bytes (XML
/// declarations and UTF-16 without a mark).
pub(super) fn open_decoded(
    path: &Path,
    sniff: impl FnOnce(&[u8]) -> Option<&'static encoding_rs::Encoding>,
) -> Result<Decoded, InputError> {
    let shown = path.display().to_string();
    let mut file = super::open_file(path)?;
    let mut first = Vec::with_capacity(1024);
    (&mut file)
        .take(1024)
        .read_to_end(&mut first)
        .map_err(|e| InputError::file(&shown, format!("cannot read: {e}")))?;
    let encoding = encoding_rs::Encoding::for_bom(&first)
        .map(|(e, _)| e)
        .or_else(|| sniff(&first));
    let start = Cursor::new(first);
    Ok(match encoding {
        Some(encoding) if encoding != encoding_rs::UTF_8 => Box::new(BufReader::with_capacity(
            64 << 10,
            encoding_rs_io::DecodeReaderBytesBuilder::new()
                .encoding(Some(encoding))
                .build(start.chain(file)),
        )),
        _ => {
            let mut reader = BufReader::with_capacity(64 << 10, start.chain(file));
            // A UTF-8 mark is not text.
            if reader
                .fill_buf()
                .is_ok_and(|b| b.starts_with(b"\xef\xbb\xbf"))
            {
                reader.consume(3);
            }
            Box::new(reader)
        }
    })
}

/// Lines of a decoded file, each at most `max` bytes, numbered from 1,
/// without their `\n` or `\r\n`.
pub(super) struct Lines {
    path: String,
    reader: Decoded,
    max: usize,
    line: usize,
    done: bool,
}

impl Lines {
    pub(super) fn new(path: &str, reader: Decoded, max: usize) -> Self {
        Lines {
            path: path.to_string(),
            reader,
            max,
            line: 0,
            done: false,
        }
    }

    /// The number of the last line read.
    pub(super) fn line(&self) -> usize {
        self.line
    }

    pub(super) fn path(&self) -> &str {
        &self.path
    }
}

impl Iterator for Lines {
    type Item = Result<(usize, String), InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut bytes = Vec::new();
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) => {
                    self.done = true;
                    return Some(Err(InputError::at_line(
                        &self.path,
                        self.line + 1,
                        format!("cannot read: {e}"),
                    )));
                }
            };
            if buf.is_empty() {
                if bytes.is_empty() {
                    self.done = true;
                    return None;
                }
                break;
            }
            let (take, end) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            if bytes.len() + take > self.max + 2 {
                self.done = true;
                return Some(Err(InputError::at_line(
                    &self.path,
                    self.line + 1,
                    format!("line longer than {}", crate::limits::show_bytes(self.max)),
                )));
            }
            bytes.extend_from_slice(&buf[..take]);
            self.reader.consume(take);
            if end {
                break;
            }
        }
        self.line += 1;
        if bytes.ends_with(b"\n") {
            bytes.pop();
            if bytes.ends_with(b"\r") {
                bytes.pop();
            }
        }
        match String::from_utf8(bytes) {
            Ok(text) => Some(Ok((self.line, text))),
            Err(e) => {
                self.done = true;
                let at = e.utf8_error().valid_up_to();
                Some(Err(InputError::at_line(
                    &self.path,
                    self.line,
                    format!(
                        "not UTF-8 text (invalid byte 0x{:02x} at column {}); save the file as UTF-8",
                        e.as_bytes()[at],
                        at + 1
                    ),
                )))
            }
        }
    }
}
