//! `glossa lint`: problems in a glossary that make retrieval or the output
//! check go wrong, each with the entry's line and a suggestion.
//!
//! Checks (`check` in the output):
//! - `duplicate-key` (warning): two entries share a key (source or alias),
//!   as written or after stemming, so every post that names one gets both.
//! - `never-matches` (warning): a source or alias that is never looked up:
//!   a single lower-case stop word, or more than [`phrase::MAX_KEY_WORDS`]
//!   words. (Short words, numbers and punctuation are found as written.)
//! - `leading-article` (note): a multi-word key that starts with "the", "a"
//!   or "an", which posts often write otherwise ("our martial arts ...").
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
//!
//! [`suggest_aliases`] proposes synonyms from WordNet's plain data files,
//! restricted to the entry's sense; it never changes the glossary.

pub mod wordnet;

use crate::glossary::{Entry, Glossary};
use crate::phrase::{self, Skip};
use crate::retrieve::Stems;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use wordnet::{Pos, Synset, WordNet, LEXFILES};

/// The shipped list of common ambiguous English words, with their senses.
const AMBIGUOUS_FILE: &str = include_str!("../data/ambiguous-en.txt");

/// How much a finding matters. Warnings make `glossa lint` exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Note,
}

/// One problem, at one entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// Line of the entry in the glossary file (0 when not from a file).
    pub line: usize,
    /// The entry's id.
    pub entry: String,
    pub check: &'static str,
    pub severity: Severity,
    pub message: String,
    pub suggestion: String,
}

/// The shipped ambiguous words: `(word, senses)`.
pub fn ambiguous_words() -> Vec<(&'static str, &'static str)> {
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
    pub fn is_english(&self, word: &str) -> bool {
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
                stems: key.split(' ').map(|w| stems.word(w).to_string()).collect(),
                alias,
            });
        }
    }
    out
}

