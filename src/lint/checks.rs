//! The lint checks, one function each, behind [`Check`]. Every check reads
//! the same [`Keys`] (the glossary's keys and indexes over them) and
//! appends its findings.

use super::{ambiguous_by_stem, keys_of, Ambiguous, English, Finding, Key, Severity};
use crate::glossary::{Entry, Glossary};
use crate::phrase::{self, Skip};
use crate::retrieve::{
    is_english_word, nearest_english, targets_agree, without_leading_article, Stems,
};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// One check of `glossa lint` (see the module docs of [`crate::lint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// `duplicate-key`, and `redundant-alias` for an entry's own keys.
    DuplicateKey,
    NeverMatches,
    OneLetter,
    SymbolsOnly,
    LeadingArticle,
    ContextOwnKey,
    Nested,
    TargetEnglish,
    Form,
    Ambiguous,
    /// `case-no-letters` and `keep-common-word`.
    Flags,
    Forbidden,
    /// `misspelt-source`.
    Spelling,
}

impl Check {
    /// Every check, in the order an entry's findings are listed.
    pub(crate) const ALL: [Check; 13] = [
        Check::DuplicateKey,
        Check::NeverMatches,
        Check::OneLetter,
        Check::SymbolsOnly,
        Check::LeadingArticle,
        Check::ContextOwnKey,
        Check::Nested,
        Check::TargetEnglish,
        Check::Form,
        Check::Ambiguous,
        Check::Flags,
        Check::Forbidden,
        Check::Spelling,
    ];

    /// Append this check's findings.
    pub(super) fn run(self, keys: &mut Keys, english: &English, out: &mut Vec<Finding>) {
        match self {
            Check::DuplicateKey => duplicate_keys(keys, out),
            Check::NeverMatches => never_matches(keys, out),
            Check::OneLetter => one_letter(keys, out),
            Check::SymbolsOnly => symbols_only(keys, out),
            Check::LeadingArticle => leading_articles(keys, out),
            Check::ContextOwnKey => context_own_keys(keys, out),
            Check::Nested => nested(keys, out),
            Check::TargetEnglish => target_english(keys.entries, english, out),
            Check::Form => forms(keys.entries, out),
            Check::Ambiguous => ambiguous(keys, out),
            Check::Flags => flags(keys.entries, out),
            Check::Forbidden => forbidden(keys.entries, keys.forbidden, out),
            Check::Spelling => misspelt_sources(keys.source_lang, keys.entries, out),
        }
    }
}

/// What the checks read: the glossary's keys and indexes over them.
pub(super) struct Keys<'a> {
    entries: &'a [Entry],
    /// The glossary-wide forbidden words.
    forbidden: &'a [String],
    source_lang: &'a str,
    keys: Vec<Key<'a>>,
    /// Each entry's keys, which `keys_of` lists together: looking them up
    /// by entry keeps lint linear in the size of the glossary.
    by_entry: Vec<Range<usize>>,
    /// Keys by their stems, in glossary order.
    by_stems: HashMap<String, Vec<usize>>,
    stems: Stems,
}

impl<'a> Keys<'a> {
    pub(super) fn new(glossary: &'a Glossary) -> Keys<'a> {
        let mut stems = Stems::default();
        let keys = keys_of(glossary, &mut stems);
        let mut by_entry = vec![0..0; glossary.entries.len()];
        for (i, k) in keys.iter().enumerate() {
            let range = &mut by_entry[k.entry];
            if range.start == range.end {
                *range = i..i;
            }
            range.end = i + 1;
        }
        let mut by_stems: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            by_stems.entry(k.stems.join(" ")).or_default().push(i);
        }
        Keys {
            entries: &glossary.entries,
            forbidden: &glossary.forbidden,
            source_lang: &glossary.source_lang,
            keys,
            by_entry,
            by_stems,
            stems,
        }
    }
}

fn finding(
    e: &Entry,
    check: &'static str,
    severity: Severity,
    message: String,
    suggestion: impl Into<String>,
) -> Finding {
    Finding {
        line: e.line,
        entry: e.id.clone(),
        check,
        severity,
        message,
        suggestion: suggestion.into(),
    }
}

