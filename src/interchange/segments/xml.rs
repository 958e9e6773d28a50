//! What the XML readers (TMX, XLIFF) share: the file decoded to UTF-8, a
//! flat event stream (quick-xml never recurses) with the line of each
//! event, the safety rules, and inline markup collected as text.
//!
//! Safety: no DTD is read or fetched; a DOCTYPE that declares entities is
//! refused, and a reference to any entity other than the five XML ones and
//! character references is an error (so "billion laughs" cannot expand).
//! Elements nest at most [`MAX_XML_DEPTH`] deep; one piece of markup or
//! text (a tag, a text run, a comment) is at most [`MAX_EVENT_BYTES`].

use super::text::{open_decoded, Decoded};
use crate::error::InputError;
use crate::interchange::MAX_XML_DEPTH;
use quick_xml::events::Event;
use std::io::{self, BufRead};
use std::path::Path;

/// Longest single piece of markup or text read: four times a segment's
/// limit, so a segment's text with its escapes fits; a 1 GB text node
/// fails here instead of being read whole.
pub(super) const MAX_EVENT_BYTES: usize = 4 * super::MAX_SEGMENT_BYTES;

/// The start of a text, as UTF-8, for telling formats apart: UTF-16 (with
/// or without a mark) is converted, bad bytes replaced.
pub(super) fn sniff_text(first: &[u8]) -> String {
    let encoding = encoding_rs::Encoding::for_bom(first)
        .map(|(e, _)| e)
        .or_else(|| utf16_without_bom(first))
        .unwrap_or(encoding_rs::UTF_8);
    encoding.decode_with_bom_removal(first).0.into_owned()
}

/// UTF-16 without a byte-order mark, told by `<` as its first character
/// (XML 1.0 appendix F).
fn utf16_without_bom(first: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    match first {
        [b'<', 0, ..] => Some(encoding_rs::UTF_16LE),
        [0, b'<', ..] => Some(encoding_rs::UTF_16BE),
        _ => None,
    }
}

/// The encoding an XML declaration names, when it is not UTF-8 (and the
/// file has no byte-order mark, which wins).
fn declared_encoding(first: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    if let Some(e) = utf16_without_bom(first) {
        return Some(e);
    }
    let head = first.strip_prefix(b"<?xml")?;
    let end = memchr::memmem::find(head, b"?>")?;
    let decl = std::str::from_utf8(&head[..end]).ok()?;
    let at = decl.find("encoding")? + "encoding".len();
    let rest = decl[at..].trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|q| matches!(q, '"' | '\''))?;
    let label = rest[1..].split(quote).next()?;
    match encoding_rs::Encoding::for_label(label.as_bytes()) {
        // A UTF-16 label on a file that is not UTF-16 (no mark, no `<\0`):
        // the file was converted without updating its declaration.
        Some(e) if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => None,
        other => other,
    }
}

/// A reader that counts the lines it hands out and refuses one event
/// longer than [`MAX_EVENT_BYTES`] (quick-xml reads an event whole).
struct Counted {
    inner: Decoded,
    newlines: usize,
    run: usize,
}

impl io::Read for Counted {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Counted {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.run > MAX_EVENT_BYTES {
            return Err(io::Error::other(format!(
                "a tag, text or comment longer than {}",
                crate::limits::show_bytes(MAX_EVENT_BYTES)
            )));
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            let taken = &buf[..amt.min(buf.len())];
            self.newlines += memchr::memchr_iter(b'\n', taken).count();
        }
        self.run += amt;
        self.inner.consume(amt);
    }
}

/// An element's name and attributes (names as written, `xml:lang`).
#[derive(Debug)]
pub(super) struct Tag {
    pub(crate) name: String,
    attrs: Vec<(String, String)>,
}

impl Tag {
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One event of the stream, owned.
#[derive(Debug)]
pub(super) enum Ev {
    Start(Tag),
    Empty(Tag),
    End(String),
    Text(String),
    Eof,
}

/// A flat stream of XML events with their lines.
pub(super) struct Xml {
    reader: quick_xml::Reader<Counted>,
    buf: Vec<u8>,
    pub(crate) path: String,
    depth: usize,
    /// The line the last event started on.
    pub(crate) line: usize,
}

impl Xml {
    pub(crate) fn open(path: &Path) -> Result<Xml, InputError> {
        let decoded = open_decoded(path, declared_encoding)?;
        let mut reader = quick_xml::Reader::from_reader(Counted {
            inner: decoded,
            newlines: 0,
            run: 0,
        });
        let config = reader.config_mut();
        config.check_end_names = true;
        config.expand_empty_elements = false;
        Ok(Xml {
            reader,
            buf: Vec::with_capacity(8 << 10),
            path: path.display().to_string(),
            depth: 0,
            line: 1,
        })
    }

    pub(crate) fn error(&self, message: impl Into<String>) -> InputError {
        InputError::at_line(&self.path, self.line, message)
    }

