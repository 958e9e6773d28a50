//! The control conditions of the WMT 2023 terminology task (docs/formats.md,
//! "Control conditions"), as retrievers so `run` and `check` compare them
//! beside the real ones: `none` gives the model no glossary at all, and
//! `random` as many entries as the label needs, drawn from the rest of the
//! glossary. (The third condition, the proper terms, is `oracle`.)

use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use std::hash::{Hash, Hasher};

pub(crate) const NONE_INFO: RetrieverInfo = RetrieverInfo {
    name: "none",
    summary: "no entries at all: the model translates without a glossary (control)",
    build: |_, _: &Params| Ok(Box::new(NoTerms)),
    kinds: &[],
};

pub(crate) const RANDOM_INFO: RetrieverInfo = RetrieverInfo {
    name: "random",
    summary: "as many entries as the label needs, drawn at random from the others (control; labelled posts only)",
    build: |glossary, _: &Params| Ok(Box::new(RandomTerms { entries: glossary.entries.len() })),
    kinds: &[],
};

pub(crate) struct NoTerms;

impl Infallible for NoTerms {
    fn matches(&self, _: &PostView) -> Vec<Match> {
        Vec::new()
    }
}

pub(crate) struct RandomTerms {
    entries: usize,
}

impl Infallible for RandomTerms {
    /// The same post always draws the same entries (seeded by its text),
    /// so runs repeat and a cache serves them.
    fn matches(&self, post: &PostView) -> Vec<Match> {
        let needed = post.needed.unwrap_or_default();
        let mut hasher = rustc_hash::FxHasher::default();
        post.text.hash(&mut hasher);
        let mut rng = SplitMix(hasher.finish());
        let mut drawn: Vec<usize> = Vec::with_capacity(needed.len());
        let free = self.entries.saturating_sub(needed.len());
        let want = needed.len().min(free);
        // Rejection sampling: the draw is a handful of entries out of a
        // glossary that is (nearly always) far larger.
        while drawn.len() < want {
            let entry = (rng.next() % self.entries as u64) as usize;
            if !needed.contains(&entry) && !drawn.contains(&entry) {
                drawn.push(entry);
            }
        }
        drawn.sort_unstable();
        drawn
            .into_iter()
            .map(|entry| Match::unplaced(entry, MatchKind::Random))
            .collect()
    }

    fn needs_labels(&self) -> bool {
        true
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a draw a few lines long, not
/// worth a crate.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::glossary;
    use super::super::{build, Params, PostView};

    #[test]
    fn none_retrieves_nothing_even_where_terms_are_written() {
        let g = glossary(&[("tea", "tea")]);
        let r = build("none", &g, &Params::default()).unwrap();
        assert!(!r.needs_labels());
        assert!(r
            .retrieve(&PostView::new("tea", Some(&[0])))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn random_draws_as_many_other_entries_as_needed_and_repeats() {
        let names: Vec<String> = (0..50).map(|i| format!("w{i}")).collect();
        let pairs: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), n.as_str())).collect();
        let g = glossary(&pairs);
        let r = build("random", &g, &Params::default()).unwrap();
        assert!(r.needs_labels());
        let needed = [3, 7, 11];
        let post = PostView::new("w3 w7 w11 today", Some(&needed));
        let first: Vec<usize> = r.retrieve(&post).unwrap().iter().map(|m| m.entry).collect();
        assert_eq!(first.len(), 3);
        assert!(first.iter().all(|e| !needed.contains(e)), "{first:?}");
        let again: Vec<usize> = r.retrieve(&post).unwrap().iter().map(|m| m.entry).collect();
        assert_eq!(first, again);
        // Another post draws otherwise (nearly always: 3 of 47).
        let other = PostView::new("w3 w7 w11 tomorrow", Some(&needed));
        let drawn: Vec<usize> = r
            .retrieve(&other)
            .unwrap()
            .iter()
            .map(|m| m.entry)
            .collect();
        assert_ne!(first, drawn);
    }

    #[test]
    fn random_stops_when_the_glossary_has_no_other_entry() {
        let g = glossary(&[("a", "a"), ("b", "b")]);
        let r = build("random", &g, &Params::default()).unwrap();
        let post = PostView::new("a b", Some(&[0, 1]));
        assert!(r.retrieve(&post).unwrap().is_empty());
        assert!(r.retrieve(&PostView::new("a", None)).unwrap().is_empty());
    }
}
