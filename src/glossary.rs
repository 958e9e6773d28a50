//! Glossary entries, loading and validation (docs/formats.md, "Glossary").

use crate::error::{read_text, InputError, LineCounter};
use crate::phrase;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::hash_map::Entry as Slot;
use std::path::Path;
use std::sync::OnceLock;

/// Phrases that keep or drop an entry for a post (used by sense filters).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Context {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub any: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not: Vec<String>,
}

/// One glossary entry as written in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Unique in the glossary; defaults to `source`.
    #[serde(default)]
    pub id: String,
    pub source: String,
    /// May be left out when `keep` is set: then it is `source`.
    #[serde(default)]
    pub target: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sense: Option<String>,
    /// Found only where the post writes the source (or an alias) with its
    /// case, and the target asked with its case (docs/formats.md, "Case
    /// and keep").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub case_sensitive: bool,
    /// Not translated: the target is the source as written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// Other accepted spellings and inflections of `target`: the output
    /// check accepts any of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forms: Vec<String>,
    /// Target strings that must not appear in a translation that uses
    /// this entry (deprecated or banned terms; docs/formats.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<String>,
    /// Phrase key of `source` (docs/formats.md phrase rule 6).
    #[serde(skip)]
    pub key: String,
    /// Phrase keys of `aliases`, in order.
    #[serde(skip)]
    pub alias_keys: Vec<String>,
    /// Line of the entry in its file (0 when not loaded from a file).
    #[serde(skip)]
    pub line: usize,
}

impl Entry {
    /// Number of words in the source key.
    pub fn word_count(&self) -> usize {
        word_count(&self.key)
    }
}

/// Number of words in a phrase key.
pub(crate) fn word_count(key: &str) -> usize {
    if key.is_empty() {
        0
    } else {
        1 + key.bytes().filter(|&b| b == b' ').count()
    }
}

/// The top-level fields of a glossary file besides `entries`, kept as
/// written (absent stays absent), so a file can be written back as it was.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Head {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) source_lang: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) target_lang: Option<String>,
    /// Target words no translation may hold, whatever the post.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) forbidden: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GlossaryFile<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    source_lang: Option<String>,
    #[serde(default)]
    target_lang: Option<String>,
    #[serde(default, borrow)]
    forbidden: Vec<&'a RawValue>,
    #[serde(borrow)]
    entries: Vec<&'a RawValue>,
}

/// A validated glossary. Entries keep their file order, which is the order
/// every output lists them in.
#[derive(Debug, Clone, Serialize)]
pub struct Glossary {
    pub name: String,
    pub source_lang: String,
    pub target_lang: String,
    pub entries: Vec<Entry>,
    /// Glossary-wide forbidden target words ([`Glossary::with_forbidden`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<String>,
    /// The path it was loaded from, as given.
    #[serde(skip)]
    pub path: String,
    /// Id → index, made on first use ([`Glossary::index_of`]): loading
    /// checks that ids are unique without it.
    #[serde(skip)]
    by_id: OnceLock<FxHashMap<String, usize>>,
    /// Every source and alias key, made on first use ([`Glossary::has_key`]).
    #[serde(skip)]
    keys: OnceLock<FxHashSet<String>>,
    /// For a glossary that holds only some entries of a compiled one (the
    /// candidates of a post, docs/formats.md "Compiled glossaries"): the
    /// whole glossary's words, stems and keys.
    #[serde(skip)]
    pub(crate) whole: Option<std::sync::Arc<dyn WholeGlossary>>,
}

/// What retrieval reads across a whole glossary, answered by a compiled
/// glossary for the part of it that a run loaded ([`Glossary::whole`]).
pub(crate) trait WholeGlossary: Send + Sync + std::fmt::Debug {
    /// Whether `word` is a word of some entry's source or alias key.
    fn has_word(&self, word: &str) -> bool;
    /// Whether `stem` is the stem of such a word.
    fn has_stem(&self, stem: &str) -> bool;
    /// Whether `key` is some entry's source or alias key.
    fn has_key(&self, key: &str) -> bool;
}

