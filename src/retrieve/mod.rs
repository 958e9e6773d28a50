//! Retrievers: from a post's phrases to glossary matches.
//!
//! Every retriever implements [`Retriever`] and is registered by name in
//! [`REGISTRY`]; a retriever spec such as `normalised+fuzzy` is parsed by
//! [`build`] into a union of registered retrievers. Adding a retriever is one
//! file plus one line in the registry.

mod exact;
mod fuzzy;
mod normalised;
mod oracle;
mod union;

pub use fuzzy::{dice, trigrams, Gram};
pub use normalised::Stems;

use crate::glossary::Glossary;
use crate::phrase::{self, Phrase, Word};
use serde::Serialize;
use std::fmt;
use std::sync::Arc;

/// How an entry matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchKind {
    /// The phrase key equals the entry key.
    Exact,
    /// Equal after stemming every word.
    Stem,
    /// Character-trigram Dice at or above the threshold.
    Fuzzy,
    /// Taken from the post's label.
    Oracle,
}

impl fmt::Display for MatchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            MatchKind::Exact => "exact",
            MatchKind::Stem => "stem",
            MatchKind::Fuzzy => "fuzzy",
            MatchKind::Oracle => "oracle",
        };
        f.write_str(name)
    }
}

/// One entry matched by one phrase.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Index of the entry in the glossary.
    pub entry: usize,
    pub kind: MatchKind,
    /// The phrase key that matched (empty for the oracle).
    pub phrase: String,
    /// Similarity in [0, 1]; 1 for exact and stem matches.
    pub score: f64,
    /// Word range `[first, first + len)` of the phrase in the post; `None`
    /// for matches that come from no phrase (the oracle).
    pub words: Option<(usize, usize)>,
}

impl Match {
    pub fn of_phrase(entry: usize, kind: MatchKind, phrase: &Phrase, score: f64) -> Match {
        Match {
            entry,
            kind,
            phrase: phrase.key.clone(),
            score,
            words: Some((phrase.first_word, phrase.len)),
        }
    }
}

/// A post as retrievers see it: its words and phrases computed once, and
/// the label's needed entries when the post is labelled.
#[derive(Debug, Clone)]
pub struct PostView<'a> {
    pub text: &'a str,
    pub words: Vec<Word>,
    pub phrases: Vec<Phrase>,
    pub needed: Option<&'a [usize]>,
}

impl<'a> PostView<'a> {
    pub fn new(text: &'a str, needed: Option<&'a [usize]>) -> PostView<'a> {
        let words = phrase::words(text);
        let phrases = phrase::phrases_of(&words);
        PostView {
            text,
            words,
            phrases,
            needed,
        }
    }

    /// The phrases that rule 5 allows to be looked up.
    pub fn lookup_phrases(&self) -> impl Iterator<Item = &Phrase> {
        self.phrases.iter().filter(|p| p.lookup)
    }
}

/// Turns a post into glossary matches. Matches may name an entry more than
/// once (one per phrase); [`best_per_entry`] keeps one each.
pub trait Retriever: Send + Sync {
    fn retrieve(&self, post: &PostView) -> Vec<Match>;

    /// Whether the retriever only works on labelled posts.
    fn needs_labels(&self) -> bool {
        false
    }
}

/// Tunable numbers shared by retrievers; each reads the ones it uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Params {
    /// Minimum trigram Dice coefficient for `fuzzy`.
    pub threshold: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params { threshold: 0.75 }
    }
}

/// A registered retriever.
pub struct RetrieverInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub build: fn(&Arc<Glossary>, &Params) -> Box<dyn Retriever>,
}

/// Every retriever, by name. The order is the order of `all`.
pub const REGISTRY: &[RetrieverInfo] = &[exact::INFO, normalised::INFO, fuzzy::INFO, oracle::INFO];

/// The five reference retrievers of SPEC.md, in report order.
pub const REFERENCE: &[&str] = &["exact", "normalised", "fuzzy", "normalised+fuzzy", "oracle"];

