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
use rustc_hash::{FxHashMap as HashMap, FxHashSet};

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
    /// Every length of a key in `joined_stem`, in bytes: a phrase is only
    /// stemmed when a key's stem could be a prefix of it.
    stem_lengths: FxHashSet<usize>,
}

impl Split {
    /// Over the glossary's source keys.
    pub fn new(glossary: &Glossary) -> Split {
        Split::over(&keys::sources(glossary))
    }

    /// Over any list of keys.
    pub fn over(keys: &[Keyed]) -> Split {
        let mut joined: Joined = HashMap::default();
        let mut joined_stem: Joined = HashMap::default();
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
        let stem_lengths = joined_stem.keys().map(String::len).collect();
        Split {
            joined,
            joined_stem,
            stem_lengths,
        }
    }
}

/// The most bytes Porter2 strips from an English word's end ("-ousness" →
/// "-ous" is 4, "-ization" → "-ize" 4, with step 1's "-s"/"-es" and the
/// final "-e" 7 at most); a margin beyond.
const MAX_STRIPPED: usize = 10;

impl Split {
    /// Whether some key's stem is a prefix of `joined`. Stemming (the
    /// costly step) only strips or rewrites an ending, so a phrase whose
    /// stem equals a key's stem starts with that stem, except where Porter2
    /// turns a final `y` into `i` (`happy` → `happi`), checked as well.
    fn may_stem_like_a_key(&self, joined: &str) -> bool {
        let fits = |prefix: &str| {
            self.stem_lengths.contains(&prefix.len()) && self.joined_stem.contains_key(prefix)
        };
        // Stemming strips at most a few letters ("-ization", "-fulness").
        joined
            .char_indices()
            .map(|(i, _)| i)
            .skip(1)
            .chain([joined.len()])
            .filter(|&end| end + MAX_STRIPPED >= joined.len())
            .any(|end| fits(&joined[..end]))
            || joined.ends_with('y') && {
                let mut i_form = joined[..joined.len() - 1].to_string();
                i_form.push('i');
                fits(&i_form)
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
            let stemmed = self
                .may_stem_like_a_key(&j)
                .then(|| self.joined_stem.get(&stem_word(&j)))
                .flatten()
                .into_iter()
                .flatten();
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind;

    #[test]
    fn joined_and_split_words_match_also_inflected() {
        let g = glossary(&[
            ("sourdough", "sourdough"),
            ("berry-pie", "berry pie"),
            ("ice", "ice cream"),
        ]);
        for (text, id) in [
            ("sour dough loaves", "sourdough"),
            ("two sour doughs", "sourdough"),
            ("berrypies", "berry-pie"),
            ("icecreams", "ice"),
        ] {
            let got: Vec<(String, MatchKind)> = run("split", &g, text)
                .into_iter()
                .map(|(id, kind, _)| (id, kind))
                .collect();
            assert_eq!(got, [(id.to_string(), MatchKind::Split)], "{text}");
        }
        assert!(run("split", &g, "sour cream").is_empty());
    }
}
