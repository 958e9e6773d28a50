//! `calls.jsonl`: one [`CallRecord`] per line, appended as calls finish.
//!
//! A run killed mid-write, or a full disk, can leave the last line torn.
//! Every reader finds it: [`for_each_call`] (read-only paths: `diff`,
//! `merge`, the report) skips it with a warning; [`repair_tail`] (write
//! paths: `--resume`, `--retry-errors`, `--batch-in`) cuts it away and says
//! what it cut (the caller warns), so its call is made again. [`CallsAppender`] is the one writer:
//! it repairs the tail when it opens, and undoes a line it could not write
//! whole, so every append starts at a line boundary.

use super::latest::Latest;
use super::record::CallRecord;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub const CALLS_FILE: &str = "calls.jsonl";

/// A `calls.jsonl` that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CallsError {
    #[error("cannot {action} {}: {cause}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        cause: io::Error,
    },
    #[error("{}:{line}: not a call record: {message}", path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        message: NotARecord,
    },
}

/// Why a line of `calls.jsonl` is not a call record.
#[derive(Debug, thiserror::Error)]
pub enum NotARecord {
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

fn io_error<'p>(action: &'static str, path: &'p Path) -> impl FnOnce(io::Error) -> CallsError + 'p {
    move |cause| CallsError::Io {
        action,
        path: path.to_path_buf(),
        cause,
    }
}

/// One line's record, or why it is not one (not UTF-8, not a record). A
/// byte-order mark is accepted at the start of the file.
fn parse_line(bytes: &[u8], first: bool) -> Result<CallRecord, NotARecord> {
    let text = std::str::from_utf8(bytes).map_err(|_| NotARecord::NotUtf8)?;
    let text = if first {
        text.strip_prefix('\u{feff}').unwrap_or(text)
    } else {
        text
    };
    Ok(serde_json::from_str(text)?)
}

/// Read a `calls.jsonl` and keep `keep(record)` of each call's latest
/// record (records themselves are not kept).
pub(crate) fn latest_in<V>(
    path: &Path,
    mut keep: impl FnMut(&CallRecord) -> V,
) -> Result<Latest<V>, CallsError> {
    let mut latest = Latest::default();
    for_each_call(path, |r| {
        latest.record(&r, keep(&r));
    })?;
    Ok(latest)
}

/// For every call in `calls.jsonl`, whether its latest record succeeded.
pub fn call_status(path: &Path) -> Result<Latest<bool>, CallsError> {
    latest_in(path, |r| r.error.is_none())
}

/// Call `f` on every record in file order (records are not kept, so memory
/// does not grow with the run). A bad last line (torn by a crash or a full
/// disk) is skipped with a warning; a bad line elsewhere is an error naming
/// it. A missing file has no records.
pub fn for_each_call(path: &Path, mut f: impl FnMut(CallRecord)) -> Result<(), CallsError> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error("read", path)(e)),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut number = 0usize;
    let mut pending: Option<(usize, NotARecord)> = None;
    loop {
        line.clear();
        if reader
            .read_until(b'\n', &mut line)
            .map_err(io_error("read", path))?
            == 0
        {
            break;
        }
        number += 1;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // A bad line is only an error once a line follows it.
        if let Some((at, message)) = pending.take() {
            return Err(CallsError::BadLine {
                path: path.to_path_buf(),
                line: at,
                message,
            });
        }
        match parse_line(&line, number == 1) {
            Ok(record) => f(record),
            Err(message) => pending = Some((number, message)),
        }
    }
    if let Some((at, _)) = pending {
        warn_once(path, || {
            tracing::warn!(
                "{}:{at}: ignoring a torn last line (the run was cut off mid-write)",
                path.display()
            )
        });
    }
    Ok(())
}

/// Warn about `path` once per process: `merge` and the report read a file
/// more than once.
fn warn_once(path: &Path, warn: impl FnOnce()) {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static WARNED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let mut warned = WARNED.lock().unwrap_or_else(|e| e.into_inner());
    if warned
        .get_or_insert_with(HashSet::new)
        .insert(path.to_path_buf())
    {
        warn();
    }
}

/// Bytes read at a time when looking for the last line from the end.
const TAIL_CHUNK: u64 = 64 * 1024;