/// `duplicate-key` and `redundant-alias`.
fn duplicate_keys(keys: &Keys, out: &mut Vec<Finding>) {
    for (i, k) in keys.keys.iter().enumerate() {
        let reported = same_stems(keys, i, k, out);
        if k.alias && !reported {
            split_or_joined_alias(keys, i, k, out);
        }
    }
}

/// Key `i` against the earlier keys that stem alike: another entry's is a
/// `duplicate-key`, the entry's own a `redundant-alias` (true when one was
/// reported).
fn same_stems(keys: &Keys, i: usize, k: &Key, out: &mut Vec<Finding>) -> bool {
    let e = &keys.entries[k.entry];
    let earlier = keys.by_stems[&k.stems.join(" ")]
        .iter()
        .copied()
        .take_while(|&j| j < i)
        .map(|j| &keys.keys[j]);
    let mut reported = false;
    for other in earlier {
        let same = other.key == k.key;
        if other.entry != k.entry {
            let o = &keys.entries[other.entry];
            let how = if same { "is the same as" } else { "stems like" };
            out.push(finding(
                e,
                "duplicate-key",
                Severity::Warning,
                format!(
                    "{} `{}` {how} `{}`, the {} of entry `{}` (line {}): a post naming it retrieves both",
                    k.what(), k.text, other.text, other.what(), o.id, o.line
                ),
                "keep the form in the entry it means; if both meanings are real, give each entry a `context` so the `sense` filter can choose",
            ));
            break;
        } else if k.alias && !reported {
            reported = true;
            let message = if same {
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
            };
            out.push(finding(
                e,
                "redundant-alias",
                Severity::Note,
                message,
                "remove it (harmless; only `exact` needs it)",
            ));
        }
    }
    reported
}

/// An alias that is one of the entry's earlier keys split or joined.
fn split_or_joined_alias(keys: &Keys, i: usize, k: &Key, out: &mut Vec<Finding>) {
    let joined = k.key.replace(' ', "");
    // Only this entry's earlier keys, which come just before it.
    if let Some(other) = keys.keys[keys.by_entry[k.entry].start..i]
        .iter()
        .find(|o| o.key != k.key && o.key.replace(' ', "") == joined)
    {
        out.push(finding(
            &keys.entries[k.entry],
            "redundant-alias",
            Severity::Note,
            format!(
                "alias `{}` is the entry's {} `{}` split or joined: the `split` retriever already finds it",
                k.text,
                other.what(),
                other.text
            ),
            "remove it unless you evaluate retrievers without `split`",
        ));
    }
}

/// `never-matches`: a lone lower-case stop word, or too many words.
fn never_matches(keys: &Keys, out: &mut Vec<Finding>) {
    for k in &keys.keys {
        let n = phrase::words(k.text).len();
        let lone_stop_word = n == 1
            && phrase::skip_reason(k.key) == Some(Skip::StopWord)
            && !phrase::is_capitals(k.text);
        let (why, fix) = if lone_stop_word {
            (
                "is a single lower-case stop word, which is never looked up".to_string(),
                "write an acronym in capitals (`IT`, `US`), or use a phrase of two or more words",
            )
        } else if n > phrase::MAX_KEY_WORDS {
            (
                format!(
                    "has {n} words; keys are matched up to {}",
                    phrase::MAX_KEY_WORDS
                ),
                "shorten it, or add a shorter alias",
            )
        } else {
            continue;
        };
        out.push(finding(
            &keys.entries[k.entry],
            "never-matches",
            Severity::Warning,
            format!("{} `{}` {why}", k.what(), k.text),
            fix,
        ));
    }
}

/// `one-letter`: a key of one letter ("S", "C", "C++") is found wherever
/// that letter stands alone, which SPEC v2 makes true of the s of "IBM's"
/// and the t of "don't" as well as of "plan C".
fn one_letter(keys: &Keys, out: &mut Vec<Finding>) {
    for k in &keys.keys {
        let mut chars = k.key.chars();
        let letter = chars
            .next()
            .filter(|c| c.is_alphabetic() && chars.next().is_none());
        let Some(letter) = letter else {
            continue;
        };
        if phrase::skip_reason(k.key) == Some(Skip::StopWord) {
            continue; // never looked up: `never-matches` says so
        }
        out.push(finding(
            &keys.entries[k.entry],
            "one-letter",
            Severity::Note,
            format!(
                "{} `{}` is the one letter `{letter}`: every `{letter}` standing alone retrieves it (\"plan {letter}\", and after an apostrophe: \"IBM's\", \"don't\")",
                k.what(),
                k.text
            ),
            "add the words posts write around it (`C language`), unless every lone letter should bring the entry",
        ));
    }
}

