//! gettext PO: each translated entry is a segment, one per `msgstr[n]` of
//! a plural (docs/formats.md, "Translations to check").

use super::text::{open_decoded, Lines};
use super::{too_long, Segment, Segments, MAX_SEGMENT_BYTES};
use crate::error::InputError;
use std::collections::VecDeque;
use std::path::Path;

pub(super) fn open(path: &Path) -> Result<Segments, InputError> {
    let reader = open_decoded(path, |_| None)?;
    let shown = path.display().to_string();
    Ok(Box::new(Po {
        // A line holds a keyword and one quoted string at most.
        lines: Lines::new(&shown, reader, 4 * MAX_SEGMENT_BYTES),
        entry: Entry::default(),
        field: None,
        ready: VecDeque::new(),
        done: false,
    }))
}

struct Po {
    lines: Lines,
    entry: Entry,
    /// Which string continuation lines (`"…"`) extend.
    field: Option<Field>,
    ready: VecDeque<Segment>,
    done: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Context,
    Id,
    Plural,
    Str(usize),
}

#[derive(Default)]
struct Entry {
    context: Option<String>,
    id: Option<String>,
    plural: Option<String>,
    strs: Vec<(usize, String)>,
    fuzzy: bool,
    line: usize,
    /// Anything was read since the last entry (comments included).
    started: bool,
}

impl Iterator for Po {
    type Item = Result<Segment, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(segment) = self.ready.pop_front() {
                return Some(Ok(segment));
            }
            if self.done {
                return None;
            }
            if let Err(e) = self.step() {
                self.done = true;
                self.ready.clear();
                return Some(Err(e));
            }
        }
    }
}

impl Po {
    /// Read lines until an entry ends (or the file does).
    fn step(&mut self) -> Result<(), InputError> {
        loop {
            let Some(read) = self.lines.next() else {
                self.done = true;
                self.flush();
                return Ok(());
            };
            let (line, text) = read?;
            let text = text.trim();
            if text.is_empty() {
                if self.flush() {
                    return Ok(());
                }
                continue;
            }
            if let Some(comment) = text.strip_prefix('#') {
                // A comment after a msgstr starts the next entry.
                let ended = !self.entry.strs.is_empty() && self.flush();
                self.field = None;
                self.entry.started = true;
                if let Some(flags) = comment.strip_prefix(',') {
                    if flags.split(',').any(|f| f.trim() == "fuzzy") {
                        self.entry.fuzzy = true;
                    }
                }
                // `#~` obsolete entries, `#|` previous strings, `#.` `#:` notes.
                if ended {
                    return Ok(());
                }
                continue;
            }
            if text.starts_with('"') {
                let Some(field) = self.field else {
                    return Err(self.error(line, "a string with no keyword before it"));
                };
                let s = unquote(text).map_err(|m| self.error(line, m))?;
                self.append(field, &s, line)?;
                continue;
            }
            let (keyword, rest) = text.split_once([' ', '\t']).ok_or_else(|| {
                self.error(line, format!("`{text}`: expected a keyword and a string"))
            })?;
            let field = match keyword {
                "msgctxt" => Field::Context,
                "msgid" => Field::Id,
                "msgid_plural" => Field::Plural,
                "msgstr" => Field::Str(0),
                k => match k
                    .strip_prefix("msgstr[")
                    .and_then(|n| n.strip_suffix(']'))
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    Some(n) if n < 100 => Field::Str(n),
                    _ => return Err(self.error(line, format!("unknown keyword `{k}`"))),
                },
            };
            // msgctxt or msgid after a msgstr: the next entry (no blank line).
            let mut ended = false;
            if matches!(field, Field::Context | Field::Id) && !self.entry.strs.is_empty() {
                ended = self.flush();
            }
            if field == Field::Id {
                self.entry.line = line;
            }
            if field == Field::Context && self.entry.line == 0 {
                self.entry.line = line;
            }
            self.entry.started = true;
            let s = unquote(rest.trim()).map_err(|m| self.error(line, m))?;
            match field {
                Field::Context => self.entry.context = Some(String::new()),
                Field::Id => self.entry.id = Some(String::new()),
                Field::Plural => self.entry.plural = Some(String::new()),
                Field::Str(n) => self.entry.strs.push((n, String::new())),
            }
            self.field = Some(field);
            self.append(field, &s, line)?;
            if ended {
                return Ok(());
            }
        }
    }

    fn error(&self, line: usize, message: impl Into<String>) -> InputError {
        InputError::at_line(self.lines.path(), line, message)
    }

    fn append(&mut self, field: Field, s: &str, line: usize) -> Result<(), InputError> {
        let e = &mut self.entry;
        let target = match field {
            Field::Context => e.context.as_mut(),
            Field::Id => e.id.as_mut(),
            Field::Plural => e.plural.as_mut(),
            Field::Str(_) => e.strs.last_mut().map(|(_, s)| s),
        }
        .expect("the field was started");
        if target.len() + s.len() > MAX_SEGMENT_BYTES {
            return Err(too_long(self.lines.path(), line, "a string"));
        }
        target.push_str(s);
        Ok(())
    }

    /// End the entry read so far: its segments go to `ready`. `true` when
    /// an entry (translated or not) ended.
    fn flush(&mut self) -> bool {
        let entry = std::mem::take(&mut self.entry);
        self.field = None;
        if !entry.started {
            return false;
        }
        let Some(id) = entry.id else {
            // Comments only (obsolete `#~` entries, a file's notes).
            return true;
        };
        // The header (empty msgid), fuzzy entries and untranslated ones
        // are not translations to check.
        if id.is_empty() || entry.fuzzy {
            return true;
        }
        let key = match &entry.context {
            Some(context) => format!("{context}\u{4}{id}"),
            None => id.clone(),
        };
        let plural = entry.plural;
        for (n, target) in entry.strs {
            if target.is_empty() {
                continue;
            }
            let (id, source) = match &plural {
                None => (key.clone(), id.clone()),
                Some(p) => (
                    format!("{key}[{n}]"),
                    if n == 0 { id.clone() } else { p.clone() },
                ),
            };
            self.ready.push_back(Segment {
                id,
                source,
                target,
                line: entry.line,
            });
        }
        true
    }
}

