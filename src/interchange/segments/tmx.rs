//! TMX 1.4b (and 1.1's `lang`): each `<tu>` with a source and a target
//! `<tuv>` is one segment (docs/formats.md, "Translations to check").

use super::xml::{local, Ev, Inline, Xml};
use super::{lang_matches, Options, Segment, Segments};
use crate::error::InputError;
use std::path::Path;

/// Inline codes whose content is markup, not text (`<sub>` sits inside
/// them); `<hi>` keeps its text.
const DROP: &[&str] = &["bpt", "ept", "ph", "it", "ut"];

/// Most other languages named in the error about a unit with several.
const MAX_LANGS_NAMED: usize = 16;

pub(super) fn open(path: &Path, options: &Options) -> Result<Segments, InputError> {
    Ok(Box::new(Tmx {
        xml: Xml::open(path)?,
        source_lang: options.source_lang.map(str::to_string),
        target_lang: options.target_lang.map(str::to_string),
        root_seen: false,
        ordinal: 0,
        tu: None,
        done: false,
    }))
}

struct Tmx {
    xml: Xml,
    source_lang: Option<String>,
    target_lang: Option<String>,
    root_seen: bool,
    ordinal: usize,
    tu: Option<Tu>,
    done: bool,
}

#[derive(Default)]
struct Tu {
    id: String,
    line: usize,
    lang: Option<String>,
    source: Option<String>,
    target: Option<(String, String)>,
    others: Vec<String>,
}

impl Iterator for Tmx {
    type Item = Result<Segment, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.step().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}

impl Tmx {
    fn step(&mut self) -> Result<Option<Segment>, InputError> {
        loop {
            let ev = self.xml.next()?;
            match ev {
                Ev::Eof => {
                    if !self.root_seen {
                        return Err(self.xml.error("no <tmx> element: not a TMX file"));
                    }
                    return Ok(None);
                }
                Ev::Start(tag) | Ev::Empty(tag) if !self.root_seen => {
                    if local(&tag.name) != "tmx" {
                        return Err(self.xml.error(format!(
                            "the root element is <{}>, not <tmx>: not a TMX file",
                            tag.name
                        )));
                    }
                    self.root_seen = true;
                }
                Ev::Start(tag) | Ev::Empty(tag)
                    if tag.name == "header" && self.source_lang.is_none() =>
                {
                    self.source_lang = tag
                        .attr("srclang")
                        .filter(|l| !l.eq_ignore_ascii_case("*all*") && !l.trim().is_empty())
                        .map(str::to_string);
                }
                Ev::Start(tag) if tag.name == "tu" => {
                    self.ordinal += 1;
                    self.tu = Some(Tu {
                        id: tag
                            .attr("tuid")
                            .filter(|id| !id.is_empty())
                            .map_or_else(|| self.ordinal.to_string(), str::to_string),
                        line: self.xml.line,
                        ..Tu::default()
                    });
                }
                Ev::Start(tag) if tag.name == "tuv" => {
                    if let Some(tu) = &mut self.tu {
                        tu.lang = tag
                            .attr("xml:lang")
                            .or_else(|| tag.attr("lang"))
                            .map(str::to_string);
                        if tu.lang.is_none() {
                            return Err(self.xml.error("a <tuv> without xml:lang"));
                        }
                    }
                }
                Ev::Start(tag) if tag.name == "seg" && self.tu.is_some() => {
                    let mut seg = Inline::new(DROP);
                    while !seg.feed(self.xml.next()?, &self.xml)? {}
                    self.variant(seg.text)?;
                }
                Ev::End(name) if name == "tuv" => {
                    if let Some(tu) = &mut self.tu {
                        tu.lang = None;
                    }
                }
                Ev::End(name) if name == "tu" => {
                    if let Some(segment) = self.finish()? {
                        return Ok(Some(segment));
                    }
                }
                _ => {}
            }
        }
    }

    /// The text of one `<tuv>`: the source, the target or another language.
    fn variant(&mut self, text: String) -> Result<(), InputError> {
        let Some(source_lang) = &self.source_lang else {
            return Err(self.xml.error(
                "no source language: the <header> has no srclang (or `*all*`); give the source \
                 language",
            ));
        };
        let tu = self.tu.as_mut().expect("inside a <tu>");
        let Some(lang) = tu.lang.clone() else {
            return Ok(());
        };
        if lang_matches(&lang, source_lang) {
            if tu.source.is_none() {
                tu.source = Some(text);
            }
            return Ok(());
        }
        match &self.target_lang {
            Some(wanted) => {
                if lang_matches(&lang, wanted) && tu.target.is_none() {
                    tu.target = Some((lang, text));
                }
            }
            None => match &tu.target {
                None => tu.target = Some((lang, text)),
                Some((first, _)) => {
                    if !lang_matches(first, &lang)
                        && !tu.others.iter().any(|o| lang_matches(o, &lang))
                        && tu.others.len() < MAX_LANGS_NAMED
                    {
                        tu.others.push(lang);
                    }
                }
            },
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Option<Segment>, InputError> {
        let Some(tu) = self.tu.take() else {
            return Ok(None);
        };
        if !tu.others.is_empty() {
            let first = tu.target.as_ref().map_or("", |(l, _)| l.as_str());
            return Err(InputError::at_line(
                &self.xml.path,
                tu.line,
                format!(
                    "<tu> {} has translations in several languages ({first}, {}); say which \
                     one is the target language (`glossa check --target-lang LANG`)",
                    tu.id,
                    tu.others.join(", ")
                ),
            ));
        }
        Ok(match (tu.source, tu.target) {
            (Some(source), Some((_, target))) if !target.trim().is_empty() => Some(Segment {
                id: tu.id,
                source,
                target,
                line: tu.line,
            }),
            _ => None,
        })
    }
}