impl Glossary {
    /// Load and validate `path`.
    pub fn load(path: &Path) -> Result<Glossary, InputError> {
        let text = read_text(path)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Glossary::parse(&path.display().to_string(), &stem, &text)
    }

    /// Parse and validate glossary JSON; `path` is used in messages and
    /// `default_name` when the file has no `name`.
    pub fn parse(path: &str, default_name: &str, text: &str) -> Result<Glossary, InputError> {
        Glossary::parse_with_head(path, default_name, text).map(|(glossary, _)| glossary)
    }

    /// [`Glossary::parse`], also returning the top-level fields as written.
    pub(crate) fn parse_with_head(
        path: &str,
        default_name: &str,
        text: &str,
    ) -> Result<(Glossary, Head), InputError> {
        if text.trim().is_empty() {
            return Err(InputError::file(
                path,
                "empty file: expected a glossary JSON object with \"entries\"",
            ));
        }
        let file: GlossaryFile =
            serde_json::from_str(text).map_err(|e| explain_json_error(path, text, &e))?;
        // Entries come in file order, so lines are counted in one pass.
        let mut counter = LineCounter::new(text);
        let positions: Vec<(usize, usize)> = file
            .entries
            .iter()
            // The raw value borrows `text`, so its address gives its place.
            .map(|raw| counter.position_at(raw.get().as_ptr() as usize - text.as_ptr() as usize))
            .collect();
        // Each entry parses on its own, so side by side (on the current
        // rayon pool); the first bad one in file order is reported.
        let parsed: Vec<serde_json::Result<Entry>> = file
            .entries
            .par_iter()
            .map(|raw| serde_json::from_str(raw.get()))
            .collect();
        // Collected in place: a second array of 100k entries would cost
        // 25 MB of fresh memory.
        let entries = parsed
            .into_iter()
            .zip(positions)
            .map(|(entry, (line, column))| {
                let mut entry = entry.map_err(|e| InputError::json_at(path, line, column, &e))?;
                entry.line = line;
                Ok(entry)
            })
            .collect::<Result<Vec<Entry>, InputError>>()?;
        let mut forbidden = Vec::with_capacity(file.forbidden.len());
        let mut lines = LineCounter::new(text);
        for raw in &file.forbidden {
            let at = raw.get().as_ptr() as usize - text.as_ptr() as usize;
            let (line, column) = lines.position_at(at);
            let word: String = serde_json::from_str(raw.get())
                .map_err(|e| InputError::json_at(path, line, column, &e))?;
            if word.trim().is_empty() {
                return Err(InputError::at_line(
                    path,
                    line,
                    format!(
                        "glossary-wide `forbidden` word {} is empty",
                        forbidden.len() + 1
                    ),
                ));
            }
            forbidden.push(word);
        }
        let head = Head {
            name: file.name,
            source_lang: file.source_lang,
            target_lang: file.target_lang,
            forbidden,
        };
        let glossary = Glossary::new(
            path,
            head.name
                .clone()
                .unwrap_or_else(|| default_name.to_string()),
            head.source_lang.clone().unwrap_or_else(|| "en".to_string()),
            head.target_lang
                .clone()
                .unwrap_or_else(|| "target".to_string()),
            entries,
        )?
        .with_forbidden(head.forbidden.clone());
        Ok((glossary, head))
    }

    /// Validate entries, fill in default ids and compute keys.
    pub(crate) fn new(
        path: &str,
        name: String,
        source_lang: String,
        target_lang: String,
        entries: Vec<Entry>,
    ) -> Result<Glossary, InputError> {
        if entries.is_empty() {
            return Err(InputError::file(path, "the glossary has no entries"));
        }
        Glossary::validated(path, name, source_lang, target_lang, entries)
    }

