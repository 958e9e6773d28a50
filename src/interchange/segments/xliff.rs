//! XLIFF 1.2 (and 1.0/1.1) and XLIFF 2.x: each translated `<trans-unit>`
//! (1.x) or `<segment>` (2.x) is one segment (docs/formats.md,
//! "Translations to check").

use super::xml::{local, Ev, Inline, Xml};
use super::{lang_matches, Options, Segment, Segments};
use crate::error::InputError;
use std::collections::VecDeque;
use std::path::Path;

/// XLIFF 1.2 inline codes whose content is markup (`<g>` and `<mrk>` keep
/// their text; `<sub>` sits inside these).
const DROP_1: &[&str] = &["x", "bx", "ex", "ph", "bpt", "ept", "it"];
/// XLIFF 2.x: placeholders, code spans' start and end, code points
/// (`<pc>` and `<mrk>` keep their text; `<sm/>`, `<em/>` are empty).
const DROP_2: &[&str] = &["ph", "sc", "ec", "cp"];

/// Most text held for the segments of one XLIFF 2 `<unit>` before they are
/// numbered (a unit's ids depend on how many segments it has).
const MAX_UNIT_BYTES: usize = 16 * super::MAX_SEGMENT_BYTES;

pub(super) fn open(path: &Path, options: &Options) -> Result<Segments, InputError> {
    Ok(Box::new(Xliff {
        xml: Xml::open(path)?,
        source_lang: options.source_lang.map(str::to_string),
        target_lang: options.target_lang.map(str::to_string),
        version: None,
        files: 0,
        prefix: String::new(),
        unit: None,
        alt_trans: 0,
        ignorable: false,
        segment: None,
        ready: VecDeque::new(),
        done: false,
    }))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    One,
    Two,
}

struct Xliff {
    xml: Xml,
    source_lang: Option<String>,
    target_lang: Option<String>,
    version: Option<Version>,
    files: usize,
    /// `original/` (1.x) or `id/` (2.x) of the second and later `<file>`s.
    prefix: String,
    unit: Option<Unit>,
    /// Depth inside `<alt-trans>` (1.x: other translations, not checked).
    alt_trans: usize,
    /// Inside an `<ignorable>` (2.x).
    ignorable: bool,
    /// The `<segment>` being read (2.x).
    segment: Option<Part>,
    ready: VecDeque<Segment>,
    done: bool,
}

struct Unit {
    id: String,
    line: usize,
    skip: bool,
    /// 1.x: the unit's source and target; 2.x: the segments read.
    part: Part,
    parts: Vec<Part>,
    bytes: usize,
}

#[derive(Default)]
struct Part {
    id: Option<String>,
    line: usize,
    source: Option<String>,
    target: Option<String>,
    skip: bool,
}

impl Iterator for Xliff {
    type Item = Result<Segment, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(segment) = self.ready.pop_front() {
                return Some(Ok(segment));
            }
            if self.done {
                return None;
            }
            match self.step() {
                Ok(true) => {}
                Ok(false) => self.done = true,
                Err(e) => {
                    self.done = true;
                    self.ready.clear();
                    return Some(Err(e));
                }
            }
        }
    }
}

impl Xliff {
    /// Read events until segments are ready (`true`) or the file ends.
    fn step(&mut self) -> Result<bool, InputError> {
        loop {
            let ev = self.xml.next()?;
            match ev {
                Ev::Eof => {
                    if self.version.is_none() {
                        return Err(self.xml.error("no <xliff> element: not an XLIFF file"));
                    }
                    return Ok(false);
                }
                Ev::Start(tag) | Ev::Empty(tag) if self.version.is_none() => {
                    self.root(&tag)?;
                }
                Ev::Start(tag) => {
                    let name = local(&tag.name).to_string();
                    match (self.version, name.as_str()) {
                        (_, "file") => self.file(&tag)?,
                        (Some(Version::One), "alt-trans") => self.alt_trans += 1,
                        (Some(Version::One), "trans-unit") => {
                            self.unit = Some(Unit {
                                id: format!("{}{}", self.prefix, tag.attr("id").unwrap_or("")),
                                line: self.xml.line,
                                skip: tag.attr("translate") == Some("no")
                                    || tag.attr("approved") == Some("no")
                                    || tag.attr("restype") == Some("x-gettext-domain-header"),
                                part: Part::default(),
                                parts: Vec::new(),
                                bytes: 0,
                            });
                        }
                        (Some(Version::One), "source" | "target")
                            if self.alt_trans == 0 && self.unit.is_some() =>
                        {
                            let state = tag.attr("state").map(str::to_string);
                            let text = self.capture(DROP_1)?;
                            let unit = self.unit.as_mut().expect("inside a unit");
                            if name == "source" {
                                unit.part.source.get_or_insert(text);
                            } else {
                                if matches!(state.as_deref(), Some("new" | "needs-translation")) {
                                    unit.part.skip = true;
                                }
                                unit.part.target.get_or_insert(text);
                            }
                        }
                        (Some(Version::Two), "unit") => {
                            self.unit = Some(Unit {
                                id: format!("{}{}", self.prefix, tag.attr("id").unwrap_or("")),
                                line: self.xml.line,
                                skip: tag.attr("translate") == Some("no"),
                                part: Part::default(),
                                parts: Vec::new(),
                                bytes: 0,
                            });
                        }
                        (Some(Version::Two), "segment") if self.unit.is_some() => {
                            self.segment = Some(Part {
                                id: tag.attr("id").map(str::to_string),
                                line: self.xml.line,
                                ..Part::default()
                            });
                        }
                        (Some(Version::Two), "ignorable") => self.ignorable = true,
                        (Some(Version::Two), "source" | "target")
                            if self.segment.is_some() && !self.ignorable =>
                        {
                            let text = self.capture(DROP_2)?;
                            let part = self.segment.as_mut().expect("inside a segment");
                            if name == "source" {
                                part.source.get_or_insert(text);
                            } else {
                                part.target.get_or_insert(text);
                            }
                        }
                        _ => {}
                    }
                }
                Ev::Empty(tag) => {
                    // `<target/>`: an empty translation, skipped like a missing one.
                    if local(&tag.name) == "file" {
                        self.file(&tag)?;
                    }
                }
                Ev::End(name) => match (self.version, local(&name)) {
                    (Some(Version::One), "alt-trans") => {
                        self.alt_trans = self.alt_trans.saturating_sub(1)
                    }
                    (Some(Version::One), "trans-unit") => {
                        if let Some(unit) = self.unit.take() {
                            if !unit.skip && !unit.part.skip {
                                if let (Some(source), Some(target)) =
                                    (unit.part.source, unit.part.target)
                                {
                                    if !target.trim().is_empty() {
                                        self.ready.push_back(Segment {
                                            id: unit.id,
                                            source,
                                            target,
                                            line: unit.line,
                                        });
                                        return Ok(true);
                                    }
                                }
                            }
                        }
                    }
                    (Some(Version::Two), "ignorable") => self.ignorable = false,
                    (Some(Version::Two), "segment") => {
                        if let (Some(part), Some(unit)) = (self.segment.take(), &mut self.unit) {
                            unit.bytes += part.source.as_ref().map_or(0, String::len)
                                + part.target.as_ref().map_or(0, String::len);
                            if unit.bytes > MAX_UNIT_BYTES {
                                return Err(InputError::at_line(
                                    &self.xml.path,
                                    unit.line,
                                    format!(
                                        "<unit> {} holds more than {} of text",
                                        unit.id,
                                        crate::limits::show_bytes(MAX_UNIT_BYTES)
                                    ),
                                ));
                            }
                            unit.parts.push(part);
                        }
                    }
                    (Some(Version::Two), "unit") => {
                        if let Some(unit) = self.unit.take() {
                            if self.finish_unit(unit) {
                                return Ok(true);
                            }
                        }
                    }
                    _ => {}
                },
                Ev::Text(_) => {}
            }
        }
    }

