//! `fuzzy`: an entry is retrieved when, for a phrase with the same number of
//! words, the Dice coefficient of the two keys' character-trigram sets is at
//! least the threshold. Trigrams are of Unicode characters over the whole
//! key, spaces included, unpadded; a key under 3 characters is its own gram.

use super::keys::{self, Keyed};
use super::{Match, MatchKind, Params, PostView, Retriever, RetrieverInfo};
use crate::glossary::{word_count, Glossary};
use crate::phrase::MAX_PHRASE_WORDS;
use std::collections::HashMap;

pub const INFO: RetrieverInfo = RetrieverInfo {
    name: "fuzzy",
    summary: "character-trigram Dice >= --threshold (default 0.75) against keys with as many words",
    build: |g, p: &Params| Box::new(Fuzzy::new(g, p.threshold)),
};

/// One gram: up to three characters; a missing character is `u32::MAX`,
/// which no `char` can be, so a short key's gram never equals a trigram.
pub type Gram = [u32; 3];

/// The sorted, de-duplicated trigram set of a key.
pub fn trigrams(key: &str) -> Vec<Gram> {
    let chars: Vec<u32> = key.chars().map(u32::from).collect();
    let mut grams: Vec<Gram> = if chars.len() < 3 {
        let mut g = [u32::MAX; 3];
        g[..chars.len()].copy_from_slice(&chars);
        vec![g]
    } else {
        chars.windows(3).map(|w| [w[0], w[1], w[2]]).collect()
    };
    grams.sort_unstable();
    grams.dedup();
    grams
}

