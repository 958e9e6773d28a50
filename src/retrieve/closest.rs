//! `closest` (a filter): at each place of the post, only the matches
//! nearest to what is written there.
//!
//! - A typo-tier match (fuzzy, edit, or an alias found that way) is dropped
//!   where an entry matched as written or by stem over the same words or
//!   more: "texts" is the entry `text`, not a misspelt `test`.
//! - A stem match is dropped where another entry matched as written on the
//!   same words ("annotation" is `annotation`, not `annotate`); where none
//!   did, only the stem matches whose key is fewest edits from the words
//!   stay ("annotations": `annotation`, not `annotate`, `annotators`).
//!
//! Matches from no phrase (the oracle) pass untouched.

use super::{Filter, FilterInfo, Match, Params, PostView};
use crate::glossary::Glossary;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

pub(crate) const INFO: FilterInfo = FilterInfo {
    name: "closest",
    summary: "keeps the nearest matches at each place: as written over stem over typo; among stems the fewest edits",
    build: |g, _: &Params| Ok(Box::new(Closest { glossary: g.clone() })),
};

pub(crate) struct Closest {
    glossary: Arc<Glossary>,
}

/// How near a match is to the words it matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Nearness {
    /// The entry's source or an alias, as written.
    Written,
    /// Equal after stemming (or joined/split with the same letters).
    Stem,
    /// Within a typo tier's bound ([`Match::is_approximate`]).
    Typo,
}

impl Closest {
    fn nearness(&self, m: &Match) -> Nearness {
        if m.is_written(&self.glossary) {
            Nearness::Written
        } else if !m.is_approximate() {
            Nearness::Stem
        } else {
            Nearness::Typo
        }
    }

    /// Edits from the matched words to the entry's nearest key.
    fn distance(&self, m: &Match) -> usize {
        let entry = &self.glossary.entries[m.entry];
        std::iter::once(&entry.key)
            .chain(&entry.alias_keys)
            .map(|k| strsim::levenshtein(k, &m.phrase))
            .min()
            .unwrap_or(usize::MAX)
    }
}

impl Filter for Closest {
    // Every match is compared only with the matches on its own words (by a
    // map from words to matches) and, for a typo, with whether any nearer
    // match covers its words (by a sorted list of spans): linear in the
    // matches, not quadratic, so a long post stays fast.
    fn filter(&self, _post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        let nearness: Vec<Nearness> = matches.iter().map(|m| self.nearness(m)).collect();
        let mut on_words: HashMap<(usize, usize), Vec<usize>> = HashMap::default();
        for (i, m) in matches.iter().enumerate() {
            if let Some(w) = m.words {
                on_words.entry(w).or_default().push(i);
            }
        }
        let same_words = |i: usize| -> &[usize] {
            matches[i]
                .words
                .and_then(|w| on_words.get(&w))
                .map_or(&[], Vec::as_slice)
        };
        // Edits are counted only where two stem matches share their words:
        // elsewhere no stem match is compared with another.
        let shares_words = |i: usize| {
            same_words(i)
                .iter()
                .any(|&j| j != i && nearness[j] == Nearness::Stem)
        };
        let rated: Vec<(Nearness, usize)> = nearness
            .iter()
            .enumerate()
            .map(|(i, &near)| {
                let distance = if near == Nearness::Stem && shares_words(i) {
                    self.distance(&matches[i])
                } else {
                    0
                };
                (near, distance)
            })
            .collect();
        let nearer = Covering::of(
            matches
                .iter()
                .zip(&nearness)
                .filter(|(_, &n)| n < Nearness::Typo)
                .filter_map(|(m, _)| m.words),
        );
        let keep = |i: usize| {
            let Some(span) = matches[i].words else {
                return true;
            };
            let (near, distance) = rated[i];
            match near {
                Nearness::Written => true,
                Nearness::Typo => !nearer.covers(span),
                Nearness::Stem => same_words(i).iter().all(|&j| match rated[j] {
                    (Nearness::Written, _) => false,
                    (Nearness::Stem, d) => d >= distance,
                    (Nearness::Typo, _) => true,
                }),
            }
        };
        let kept: Vec<bool> = (0..matches.len()).map(keep).collect();
        matches
            .into_iter()
            .zip(kept)
            .filter_map(|(m, k)| k.then_some(m))
            .collect()
    }
}

/// Word spans, to ask whether one of them holds a given span.
struct Covering {
    /// Spans by first word; `reach[i]` is the furthest end among the first
    /// `i + 1` of them.
    starts: Vec<usize>,
    reach: Vec<usize>,
}

impl Covering {
    fn of(spans: impl Iterator<Item = (usize, usize)>) -> Covering {
        let mut spans: Vec<(usize, usize)> = spans.map(|(f, l)| (f, f + l)).collect();
        spans.sort_unstable();
        let starts = spans.iter().map(|&(f, _)| f).collect();
        let reach = spans
            .iter()
            .scan(0, |far, &(_, end)| {
                *far = end.max(*far);
                Some(*far)
            })
            .collect();
        Covering { starts, reach }
    }