    /// [`Glossary::new`], an empty list allowed (a part of a glossary).
    pub(crate) fn validated(
        path: &str,
        name: String,
        source_lang: String,
        target_lang: String,
        mut entries: Vec<Entry>,
    ) -> Result<Glossary, InputError> {
        if entries.len() > crate::limits::MAX_GLOSSARY_ENTRIES {
            return Err(InputError::file(
                path,
                format!(
                    "the glossary has {} entries; at most {} are supported",
                    entries.len(),
                    crate::limits::MAX_GLOSSARY_ENTRIES
                ),
            ));
        }
        // Each entry's keys, defaults and own checks, side by side; then
        // the ids. The first error in file order is reported, an entry's
        // own before its id's.
        let first_bad = entries
            .par_iter_mut()
            .enumerate()
            .filter_map(|(i, entry)| {
                // Keys in NFC, as posts are: an entry written "cafe" +
                // U+0301 finds "café" (the entry itself is kept as written).
                entry.key = phrase::key(&phrase::nfc(&entry.source));
                entry.alias_keys = entry
                    .aliases
                    .iter()
                    .map(|a| phrase::key(&phrase::nfc(a)))
                    .collect();
                check_entry(path, i, entry).err().map(|e| (i, e))
            })
            .min_by_key(|(i, _)| *i);
        let checked = first_bad.as_ref().map_or(entries.len(), |(i, _)| *i);
        let mut ids: FxHashMap<&str, usize> =
            FxHashMap::with_capacity_and_hasher(checked, Default::default());
        for (i, entry) in entries[..checked].iter().enumerate() {
            // One hash of the id, to look it up and to insert it.
            match ids.entry(&entry.id) {
                Slot::Occupied(first) => {
                    return Err(InputError {
                        path: path.to_string(),
                        line: (entry.line > 0).then_some(entry.line),
                        column: None,
                        message: format!(
                            "duplicate entry id `{}` (first used by entry {}); ids must be unique",
                            entry.id,
                            first.get() + 1
                        ),
                    });
                }
                Slot::Vacant(slot) => {
                    slot.insert(i);
                }
            }
        }
        drop(ids);
        if let Some((_, e)) = first_bad {
            return Err(e);
        }
        Ok(Glossary {
            name,
            source_lang,
            target_lang,
            entries,
            forbidden: Vec::new(),
            path: path.to_string(),
            by_id: OnceLock::new(),
            keys: OnceLock::new(),
            whole: None,
        })
    }

    /// The glossary with its glossary-wide forbidden words (each checked
    /// non-empty by the caller: [`Glossary::parse_with_head`] names the
    /// line of an empty one).
    pub(crate) fn with_forbidden(mut self, words: Vec<String>) -> Glossary {
        self.forbidden = words;
        self
    }