    /// The next event that matters (comments, processing instructions and
    /// the declaration are skipped).
    pub(crate) fn next(&mut self) -> Result<Ev, InputError> {
        loop {
            self.buf.clear();
            let counted = self.reader.get_mut();
            counted.run = 0;
            self.line = counted.newlines + 1;
            let event = match self.reader.read_event_into(&mut self.buf) {
                Ok(event) => event,
                Err(e) => return Err(self.xml_error(e)),
            };
            let ev = match event {
                Event::Start(start) => {
                    self.depth += 1;
                    if self.depth > MAX_XML_DEPTH {
                        return Err(self.error(format!(
                            "elements nested more than {MAX_XML_DEPTH} deep; translation files \
                             nest about ten deep"
                        )));
                    }
                    Ev::Start(tag(&start).map_err(|m| self.error(m))?)
                }
                Event::Empty(start) => Ev::Empty(tag(&start).map_err(|m| self.error(m))?),
                Event::End(end) => {
                    self.depth = self.depth.saturating_sub(1);
                    Ev::End(end.name().as_ref().to_string())
                }
                Event::Text(text) => Ev::Text(text.xml10_content().into_owned()),
                Event::CData(text) => Ev::Text(text.xml10_content().into_owned()),
                Event::GeneralRef(r) => match r.resolve_char_ref() {
                    Ok(Some(c)) => Ev::Text(c.to_string()),
                    Ok(None) => match quick_xml::escape::resolve_predefined_entity(&r) {
                        Some(s) => Ev::Text(s.to_string()),
                        None => {
                            let name = r.to_string();
                            return Err(self.error(format!(
                                "unknown entity &{name}; (glossa expands only &lt; &gt; &amp; \
                                 &apos; &quot; and character references, never a DTD's entities)"
                            )));
                        }
                    },
                    Err(e) => return Err(self.error(format!("bad character reference: {e}"))),
                },
                Event::DocType(doctype) => {
                    if doctype.contains("<!ENTITY") {
                        return Err(self.error(
                            "the DOCTYPE declares entities; glossa never expands them (they can \
                             blow up to gigabytes): remove the <!ENTITY …> declarations",
                        ));
                    }
                    continue;
                }
                Event::Comment(_) | Event::PI(_) | Event::Decl(_) => continue,
                Event::Eof => {
                    if self.depth > 0 {
                        return Err(self.error("the file ends inside an element (cut short?)"));
                    }
                    Ev::Eof
                }
            };
            return Ok(ev);
        }
    }

    fn xml_error(&mut self, e: quick_xml::Error) -> InputError {
        // The error is found at the end of what was read: count its lines.
        let counted = self.reader.get_ref();
        let line = counted.newlines + 1;
        let message = match &e {
            quick_xml::Error::Io(io) => io.to_string(),
            quick_xml::Error::Encoding(enc) => {
                format!("not UTF-8 text ({enc}); save the file as UTF-8 or UTF-16 with a byte-order mark")
            }
            other => format!("not well-formed XML: {other}"),
        };
        // A bad byte inside a long event: name its own line.
        let line = match &e {
            quick_xml::Error::Encoding(_) => {
                let good = match std::str::from_utf8(&self.buf) {
                    Ok(_) => self.buf.len(),
                    Err(u) => u.valid_up_to(),
                };
                self.line + memchr::memchr_iter(b'\n', &self.buf[..good]).count()
            }
            _ => line,
        };
        InputError::at_line(&self.path, line, message)
    }
}

fn tag(start: &quick_xml::events::BytesStart) -> Result<Tag, String> {
    let name = start.name().as_ref().to_string();
    let mut attrs = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(|e| format!("bad attribute in <{name}>: {e}"))?;
        let key = attr.key.as_ref().to_string();
        let value = attr
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|e| format!("bad attribute {key} in <{name}>: {e}"))?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Tag { name, attrs })
}

/// The text of one element (a TMX `<seg>`, an XLIFF `<source>`): text of
/// the elements not in `drop` is kept, markup and the content of `drop`
/// elements (placeholders, paired tag codes) are not.
pub(super) struct Inline {
    drop: &'static [&'static str],
    open: usize,
    skip_at: Option<usize>,
    pub(crate) text: String,
}

impl Inline {
    pub(crate) fn new(drop: &'static [&'static str]) -> Self {
        Inline {
            drop,
            open: 0,
            skip_at: None,
            text: String::new(),
        }
    }

    /// Feed one event; `Ok(true)` when it closed the element itself.
    pub(crate) fn feed(&mut self, ev: Ev, xml: &Xml) -> Result<bool, InputError> {
        match ev {
            Ev::Start(tag) => {
                self.open += 1;
                if self.skip_at.is_none() && self.drop.contains(&local(&tag.name)) {
                    self.skip_at = Some(self.open);
                }
            }
            Ev::Empty(_) => {}
            Ev::End(_) => {
                if self.open == 0 {
                    return Ok(true);
                }
                if self.skip_at == Some(self.open) {
                    self.skip_at = None;
                }
                self.open -= 1;
            }
            Ev::Text(text) => {
                if self.skip_at.is_none() {
                    if self.text.len() + text.len() > super::MAX_SEGMENT_BYTES {
                        return Err(super::too_long(&xml.path, xml.line, "a segment's text"));
                    }
                    self.text.push_str(&text);
                }
            }
            Ev::Eof => return Err(xml.error("the file ends inside a segment (cut short?)")),
        }
        Ok(false)
    }
}

/// An element's name without its namespace prefix.
pub(super) fn local(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn declarations_name_encodings_and_odd_ones_are_ignored() {
        let d = |s: &str| super::declared_encoding(s.as_bytes()).map(|e| e.name());
        assert_eq!(
            d("<?xml version=\"1.0\" encoding='ISO-8859-1'?>"),
            Some("windows-1252")
        );
        assert_eq!(
            d("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>"),
            Some("Shift_JIS")
        );
        assert_eq!(d("<?xml version=\"1.0\" encoding=\"UTF-16\"?><tmx/>"), None);
        assert_eq!(d("<?xml version=\"1.0\" encoding=éUTF-8é?>"), None);
        assert_eq!(d("<?xml version=\"1.0\" encoding=\"no-such\"?>"), None);
        assert_eq!(d("<tmx/>"), None);
    }
}