    /// Whether a span starting at or before `span`'s first word ends at or
    /// after its end.
    fn covers(&self, (first, len): (usize, usize)) -> bool {
        let before = self.starts.partition_point(|&f| f <= first);
        before > 0 && self.reach[before - 1] >= first + len
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::{Filter, Match, MatchKind, PostView};
    use proptest::prelude::*;

    #[test]
    fn an_exact_match_keeps_stems_of_other_entries_out() {
        let g = glossary(&[
            ("annotate", "annotate"),
            ("annotation", "annotation"),
            ("annotators", "annotators"),
        ]);
        let ids = |text: &str| -> Vec<String> {
            run("normalised|closest", &g, text)
                .into_iter()
                .map(|(id, _, _)| id)
                .collect()
        };
        assert_eq!(ids("one annotation"), ["annotation"]);
        assert_eq!(ids("many annotations"), ["annotation"]);
        assert_eq!(ids("we annotate"), ["annotate"]);
    }

    #[test]
    fn typos_are_not_read_where_a_word_matched_by_stem() {
        let g = glossary(&[("text", "text"), ("test", "test"), ("tent", "tent")]);
        let at = |entry, kind, score, words| Match {
            entry,
            kind,
            phrase: "texts".into(),
            score,
            words: Some(words),
        };
        let matches = vec![
            at(0, MatchKind::Stem, 1.0, (0, 1)),
            at(1, MatchKind::Edit, 0.8, (0, 1)),
            at(2, MatchKind::Edit, 0.8, (1, 1)),
        ];
        let closest = super::Closest { glossary: g };
        let kept = closest.filter(&PostView::new("texts texts", None), matches);
        assert_eq!(kept.iter().map(|m| m.entry).collect::<Vec<_>>(), [0, 2]);
    }
    /// The filter as first written: every match compared with every
    /// other (quadratic), the reference the indexed filter must equal.
    fn reference(c: &super::Closest, matches: Vec<Match>) -> Vec<Match> {
        use super::Nearness;
        let inside = |inner: (usize, usize), outer: (usize, usize)| {
            outer.0 <= inner.0 && inner.0 + inner.1 <= outer.0 + outer.1
        };
        let nearness: Vec<Nearness> = matches.iter().map(|m| c.nearness(m)).collect();
        let shares_words = |i: usize| {
            matches
                .iter()
                .zip(&nearness)
                .enumerate()
                .any(|(j, (o, &n))| {
                    j != i
                        && n == Nearness::Stem
                        && o.words.is_some()
                        && o.words == matches[i].words
                })
        };
        let rated: Vec<(Nearness, usize)> = nearness
            .iter()
            .enumerate()
            .map(|(i, &near)| {
                let distance = if near == Nearness::Stem && shares_words(i) {
                    c.distance(&matches[i])
                } else {
                    0
                };
                (near, distance)
            })
            .collect();
        let keep = |i: usize| {
            let Some(span) = matches[i].words else {
                return true;
            };
            let (near, distance) = rated[i];
            let others = matches
                .iter()
                .zip(&rated)
                .filter_map(|(o, r)| o.words.map(|w| (w, r)));
            match near {
                Nearness::Written => true,
                Nearness::Typo => !others
                    .into_iter()
                    .any(|(w, &(n, _))| n < Nearness::Typo && inside(span, w)),
                Nearness::Stem => {
                    others
                        .into_iter()
                        .filter(|(w, _)| *w == span)
                        .all(|(_, &(n, d))| match n {
                            Nearness::Written => false,
                            Nearness::Stem => d >= distance,
                            Nearness::Typo => true,
                        })
                }
            }
        };
        let kept: Vec<bool> = (0..matches.len()).map(keep).collect();
        matches
            .into_iter()
            .zip(kept)
            .filter_map(|(m, k)| k.then_some(m))
            .collect()
    }

    fn kind() -> impl Strategy<Value = MatchKind> {
        prop_oneof![
            Just(MatchKind::Exact),
            Just(MatchKind::Stem),
            Just(MatchKind::Fuzzy),
            Just(MatchKind::Edit),
            Just(MatchKind::Split),
            Just(MatchKind::Alias),
            Just(MatchKind::Oracle),
        ]
    }

    proptest! {
        #[test]
        fn the_indexed_filter_keeps_what_comparing_all_pairs_keeps(
            raw in proptest::collection::vec(
                (0..4usize, kind(), 0..5usize, prop_oneof![Just(1.0), Just(0.8)],
                 proptest::option::weighted(0.9, (0..10usize, 1..4usize))),
                0..40,
            )
        ) {
            let g = glossary(&[
                ("text", "text"),
                ("test", "test"),
                ("texts", "texts"),
                ("tent", "tent"),
            ]);
            let phrases = ["text", "texts", "test", "tents", "txet"];
            let matches: Vec<Match> = raw
                .into_iter()
                .map(|(entry, kind, phrase, score, words)| Match {
                    entry,
                    kind,
                    phrase: phrases[phrase].into(),
                    score,
                    words,
                })
                .collect();
            let closest = super::Closest { glossary: g };
            let post = PostView::new("text texts test tents txet", None);
            prop_assert_eq!(
                closest.filter(&post, matches.clone()),
                reference(&closest, matches)
            );
        }
    }
}
