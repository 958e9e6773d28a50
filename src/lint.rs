//! `glossa lint`: problems in a glossary that make retrieval or the output
//! check go wrong, each with the entry's line and a suggestion.
//!
//! Checks (`check` in the output):
//! - `duplicate-key` (warning): two entries share a key (source or alias),
//!   as written or after stemming, so every post that names one gets both.
//! - `never-matches` (warning): a source or alias that is never looked up:
//!   a single lower-case stop word, or more than [`phrase::MAX_KEY_WORDS`]
//!   words. (Short words, numbers and punctuation are found as written.)
//! - `one-letter` (note): a key of one letter ("S", "C++"), which every lone
//!   letter retrieves, after an apostrophe too ("IBM's", "don't").
//! - `symbols-only` (note): a key with no letter or digit ("±", "&"),
//!   found only where no letter or digit touches it ("5 ± 2", not "5±2").
//! - `leading-article` (note): a multi-word key that starts with "the", "a"
//!   or "an", which posts often write otherwise ("our martial arts ...");
//!   the default finds it without the article only where two words that
//!   are not stop words follow it, and `exact` never does.
//! - `context-own-key` (warning): a `context` phrase that stems to the
//!   entry's own key or alias (`dated` for `date`); the sense filter then
//!   matches it only as written.
//! - `target-english` (warning): the target is also an English word, so the
//!   output check cannot tell a translation from English left as is.
//! - `ambiguous` (warning without `context`, note without `sense`): the
//!   source is a common ambiguous English word (`data/ambiguous-en.txt`).
//! - `nested` (note): an entry's key lies inside another's ("coffee" in
//!   "cold coffee"), so the longer phrase also retrieves the shorter entry.
//! - `redundant-alias` (note): an alias that stemming or split/joined
//!   matching already finds from the source or an earlier alias.
//! - `form` (warning for an empty form, note otherwise): an accepted form
//!   of the target that is empty, the target itself, or given twice (case
//!   ignored, as the output check ignores it).
//! - `case-no-letters` (warning): `case_sensitive` on a source with no
//!   letter ("±"), which has no case.
//! - `keep-common-word` (warning): `keep` on a source of lower-case common
//!   English words ("coffee"), likely a word to translate, not a name.
//! - `forbidden` (error): a forbidden term that is the entry's own target
//!   or one of its forms, or the target of another entry with the same
//!   source (a warning when either entry has a `context`, which may keep
//!   them apart); (warning) a glossary-wide forbidden word that is an
//!   entry's target or form. Compared case-insensitively, accents composed
//!   or not alike, as the output check compares.
//! - `misspelt-source` (note): in an English glossary, a source word that
//!   is not English but one slip (a letter left out, added or two swapped;
//!   two for words of eight letters or more) from an English word of the
//!   shipped list: "rasberry", did you mean "raspberry"? Posts spell it
//!   right and are not read as typos, so the entry would never be found.
//!   Sources with a capital, `keep` and `case_sensitive` entries are names
//!   and left alone.
//! - `language` (warning): `source_lang` or `target_lang` is not an ISO 639
//!   code (nor a locale such as `km_KH`, nor private use such as `x-cafe`);
//!   the suggestion is the code (`French` → `fr`, `Frnch` → `fr`).
//!
//! - `deepl-duplicate`, `deepl-characters`, `deepl-entry-size`,
//!   `deepl-file-size`, `amazon-term-size`, `amazon-file-size`,
//!   `google-size` (errors: the engine refuses the file) and
//!   `amazon-duplicate` (warning), and `engine-language` (error: the
//!   engine's header needs a target language), only with `--for ENGINE`
//!   ([`engine_findings`]; docs/formats.md, "Exporting to MT engines").
//!
//! [`suggest_aliases`] proposes synonyms from WordNet's plain data files,
//! restricted to the entry's sense; it never changes the glossary.

mod checks;
mod suggest;
pub mod wordnet;

pub(crate) use checks::Check;
pub use suggest::{suggest_aliases, AliasSuggestion, Suggestions, UnknownDomain, Unsure};

use crate::glossary::{Entry, Glossary};
use crate::phrase;
use crate::retrieve::{stem_word, Stems};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;
use wordnet::WordNet;

/// The shipped list of common ambiguous English words, with their senses.
const AMBIGUOUS_FILE: &str = include_str!("../data/ambiguous-en.txt");

