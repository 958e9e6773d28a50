//! `exact`: an entry is retrieved when its key equals a phrase's key.

use super::keys::{self, Keyed};
use super::{Match, MatchKind, Params, PostView, Retriever, RetrieverInfo};
use crate::glossary::Glossary;
use std::collections::HashMap;

pub const INFO: RetrieverInfo = RetrieverInfo {
    name: "exact",
    summary: "the entry's source key equals a phrase key (after lower-casing)",
    build: |g, _: &Params| Box::new(Exact::new(g)),
};

pub struct Exact {
    by_key: HashMap<String, Vec<usize>>,
}

impl Exact {
    /// Over the glossary's source keys (the reference retriever).
    pub fn new(glossary: &Glossary) -> Exact {
        Exact::over(&keys::sources(glossary))
    }

    /// Over any list of keys.
    pub fn over(keys: &[Keyed]) -> Exact {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::with_capacity(keys.len());
        for k in keys {
            let entries = by_key.entry(k.key.clone()).or_default();
            if !entries.contains(&k.entry) {
                entries.push(k.entry);
            }
        }
        Exact { by_key }
    }
}

impl Retriever for Exact {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        for phrase in post.lookup_phrases() {
            if let Some(entries) = self.by_key.get(&phrase.key) {
                out.extend(
                    entries
                        .iter()
                        .map(|&e| Match::of_phrase(e, MatchKind::Exact, phrase, 1.0)),
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind::Exact;

    #[test]
    fn matches_whole_phrase_keys_only() {
        let g = glossary(&[
            ("cold-coffee", "Cold Coffee"),
            ("coffee", "coffee"),
            ("cookie", "cookie"),
        ]);
        let got = run("exact", &g, "COLD coffee, and cookies!");
        assert_eq!(
            got,
            [
                ("cold-coffee".into(), Exact, "cold coffee".into()),
                ("coffee".into(), Exact, "coffee".into())
            ]
        );
    }

    #[test]
    fn does_not_cross_boundaries_and_skips_stop_words() {
        let g = glossary(&[("cold-coffee", "cold coffee"), ("the", "the"), ("up", "up")]);
        assert!(run("exact", &g, "It's cold. Coffee? The end, up").is_empty());
    }
}