/// The last line holding anything but white space: its offset and its
/// bytes up to the end of the file. `None` when the file is blank.
fn last_line(file: &mut File, len: u64) -> io::Result<Option<(u64, Vec<u8>)>> {
    let mut tail: Vec<u8> = Vec::new();
    let mut pos = len;
    while pos > 0 {
        let step = TAIL_CHUNK.min(pos);
        pos -= step;
        let mut chunk = vec![0u8; step as usize];
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        let Some(end) = tail.iter().rposition(|b| !b.is_ascii_whitespace()) else {
            continue;
        };
        if let Some(newline) = tail[..end].iter().rposition(|&b| b == b'\n') {
            return Ok(Some((
                pos + newline as u64 + 1,
                tail.split_off(newline + 1),
            )));
        }
    }
    Ok(tail
        .iter()
        .any(|b| !b.is_ascii_whitespace())
        .then_some((0, tail)))
}

/// What [`repair_tail`] cut away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TornLine {
    pub(crate) line: usize,
    pub(crate) bytes: u64,
}

impl TornLine {
    /// The warning for the user: where, how much, what happens next.
    pub(crate) fn describe(&self, path: &Path) -> String {
        format!(
            "{}:{}: removed a torn last line ({} bytes; the run was cut off mid-write); \
             its call will be made again",
            path.display(),
            self.line,
            self.bytes
        )
    }
}

/// Make `calls.jsonl` end at a line boundary after a whole record, before
/// anything is appended: a bad last line is cut away (its call counts as
/// not made, so it is made again), a whole last record without its
/// newline gets one. Says what it cut, for the caller to warn about.
pub(crate) fn repair_tail(path: &Path) -> Result<Option<TornLine>, CallsError> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("open", path)(e)),
    };
    let len = file.metadata().map_err(io_error("read", path))?.len();
    let Some((start, bytes)) = last_line(&mut file, len).map_err(io_error("read", path))? else {
        return Ok(None);
    };
    let content = bytes.trim_ascii_end();
    if parse_line(content, start == 0).is_ok() {
        if bytes.last() != Some(&b'\n') {
            file.seek(SeekFrom::End(0))
                .and_then(|_| file.write_all(b"\n"))
                .map_err(io_error("write", path))?;
        }
        return Ok(None);
    }
    file.set_len(start)
        .and_then(|()| file.sync_all())
        .map_err(io_error("write", path))?;
    Ok(Some(TornLine {
        line: count_lines(path, start)? + 1,
        bytes: len - start,
    }))
}

/// Newlines in the first `upto` bytes of `path`.
fn count_lines(path: &Path, upto: u64) -> Result<usize, CallsError> {
    let file = File::open(path).map_err(io_error("read", path))?;
    let mut reader = BufReader::new(file.take(upto));
    let mut count = 0;
    loop {
        let buf = reader.fill_buf().map_err(io_error("read", path))?;
        if buf.is_empty() {
            return Ok(count);
        }
        count += buf.iter().filter(|&&b| b == b'\n').count();
        let n = buf.len();
        reader.consume(n);
    }
}

/// The one writer of `calls.jsonl`: each record is one whole line.
pub(crate) struct CallsAppender {
    path: PathBuf,
    file: File,
    /// The length after the last whole line.
    len: u64,
}