/// Every finding for `glossary`, by line, then check.
pub fn lint(glossary: &Glossary, english: &English) -> Vec<Finding> {
    let mut stems = Stems::default();
    let keys = keys_of(glossary, &mut stems);
    let entries = &glossary.entries;
    let mut out = Vec::new();
    let finding = |e: &Entry, check, severity, message: String, suggestion: String| Finding {
        line: e.line,
        entry: e.id.clone(),
        check,
        severity,
        message,
        suggestion,
    };

    // Each entry's keys, which `keys_of` lists together: looking them up
    // by entry keeps lint linear in the size of the glossary.
    let mut by_entry = vec![0..0; entries.len()];
    for (i, k) in keys.iter().enumerate() {
        let range = &mut by_entry[k.entry];
        if range.start == range.end {
            *range = i..i;
        }
        range.end = i + 1;
    }

    // Keys by their stems, in glossary order.
    let mut by_stems: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        by_stems.entry(k.stems.join(" ")).or_default().push(i);
    }

    // duplicate-key and redundant-alias
    for (i, k) in keys.iter().enumerate() {
        let e = &entries[k.entry];
        let earlier = by_stems[&k.stems.join(" ")]
            .iter()
            .copied()
            .take_while(|&j| j < i)
            .map(|j| &keys[j]);
        let mut reported = false;
        for other in earlier {
            let same = other.key == k.key;
            let how = if same { "is the same as" } else { "stems like" };
            if other.entry != k.entry {
                let o = &entries[other.entry];
                out.push(finding(
                    e,
                    "duplicate-key",
                    Severity::Warning,
                    format!(
                        "{} `{}` {how} `{}`, the {} of entry `{}` (line {}): a post naming it retrieves both",
                        k.what(), k.text, other.text, other.what(), o.id, o.line
                    ),
                    "keep the form in the entry it means; if both meanings are real, give each entry a `context` so the `sense` filter can choose".to_string(),
                ));
                break;
            } else if k.alias && !reported {
                reported = true;
                out.push(finding(
                    e,
                    "redundant-alias",
                    Severity::Note,
                    if same {
                        format!(
                            "alias `{}` repeats the entry's {} `{}`",
                            k.text,
                            other.what(),
                            other.text
                        )
                    } else {
                        format!(
                            "alias `{}` stems like the entry's {} `{}`: stemming already finds it",
                            k.text,
                            other.what(),
                            other.text
                        )
                    },
                    "remove it (harmless; only `exact` needs it)".to_string(),
                ));
            }
        }
        if k.alias && !reported {
            let joined = k.key.replace(' ', "");
            // Only this entry's earlier keys, which come just before it.
            if let Some(other) = keys[by_entry[k.entry].start..i]
                .iter()
                .find(|o| o.key != k.key && o.key.replace(' ', "") == joined)
            {
                out.push(finding(
                    e,
                    "redundant-alias",
                    Severity::Note,
                    format!(
                        "alias `{}` is the entry's {} `{}` split or joined: the `split` retriever already finds it",
                        k.text,
                        other.what(),
                        other.text
                    ),
                    "remove it unless you evaluate retrievers without `split`".to_string(),
                ));
            }
        }
    }

    // never-matches
    for k in &keys {
        let e = &entries[k.entry];
        let words = phrase::words(k.text);
        let n = words.len();
        let lone_stop_word = n == 1
            && phrase::skip_reason(k.key) == Some(Skip::StopWord)
            && !phrase::is_capitals(k.text);
        let problem = if lone_stop_word {
            Some((
                "is a single lower-case stop word, which is never looked up".to_string(),
                "write an acronym in capitals (`IT`, `US`), or use a phrase of two or more words",
            ))
        } else if n > phrase::MAX_KEY_WORDS {
            Some((
                format!(
                    "has {n} words; keys are matched up to {}",
                    phrase::MAX_KEY_WORDS
                ),
                "shorten it, or add a shorter alias",
            ))
        } else {
            None
        };
        if let Some((why, fix)) = problem {
            out.push(finding(
                e,
                "never-matches",
                Severity::Warning,
                format!("{} `{}` {why}", k.what(), k.text),
                fix.to_string(),
            ));
        }
    }

    // leading-article: "the martial arts training institute".
    for k in &keys {
        let first = k.key.split(' ').next().unwrap_or_default();
        if k.key.contains(' ') && matches!(first, "the" | "a" | "an") {
            out.push(finding(
                &entries[k.entry],
                "leading-article",
                Severity::Note,
                format!(
                    "{} `{}` starts with the article `{first}`",
                    k.what(),
                    k.text
                ),
                format!(
                    "drop it (`{}`): posts often write another article or none",
                    &k.key[first.len() + 1..]
                ),
            ));
        }
    }

    // context-own-key: a context phrase that stems to the entry itself.
    for e in entries {
        let Some(context) = &e.context else { continue };
        for (list, phrases) in [("not", &context.not), ("any", &context.any)] {
            for p in phrases {
                if crate::retrieve::stems_to_own_key(&mut stems, e, p) {
                    out.push(finding(
                        e,
                        "context-own-key",
                        Severity::Warning,
                        format!(
                            "context.{list} phrase `{p}` stems like the entry's own key `{}`",
                            e.source
                        ),
                        "it is matched only as written; use a phrase that says more (`dated menu`, `save the date`)"
                            .to_string(),
                    ));
                }
            }
        }
    }

    // nested: a key's sub-phrase is another entry's key.
    let mut pairs: HashSet<(usize, usize)> = HashSet::new();
    let mut nested = Vec::new();
    for outer in &keys {
        let n = outer.stems.len();
        for len in 1..n {
            for first in 0..=n - len {
                let sub = outer.stems[first..first + len].join(" ");
                for &j in by_stems.get(&sub).into_iter().flatten() {
                    let inner = &keys[j];
                    if inner.entry != outer.entry && pairs.insert((inner.entry, outer.entry)) {
                        nested.push((inner.entry, j, outer));
                    }
                }
            }
        }
    }
    for (entry, j, outer) in nested {
        let (e, o) = (&entries[entry], &entries[outer.entry]);
        out.push(finding(
            e,
            "nested",
            Severity::Note,
            format!(
                "`{}` lies inside `{}` (entry `{}`, line {}): a post saying \"{}\" also retrieves `{}`",
                keys[j].text, outer.text, o.id, o.line, outer.key, e.id
            ),
            format!(
                "usual for a phrase and its head word; the `longest` filter (in `glossa`) keeps only `{}` there",
                o.id
            ),
        ));
    }

    // target-english
    for e in entries {
        let words = phrase::words(&e.target);
        if !words.is_empty() && words.iter().all(|w| english.is_english(&w.text)) {
            out.push(finding(
                e,
                "target-english",
                Severity::Warning,
                format!(
                    "target `{}` is also English: the output check cannot tell it from English left untranslated",
                    e.target
                ),
                "nothing to fix if it is the right term; otherwise use the real target term (a passing check proves less for this entry)".to_string(),
            ));
        }
    }

    // form
    for e in entries {
        for (severity, message) in form_problems(e) {
            out.push(finding(
                e,
                "form",
                severity,
                message,
                "remove it: `forms` lists other accepted spellings of the target".to_string(),
            ));
        }
    }

    // ambiguous
    let ambiguous: HashMap<String, (&str, &str)> = ambiguous_words()
        .into_iter()
        .map(|(w, senses)| (stems.word(w).to_string(), (w, senses)))
        .collect();
    for (i, e) in entries.iter().enumerate() {
        let Some((k, (word, senses))) = keys[by_entry[i].clone()]
            .iter()
            .filter(|k| k.stems.len() == 1)
            .find_map(|k| ambiguous.get(&k.stems[0]).map(|a| (k, *a)))
        else {
            continue;
        };
        let named = if k.key == word {
            format!("`{word}`")
        } else {
            format!("`{}` (like `{word}`)", k.text)
        };
        if e.context.is_none() {
            out.push(finding(
                e,
                "ambiguous",
                Severity::Warning,
                format!("{named} has several senses ({senses}) and the entry has no `context`: every sense is retrieved"),
                "add `context`: `not` with phrases of the other senses, `any` with words that come with this one; and a `sense` note for the model".to_string(),
            ));
        } else if e.sense.is_none() {
            out.push(finding(
                e,
                "ambiguous",
                Severity::Note,
                format!("{named} has several senses ({senses}) and the entry has no `sense` note"),
                "add `sense`: a few words on the intended meaning, shown to the model".to_string(),
            ));
        }
    }

    out.sort_by(|a, b| (a.line, &a.entry).cmp(&(b.line, &b.entry)));
    out
}