/// How much a finding matters. Errors and warnings make `glossa lint`
/// exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    /// The glossary contradicts itself (asks for a word and forbids it).
    Error,
    Warning,
    Note,
}

/// One problem, at one entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Line of the entry in the glossary file (0 when not from a file).
    pub(crate) line: usize,
    /// The entry's id.
    pub(crate) entry: String,
    pub(crate) check: &'static str,
    pub(crate) severity: Severity,
    pub(crate) message: String,
    pub(crate) suggestion: String,
}

/// `glossa lint --for ENGINE`: what `glossa export --to ENGINE` would write
/// that the engine refuses (an error) or reads otherwise than the glossary
/// means (a warning). A glossary without the target language the engine's
/// header names is an `engine-language` error, and the rest is checked as
/// if it had one.
pub fn engine_findings(
    glossary: &Glossary,
    engine: crate::interchange::Engine,
) -> Result<Vec<Finding>, crate::error::InputError> {
    let mut findings = Vec::new();
    let missing = glossary.target_lang == crate::language::MISSING_TARGET;
    let stand_in;
    let glossary = if missing && engine.has_header() {
        findings.push(Finding {
            line: 0,
            entry: String::new(),
            check: "engine-language",
            severity: Severity::Error,
            message: format!(
                "the glossary has no target language, which the {} file names in its header",
                engine.name()
            ),
            suggestion: format!(
                "add \"target_lang\" to the glossary, or export with --to {} --target-lang CODE",
                engine.name()
            ),
        });
        let mut with_target = glossary.clone();
        with_target.target_lang = "und".into();
        stand_in = with_target;
        &stand_in
    } else {
        glossary
    };
    let file = crate::interchange::export_engine(glossary, engine)?;
    findings.extend(
        crate::interchange::engine_limits(&file)
            .into_iter()
            .map(|i| Finding {
                line: i.line,
                entry: i.entry,
                check: i.check,
                severity: if i.refused {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                message: i.message,
                suggestion: i.suggestion,
            }),
    );
    Ok(findings)
}

/// The shipped ambiguous words: `(word, senses)`.
pub(crate) fn ambiguous_words() -> Vec<(&'static str, &'static str)> {
    AMBIGUOUS_FILE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(':') {
            Some((w, senses)) => (w.trim(), senses.trim()),
            None => (l, ""),
        })
        .collect()
}

/// A word of the shipped ambiguous list, with its senses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Ambiguous {
    pub(crate) word: &'static str,
    pub(crate) senses: &'static str,
}

/// The shipped ambiguous words by their stem, made once: what the
/// `ambiguous` check looks keys up in.
fn ambiguous_by_stem() -> &'static HashMap<String, Ambiguous> {
    static BY_STEM: OnceLock<HashMap<String, Ambiguous>> = OnceLock::new();
    BY_STEM.get_or_init(|| {
        ambiguous_words()
            .into_iter()
            .map(|(word, senses)| (stem_word(word), Ambiguous { word, senses }))
            .collect()
    })
}

/// The listed ambiguous word that one of `entry`'s one-word keys (source
/// or alias) stems like: what `glossa lint` reports as `ambiguous`, and
/// what `translate` and the page warn about where the entry is used.
pub(crate) fn listed_ambiguous(entry: &Entry) -> Option<Ambiguous> {
    std::iter::once(&entry.key)
        .chain(&entry.alias_keys)
        .filter(|k| !k.is_empty() && !k.contains(' '))
        .find_map(|k| ambiguous_by_stem().get(&stem_word(k)).copied())
}

/// Which words count as English for `target-english`.
pub struct English<'a> {
    words: HashSet<String>,
    wordnet: Option<&'a WordNet>,
    /// What the word list was made of, for the report.
    pub sources: Vec<String>,
}

