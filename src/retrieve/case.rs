//! Case-sensitive entries (docs/formats.md, "Case and keep"): the one
//! place retrieval honours `case_sensitive`. Every retriever that
//! [`super::build`] makes passes its matches through [`CaseFilter`] before
//! its own filters, when the glossary has such an entry; a glossary
//! without one is never touched (the reference retrievers' results stay
//! as they were).
//!
//! A case-sensitive entry keeps a match only where the post's words are
//! its source or an alias (or one without its leading article) written
//! with the same case, word for word; the last word may carry an ending
//! that leaves its stem as it was ("Apples", "Apple's" for "Apple"). So a
//! typo, a joined or split spelling, or another case is no match of it
//! ("us" is not "US", "APPLE" not "Apple"). Where such an entry stands
//! written exactly, entries without the flag found on the same words but
//! written there in another case give way: "US" takes "US" from "us".

use super::keys::without_leading_article;
use super::normalised::stem_word;
use super::{Filter, Match, PostView};
use crate::glossary::{Entry, Glossary};
use crate::phrase;
use rustc_hash::{FxHashMap, FxHashSet};

/// One way an entry is written: its words as written (NFC, `’` as `'`),
/// and the stem of the last one.
#[derive(Debug, Clone)]
struct Written {
    words: Vec<String>,
    last_stem: String,
}

/// How a post's words stand against one written form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    /// Not this form, with this case.
    No,
    /// The form with an ending on its last word.
    Inflected,
    /// The form exactly.
    Exact,
}

/// The ways `entry` is written: source, aliases, each without its leading
/// article too.
fn written_forms(entry: &Entry) -> Vec<Written> {
    let mut out = Vec::new();
    let declared = std::iter::once((&entry.key, &entry.source))
        .chain(entry.alias_keys.iter().zip(&entry.aliases));
    for (key, written) in declared {
        let written = phrase::nfc(written);
        out.extend(form(&written));
        if let Some((_, rest)) = without_leading_article(key, &written) {
            out.extend(form(rest));
        }
    }
    out
}

fn form(written: &str) -> Option<Written> {
    let words = phrase::words(written);
    let last = words.last()?;
    Some(Written {
        last_stem: stem_word(&last.text),
        words: words
            .iter()
            .map(|w| as_compared(&written[w.start..w.end]))
            .collect(),
    })
}

/// A word as written, its apostrophes and micro signs written one way.
fn as_compared(word: &str) -> String {
    word.chars()
        .map(|c| {
            if c == '’' {
                '\''
            } else {
                phrase::same_letter(c)
            }
        })
        .collect()
}

/// How the post's words `first..first + len` stand against `w`.
fn fit(post: &PostView, first: usize, len: usize, w: &Written) -> Fit {
    if w.words.len() != len {
        return Fit::No;
    }
    let mut fit = Fit::Exact;
    for (i, want) in w.words.iter().enumerate() {
        let word = &post.words[first + i];
        let got = as_compared(&post.text[word.start..word.end]);
        if got == *want {
            continue;
        }
        let last = i + 1 == len;
        let inflected =
            last && got.starts_with(want.as_str()) && post.stems()[first + i] == w.last_stem;
        if !inflected {
            return Fit::No;
        }
        fit = Fit::Inflected;
    }
    fit
}

/// The best fit of any of `forms` at the post's words.
fn best_fit(post: &PostView, (first, len): (usize, usize), forms: &[Written]) -> Fit {
    forms
        .iter()
        .map(|w| fit(post, first, len, w))
        .max()
        .unwrap_or(Fit::No)
}

/// Drops a case-sensitive entry's matches where the post writes it in
/// another case (see the module doc).
pub(crate) struct CaseFilter {
    /// The written forms of every case-sensitive entry, by entry index.
    sensitive: FxHashMap<usize, Vec<Written>>,
    glossary: std::sync::Arc<Glossary>,
}

impl CaseFilter {
    /// The filter for `glossary`, `None` when no entry is case-sensitive.
    pub(crate) fn of(glossary: &std::sync::Arc<Glossary>) -> Option<CaseFilter> {
        let sensitive: FxHashMap<usize, Vec<Written>> = glossary
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.case_sensitive)
            .map(|(i, e)| (i, written_forms(e)))
            .collect();
        (!sensitive.is_empty()).then(|| CaseFilter {
            sensitive,
            glossary: glossary.clone(),
        })
    }
}

