//! `fuzzy`: an entry is retrieved when, for a phrase with the same number of
//! words, the Dice coefficient of the two keys' character-trigram sets is at
//! least the threshold. Trigrams are of Unicode characters over the whole
//! key, spaces included, unpadded; a key under 3 characters is its own gram.

use super::keys::{self, Keyed};
use super::{Match, MatchKind, Params, PostView, Retriever, RetrieverInfo};
use crate::glossary::{word_count, Glossary};
use crate::phrase::MAX_PHRASE_WORDS;
use rustc_hash::FxHashMap;

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
    2.0 * shared(a, b) as f64 / (a.len() + b.len()) as f64
}

/// `|A∩B|` of two sorted gram sets.
fn shared(a: &[Gram], b: &[Gram]) -> usize {
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
    shared
}

/// One key as `fuzzy` sees it.
struct FuzzyKey {
    entry: usize,
    grams: Vec<Gram>,
    key: String,
    words: usize,
}

fn fuzzy_keys(keys: &[Keyed]) -> Vec<FuzzyKey> {
    keys.iter()
        .map(|k| FuzzyKey {
            entry: k.entry,
            grams: trigrams(&k.key),
            key: k.key.clone(),
            words: word_count(&k.key),
        })
        // Keys of more than four words can never equal a phrase's size.
        .filter(|k| (1..=MAX_PHRASE_WORDS).contains(&k.words))
        .collect()
}

fn matched(key: &FuzzyKey, phrase: &crate::phrase::Phrase, score: f64) -> Match {
    let kind = if key.key == phrase.key {
        MatchKind::Exact
    } else {
        MatchKind::Fuzzy
    };
    Match::of_phrase(key.entry, kind, phrase, score)
}

/// Compares phrases with keys through a character-trigram inverted index
/// with the SimString bounds: for Dice ≥ t, a key with `b` grams can match
/// a phrase with `a` grams only when t·a/(2−t) ≤ b ≤ (2−t)·a/t, and then
/// it shares at least τ = ⌈t·(a+b)/2⌉ grams, so it appears in at least one
/// of the phrase's L−τ+1 shortest posting lists (of the L that exist for
/// that size). Candidates found that way are scored with [`dice`] itself,
/// so the result equals `fuzzy-brute`'s.
pub struct Fuzzy {
    threshold: f64,
    keys: Vec<FuzzyKey>,
    /// (word count, gram) → the keys that have it, by gram-set size, so
    /// one look-up per gram serves every size.
    postings: FxHashMap<(usize, Gram), Postings>,
}

/// Key ids sorted by (gram-set size, id), with where each size starts.
struct Postings {
    ids: Vec<u32>,
    /// `ids[starts[s]..starts[s + 1]]` are the keys with `s` grams.
    starts: Vec<u32>,
}

impl Postings {
    fn new(mut keys: Vec<(u32, u32)>) -> Postings {
        keys.sort_unstable();
        let max = keys.last().map_or(0, |k| k.0 as usize);
        let mut starts = vec![0u32; max + 2];
        for &(size, _) in &keys {
            starts[size as usize + 1] += 1;
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        Postings {
            ids: keys.into_iter().map(|(_, id)| id).collect(),
            starts,
        }
    }

    /// Keys with `size` grams, sorted by id.
    fn of_size(&self, size: u32) -> &[u32] {
        let s = size as usize;
        if s + 1 >= self.starts.len() {
            return &[];
        }
        &self.ids[self.starts[s] as usize..self.starts[s + 1] as usize]
    }
}

impl Fuzzy {
    /// Over the glossary's source keys (the reference retriever).
    pub fn new(glossary: &Glossary, threshold: f64) -> Fuzzy {
        Fuzzy::over(&keys::sources(glossary), threshold)
    }

    /// Over any list of keys.
    pub fn over(keys: &[Keyed], threshold: f64) -> Fuzzy {
        let keys = fuzzy_keys(keys);
        let mut lists: FxHashMap<(usize, Gram), Vec<(u32, u32)>> = FxHashMap::default();
        for (id, k) in keys.iter().enumerate() {
            for g in &k.grams {
                lists
                    .entry((k.words, *g))
                    .or_default()
                    .push((k.grams.len() as u32, id as u32));
            }
        }
        let postings = lists
            .into_iter()
            .map(|(gram, keys)| (gram, Postings::new(keys)))
            .collect();
        Fuzzy {
            threshold,
            keys,
            postings,
        }
    }