/// Dice coefficient `2·|A∩B| / (|A|+|B|)` of two sorted gram sets.
pub fn dice(a: &[Gram], b: &[Gram]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

/// One key as `fuzzy` sees it.
struct FuzzyKey {
    entry: usize,
    grams: Vec<Gram>,
    key: String,
    words: usize,
}

/// Compares phrases with keys through an inverted index from gram to keys:
/// only keys sharing at least one gram with the phrase are scored, and
/// each with the exact Dice formula, so the result is that of comparing
/// every key (a key sharing no gram has Dice 0, which passes only a
/// threshold of 0; then every key with as many words is taken).
pub struct Fuzzy {
    threshold: f64,
    keys: Vec<FuzzyKey>,
    postings: HashMap<Gram, Vec<u32>>,
}

impl Fuzzy {
    /// Over the glossary's source keys (the reference retriever).
    pub fn new(glossary: &Glossary, threshold: f64) -> Fuzzy {
        Fuzzy::over(&keys::sources(glossary), threshold)
    }

    /// Over any list of keys.
    pub fn over(keys: &[Keyed], threshold: f64) -> Fuzzy {
        let mut out = Fuzzy {
            threshold,
            keys: Vec::with_capacity(keys.len()),
            postings: HashMap::new(),
        };
        for k in keys {
            let words = word_count(&k.key);
            // Keys of more than four words can never equal a phrase's size.
            if !(1..=MAX_PHRASE_WORDS).contains(&words) {
                continue;
            }
            let id = out.keys.len() as u32;
            let grams = trigrams(&k.key);
            for g in &grams {
                out.postings.entry(*g).or_default().push(id);
            }
            out.keys.push(FuzzyKey {
                entry: k.entry,
                grams,
                key: k.key.clone(),
                words,
            });
        }
        out
    }
}

impl Retriever for Fuzzy {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        let mut shared: HashMap<u32, usize> = HashMap::new();
        let mut touched: Vec<u32> = Vec::new();
        for phrase in post.lookup_phrases() {
            let grams = trigrams(&phrase.key);
            shared.clear();
            for g in &grams {
                for &k in self.postings.get(g).into_iter().flatten() {
                    if self.keys[k as usize].words == phrase.len {
                        *shared.entry(k).or_default() += 1;
                    }
                }
            }
            touched.clear();
            if self.threshold <= 0.0 {
                touched.extend(
                    (0..self.keys.len() as u32)
                        .filter(|&k| self.keys[k as usize].words == phrase.len),
                );
            } else {
                touched.extend(shared.keys().copied());
                touched.sort_unstable();
            }
            for &k in &touched {
                let key = &self.keys[k as usize];
                let n = shared.get(&k).copied().unwrap_or(0);
                // The formula of `dice`, on the same counts.
                let score = 2.0 * n as f64 / (grams.len() + key.grams.len()) as f64;
                if score >= self.threshold {
                    let kind = if key.key == phrase.key {
                        MatchKind::Exact
                    } else {
                        MatchKind::Fuzzy
                    };
                    out.push(Match::of_phrase(key.entry, kind, phrase, score));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind::{Exact, Fuzzy};
    use super::super::{best_per_entry, build, Match, Params, PostView};
    use super::*;

    #[test]
    fn trigram_sets_include_spaces_and_dedup() {
        assert_eq!(trigrams("aaaa").len(), 1);
        assert_eq!(trigrams("a b").len(), 1);
        assert_eq!(trigrams("ab"), vec![['a' as u32, 'b' as u32, u32::MAX]]);
        assert_eq!(trigrams("cold tea").len(), 6);
    }

    #[test]
    fn dice_of_known_pairs() {
        // focacia / focaccia: {foc,oca,cac,aci,cia} vs {foc,oca,cac,acc,cci,cia}: 2·4/11.
        let d = dice(&trigrams("focacia"), &trigrams("focaccia"));
        assert!((d - 8.0 / 11.0).abs() < 1e-12, "{d}");
        assert_eq!(dice(&trigrams("tea"), &trigrams("tea")), 1.0);
        assert_eq!(dice(&trigrams("ab"), &trigrams("abc")), 0.0);
    }

    #[test]
    fn fuzzy_matches_one_typo_and_reports_the_score() {
        let g = glossary(&[("home-delivery", "home delivery"), ("delivery", "delivery")]);
        // "delivry" alone shares 3 of 5 + 6 trigrams with "delivery" (0.545);
        // with "home " in front, 8 of 10 + 11 (0.762).
        let got = run("fuzzy", &g, "Free home delivry");
        assert_eq!(
            got,
            [("home-delivery".into(), Fuzzy, "home delivry".into())]
        );
        let r = build("fuzzy", &g, &Params::default()).unwrap();
        let m = best_per_entry(r.retrieve(&PostView::new("home delivry", None)));
        assert!((m[0].score - 16.0 / 21.0).abs() < 1e-12, "{}", m[0].score);
    }

    #[test]
    fn threshold_is_inclusive_and_configurable() {
        let g = glossary(&[("focaccia", "focaccia")]);
        let at = |t: f64| {
            let r = build(
                "fuzzy",
                &g,
                &Params {
                    threshold: t,
                    ..Params::default()
                },
            )
            .unwrap();
            r.retrieve(&PostView::new("focacia", None)).len()
        };
        assert_eq!(at(8.0 / 11.0), 1);
        assert_eq!(at(0.73), 0);
        assert_eq!(at(0.7), 1);
    }

    proptest::proptest! {
        /// The indexed retriever gives exactly what comparing every key does.
        #[test]
        fn the_index_equals_comparing_every_key(
            keys in proptest::collection::vec("[abc ]{1,9}", 1..8),
            text in "[abc ,]{0,24}",
            threshold in proptest::sample::select(vec![0.0, 0.3, 0.5, 0.75, 1.0]),
        ) {
            let keyed: Vec<Keyed> = keys
                .iter()
                .map(|k| crate::phrase::key(k))
                .filter(|k| !k.is_empty())
                .enumerate()
                .map(|(entry, key)| Keyed { entry, key })
                .collect();
            let post = PostView::new(&text, None);
            let got = super::Fuzzy::over(&keyed, threshold).retrieve(&post);
            let mut want = Vec::new();
            for phrase in post.lookup_phrases() {
                let grams = trigrams(&phrase.key);
                for k in &keyed {
                    if word_count(&k.key) != phrase.len {
                        continue;
                    }
                    let score = dice(&grams, &trigrams(&k.key));
                    if score >= threshold {
                        let kind = if k.key == phrase.key { Exact } else { Fuzzy };
                        want.push(Match::of_phrase(k.entry, kind, phrase, score));
                    }
                }
            }
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn compares_only_phrases_with_the_same_word_count() {
        let g = glossary(&[("cold-coffee", "cold coffee")]);
        assert!(run("fuzzy", &g, "coldcoffee").is_empty());
        assert_eq!(run("fuzzy", &g, "cold coffee")[0].1, Exact);
        assert_eq!(run("fuzzy", &g, "cold cofee")[0].1, Fuzzy);
    }
}