impl Filter for CaseFilter {
    fn filter(&self, post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        // Places where a case-sensitive entry stands written exactly.
        let mut exact_places: FxHashSet<(usize, usize)> = FxHashSet::default();
        let mut kept: Vec<Match> = Vec::with_capacity(matches.len());
        for m in matches {
            let (Some(forms), Some(words)) = (self.sensitive.get(&m.entry), m.words) else {
                kept.push(m);
                continue;
            };
            // A source of symbols only has no case: kept as found.
            if forms.is_empty() {
                kept.push(m);
                continue;
            }
            match best_fit(post, words, forms) {
                Fit::No => {}
                Fit::Inflected => kept.push(m),
                Fit::Exact => {
                    exact_places.insert(words);
                    kept.push(m);
                }
            }
        }
        if exact_places.is_empty() {
            return kept;
        }
        // Entries without the flag on those words give way unless they too
        // are written there exactly.
        let mut forms_of: FxHashMap<usize, Vec<Written>> = FxHashMap::default();
        kept.retain(|m| {
            let Some(words) = m.words.filter(|w| exact_places.contains(w)) else {
                return true;
            };
            if self.sensitive.contains_key(&m.entry) {
                return true;
            }
            let forms = forms_of
                .entry(m.entry)
                .or_insert_with(|| written_forms(&self.glossary.entries[m.entry]));
            best_fit(post, words, forms) == Fit::Exact
        });
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::super::{best_per_entry, build, Params, PostView};
    use crate::glossary::Glossary;
    use std::sync::Arc;

    fn glossary(json: &str) -> Arc<Glossary> {
        Arc::new(Glossary::parse("g.json", "g", &format!(r#"{{"entries":[{json}]}}"#)).unwrap())
    }

    fn ids(spec: &str, g: &Arc<Glossary>, text: &str) -> Vec<String> {
        let r = build(spec, g, &Params::default()).unwrap();
        best_per_entry(r.retrieve(&PostView::new(text, None)).unwrap())
            .into_iter()
            .map(|m| g.entries[m.entry].id.clone())
            .collect()
    }

    const SPECS: [&str; 6] = [
        "exact",
        "normalised",
        "fuzzy",
        "normalised+fuzzy",
        "glossa",
        "exact+alias|closest|longest",
    ];

    #[test]
    fn a_case_sensitive_entry_is_found_only_with_its_case() {
        let g = glossary(
            r#"{"id":"apple","source":"Apple","target":"Apple","case_sensitive":true},
               {"id":"pie","source":"apple pie","target":"tarte"}"#,
        );
        for spec in SPECS {
            assert_eq!(ids(spec, &g, "Apple unveils a phone"), ["apple"], "{spec}");
            assert!(ids(spec, &g, "an apple a day").is_empty(), "{spec}");
            assert!(ids(spec, &g, "APPLE STORE").is_empty(), "{spec}");
        }
        // An ending on the last word keeps its stem: found.
        assert_eq!(ids("normalised", &g, "Apple's new phone"), ["apple"]);
        assert_eq!(ids("exact", &g, "Apple's new phone"), ["apple"]);
        assert_eq!(ids("normalised", &g, "two Apples"), ["apple"]);
        // A typo is not its case.
        assert!(ids("glossa", &g, "Appple unveils").is_empty());
    }

    #[test]
    fn the_exact_case_takes_its_place_from_entries_without_the_flag() {
        let g = glossary(
            r#"{"id":"US","source":"US","target":"EE. UU.","case_sensitive":true},
               {"id":"us","source":"us","target":"nosotros"}"#,
        );
        for spec in SPECS {
            if spec == "fuzzy" {
                continue; // a two-letter key is its own gram: "us" only as written
            }
            assert_eq!(ids(spec, &g, "Made in the US"), ["US"], "{spec}");
            assert_eq!(ids(spec, &g, "Join us!"), ["us"], "{spec}");
            assert_eq!(ids(spec, &g, "Us too."), ["us"], "{spec}");
        }
    }

    #[test]
    fn aliases_and_multi_word_sources_are_compared_word_by_word() {
        let g = glossary(
            r#"{"id":"cafe","source":"Glossa Café","target":"Glossa Café","keep":true,
                "case_sensitive":true,"aliases":["the Glossa Coffee House"]}"#,
        );
        assert_eq!(ids("glossa", &g, "Meet at Glossa  Café."), ["cafe"]);
        assert!(ids("glossa", &g, "Meet at glossa café.").is_empty());
        assert!(ids("glossa", &g, "Meet at Glossa Cafe.").is_empty());
        assert_eq!(ids("glossa", &g, "a Glossa Coffee House"), ["cafe"]);
        assert!(ids("glossa", &g, "a glossa coffee house").is_empty());
    }
}