    /// `(key id, shared grams)` of every key whose Dice with `grams` is at
    /// least the threshold, sorted by id. Per size: count the keys of the
    /// L−τ+1 shortest posting lists (every match is in one of them), then
    /// look each candidate up in the other lists, dropping it as soon as it
    /// can no longer share τ grams. Survivors' counts are exact.
    fn shared_counts(&self, words: usize, grams: &[Gram], out: &mut Vec<(u32, usize)>) {
        out.clear();
        let t = self.threshold;
        let a = grams.len() as f64;
        // Bounds widened by a hair against rounding; the score is checked.
        let lo = ((t * a / (2.0 - t)) - 1e-9).floor().max(1.0) as u32;
        let hi = ((2.0 - t) * a / t + 1e-9).ceil() as u32;
        let lists: Vec<&Postings> = grams
            .iter()
            .filter_map(|g| self.postings.get(&(words, *g)))
            .collect();
        let mut sized: Vec<&[u32]> = Vec::with_capacity(lists.len());
        let mut candidates: Vec<(u32, usize)> = Vec::new();
        let mut ids: Vec<u32> = Vec::new();
        for size in lo..=hi {
            let tau = ((t * (a + f64::from(size)) / 2.0) - 1e-9).ceil().max(1.0) as usize;
            if tau > grams.len().min(size as usize) || lists.len() < tau {
                continue;
            }
            sized.clear();
            sized.extend(
                lists
                    .iter()
                    .map(|l| l.of_size(size))
                    .filter(|l| !l.is_empty()),
            );
            if sized.len() < tau {
                continue;
            }
            // Only which lists are the k shortest matters, not their order.
            let k = sized.len() - tau + 1;
            if k < sized.len() {
                sized.select_nth_unstable_by_key(k - 1, |l| l.len());
            }
            let (first, rest) = sized.split_at(k);
            candidates.clear();
            if let [only] = first {
                // One list: already sorted, no repeats.
                candidates.extend(only.iter().map(|&id| (id, 1)));
            } else {
                ids.clear();
                for l in first {
                    ids.extend_from_slice(l);
                }
                ids.sort_unstable();
                for &id in ids.iter() {
                    match candidates.last_mut() {
                        Some((last, count)) if *last == id => *count += 1,
                        _ => candidates.push((id, 1)),
                    }
                }
            }
            for (j, list) in rest.iter().enumerate() {
                let left_after = rest.len() - j - 1;
                candidates.retain_mut(|(id, count)| {
                    if list.binary_search(id).is_ok() {
                        *count += 1;
                    }
                    *count + left_after >= tau
                });
                if candidates.is_empty() {
                    break;
                }
            }
            out.extend(candidates.iter().filter(|&&(_, count)| count >= tau));
        }
        out.sort_unstable();
    }
}

impl Retriever for Fuzzy {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        let mut shared = Vec::new();
        for phrase in post.lookup_phrases() {
            let grams = trigrams(&phrase.key);
            if self.threshold <= 0.0 {
                // Every key with as many words passes a threshold of 0.
                for key in self.keys.iter().filter(|k| k.words == phrase.len) {
                    out.push(matched(key, phrase, dice(&grams, &key.grams)));
                }
                continue;
            }
            self.shared_counts(phrase.len, &grams, &mut shared);
            for &(k, count) in &shared {
                let key = &self.keys[k as usize];
                // The formula of `dice`, on the same exact count.
                let score = 2.0 * count as f64 / (grams.len() + key.grams.len()) as f64;
                if score >= self.threshold {
                    out.push(matched(key, phrase, score));
                }
            }
        }
        out
    }
}

pub const BRUTE_INFO: RetrieverInfo = RetrieverInfo {
    name: "fuzzy-brute",
    summary: "`fuzzy` by comparing every phrase with every key: the plain definition, for tests and benchmarks",
    build: |g, p: &Params| Box::new(FuzzyBrute::over(&keys::sources(g), p.threshold)),
};

/// SPEC.md's fuzzy rule, literally: every phrase against every key with as
/// many words.
pub struct FuzzyBrute {
    threshold: f64,
    keys: Vec<FuzzyKey>,
}

impl FuzzyBrute {
    pub fn over(keys: &[Keyed], threshold: f64) -> FuzzyBrute {
        FuzzyBrute {
            threshold,
            keys: fuzzy_keys(keys),
        }
    }
}

impl Retriever for FuzzyBrute {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        for phrase in post.lookup_phrases() {
            let grams = trigrams(&phrase.key);
            for key in self.keys.iter().filter(|k| k.words == phrase.len) {
                let score = dice(&grams, &key.grams);
                if score >= self.threshold {
                    out.push(matched(key, phrase, score));
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
    use super::super::{best_per_entry, build, Params, PostView};
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
            keys in proptest::collection::vec("[abc ]{1,12}", 1..12),
            text in "[abc ,]{0,24}",
            threshold in proptest::sample::select(vec![0.0, 0.1, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 1.0]),
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
            let want = super::FuzzyBrute::over(&keyed, threshold).retrieve(&post);
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