/// What is wrong with an entry's `forms`: empty, the target itself, or a
/// repeat of an earlier form (case ignored).
fn form_problems(e: &Entry) -> Vec<(Severity, String)> {
    let target = e.target.trim().to_lowercase();
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for form in &e.forms {
        let folded = form.trim().to_lowercase();
        if folded.is_empty() {
            out.push((Severity::Warning, format!("form {form:?} is empty")));
        } else if folded == target {
            out.push((
                Severity::Note,
                format!("form `{form}` is the target `{}` itself", e.target),
            ));
        } else if seen.contains(&folded) {
            out.push((Severity::Note, format!("form `{form}` is given twice")));
        }
        seen.push(folded);
    }
    out
}

/// Synonyms proposed for one entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AliasSuggestion {
    pub line: usize,
    pub entry: String,
    /// Forms to consider adding to `aliases`.
    pub add: Vec<String>,
    /// The WordNet sense they come from: id (`n07635155`), file, gloss.
    pub synset: String,
    pub lexfile: &'static str,
    pub gloss: String,
    /// How that sense was chosen.
    pub why: String,
}

/// The result of [`suggest_aliases`].
#[derive(Debug, Clone, Serialize)]
pub struct Suggestions {
    pub wordnet: String,
    /// Lexicographer files a noun sense must fall in (empty: any).
    pub domain: Vec<&'static str>,
    pub domain_reason: String,
    /// Entries whose source WordNet knows.
    pub entries_in_wordnet: usize,
    pub suggestions: Vec<AliasSuggestion>,
    /// Entries WordNet knows but for which no sense could be chosen.
    pub unsure: Vec<Unsure>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unsure {
    pub line: usize,
    pub entry: String,
    pub reason: String,
}

/// The WordNet lemmas an entry's source may be written as.
fn lemmas(e: &Entry) -> Vec<String> {
    let mut out = vec![
        e.key.replace(' ', "_"),
        e.source.trim().to_lowercase().replace(' ', "_"),
        e.key.replace(' ', ""),
    ];
    out.dedup();
    let mut seen = HashSet::new();
    out.retain(|l| seen.insert(l.clone()));
    out
}

fn synsets_of(wn: &WordNet, e: &Entry) -> Vec<Synset> {
    let mut out: Vec<Synset> = Vec::new();
    for lemma in lemmas(e) {
        for s in wn.synsets(&lemma) {
            if !out.iter().any(|o| o.pos == s.pos && o.offset == s.offset) {
                out.push(s);
            }
        }
    }
    out
}

/// Content-word stems of a text: no stop words, at least 3 characters.
fn content_stems(text: &str, stems: &mut Stems) -> HashSet<String> {
    phrase::words(text)
        .into_iter()
        .filter(|w| phrase::is_lookup_word(&w.text))
        .map(|w| stems.word(&w.text).to_string())
        .collect()
}

/// Parse `--domain`: `auto`, `any`, a lexicographer file (`noun.food`) or
/// its short name (`food`); several may be joined by commas.
fn parse_domain(
    spec: &str,
    glossary: &Glossary,
    wn: &WordNet,
) -> Result<(Vec<&'static str>, String), String> {
    match spec.trim() {
        "any" => Ok((Vec::new(), "--domain any: every sense".to_string())),
        "auto" => {
            let mut counts = vec![0usize; LEXFILES.len()];
            for e in &glossary.entries {
                if let Some(s) = synsets_of(wn, e).iter().find(|s| s.pos == Pos::Noun) {
                    counts[s.lexfile] += 1;
                }
            }
            let (best, n) = counts
                .iter()
                .enumerate()
                .max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))
                .map(|(i, n)| (i, *n))
                .unwrap_or((0, 0));
            if n == 0 {
                Ok((
                    Vec::new(),
                    "no entry is a WordNet noun: every sense".to_string(),
                ))
            } else {
                Ok((
                    vec![LEXFILES[best]],
                    format!(
                        "{}: the first WordNet noun sense of {n} of {} entries (--domain to change)",
                        LEXFILES[best],
                        glossary.len()
                    ),
                ))
            }
        }
        list => {
            let mut out = Vec::new();
            for part in list.split(',').map(str::trim) {
                let found = LEXFILES
                    .iter()
                    .find(|l| **l == part || **l == format!("noun.{part}"))
                    .ok_or_else(|| {
                        format!(
                            "unknown --domain `{part}`: use auto, any, or WordNet lexicographer files such as noun.food, noun.artifact ({})",
                            LEXFILES.join(", ")
                        )
                    })?;
                out.push(*found);
            }
            Ok((out, format!("--domain {list}")))
        }
    }
}