    /// Index of the entry with this id.
    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.by_id
            .get_or_init(|| {
                self.entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.id.clone(), i))
                    .collect()
            })
            .get(id)
            .copied()
    }

    /// Whether `key` (a phrase key) is the key of an entry's source or
    /// alias: a word an owner cannot add again.
    pub(crate) fn has_key(&self, key: &str) -> bool {
        if let Some(whole) = &self.whole {
            return whole.has_key(key);
        }
        self.keys
            .get_or_init(|| {
                self.entries
                    .iter()
                    .flat_map(|e| std::iter::once(&e.key).chain(&e.alias_keys))
                    .cloned()
                    .collect()
            })
            .contains(key)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Check entry `i` (0-based) on its own, filling in its defaults: the id
/// from the source, a kept entry's target from its source.
fn check_entry(path: &str, i: usize, entry: &mut Entry) -> Result<(), InputError> {
    let line = entry.line;
    let at = |msg: String| InputError {
        path: path.to_string(),
        line: (line > 0).then_some(line),
        column: None,
        message: msg,
    };
    let name = if entry.id.is_empty() {
        &entry.source
    } else {
        &entry.id
    };
    if entry.source.trim().is_empty() {
        return Err(at(format!("entry {} (`{name}`): `source` is empty", i + 1)));
    }
    if entry.keep {
        // A kept entry's target is its source: left out, or the same.
        if entry.target.trim().is_empty() {
            entry.target = entry.source.clone();
        } else if phrase::nfc(entry.target.trim()) != phrase::nfc(entry.source.trim()) {
            return Err(at(format!(
                "entry `{name}`: `keep` is set, so the target is the source as written, \
                 but `target` is {:?}; leave `target` out or drop `keep`",
                entry.target
            )));
        }
    } else if entry.target.is_empty() {
        return Err(at(format!(
            "entry `{name}`: missing field `target`; give one, or set \"keep\": true \
             to keep the source as written"
        )));
    }
    if entry.target.trim().is_empty() {
        return Err(at(format!("entry `{name}`: `target` is empty")));
    }
    if entry.id.is_empty() {
        entry.id = entry.source.clone();
    }
    // A source of symbols only ("±", "&") has no words and an empty key:
    // `exact` finds it as written (docs/formats.md "v2: real glossaries"),
    // nothing else looks it up. An alias of whitespace only is a mistake.
    if let Some(alias) = entry.aliases.iter().find(|a| a.trim().is_empty()) {
        return Err(at(format!(
            "entry `{}`: alias {alias:?} is empty",
            entry.id
        )));
    }
    if let Some(word) = entry.forbidden.iter().find(|f| f.trim().is_empty()) {
        return Err(at(format!(
            "entry `{}`: forbidden term {word:?} is empty",
            entry.id
        )));
    }
    Ok(())
}

/// A glossary file that is not valid JSON, said so that its owner can act:
/// a sheet or TBX given where the JSON belongs points at `glossa import`,
/// and a comma after the last item (serde_json says "key must be a string"
/// or "expected value") is named as such, at the comma.
fn explain_json_error(path: &str, text: &str, e: &serde_json::Error) -> InputError {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if e.is_syntax() && !body.starts_with('{') && !body.starts_with('[') {
        let first = body.lines().next().unwrap_or("");
        let shown: String = first.chars().take(40).collect();
        return InputError::at_line(
            path,
            1,
            format!(
                "not a glossary JSON file (it starts with `{shown}`): a sheet (CSV, TSV, XLSX, ODS) \
                 or a TBX file becomes one with `glossa import {path} -o glossary.json`"
            ),
        );
    }
    if e.is_syntax() && e.line() > 0 {
        // serde_json's column counts bytes from 1 on its line.
        let line_start: usize = text
            .split_inclusive('\n')
            .take(e.line() - 1)
            .map(str::len)
            .sum();
        let mut at = (line_start + e.column().saturating_sub(1)).min(text.len());
        // serde_json's column is not always a character boundary (it can
        // point inside the character before a control character).
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let before = text[..at].trim_end();
        let after = text[at..].trim_start();
        if before.ends_with(',') && (after.starts_with('}') || after.starts_with(']')) {
            let comma = before.len() - 1;
            let line = text[..comma].matches('\n').count() + 1;
            let column = comma - text[..comma].rfind('\n').map_or(0, |i| i + 1) + 1;
            return InputError {
                path: path.to_string(),
                line: Some(line),
                column: Some(column),
                message: "a comma after the last item of a list or object: JSON allows none \
                          there; remove it"
                    .to_string(),
            };
        }
    }
    InputError::json(path, 1, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer: serde_json's column pointed inside "ä", and the
    /// trailing-comma explanation sliced the text there.
    #[test]
    fn a_json_error_after_a_wide_character_is_reported_not_a_panic() {
        let text = "{\"forbidden\": [\"Schn\u{e4}\t\"], \"entries\": []}";
        let err = Glossary::parse("g.json", "g", text).unwrap_err();
        assert_eq!(err.line, Some(1), "{err}");
        let err = Glossary::parse(
            "g.json",
            "g",
            "{\"entries\": [{\"source\": \"\u{e4}\u{e4}\",}]}",
        )
        .unwrap_err();
        assert!(err.message.contains("a comma after the last item"), "{err}");
    }

    fn parse(text: &str) -> Result<Glossary, InputError> {
        Glossary::parse("g.json", "g", text)
    }

    #[test]
    fn id_defaults_to_source_and_keys_are_computed() {
        let g = parse(
            r#"{"name":"cafe","entries":[
                {"source":"Cold Coffee","target":"frosk mavi"},
                {"id":"date","source":"date","target":"zimbo","aliases":["Dates"]}]}"#,
        )
        .unwrap();
        assert_eq!(g.entries[0].id, "Cold Coffee");
        assert_eq!(g.entries[0].key, "cold coffee");
        assert_eq!(g.entries[1].alias_keys, ["dates"]);
        assert_eq!(g.entries[1].line, 3);
        assert_eq!(g.index_of("date"), Some(1));
        assert_eq!(g.source_lang, "en");
    }

    #[test]
    fn unknown_field_names_the_field_and_line() {
        let err = parse("{\"entries\":[\n{\"source\":\"a b\",\"target\":\"x\"},\n{\"source\":\"tea\",\"targt\":\"y\"}]}")
            .unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("unknown field `targt`"), "{err}");
    }

    #[test]
    fn duplicate_ids_and_empty_fields_are_errors() {
        let dup =
            parse(r#"{"entries":[{"source":"tea","target":"x"},{"source":"tea","target":"y"}]}"#);
        assert!(dup
            .unwrap_err()
            .message
            .contains("duplicate entry id `tea`"));
        let empty = parse(r#"{"entries":[{"source":" ","target":"x"}]}"#);
        assert!(empty.unwrap_err().message.contains("`source` is empty"));
        let blank_alias = parse(r#"{"entries":[{"source":"tea","target":"x","aliases":[""]}]}"#);
        assert!(blank_alias
            .unwrap_err()
            .message
            .contains("alias \"\" is empty"));
        // Symbols only are a term (found as written), not an empty one.
        let symbols = parse(r#"{"entries":[{"source":"±","target":"x","aliases":["+/-"]}]}"#);
        assert_eq!(symbols.unwrap().entries[0].key, "");
        let missing = parse(r#"{"entries":[{"source":"tea"}]}"#);
        assert!(missing
            .unwrap_err()
            .message
            .contains("missing field `target`"));
    }

    /// Entries are checked side by side and their ids after: the error
    /// reported is still the first in file order, on its line, and an
    /// entry's own error comes before its id's.
    #[test]
    fn the_first_bad_entry_in_file_order_is_reported_on_its_line() {
        let text = |bad: &[(usize, &str)]| {
            let entries: Vec<String> = (0..5000)
                .map(|i| match bad.iter().find(|(at, _)| *at == i) {
                    Some((_, entry)) => entry.to_string(),
                    None => format!("{{\"source\":\"t{i}\",\"target\":\"x\"}}"),
                })
                .collect();
            // Entry i is on line i + 2.
            format!("{{\"entries\":[\n{}\n]}}", entries.join(",\n"))
        };
        let dup = r#"{"source":"t10","target":"y"}"#;
        let empty = r#"{"source":" ","target":"y"}"#;
        let err = parse(&text(&[(3000, dup), (4000, empty)])).unwrap_err();
        assert_eq!(err.line, Some(3002), "{err}");
        assert!(
            err.message
                .contains("duplicate entry id `t10` (first used by entry 11)"),
            "{err}"
        );
        let err = parse(&text(&[(2000, empty), (3000, dup)])).unwrap_err();
        assert_eq!(err.line, Some(2002), "{err}");
        assert!(err.message.contains("entry 2001"), "{err}");
        // Both wrong at once: its own error first.
        let both = r#"{"source":"t10","target":"y","keep":true}"#;
        let err = parse(&text(&[(3000, both), (4000, empty)])).unwrap_err();
        assert_eq!(err.line, Some(3002), "{err}");
        assert!(err.message.contains("`keep` is set"), "{err}");
        let g = parse(&text(&[])).unwrap();
        assert_eq!(
            (g.index_of("t4999"), g.index_of("t5000")),
            (Some(4999), None)
        );
        assert_eq!(g.entries[4999].line, 5001);
    }

    #[test]
    fn keep_fills_the_target_with_the_source_and_refuses_another() {
        let g = parse(
            r#"{"entries":[{"source":"Glossa Café","keep":true,"case_sensitive":true},
                {"source":"Acme","target":"Acme","keep":true},{"source":"tea","target":"te"}]}"#,
        )
        .unwrap();
        assert_eq!(g.entries[0].target, "Glossa Café");
        assert!(g.entries[0].keep && g.entries[0].case_sensitive);
        assert!(!g.entries[2].keep && !g.entries[2].case_sensitive);
        // Written back, flags only where set.
        let json = serde_json::to_string(&g.entries[2]).unwrap();
        assert_eq!(json, r#"{"id":"tea","source":"tea","target":"te"}"#);
        let err = parse("{\"entries\":[\n{\"source\":\"tea\",\"target\":\"te\"},\n{\"source\":\"Acme\",\"target\":\"Acne\",\"keep\":true}]}")
            .unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("`keep` is set"), "{err}");
        assert!(err.message.contains("\"Acne\""), "{err}");
    }

    #[test]
    fn forbidden_terms_are_read_and_empty_ones_named_with_their_line() {
        let (g, head) = Glossary::parse_with_head(
            "g.json",
            "g",
            "{\"forbidden\": [\"cheap\",\n \"bargain\"],\n\"entries\":[\n{\"source\":\"e-mail\",\"target\":\"E-Mail\",\"forbidden\":[\"Email\"]},\n{\"source\":\"tea\",\"target\":\"Tee\"}]}",
        )
        .unwrap();
        assert_eq!(g.entries[0].forbidden, ["Email"]);
        assert!(g.entries[1].forbidden.is_empty());
        assert_eq!(g.forbidden, ["cheap", "bargain"]);
        assert_eq!(head.forbidden, g.forbidden);
        // Written back only when there are any.
        let json = serde_json::to_string(&g.entries[1]).unwrap();
        assert!(!json.contains("forbidden"), "{json}");
        assert!(serde_json::to_string(&g.entries[0])
            .unwrap()
            .contains(r#""forbidden":["Email"]"#));

        let err = parse("{\"entries\":[\n{\"source\":\"tea\",\"target\":\"Tee\",\"forbidden\":[\"Tea\", \" \"]}]}")
            .unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(
            err.message
                .contains("entry `tea`: forbidden term \" \" is empty"),
            "{err}"
        );
        let err = parse("{\"forbidden\": [\"cheap\",\n\"\"],\n\"entries\":[{\"source\":\"tea\",\"target\":\"Tee\"}]}")
            .unwrap_err();
        assert_eq!((err.path.as_str(), err.line), ("g.json", Some(2)));
        assert!(
            err.message
                .contains("glossary-wide `forbidden` word 2 is empty"),
            "{err}"
        );
        let err = parse(
            "{\"forbidden\": [\"cheap\", 3],\"entries\":[{\"source\":\"tea\",\"target\":\"Tee\"}]}",
        )
        .unwrap_err();
        assert!(err.message.contains("invalid type"), "{err}");
    }

    #[test]
    fn syntax_errors_carry_line_and_column() {
        let err =
            parse("{\"entries\": [\n  {\"source\": \"tea\" \"target\": \"x\"}\n]}").unwrap_err();
        assert_eq!(err.line, Some(2));
        // Column 20 of the file, not 18 of the entry: the indentation counts.
        assert_eq!(err.column, Some(20), "{err}");
        assert!(err.message.starts_with("invalid JSON"), "{err}");
        // Further lines of an entry have their own columns already.
        let err =
            parse("{\"entries\": [\n    {\"source\": \"tea\",\n  \"target\": 1}\n]}").unwrap_err();
        assert_eq!((err.line, err.column), (Some(3), Some(13)), "{err}");
    }
}
