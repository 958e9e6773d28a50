//! `longest` (a filter): drops an entry whose matched phrase lies inside
//! the phrase of a longer retrieved entry ("coffee" inside "cold coffee"),
//! unless it also matched elsewhere in the post.
//!
//! "Inside" is by word position: the longer match covers the shorter one's
//! words and has more of them. A longer match hides a shorter one only when
//! it is at least as sure (its score is not lower), so an exact "coffee" is
//! not hidden by a fuzzy "old coffee" → "cold coffee". Matches from no
//! phrase (the oracle) are never dropped and hide nothing.

use super::{Filter, FilterInfo, Match, Params, PostView};
use crate::phrase::MAX_PHRASE_WORDS;
use std::collections::{HashMap, HashSet};

pub const INFO: FilterInfo = FilterInfo {
    name: "longest",
    summary: "drops an entry matched only inside a longer entry's phrase (coffee in `cold coffee`), unless it also matched elsewhere",
    build: |_, _: &Params| Box::new(Longest),
};

pub struct Longest;

/// Whether `inner` lies inside `outer` and is shorter, and `outer` is at
/// least as sure.
fn hides(outer: &Match, inner: &Match) -> bool {
    match (outer.words, inner.words) {
        (Some((of, ol)), Some((f, l))) => {
            outer.entry != inner.entry
                && ol > l
                && of <= f
                && f + l <= of + ol
                && outer.score >= inner.score
        }
        _ => false,
    }
}

impl Filter for Longest {
    fn filter(&self, _post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        // Matches by their first word: a match can only be hidden by one
        // starting at most 3 words before it.
        let mut by_first: HashMap<usize, Vec<&Match>> = HashMap::new();
        for m in &matches {
            if let Some((first, _)) = m.words {
                by_first.entry(first).or_default().push(m);
            }
        }
        let hidden = |m: &Match| {
            m.words.is_some_and(|(first, _)| {
                (first.saturating_sub(MAX_PHRASE_WORDS - 1)..=first)
                    .filter_map(|p| by_first.get(&p))
                    .flatten()
                    .any(|o| hides(o, m))
            })
        };
        // An entry stays when at least one of its matches is hidden by none.
        let visible: HashSet<usize> = matches
            .iter()
            .filter(|m| !hidden(m))
            .map(|m| m.entry)
            .collect();
        matches
            .into_iter()
            .filter(|m| visible.contains(&m.entry))
            .collect()
    }
}