/// The text of one quoted PO string, its C escapes resolved.
fn unquote(text: &str) -> Result<String, String> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|_| text.len() >= 2)
        .ok_or_else(|| format!("`{text}`: expected a string in double quotes"))?;
    let mut out: Vec<u8> = Vec::with_capacity(inner.len());
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            return Err(format!(
                "`{text}`: a \" inside a string must be written \\\""
            ));
        }
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        let Some(&c) = bytes.get(i + 1) else {
            return Err(format!("`{text}`: the string ends with a lone \\"));
        };
        i += 2;
        out.push(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'\\' | b'"' | b'\'' | b'?' => c,
            b'0'..=b'7' => {
                // Up to three octal digits: one byte.
                let mut value = u32::from(c - b'0');
                let mut digits = 1;
                while digits < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    value = value * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    digits += 1;
                }
                u8::try_from(value).map_err(|_| format!("`{text}`: octal escape over \\377"))?
            }
            b'x' => {
                let start = i;
                while i < bytes.len() && i < start + 2 && bytes[i].is_ascii_hexdigit() {
                    i += 1;
                }
                if i == start {
                    return Err(format!("`{text}`: \\x without hex digits"));
                }
                u8::from_str_radix(&inner[start..i], 16).expect("hex digits")
            }
            other => {
                return Err(format!(
                    "`{text}`: unknown escape \\{}",
                    char::from(other).escape_default()
                ))
            }
        });
    }
    String::from_utf8(out)
        .map_err(|_| format!("`{text}`: its escapes make bytes that are not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_escapes_are_resolved() {
        assert_eq!(unquote(r#""a\n\t\"b\\""#).unwrap(), "a\n\t\"b\\");
        assert_eq!(unquote(r#""caf\303\251 \x41""#).unwrap(), "café A");
        assert!(unquote(r#""\q""#).unwrap_err().contains("unknown escape"));
        assert!(unquote(r#""a"b""#).is_err());
        assert!(unquote("\"").is_err());
        assert!(unquote(r#""\""#).is_err());
    }
}