/// An unknown or malformed retriever spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown retriever `{name}` in `{spec}`; known: {known} (combine with `+`, e.g. normalised+fuzzy; `all` runs the reference five)")]
pub struct UnknownRetriever {
    pub spec: String,
    pub name: String,
    pub known: String,
}

/// Expand a comma-separated list of specs (`all` → the reference five).
pub fn expand_list(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for spec in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let names: Vec<String> = if spec == "all" {
            REFERENCE.iter().map(|s| s.to_string()).collect()
        } else {
            vec![spec.to_string()]
        };
        for name in names {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Build the retriever named by `spec`: a registered name, or several
/// joined by `+` for their union.
pub fn build(
    spec: &str,
    glossary: &Arc<Glossary>,
    params: &Params,
) -> Result<Box<dyn Retriever>, UnknownRetriever> {
    let mut parts = Vec::new();
    for name in spec.split('+').map(str::trim) {
        let info = REGISTRY
            .iter()
            .find(|info| info.name == name)
            .ok_or_else(|| UnknownRetriever {
                spec: spec.to_string(),
                name: name.to_string(),
                known: REGISTRY
                    .iter()
                    .map(|i| i.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        parts.push((info.build)(glossary, params));
    }
    Ok(if parts.len() == 1 {
        parts.pop().expect("one part")
    } else {
        Box::new(union::Union::new(parts))
    })
}

/// One match per entry, in glossary order: the highest score, the earliest
/// one among equals (so a union prefers its first retriever).
pub fn best_per_entry(matches: Vec<Match>) -> Vec<Match> {
    let mut best: Vec<Match> = Vec::new();
    for m in matches {
        match best.iter_mut().find(|b| b.entry == m.entry) {
            Some(b) if m.score > b.score => *b = m,
            Some(_) => {}
            None => best.push(m),
        }
    }
    best.sort_by_key(|m| m.entry);
    best
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A glossary from `(id, source)` pairs.
    pub fn glossary(entries: &[(&str, &str)]) -> Arc<Glossary> {
        let entries = entries
            .iter()
            .map(|(id, source)| format!(r#"{{"id":"{id}","source":"{source}","target":"t-{id}"}}"#))
            .collect::<Vec<_>>()
            .join(",");
        Arc::new(
            Glossary::parse(
                "test.json",
                "test",
                &format!(r#"{{"entries":[{entries}]}}"#),
            )
            .unwrap(),
        )
    }

    /// Ids retrieved by `spec` for `text`, with their kinds and phrases.
    pub fn run(spec: &str, g: &Arc<Glossary>, text: &str) -> Vec<(String, MatchKind, String)> {
        let r = build(spec, g, &Params::default()).unwrap();
        best_per_entry(r.retrieve(&PostView::new(text, None)))
            .into_iter()
            .map(|m| (g.entries[m.entry].id.clone(), m.kind, m.phrase))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

    #[test]
    fn expand_list_dedups_and_expands_all() {
        assert_eq!(expand_list("exact, all"), REFERENCE);
        assert_eq!(expand_list("fuzzy,fuzzy"), ["fuzzy"]);
    }

    #[test]
    fn unknown_names_are_errors_naming_the_part() {
        let g = glossary(&[("tea", "tea")]);
        let err = build("normalised+fuzy", &g, &Params::default())
            .err()
            .unwrap();
        assert_eq!(err.name, "fuzy");
        assert!(err
            .to_string()
            .contains("known: exact, normalised, fuzzy, oracle"));
    }

    #[test]
    fn union_keeps_the_best_match_preferring_the_first_retriever() {
        let g = glossary(&[("cookie", "cookie"), ("tea", "tea")]);
        let got = run("normalised+fuzzy", &g, "Cookies and teas, cookiez");
        assert_eq!(
            got,
            [
                ("cookie".into(), MatchKind::Stem, "cookies".into()),
                ("tea".into(), MatchKind::Stem, "teas".into())
            ]
        );
    }
}
