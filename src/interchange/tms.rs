//! Glossaries out to translation-management systems, as the CSV each one's
//! glossary import reads (docs/formats.md, "Exporting to Crowdin and
//! Lokalise"); `glossa import` reads both layouts back:
//!
//! - `crowdin`: `Term [en]`, `Description [en]`, `Part of speech [en]`,
//!   `Term [xx]`, `Description [xx]`; the sense is the source's
//!   description (a part of speech glossa keeps inside the sense, so the
//!   part-of-speech column stays empty);
//! - `lokalise`: `term`, `description`, `case_sensitive`, `translatable`,
//!   `forbidden`, `tags`, `translation_xx`, `description_xx`; the sense is
//!   the description, `keep` is `translatable` no.
//!
//! One row an entry. What the layout has no place for is summed up in one
//! note ([`TmsFile::notes`]).

use crate::error::InputError;
use crate::glossary::{Entry, Glossary};
use crate::language;

/// A translation-management system whose glossary CSV glossa writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tms {
    /// Crowdin glossary CSV.
    Crowdin,
    /// Lokalise glossary CSV.
    Lokalise,
}

impl Tms {
    pub const ALL: [Tms; 2] = [Tms::Crowdin, Tms::Lokalise];

    /// The word `--to` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Tms::Crowdin => "crowdin",
            Tms::Lokalise => "lokalise",
        }
    }

    /// The system's name for people.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Tms::Crowdin => "Crowdin",
            Tms::Lokalise => "Lokalise",
        }
    }

    /// The header row for these languages.
    fn header(self, source: &str, target: &str) -> Vec<String> {
        match self {
            Tms::Crowdin => vec![
                format!("Term [{source}]"),
                format!("Description [{source}]"),
                format!("Part of speech [{source}]"),
                format!("Term [{target}]"),
                format!("Description [{target}]"),
            ],
            Tms::Lokalise => [
                "term",
                "description",
                "case_sensitive",
                "translatable",
                "forbidden",
                "tags",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([
                format!("translation_{target}"),
                format!("description_{target}"),
            ])
            .collect(),
        }
    }

    /// One entry's row, in the header's order.
    fn row(self, e: &Entry) -> Vec<String> {
        let sense = e.sense.clone().unwrap_or_default();
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        match self {
            Tms::Crowdin => vec![
                e.source.clone(),
                sense,
                String::new(),
                e.target.clone(),
                String::new(),
            ],
            Tms::Lokalise => {
                // A kept term (its target is its source) has no translation
                // in Lokalise, as `Acme` in the import sample.
                let target = match e.keep {
                    true => String::new(),
                    false => e.target.clone(),
                };
                vec![
                    e.source.clone(),
                    sense,
                    yes_no(e.case_sensitive),
                    yes_no(!e.keep),
                    "no".into(),
                    String::new(),
                    target,
                    String::new(),
                ]
            }
        }
    }
}

/// A system's glossary file, ready to write.
#[derive(Debug, Clone)]
pub struct TmsFile {
    pub tms: Tms,
    pub text: String,
    /// What the file does not carry, for one note.
    pub notes: Vec<String>,
}

/// A glossary as `tms`'s glossary CSV. Refused when the glossary has no
/// target language: both layouts name it in their header.
pub fn export_tms(g: &Glossary, tms: Tms) -> Result<TmsFile, InputError> {
    if g.target_lang == language::MISSING_TARGET || g.target_lang.trim().is_empty() {
        return Err(InputError::file(
            &g.path,
            format!(
                "the glossary has no target language, and the {} glossary CSV names it in its \
                 header; give it: glossa export {} --to {} --target-lang CODE (e.g. --target-lang fr)",
                tms.title(),
                g.path,
                tms.name()
            ),
        ));
    }
    let mut w = csv::WriterBuilder::new()
        .quote_style(match tms {
            Tms::Crowdin => csv::QuoteStyle::Always,
            Tms::Lokalise => csv::QuoteStyle::Necessary,
        })
        .from_writer(Vec::new());
    w.write_record(tms.header(&g.source_lang, &g.target_lang))
        .expect("write to memory");
    for e in &g.entries {
        w.write_record(tms.row(e)).expect("write to memory");
    }
    let text = String::from_utf8(w.into_inner().expect("flush to memory")).expect("UTF-8 cells");
    Ok(TmsFile {
        tms,
        text,
        notes: notes(g, tms),
    })
}