/// `symbols-only`: a key with no letter or digit ("±", "&") is found only
/// as written, apart from letters and digits: "5 ± 2", not "5±2" or "R&D".
fn symbols_only(keys: &Keys, out: &mut Vec<Finding>) {
    for k in keys.keys.iter().filter(|k| k.key.is_empty()) {
        out.push(finding(
            &keys.entries[k.entry],
            "symbols-only",
            Severity::Note,
            format!(
                "{} `{}` has no letter or digit: it is found only where no letter or digit touches it (\"x {} y\", not \"x{}y\"), and never by stem or typo",
                k.what(),
                k.text,
                k.text,
                k.text
            ),
            "if posts also write it in words, add those as an alias (`plus or minus` for `±`)",
        ));
    }
}

/// `leading-article`: "the martial arts training institute".
fn leading_articles(keys: &Keys, out: &mut Vec<Finding>) {
    for k in &keys.keys {
        let first = k.key.split(' ').next().unwrap_or_default();
        if k.key.contains(' ') && matches!(first, "the" | "a" | "an") {
            let rest = &k.key[first.len() + 1..];
            out.push(finding(
                &keys.entries[k.entry],
                "leading-article",
                Severity::Note,
                format!(
                    "{} `{}` starts with the article `{first}`",
                    k.what(),
                    k.text
                ),
                format!(
                    "drop it (`{rest}`): posts often write another article or none{}",
                    if without_leading_article(k.key, k.text).is_some() {
                        " (`glossa` finds it without one, `exact` does not)"
                    } else {
                        ""
                    }
                ),
            ));
        }
    }
}

/// `context-own-key`: a context phrase that stems to the entry itself.
fn context_own_keys(keys: &mut Keys, out: &mut Vec<Finding>) {
    for e in keys.entries {
        let Some(context) = &e.context else { continue };
        for (list, phrases) in [("not", &context.not), ("any", &context.any)] {
            for p in phrases {
                if crate::retrieve::stems_to_own_key(&mut keys.stems, e, p) {
                    out.push(finding(
                        e,
                        "context-own-key",
                        Severity::Warning,
                        format!(
                            "context.{list} phrase `{p}` stems like the entry's own key `{}`",
                            e.source
                        ),
                        "it is matched only as written; use a phrase that says more (`dated menu`, `save the date`)",
                    ));
                }
            }
        }
    }
}

/// `nested`: a key's sub-phrase is another entry's key.
fn nested(keys: &Keys, out: &mut Vec<Finding>) {
    let mut pairs: HashSet<(usize, usize)> = HashSet::new();
    let mut nested = Vec::new();
    for outer in &keys.keys {
        let n = outer.stems.len();
        for len in 1..n {
            for first in 0..=n - len {
                let sub = outer.stems[first..first + len].join(" ");
                for &j in keys.by_stems.get(&sub).into_iter().flatten() {
                    let inner = &keys.keys[j];
                    if inner.entry != outer.entry && pairs.insert((inner.entry, outer.entry)) {
                        nested.push((inner, outer));
                    }
                }
            }
        }
    }
    for (inner, outer) in nested {
        let (e, o) = (&keys.entries[inner.entry], &keys.entries[outer.entry]);
        out.push(finding(
            e,
            "nested",
            Severity::Note,
            format!(
                "`{}` lies inside `{}` (entry `{}`, line {}): a post saying \"{}\" also retrieves `{}`",
                inner.text, outer.text, o.id, o.line, outer.key, e.id
            ),
            if targets_agree(o, e) {
                format!(
                    "usual for a phrase and its head word; their targets agree, so `glossa` gives the model both there (the `longest` filter drops `{}` only where it matched through a stem or typo)",
                    e.id
                )
            } else {
                format!(
                    "their targets conflict (`{}` shares no piece of a word with `{}`), so where `{}` stands only inside `{}` the prompt of `glossa` shows it as part of that term",
                    e.target, o.target, e.id, o.id
                )
            },
        ));
    }
}