impl<'a> English<'a> {
    /// Stop words, the ambiguous-word list and the glossary's own source
    /// words always; WordNet's common words when given; and the system
    /// word list `/usr/share/dict/words` when it exists.
    pub fn new(glossary: &Glossary, wordnet: Option<&'a WordNet>) -> English<'a> {
        let mut words: HashSet<String> = ambiguous_words()
            .into_iter()
            .map(|(w, _)| w.to_string())
            .collect();
        for e in &glossary.entries {
            words.extend(e.key.split(' ').map(str::to_string));
        }
        let mut sources = vec![
            "stop words".to_string(),
            "ambiguous-word list".to_string(),
            "the glossary's source words".to_string(),
        ];
        if let Some(wn) = wordnet {
            sources.push(format!(
                "WordNet's words in common use ({})",
                wn.dir.display()
            ));
        }
        let dict = Path::new("/usr/share/dict/words");
        if let Ok(text) = std::fs::read_to_string(dict) {
            words.extend(
                text.lines()
                    .filter(|w| w.chars().all(|c| c.is_lowercase()))
                    .map(str::to_string),
            );
            sources.push(dict.display().to_string());
        }
        English {
            words,
            wordnet,
            sources,
        }
    }

    fn is_word(&self, word: &str) -> bool {
        phrase::is_stopword(word)
            || self.words.contains(word)
            || self.wordnet.is_some_and(|wn| wn.is_common_word(word))
    }

    /// Whether `word` (lower case) is English, also as a plural or
    /// third-person form of an English word.
    pub(crate) fn is_english(&self, word: &str) -> bool {
        self.is_word(word)
            || ["s", "es"].iter().any(|suffix| {
                word.strip_suffix(suffix)
                    .is_some_and(|base| base.chars().count() >= 3 && self.is_word(base))
            })
    }
}

/// One key of one entry, as the linter sees it.
struct Key<'a> {
    entry: usize,
    /// The text as written (source or alias).
    text: &'a str,
    key: &'a str,
    /// Stems of the key's words.
    stems: Vec<String>,
    alias: bool,
}

impl Key<'_> {
    fn what(&self) -> &'static str {
        if self.alias {
            "alias"
        } else {
            "source"
        }
    }
}

fn keys_of<'a>(glossary: &'a Glossary, stems: &mut Stems) -> Vec<Key<'a>> {
    let mut out = Vec::new();
    for (i, e) in glossary.entries.iter().enumerate() {
        let forms = std::iter::once((e.source.as_str(), e.key.as_str(), false)).chain(
            e.aliases
                .iter()
                .zip(&e.alias_keys)
                .map(|(a, k)| (a.as_str(), k.as_str(), true)),
        );
        for (text, key, alias) in forms {
            out.push(Key {
                entry: i,
                text,
                key,
                stems: if key.is_empty() {
                    // Symbols only ("±"): no words, so the text itself
                    // tells such keys apart.
                    vec![text.split_whitespace().collect::<Vec<_>>().join(" ")]
                } else {
                    key.split(' ').map(|w| stems.word(w).to_string()).collect()
                },
                alias,
            });
        }
    }
    out
}

/// Every finding for `glossary`, by line, then check.
pub fn lint(glossary: &Glossary, english: &English) -> Vec<Finding> {
    let mut keys = checks::Keys::new(glossary);
    let mut out = Vec::new();
    for check in Check::ALL {
        check.run(&mut keys, english, &mut out);
    }
    out.extend(languages(glossary));
    out.sort_by(|a, b| (a.line, &a.entry).cmp(&(b.line, &b.entry)));
    out
}