/// What `tms`'s layout has no place for, in one note; for Lokalise, whose
/// `term` column names no language, the source language when it is not
/// the English `glossa import` assumes.
fn notes(g: &Glossary, tms: Tms) -> Vec<String> {
    let count = |has: &dyn Fn(&Entry) -> bool| g.entries.iter().filter(|e| has(e)).count();
    let mut lost = Vec::new();
    let mut add = |n: usize, what: &str| {
        if n > 0 {
            lost.push(format!("{what} ({})", entries(n)));
        }
    };
    add(count(&|e| !e.aliases.is_empty()), "aliases");
    add(count(&|e| !e.forms.is_empty()), "forms beyond the target");
    add(
        count(&|e| {
            e.context
                .as_ref()
                .is_some_and(|c| !c.any.is_empty() || !c.not.is_empty())
        }),
        "context",
    );
    add(count(&|e| !e.forbidden.is_empty()), "forbidden terms");
    if tms == Tms::Crowdin {
        add(count(&|e| e.case_sensitive), "case_sensitive");
        add(count(&|e| e.keep), "keep (the target is written)");
    }
    add(count(&|e| e.id != e.source), "ids");
    let mut notes = Vec::new();
    if !lost.is_empty() {
        notes.push(format!(
            "the {} glossary CSV does not carry: {}; keep the JSON glossary for them",
            tms.title(),
            lost.join(", ")
        ));
    }
    // Two entries with one source (told apart by their ids) are two rows
    // with the same term: the file has no id column to keep them apart.
    let mut seen = std::collections::HashSet::new();
    let twice: Vec<&str> = g
        .entries
        .iter()
        .filter(|e| !seen.insert(e.source.as_str()))
        .map(|e| e.source.as_str())
        .collect();
    if let Some(first) = twice.first() {
        notes.push(format!(
            "{} {} written twice (`{first}`{}): the file has no id column to tell the entries \
             apart, and `glossa import` of it refuses the second row",
            twice.len(),
            if twice.len() == 1 {
                "source"
            } else {
                "sources"
            },
            match twice.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            }
        ));
    }
    if tms == Tms::Lokalise && !g.source_lang.eq_ignore_ascii_case("en") {
        notes.push(format!(
            "Lokalise's `term` column names no language: the terms are in {} (the project's base \
             language); `glossa import` of the file needs --source-lang {}",
            g.source_lang, g.source_lang
        ));
    }
    notes
}

fn entries(n: usize) -> String {
    format!("{n} {}", if n == 1 { "entry" } else { "entries" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glossary(json: &str) -> Glossary {
        Glossary::parse("g.json", "g", json).expect("a valid glossary")
    }

    #[test]
    fn cells_are_quoted_and_flags_written_as_the_layouts_want() {
        let g = glossary(
            r#"{"source_lang": "en", "target_lang": "km", "entries": [
                {"source": "price, per kg", "target": "តម្លៃ", "sense": "on a \"label\""},
                {"source": "Acme", "keep": true, "case_sensitive": true}]}"#,
        );
        let crowdin = export_tms(&g, Tms::Crowdin).unwrap().text;
        let lines: Vec<&str> = crowdin.lines().collect();
        assert_eq!(lines[1], r#""price, per kg","on a ""label""","","តម្លៃ","""#);
        assert_eq!(lines[2], r#""Acme","","","Acme","""#);
        let lokalise = export_tms(&g, Tms::Lokalise).unwrap().text;
        let lines: Vec<&str> = lokalise.lines().collect();
        assert_eq!(
            lines[1],
            r#""price, per kg","on a ""label""",no,yes,no,,តម្លៃ,"#
        );
        assert_eq!(lines[2], "Acme,,yes,no,no,,,");
    }

    #[test]
    fn one_source_twice_is_named_once() {
        let g = glossary(
            r#"{"source_lang": "en", "target_lang": "fr", "entries": [
                {"id": "date-fruit", "source": "date", "target": "datte"},
                {"id": "date-day", "source": "date", "target": "date"}]}"#,
        );
        let notes = export_tms(&g, Tms::Crowdin).unwrap().notes;
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("ids (2 entries)"), "{notes:?}");
        assert!(
            notes[1].starts_with("1 source written twice (`date`)"),
            "{notes:?}"
        );
    }
}