/// `target-english`: the output check cannot tell the target from English.
fn target_english(entries: &[Entry], english: &English, out: &mut Vec<Finding>) {
    // A kept entry's target is its source by design.
    for e in entries.iter().filter(|e| !e.keep) {
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
                "nothing to fix if it is the right term; otherwise use the real target term (a passing check proves less for this entry)",
            ));
        }
    }
}

/// `misspelt-source`: a word of an English source that is not an English
/// word but is one or two edits from one ("rasberry" → raspberry). Posts
/// spell it right, and a correctly spelled word is never read as a typo,
/// so such an entry is never found. Names are left alone: sources with a
/// capital, `keep` and `case_sensitive` entries; so are sources with more
/// than one unknown word (a phrase in another language).
fn misspelt_sources(g_source_lang: &str, entries: &[Entry], out: &mut Vec<Finding>) {
    if crate::language::code_of(g_source_lang).is_none_or(|l| l.code != "en") {
        return;
    }
    let name_like =
        |e: &&Entry| e.keep || e.case_sensitive || e.source.chars().any(char::is_uppercase);
    for e in entries.iter().filter(|e| !name_like(e)) {
        let unknown: Vec<String> = phrase::words(&e.source)
            .iter()
            .map(|w| w.text.to_string())
            .filter(|w| {
                w.chars().all(|c| c.is_alphabetic() && c.is_lowercase())
                    && w.chars().count() >= 4
                    && !is_english_word(w)
            })
            .collect();
        let [word] = unknown.as_slice() else { continue };
        let max = if word.chars().count() >= 8 { 2 } else { 1 };
        if let Some(nearest) = nearest_english(word, max) {
            // A note: a term of a trade ("backend") or a word of another
            // language ("pain au chocolat") may be one slip from English.
            out.push(finding(
                e,
                "misspelt-source",
                Severity::Note,
                format!(
                    "`{word}` in the source is not an English word; did you mean `{nearest}`? \
                     Posts that spell it right would not find this entry"
                ),
                format!(
                    "write the source with `{nearest}` (keep `{word}` as an alias if posts misspell \
                     it too); nothing to fix if `{word}` is a word of another language"
                ),
            ));
        }
    }
}

/// `case-no-letters`: `case_sensitive` on a source without a letter,
/// which has no case; `keep-common-word`: `keep` on a source of common
/// lower-case English words, which is likely a word to translate, not a
/// name.
fn flags(entries: &[Entry], out: &mut Vec<Finding>) {
    for e in entries {
        if e.case_sensitive && !e.source.chars().any(char::is_alphabetic) {
            out.push(finding(
                e,
                "case-no-letters",
                Severity::Warning,
                format!(
                    "`case_sensitive` is set, but the source `{}` has no letter, so no case",
                    e.source
                ),
                "drop `case_sensitive`",
            ));
        }
        let words = phrase::words(&e.source);
        let common = !words.is_empty()
            && !e.source.chars().any(char::is_uppercase)
            && words
                .iter()
                .all(|w| phrase::is_stopword(&w.text) || is_english_word(&w.text));
        if e.keep && common {
            out.push(finding(
                e,
                "keep-common-word",
                Severity::Warning,
                format!(
                    "`keep` is set, so `{}` is never translated, but it is written as common English words, not a name",
                    e.source
                ),
                "drop `keep` and give the translation, or write the name as the brand writes it (with its capitals)",
            ));
        }
    }
}

/// `form`: see [`form_problems`].
fn forms(entries: &[Entry], out: &mut Vec<Finding>) {
    for e in entries {
        for (severity, message) in form_problems(e) {
            out.push(finding(
                e,
                "form",
                severity,
                message,
                "remove it: `forms` lists other accepted spellings of the target",
            ));
        }
    }
}