/// `language`: a `source_lang` or `target_lang` that is not an ISO 639
/// code, a locale (`km_KH`) or private use (`x-cafe`) — a warning, naming
/// the field, with the code to write (`French` → `fr`). A missing
/// `target_lang` is not flagged (the prompt says "the target language").
fn languages(glossary: &Glossary) -> Vec<Finding> {
    use crate::language::{self, MISSING_TARGET};
    let mut out = Vec::new();
    for (field, value) in [
        ("source_lang", &glossary.source_lang),
        ("target_lang", &glossary.target_lang),
    ] {
        if field == "target_lang" && value == MISSING_TARGET {
            continue;
        }
        let (message, suggestion) = match language::code_of(value) {
            // A name where a code belongs: the prompt reads it, other
            // tools and the stemmers do not.
            Some(known) if language::by_name(value).is_some() => (
                format!("`{field}` is the language name `{value}`, not its code"),
                format!("write `\"{field}\": \"{}\"`", known.code),
            ),
            Some(_) => continue,
            None => (
                format!(
                    "`{field}` `{value}` is not an ISO 639 language code (nor private use such as `x-cafe`)"
                ),
                match language::nearest(value) {
                    Some(near) => format!(
                        "did you mean {} (`\"{field}\": \"{}\"`)?",
                        near.name.unwrap_or(""),
                        near.code
                    ),
                    None => "write a code such as `fr` or `km`, or a private-use code `x-…`".into(),
                },
            ),
        };
        out.push(Finding {
            line: 0,
            entry: field.to_string(),
            check: "language",
            severity: Severity::Warning,
            message,
            suggestion,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes_that_are_not_codes_are_warned_about() {
        let found = |source: &str, target: &str| -> Vec<(String, String)> {
            let json = format!(
                r#"{{"source_lang":"{source}","target_lang":"{target}","entries":[{{"source":"tea","target":"te"}}]}}"#
            );
            let g = Glossary::parse("g.json", "g", &json).unwrap();
            lint(&g, &English::new(&g, None))
                .into_iter()
                .filter(|f| f.check == "language")
                .map(|f| (f.entry, f.suggestion))
                .collect()
        };
        assert_eq!(
            found("en", "Frnch"),
            [(
                "target_lang".to_string(),
                r#"did you mean French (`"target_lang": "fr"`)?"#.to_string()
            )]
        );
        assert_eq!(
            found("English", "km"),
            [(
                "source_lang".to_string(),
                r#"write `"source_lang": "en"`"#.to_string()
            )]
        );
        for (s, t) in [
            ("en", "km"),
            ("en", "km_KH"),
            ("eng", "x-cafe"),
            ("en", "qaa"),
        ] {
            assert_eq!(found(s, t), [], "{s} {t}");
        }
    }

    #[test]
    fn a_leading_article_is_noted_and_the_note_says_whether_glossa_drops_it() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[
              {"id":"institute","source":"the martial arts training institute","target":"wuguan"},
              {"id":"day","source":"the other day","target":"neulich"},
              {"id":"plain","source":"martial arts","target":"wushu"}]}"#,
        )
        .unwrap();
        let english = English::new(&g, None);
        let found: Vec<(String, String)> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.check == "leading-article")
            .map(|f| (f.entry, f.suggestion))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "institute".to_string(),
                    "drop it (`martial arts training institute`): posts often write another \
                     article or none (`glossa` finds it without one, `exact` does not)"
                        .to_string()
                ),
                (
                    "day".to_string(),
                    "drop it (`other day`): posts often write another article or none".to_string()
                )
            ]
        );
    }

    #[test]
    fn forms_that_are_empty_the_target_or_repeated_are_found() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[
              {"source":"experiment","target":"experiment","forms":["experimentu"," ","Experiment","experimentu","EXPERIMENTU"]},
              {"source":"spinal canal","target":"Spinalkanal","forms":["Spinalkanals"]}]}"#,
        )
        .unwrap();
        let english = English::new(&g, None);
        let found: Vec<(String, Severity, String)> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.check == "form")
            .map(|f| (f.entry, f.severity, f.message))
            .collect();
        let want = |sev, msg: &str| ("experiment".to_string(), sev, msg.to_string());
        assert_eq!(
            found,
            [
                want(Severity::Warning, "form \" \" is empty"),
                want(
                    Severity::Note,
                    "form `Experiment` is the target `experiment` itself"
                ),
                want(Severity::Note, "form `experimentu` is given twice"),
                want(Severity::Note, "form `EXPERIMENTU` is given twice"),
            ]
        );
    }

    #[test]
    fn flags_that_cannot_be_meant_are_warned_about() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[
              {"source":"±","target":"plus-minus","case_sensitive":true},
              {"source":"US","target":"EE. UU.","case_sensitive":true},
              {"source":"fresh coffee","keep":true},
              {"source":"Glossa Café","keep":true},
              {"source":"glossacafe","keep":true}]}"#,
        )
        .unwrap();
        let english = English::new(&g, None);
        let found: Vec<(String, &str)> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.severity == Severity::Warning)
            .filter(|f| f.check != "target-english" || f.entry == "fresh coffee")
            .map(|f| (f.entry, f.check))
            .collect();
        assert_eq!(
            found,
            [
                ("±".to_string(), "case-no-letters"),
                ("fresh coffee".to_string(), "keep-common-word"),
            ]
        );
    }

    #[test]
    fn forbidden_terms_the_glossary_also_asks_for_are_found() {
        let g = Glossary::parse(
            "g.json",
            "g",
            "{\"forbidden\": [\"Kaffee\", \"billig\"], \"entries\":[\n\
              {\"id\":\"cafe\",\"source\":\"café\",\"target\":\"Cafe\u{301}\",\"forbidden\":[\"CAFÉ\", \"Kaffeehaus\"]},\n\
              {\"id\":\"exp\",\"source\":\"experiment\",\"target\":\"Experiment\",\"forms\":[\"Experimentes\"],\"forbidden\":[\"experimentes\"]},\n\
              {\"id\":\"bank-money\",\"source\":\"bank\",\"target\":\"Bank\",\"forbidden\":[\"Ufer\"]},\n\
              {\"id\":\"bank-river\",\"source\":\"bank\",\"target\":\"Ufer\",\"forbidden\":[\"Bank\"],\"context\":{\"any\":[\"river\"]}},\n\
              {\"id\":\"coffee\",\"source\":\"coffee\",\"target\":\"Kaffee\"},\n\
              {\"id\":\"shore\",\"source\":\"shore\",\"target\":\"Ufer\"},\n\
              {\"id\":\"tea\",\"source\":\"tea\",\"target\":\"Tee\",\"forbidden\":[\"Tea\"]},\n\
              {\"id\":\"spring-season\",\"source\":\"spring\",\"target\":\"Frühling\",\"forbidden\":[\"Feder\"]},\n\
              {\"id\":\"spring-coil\",\"source\":\"spring\",\"target\":\"Feder\"}]}",
        )
        .unwrap();
        let english = English::new(&g, None);
        let found: Vec<(usize, String, Severity)> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.check == "forbidden")
            .map(|f| (f.line, f.entry, f.severity))
            .collect();
        let want = |line, entry: &str, sev| (line, entry.to_string(), sev);
        assert_eq!(
            found,
            [
                // "CAFÉ" is the target "Café" (written decomposed).
                want(2, "cafe", Severity::Error),
                // A form of its own.
                want(3, "exp", Severity::Error),
                // The same source asks for "Ufer", and the other entry
                // has a context that may keep them apart: a warning...
                want(4, "bank-money", Severity::Warning),
                want(5, "bank-river", Severity::Warning),
                // A glossary-wide word that is a target.
                want(6, "coffee", Severity::Warning),
                // ... and without any context, an error.
                want(9, "spring-season", Severity::Error),
            ]
        );
        // "Ufer" of another source (shore) and "Tea" (no entry asks for
        // it) are no finding.
        let messages: Vec<String> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.check == "forbidden")
            .map(|f| f.message)
            .collect();
        assert!(
            messages[0].contains("forbidden term `CAFÉ` is the entry's own target"),
            "{messages:?}"
        );
        assert!(
            messages[2].contains("is the target of entry `bank-river` (line 5)"),
            "{messages:?}"
        );
        // Without a glossary-wide list, an entry without forbidden terms
        // is still the one whose target another forbids.
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[{"id":"a","source":"spring","target":"Frühling","forbidden":["feder"]},
                           {"id":"b","source":"spring","target":"Feder"}]}"#,
        )
        .unwrap();
        let found: Vec<(String, Severity)> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.check == "forbidden")
            .map(|f| (f.entry, f.severity))
            .collect();
        assert_eq!(found, [("a".to_string(), Severity::Error)]);
    }

    #[test]
    fn an_entry_of_many_forms_is_linted_whole() {
        // 20,000 forms, every tenth a repeat (case ignored) of the one
        // before: each repeat is found once, in order. (Speed is measured
        // by bench/quadratic.sh, not here.)
        let forms: Vec<String> = (0..20_000)
            .map(|i| match i % 10 {
                9 => format!("FORM{}", i - 1),
                _ => format!("form{i}"),
            })
            .collect();
        let json = serde_json::json!({"entries": [
            {"source": "experiment", "target": "Experiment", "forms": forms}
        ]});
        let g = Glossary::parse("g.json", "g", &json.to_string()).unwrap();
        let english = English::new(&g, None);
        let found: Vec<String> = lint(&g, &english)
            .into_iter()
            .filter(|f| f.check == "form")
            .map(|f| f.message)
            .collect();
        assert_eq!(found.len(), 2_000);
        assert_eq!(found[0], "form `FORM8` is given twice");
        assert_eq!(found[1_999], "form `FORM19998` is given twice");
    }
}