    /// The text of the element just started, up to its end.
    fn capture(&mut self, drop: &'static [&'static str]) -> Result<String, InputError> {
        let mut inline = Inline::new(drop);
        while !inline.feed(self.xml.next()?, &self.xml)? {}
        Ok(inline.text)
    }

    /// XLIFF 2: a unit's translated segments, numbered `unit/segment` when
    /// it has several.
    fn finish_unit(&mut self, unit: Unit) -> bool {
        if unit.skip {
            return false;
        }
        let several = unit.parts.len() > 1;
        let before = self.ready.len();
        for (i, part) in unit.parts.into_iter().enumerate() {
            let (Some(source), Some(target)) = (part.source, part.target) else {
                continue;
            };
            if target.trim().is_empty() {
                continue;
            }
            let id = if several {
                let seg = part.id.unwrap_or_else(|| (i + 1).to_string());
                format!("{}/{seg}", unit.id)
            } else {
                unit.id.clone()
            };
            self.ready.push_back(Segment {
                id,
                source,
                target,
                line: part.line,
            });
        }
        self.ready.len() > before
    }

    fn root(&mut self, tag: &super::xml::Tag) -> Result<(), InputError> {
        if local(&tag.name) != "xliff" {
            return Err(self.xml.error(format!(
                "the root element is <{}>, not <xliff>: not an XLIFF file",
                tag.name
            )));
        }
        let version = tag.attr("version").unwrap_or("");
        let ns = tag.attr("xmlns").unwrap_or("");
        self.version = Some(if version.starts_with('2') || ns.ends_with(":2.0") {
            Version::Two
        } else if version.starts_with('1') || ns.contains("xliff:document:1") {
            Version::One
        } else {
            return Err(self.xml.error(format!(
                "XLIFF version `{version}` is not read; glossa reads XLIFF 1.0-1.2 and 2.x"
            )));
        });
        if self.version == Some(Version::Two) {
            self.languages(tag.attr("srcLang"), tag.attr("trgLang"))?;
        }
        Ok(())
    }

    fn file(&mut self, tag: &super::xml::Tag) -> Result<(), InputError> {
        self.files += 1;
        let name = match self.version {
            Some(Version::One) => tag.attr("original"),
            _ => tag.attr("id"),
        };
        self.prefix = if self.files > 1 {
            format!(
                "{}/",
                name.map_or_else(|| format!("file{}", self.files), str::to_string)
            )
        } else {
            String::new()
        };
        if self.version == Some(Version::One) {
            self.languages(tag.attr("source-language"), tag.attr("target-language"))?;
        }
        Ok(())
    }

    /// The languages a file declares must be the ones asked for, if any.
    fn languages(&self, source: Option<&str>, target: Option<&str>) -> Result<(), InputError> {
        for (declared, wanted, what) in [
            (source, &self.source_lang, "source"),
            (target, &self.target_lang, "target"),
        ] {
            if let (Some(declared), Some(wanted)) = (declared, wanted) {
                if !declared.is_empty() && !lang_matches(declared, wanted) {
                    return Err(self.xml.error(format!(
                        "the file's {what} language is `{declared}`, not `{wanted}` as asked"
                    )));
                }
            }
        }
        Ok(())
    }
}
