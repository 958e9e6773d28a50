//! The term figures researchers report (docs/formats.md, "Term figures"):
//! exact-match term accuracy, the share of needed terms whose target (or
//! an accepted form) stands in the output (the "term success rate" of the
//! WMT 2021 and 2023 terminology tasks), and term consistency across
//! segments: of the entries needed in two segments or more, how often each
//! was written the same way as its most common rendering (a missing term
//! is one more rendering, "not there").

use super::check::Verdict;
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// The figures over a set of segments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TermFigures {
    /// Needed terms over every segment (an entry needed in two segments
    /// counts twice).
    pub(crate) terms_needed: u64,
    /// Those whose target or a form stands in the output.
    pub(crate) terms_found: u64,
    /// `terms_found / terms_needed`; absent when nothing was needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) term_accuracy: Option<f64>,
    /// Share of the needed places of repeated entries written as their
    /// entry's most common rendering; absent when no entry was needed twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) consistency: Option<f64>,
    /// Entries needed in two segments or more: what consistency is over.
    #[serde(default)]
    pub(crate) repeated_terms: u64,
}

/// One segment's needed terms: each entry with how it was written, `None`
/// when it is missing.
pub(crate) type Renderings = Vec<(String, Option<String>)>;

/// The renderings of a checked output.
pub(crate) fn renderings(verdict: &Verdict) -> Renderings {
    let missing = verdict.missing.iter().map(|id| (id.clone(), None));
    let found = verdict
        .rendered
        .iter()
        .map(|(id, text)| (id.clone(), Some(text.clone())));
    missing.chain(found).collect()
}

/// Counts segments in (and out, for a record replaced by a later one).
#[derive(Debug, Default, Clone)]
pub(crate) struct TermTally {
    needed: u64,
    found: u64,
    /// Per entry, how many segments wrote each rendering.
    by_entry: HashMap<String, HashMap<Option<String>, u64>>,
}

impl TermTally {
    pub(crate) fn add(&mut self, segment: &Renderings) {
        for (entry, rendering) in segment {
            self.needed += 1;
            self.found += u64::from(rendering.is_some());
            *self
                .by_entry
                .entry(entry.clone())
                .or_default()
                .entry(rendering.clone())
                .or_default() += 1;
        }
    }

    /// Take back a segment [`TermTally::add`] counted.
    pub(crate) fn remove(&mut self, segment: &Renderings) {
        for (entry, rendering) in segment {
            self.needed -= 1;
            self.found -= u64::from(rendering.is_some());
            if let Some(counts) = self.by_entry.get_mut(entry) {
                if let Some(n) = counts.get_mut(rendering) {
                    *n -= 1;
                    if *n == 0 {
                        counts.remove(rendering);
                    }
                }
                if counts.is_empty() {
                    self.by_entry.remove(entry);
                }
            }
        }
    }

    pub(crate) fn figures(&self) -> TermFigures {
        let (mut repeated, mut places, mut as_most) = (0u64, 0u64, 0u64);
        for counts in self.by_entry.values() {
            let total: u64 = counts.values().sum();
            if total >= 2 {
                repeated += 1;
                places += total;
                as_most += counts.values().max().copied().unwrap_or(0);
            }
        }
        let share = |part: u64, whole: u64| (whole > 0).then(|| part as f64 / whole as f64);
        TermFigures {
            terms_needed: self.needed,
            terms_found: self.found,
            term_accuracy: share(self.found, self.needed),
            consistency: share(as_most, places),
            repeated_terms: repeated,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(items: &[(&str, Option<&str>)]) -> Renderings {
        items
            .iter()
            .map(|(e, r)| (e.to_string(), r.map(str::to_string)))
            .collect()
    }

    #[test]
    fn accuracy_is_found_over_needed_and_consistency_counts_repeats_only() {
        let mut t = TermTally::default();
        t.add(&seg(&[("tea", Some("tee")), ("cake", Some("kuchen"))]));
        t.add(&seg(&[("tea", Some("tees")), ("cake", None)]));
        t.add(&seg(&[("tea", Some("tee")), ("bun", Some("brötchen"))]));
        let f = t.figures();
        assert_eq!((f.terms_needed, f.terms_found), (6, 5));
        assert_eq!(f.term_accuracy, Some(5.0 / 6.0));
        // tea: tee ×2, tees ×1; cake: kuchen ×1, missing ×1; bun once.
        assert_eq!(f.repeated_terms, 2);
        assert_eq!(f.consistency, Some(3.0 / 5.0));
    }

    #[test]
    fn removing_a_segment_undoes_it() {
        let mut t = TermTally::default();
        let first = seg(&[("tea", None)]);
        t.add(&seg(&[("tea", Some("tee"))]));
        let before = t.figures();
        t.add(&first);
        assert_ne!(t.figures(), before);
        t.remove(&first);
        assert_eq!(t.figures(), before);
        assert_eq!(TermTally::default().figures().term_accuracy, None);
    }
}
