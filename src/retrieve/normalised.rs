//! `normalised`: both sides stemmed word by word with the Snowball English
//! (Porter2) stemmer (rust-stemmers' rules, see [`super::porter2`]), then
//! compared as `exact`.

use super::exact::Exact;
use super::keys::{self, Keyed};
use super::porter2;
use super::terms::{self, WordTrie};
use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::Glossary;
use crate::phrase;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "normalised",
    summary:
        "equal after stemming every word (Snowball English): cookies = cookie, delivered = deliver",
    build: |g, _: &Params| Ok(Box::new(Normalised::new(g))),
    kinds: &[],
};

/// A stemmer that stems each distinct word once.
#[derive(Default)]
pub(crate) struct Stems {
    cache: FxHashMap<String, String>,
}

impl Stems {
    /// Stem of one word (rust-stemmers stems its whole input as one word).
    pub(crate) fn word(&mut self, word: &str) -> &str {
        if !self.cache.contains_key(word) {
            self.cache.insert(word.to_string(), stem_word(word));
        }
        &self.cache[word]
    }

    /// A phrase key with every word stemmed.
    pub(crate) fn key(&mut self, key: &str) -> String {
        stem_key(key)
    }
}

/// The Snowball English stem of one word. No cache: [`porter2::stem`]
/// costs about as much as a look-up in a table of every glossary word
/// (measured: a thread-local cache of 2^18 stems made the 100k-entry run
/// slower and 22 MB bigger).
pub(crate) fn stem_word(word: &str) -> String {
    porter2::stem(word)
}

/// Each key with every word stemmed, in order. Made once and handed to
/// every matcher that reads stems (stemming is most of their build).
pub(crate) fn stem_keys(keys: &[Keyed]) -> Vec<String> {
    keys.par_iter().map(|k| stem_key(k.key)).collect()
}

/// A phrase key with every word stemmed.
pub(crate) fn stem_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for (i, w) in phrase::key_words(key).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&stem_word(w));
    }
    out
}

pub(crate) struct Normalised {
    /// Every key as written (the v2 invariant holds here too: `exact` ⊆
    /// `normalised`).
    exact: Exact,
    /// Keys with every word stemmed, numbered as `exact`'s forms.
    stemmed: WordTrie,
}

impl Normalised {
    /// Over the glossary's source keys (the reference retriever).
    pub(crate) fn new(glossary: &Glossary) -> Normalised {
        let keys = keys::sources(glossary);
        Normalised::over(&keys, &stem_keys(&keys))
    }

    /// Over any list of keys, given stemmed ([`stem_keys`]).
    pub(crate) fn over(keys: &[Keyed], stemmed: &[String]) -> Normalised {
        debug_assert_eq!(keys.len(), stemmed.len());
        let trie = WordTrie::new(
            stemmed
                .iter()
                .enumerate()
                .map(|(i, stem)| (i as u32, phrase::key_words(stem).collect())),
        );
        Normalised {
            exact: Exact::over(keys),
            stemmed: trie,
        }
    }
}

impl Infallible for Normalised {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        let mut out = self.exact.matches(post);
        let stems = post.stems().iter().map(String::as_str);
        let words = stems.zip(post.segments().iter().copied());
        self.stemmed.find(words, |found| {
            // Single words keep docs/formats.md phrase rule 5 (stop words, short words and
            // numbers are only found as written, by `exact`).
            if found.len == 1 && !phrase::is_lookup_word(&post.words[found.first].text) {
                return;
            }
            let span = post.span(found.first, found.len);
            for &k in found.keys {
                let form = &self.exact.forms()[k as usize];
                if !form.allows(span) {
                    continue;
                }
                let key = post.key_of(found.first, found.len);
                let kind = if form.key == key {
                    MatchKind::Exact
                } else {
                    MatchKind::Stem
                };
                out.push(terms::word_match(post, form.entry, kind, &found));
            }
        });
        terms::in_phrase_order(&mut out);
        // One match per entry and place: `exact` already gave the ones
        // written as in the glossary.
        let mut seen = rustc_hash::FxHashSet::default();
        out.retain(|m| seen.insert((m.entry, m.words)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind::Stem;
    use super::*;

    #[test]
    fn stems_plurals_and_tenses() {
        for (a, b) in [
            ("cookies", "cookie"),
            ("delivered", "deliver"),
            ("baking", "bake"),
            ("rolled", "rolling"),
        ] {
            assert_eq!(stem_word(a), stem_word(b), "{a} / {b}");
        }
        // Porter2 does not join every inflection (DESIGN.md notes this one).
        assert_ne!(stem_word("delivered"), stem_word("delivery"));
    }

    #[test]
    fn matches_inflected_multi_word_phrases() {
        let g = glossary(&[
            ("cold-coffee", "cold coffee"),
            ("home-delivery", "home delivery"),
        ]);
        let got = run("normalised", &g, "Cold coffees with home deliveries");
        assert_eq!(
            got,
            [
                ("cold-coffee".into(), Stem, "cold coffees".into()),
                ("home-delivery".into(), Stem, "home deliveries".into())
            ]
        );
    }

    #[test]
    fn misses_typos() {
        let g = glossary(&[("delivery", "delivery")]);
        assert!(run("normalised", &g, "free delivry").is_empty());
    }

    proptest::proptest! {
        /// `stem_word` gives rust-stemmers' stems, through glossa's port
        /// for ASCII words and rust-stemmers itself for the others (words
        /// up to 20 bytes, some with `é`).
        #[test]
        fn stems_are_rust_stemmers(words in proptest::collection::vec("[a-zé']{0,20}", 1..20)) {
            for w in &words {
                proptest::prop_assert_eq!(stem_word(w), porter2::reference(w), "{}", w);
            }
        }
    }

    #[test]
    fn cached_stems_agree_with_direct_stems() {
        let mut stems = Stems::default();
        assert_eq!(stems.key("fresh cookies baked"), "fresh cooki bake");
        assert_eq!(stems.word("cookies"), "cooki");
    }
}