impl CallsAppender {
    /// Open `path` for appending (created when missing), after
    /// [`repair_tail`] (call it first to hear what it cuts).
    pub(crate) fn open(path: &Path) -> Result<CallsAppender, CallsError> {
        repair_tail(path)?;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_error("open", path))?;
        let len = file.metadata().map_err(io_error("read", path))?.len();
        Ok(CallsAppender {
            path: path.to_path_buf(),
            file,
            len,
        })
    }

    /// Append one record. When the line cannot be written whole (a full
    /// disk), what was written of it is cut away again and the error
    /// returned: the file still ends at a line boundary.
    pub(crate) fn append(&mut self, record: &CallRecord) -> Result<(), CallsError> {
        let line = serde_json::to_string(record).expect("a call record serialises") + "\n";
        match self.file.write_all(line.as_bytes()) {
            Ok(()) => {
                self.len += line.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Truncating needs no space; if even that fails, the next
                // open repairs the tail.
                let _ = self.file.set_len(self.len);
                Err(io_error("write", &self.path)(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(post: &str) -> String {
        format!(
            r#"{{"retriever":"exact","repeat":1,"post":"{post}","prompt":{{"name":"translate","version":"v1"}},"provider":"offline","model":"","output":"Try our frosk mavi.","check":{{"missing":[],"leaked":[],"ok":true}},"group":"complete","retrieved":["cold-coffee"],"wrong_sense_retrieved":[],"wrong_sense_used":[],"attempts":1,"cached":false,"error":null,"ms":0.5}}"#
        )
    }

    fn posts(path: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for_each_call(path, |r| out.push(r.post)).unwrap();
        out
    }

    fn file_with(text: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn a_torn_last_line_is_cut_at_the_line_boundary() {
        let whole = format!("{}\n{}\n", line("a"), line("b"));
        let torn = format!("{whole}{}", &line("c")[..40]);
        let (_dir, path) = file_with(torn.as_bytes());
        assert_eq!(posts(&path), ["a", "b"]);
        let cut = repair_tail(&path).unwrap().unwrap();
        assert_eq!(cut, TornLine { line: 3, bytes: 40 });
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        assert_eq!(repair_tail(&path).unwrap(), None);
    }

    #[test]
    fn a_line_torn_inside_a_character_is_torn_not_an_error() {
        let whole = format!("{}\n", line("a"));
        let mut bytes = whole.clone().into_bytes();
        bytes.extend_from_slice(&"{\"post\":\"é".as_bytes()[..10]);
        let (_dir, path) = file_with(&bytes);
        assert_eq!(posts(&path), ["a"]);
        assert!(repair_tail(&path).unwrap().is_some());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    }

    #[test]
    fn a_whole_last_record_without_its_newline_is_kept_and_completed() {
        let (_dir, path) = file_with(format!("{}\n{}", line("a"), line("b")).as_bytes());
        assert_eq!(repair_tail(&path).unwrap(), None);
        let mut out = CallsAppender::open(&path).unwrap();
        let record: CallRecord = serde_json::from_str(&line("c")).unwrap();
        out.append(&record).unwrap();
        assert_eq!(posts(&path), ["a", "b", "c"]);
    }

    #[test]
    fn a_long_torn_line_and_trailing_blank_lines_are_found_from_the_end() {
        let long = "x".repeat(3 * TAIL_CHUNK as usize);
        let whole = format!("{}\n", line("a"));
        let (_dir, path) = file_with(format!("{whole}{long}\n\n  \n").as_bytes());
        assert_eq!(repair_tail(&path).unwrap().unwrap().line, 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        let (_dir, path) = file_with(long.as_bytes());
        assert_eq!(repair_tail(&path).unwrap().unwrap().line, 1);
        assert_eq!(std::fs::read(&path).unwrap(), b"");
    }

    #[test]
    fn a_bad_line_before_the_last_is_an_error_naming_it() {
        let (_dir, path) =
            file_with(format!("{}\nnot json\n{}\n", line("a"), line("b")).as_bytes());
        let err = for_each_call(&path, |_| {}).unwrap_err().to_string();
        assert!(err.contains("calls.jsonl:2: not a call record"), "{err}");
    }

    #[test]
    fn a_byte_order_mark_is_accepted_at_the_start_only() {
        let (_dir, path) = file_with(format!("\u{feff}{}\n", line("a")).as_bytes());
        assert_eq!(posts(&path), ["a"]);
        assert_eq!(repair_tail(&path).unwrap(), None);
        let (_dir, path) = file_with(format!("{}\n\u{feff}{}\n", line("a"), line("b")).as_bytes());
        assert!(repair_tail(&path).unwrap().is_some());
    }

    #[test]
    fn a_missing_or_empty_file_holds_no_calls() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        assert!(posts(&path).is_empty());
        assert_eq!(repair_tail(&path).unwrap(), None);
        std::fs::write(&path, "\n\n").unwrap();
        assert!(posts(&path).is_empty());
        assert_eq!(repair_tail(&path).unwrap(), None);
    }

    fn rec(post: &str, error: bool) -> CallRecord {
        let mut r: CallRecord = serde_json::from_str(&line(post)).unwrap();
        r.error = error.then(|| "boom".to_string());
        r
    }

    #[test]
    fn a_file_keeps_each_calls_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        let lines: Vec<String> = [
            rec("a", true),
            rec("b", false),
            rec("a", false),
            rec("b", true),
        ]
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
        std::fs::write(&path, lines.concat()).unwrap();
        let ok = latest_in(&path, |r| r.error.is_none()).unwrap();
        assert_eq!(ok.len(), 2);
        assert_eq!(
            ok.get(&("exact".to_string(), 1, "a".to_string())),
            Some(&true)
        );
        assert_eq!(
            ok.get(&("exact".to_string(), 1, "b".to_string())),
            Some(&false)
        );
    }
}