/// Propose synonyms from WordNet for each entry, in the entry's sense: the
/// WordNet senses of its source are kept when they are nouns whose
/// lexicographer file (or a hypernym's) is in the domain, or any part of
/// speech whose gloss shares a word with the entry's `sense` note and
/// `context.any`; with a `sense` note the best-sharing senses win, without
/// one the most frequent sense in the domain. Forms already in the entry
/// (also after stemming) or used by another entry are left out.
pub fn suggest_aliases(
    glossary: &Glossary,
    wn: &WordNet,
    domain: &str,
) -> Result<Suggestions, String> {
    let (domain, domain_reason) = parse_domain(domain, glossary, wn)?;
    let mut stems = Stems::default();
    let used: HashMap<String, usize> = keys_of(glossary, &mut stems)
        .into_iter()
        .map(|k| (k.stems.join(" "), k.entry))
        .collect();
    let mut result = Suggestions {
        wordnet: wn.dir.display().to_string(),
        domain: domain.clone(),
        domain_reason,
        entries_in_wordnet: 0,
        suggestions: Vec::new(),
        unsure: Vec::new(),
    };
    for e in &glossary.entries {
        let synsets = synsets_of(wn, e);
        if synsets.is_empty() {
            continue;
        }
        result.entries_in_wordnet += 1;
        let in_domain = |s: &Synset| {
            domain.is_empty()
                || (s.pos == Pos::Noun
                    && wn
                        .ancestors(s)
                        .iter()
                        .any(|a| domain.contains(&a.lexfile_name())))
        };
        let mut note = e.sense.clone().unwrap_or_default();
        if let Some(c) = &e.context {
            for p in &c.any {
                note.push(' ');
                note.push_str(p);
            }
        }
        let wanted = content_stems(&note, &mut stems);
        let own_stems: Vec<String> = e
            .key
            .split(' ')
            .map(|w| stems.word(w).to_string())
            .collect();
        // Words shared with the synset's own gloss and words count twice,
        // with its two nearest hypernyms' words once.
        let mut scored: Vec<(usize, &Synset)> = Vec::new();
        for s in &synsets {
            let words = |s: &Synset| {
                s.words
                    .iter()
                    .map(|w| w.replace('_', " "))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let own = content_stems(&format!("{} {}", s.gloss, words(s)), &mut stems);
            let own_shared = own.intersection(&wanted).count();
            let mut above = String::new();
            for a in wn.ancestors(s).iter().skip(1).take(2) {
                above.push(' ');
                above.push_str(&words(a));
            }
            let above_shared = content_stems(&above, &mut stems)
                .difference(&own)
                .filter(|w| wanted.contains(*w))
                .count();
            if in_domain(s) || own_shared > 0 {
                scored.push((2 * own_shared + above_shared, s));
            }
        }
        let best = scored.iter().map(|(n, _)| *n).max().unwrap_or(0);
        let (chosen, why): (Vec<&Synset>, String) = if best > 0 {
            (
                scored
                    .iter()
                    .filter(|(n, _)| *n == best)
                    .map(|(_, s)| *s)
                    .collect(),
                format!("best fit to the entry's `sense`/`context.any` (score {best}: a shared gloss word counts 2, a hypernym's word 1)"),
            )
        } else if let Some((_, s)) = scored.iter().find(|(_, s)| s.pos == Pos::Noun) {
            (
                vec![*s],
                if e.sense.is_some() {
                    "the most frequent WordNet sense in the domain (the `sense` note matched none)"
                        .to_string()
                } else {
                    "the most frequent WordNet sense in the domain (no `sense` note to choose by)"
                        .to_string()
                },
            )
        } else {
            result.unsure.push(Unsure {
                line: e.line,
                entry: e.id.clone(),
                reason: format!(
                    "none of its {} WordNet sense(s) is in the domain or matches its `sense` note",
                    synsets.len()
                ),
            });
            continue;
        };
        for s in chosen {
            let mut add: Vec<String> = Vec::new();
            for w in &s.words {
                let form = w.replace('_', " ").to_lowercase();
                let key = phrase::key(&form);
                let stemmed: Vec<String> =
                    key.split(' ').map(|w| stems.word(w).to_string()).collect();
                // Left out: forms the glossary already has (after stemming),
                // and forms containing the source (already retrieved).
                let contains_source = own_stems.len() < stemmed.len()
                    && stemmed
                        .windows(own_stems.len())
                        .any(|w| w == own_stems.as_slice());
                if key.is_empty()
                    || used.contains_key(&stemmed.join(" "))
                    || contains_source
                    || add.contains(&form)
                {
                    continue;
                }
                add.push(form);
            }
            if add.is_empty() {
                continue;
            }
            result.suggestions.push(AliasSuggestion {
                line: e.line,
                entry: e.id.clone(),
                add,
                synset: s.id(),
                lexfile: s.lexfile_name(),
                gloss: s.gloss.clone(),
                why: why.clone(),
            });
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
