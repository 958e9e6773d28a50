//! Which matches of a post hold which: for a match, the longer matches
//! whose words include all of its words ("coffee" in "cold coffee"). A
//! long post has tens of thousands of matches; comparing each with every
//! other made `longest` and the translation checks quadratic in post
//! length. Here each length's matches are sorted by first word, so a
//! match meets only the longer matches that hold it.

use super::Match;
use std::collections::BTreeMap;

/// The matches of a post by the number of words they span.
pub(crate) struct Longer {
    /// Per length, `(first word, index of the match)`, sorted.
    by_len: BTreeMap<usize, Vec<(usize, usize)>>,
}

impl Longer {
    /// `matches` by span; a match from no phrase (the oracle) holds
    /// nothing.
    pub(crate) fn of(matches: &[Match]) -> Longer {
        let mut by_len: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
        for (i, m) in matches.iter().enumerate() {
            if let Some((first, len)) = m.words {
                by_len.entry(len).or_default().push((first, i));
            }
        }
        by_len.values_mut().for_each(|v| v.sort_unstable());
        Longer { by_len }
    }

    /// The indices of the matches with more words than `m` whose words hold
    /// all of `m`'s, by length then position; none for a match from no
    /// phrase.
    pub(crate) fn holding(&self, m: &Match) -> impl Iterator<Item = usize> + '_ {
        self.holding_words(m.words.unwrap_or((0, usize::MAX)))
    }

    /// The indices of the matches with more than `len` words whose words
    /// hold `first..first + len`.
    pub(crate) fn holding_words(
        &self,
        (first, len): (usize, usize),
    ) -> impl Iterator<Item = usize> + '_ {
        self.by_len
            .range(len.saturating_add(1)..)
            .flat_map(move |(&outer, starts)| {
                // A match of `outer` words holds `first..first + len` when
                // it starts in `first + len - outer..=first`.
                let lo = (first + len).saturating_sub(outer);
                let from = starts.partition_point(|&(f, _)| f < lo);
                starts[from..]
                    .iter()
                    .take_while(move |&&(f, _)| f <= first)
                    .map(|&(_, i)| i)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::MatchKind;
    use proptest::prelude::*;

    fn at(words: Option<(usize, usize)>) -> Match {
        Match {
            entry: 0,
            kind: MatchKind::Exact,
            phrase: String::new(),
            score: 1.0,
            words,
        }
    }

    proptest! {
        #[test]
        fn holding_is_every_longer_match_around_the_words(
            spans in proptest::collection::vec(
                proptest::option::weighted(0.9, (0..30usize, 1..6usize)), 0..60)
        ) {
            let matches: Vec<Match> = spans.iter().copied().map(at).collect();
            let longer = Longer::of(&matches);
            for m in &matches {
                let mut got: Vec<usize> = longer.holding(m).collect();
                got.sort_unstable();
                let want: Vec<usize> = match m.words {
                    None => Vec::new(),
                    Some((f, l)) => matches
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| {
                            o.words
                                .is_some_and(|(of, ol)| ol > l && of <= f && f + l <= of + ol)
                        })
                        .map(|(i, _)| i)
                        .collect(),
                };
                prop_assert_eq!(got, want);
            }
        }
    }
}