/// What is wrong with an entry's `forms`: empty, the target itself, or a
/// repeat of an earlier form (case ignored).
fn form_problems(e: &Entry) -> Vec<(Severity, String)> {
    let target = e.target.trim().to_lowercase();
    // A set, not a list: an entry may carry 100,000 forms.
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for form in &e.forms {
        let folded = form.trim().to_lowercase();
        let repeated = !seen.insert(folded.clone());
        if folded.is_empty() {
            out.push((Severity::Warning, format!("form {form:?} is empty")));
        } else if folded == target {
            out.push((
                Severity::Note,
                format!("form `{form}` is the target `{}` itself", e.target),
            ));
        } else if repeated {
            out.push((Severity::Note, format!("form `{form}` is given twice")));
        }
    }
    out
}

/// `forbidden`: a forbidden term the glossary also asks for (error), and
/// a glossary-wide forbidden word that is a target or form (warning).
fn forbidden(entries: &[Entry], wide: &[String], out: &mut Vec<Finding>) {
    if wide.is_empty() && entries.iter().all(|e| e.forbidden.is_empty()) {
        return;
    }
    let fold = |s: &str| crate::target_match::fold(s.trim());
    // Entries by source key, for "another entry with the same source".
    let mut by_key: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        by_key.entry(e.key.as_str()).or_default().push(i);
    }
    let wide: HashMap<String, &String> = wide.iter().map(|w| (fold(w), w)).collect();
    for (i, e) in entries.iter().enumerate() {
        let spellings: Vec<(String, &String)> = std::iter::once(&e.target)
            .chain(&e.forms)
            .map(|s| (fold(s), s))
            .collect();
        for word in &e.forbidden {
            let folded = fold(word);
            if let Some((_, own)) = spellings.iter().find(|(s, _)| *s == folded) {
                let what = if *own == &e.target { "target" } else { "form" };
                out.push(finding(
                    e,
                    "forbidden",
                    Severity::Error,
                    format!("forbidden term `{word}` is the entry's own {what} `{own}`: the glossary asks for the word and forbids it (the prompt says both)"),
                    "remove it from `forbidden`, or give the entry the term to write instead",
                ));
                continue;
            }
            let same_source = by_key.get(e.key.as_str()).into_iter().flatten();
            let other = same_source
                .map(|&j| (j, &entries[j]))
                .find(|(j, o)| *j != i && fold(&o.target) == folded);
            if let Some((_, o)) = other {
                let apart = e.context.is_some() || o.context.is_some();
                out.push(finding(
                    e,
                    "forbidden",
                    if apart { Severity::Warning } else { Severity::Error },
                    format!(
                        "forbidden term `{word}` is the target of entry `{}` (line {}), which has the same source `{}`: \
                         a post naming it asks for the word and forbids it",
                        o.id, o.line, e.source
                    ),
                    if apart {
                        "check that the entries' `context` keeps them apart"
                    } else {
                        "give each entry a `context` so the `sense` filter keeps one, or drop the term from `forbidden`"
                    },
                ));
            }
        }
        for (folded, spelling) in &spellings {
            if let Some(word) = wide.get(folded) {
                out.push(finding(
                    e,
                    "forbidden",
                    Severity::Warning,
                    format!("the glossary-wide forbidden word `{word}` is this entry's `{spelling}`: a translation using the entry fails wherever the word is not inside its target"),
                    "remove the word from the top-level `forbidden`, or give the entry another target",
                ));
            }
        }
    }
}

/// `ambiguous`: a one-word key on the shipped list of ambiguous words,
/// without `context` (warning) or without `sense` (note).
fn ambiguous(keys: &Keys, out: &mut Vec<Finding>) {
    let ambiguous = ambiguous_by_stem();
    for (i, e) in keys.entries.iter().enumerate() {
        let Some((k, Ambiguous { word, senses })) = keys.keys[keys.by_entry[i].clone()]
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
                "add `context`: `not` with phrases of the other senses, `any` with words that come with this one; and a `sense` note for the model",
            ));
        } else if e.sense.is_none() {
            out.push(finding(
                e,
                "ambiguous",
                Severity::Note,
                format!("{named} has several senses ({senses}) and the entry has no `sense` note"),
                "add `sense`: a few words on the intended meaning, shown to the model",
            ));
        }
    }
}
