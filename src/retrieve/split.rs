//! `split`: a word written split or joined. A phrase matches a key with a
//! different number of words when both are the same once their spaces are
//! removed (`sour dough` ↔ `sourdough`, `home made` ↔ `homemade`,
//! `coldcoffee` ↔ `cold coffee`), or when the joined forms have the same
//! stem (`sour doughs`). Looked up in a map from space-less key to entries,
//! so it costs one hash look-up per phrase whatever the glossary's size.

use super::keys::{self, Keyed};
use super::normalised::stem_word;
use super::{Match, MatchKind, Params, PostView, Retriever, RetrieverInfo};
use crate::glossary::{word_count, Glossary};
use std::collections::HashMap;

pub const INFO: RetrieverInfo = RetrieverInfo {
    name: "split",
    summary: "a word split or joined: `sour dough` = sourdough, `home made` = homemade (same letters, other spacing)",
    build: |g, _: &Params| Box::new(Split::new(g)),
};

/// A key by its space-less form: (entry, number of words).
type Joined = HashMap<String, Vec<(usize, usize)>>;

pub struct Split {
    joined: Joined,
    joined_stem: Joined,
}

impl Split {
    /// Over the glossary's source keys.
    pub fn new(glossary: &Glossary) -> Split {
        Split::over(&keys::sources(glossary))
    }

    /// Over any list of keys.
    pub fn over(keys: &[Keyed]) -> Split {
        let mut joined: Joined = HashMap::with_capacity(keys.len());
        let mut joined_stem: Joined = HashMap::with_capacity(keys.len());
        for k in keys {
            let j = k.key.replace(' ', "");
            let value = (k.entry, word_count(&k.key));
            let stem = stem_word(&j);
            for (map, at) in [(&mut joined, j), (&mut joined_stem, stem)] {
                let list = map.entry(at).or_default();
                if !list.contains(&value) {
                    list.push(value);
                }
            }
        }
        Split {
            joined,
            joined_stem,
        }
    }
}

impl Retriever for Split {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        let mut seen: Vec<usize> = Vec::new();
        for phrase in post.lookup_phrases() {
            let j = phrase.key.replace(' ', "");
            seen.clear();
            let exact = self.joined.get(&j).into_iter().flatten();
            let stemmed = self.joined_stem.get(&stem_word(&j)).into_iter().flatten();
            for &(entry, words) in exact.chain(stemmed) {
                if words != phrase.len && !seen.contains(&entry) {
                    seen.push(entry);
                    out.push(Match::of_phrase(entry, MatchKind::Split, phrase, 1.0));
                }
            }
        }
        out
    }
}
