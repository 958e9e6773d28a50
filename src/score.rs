//! Retrieval metrics (docs/formats.md, "Retrieval metrics"): per post, then summed
//! over all posts, by tag and by split. Every figure is a count with its
//! denominator; ratios are derived.

use crate::dataset::{Label, Split};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;

/// Summed counts over a set of posts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub posts: usize,
    pub complete: usize,
    pub needed: usize,
    pub found: usize,
    pub retrieved: usize,
    pub extra: usize,
    pub wrong_sense: usize,
}

impl Counts {
    /// found / needed; `None` when nothing was needed.
    pub(crate) fn recall(&self) -> Option<f64> {
        ratio(self.found, self.needed)
    }

    /// found / retrieved; `None` when nothing was retrieved.
    pub(crate) fn precision(&self) -> Option<f64> {
        ratio(self.found, self.retrieved)
    }

    /// complete / posts.
    pub(crate) fn complete_rate(&self) -> Option<f64> {
        ratio(self.complete, self.posts)
    }

    pub(crate) fn add(&mut self, other: &Counts) {
        self.posts += other.posts;
        self.complete += other.complete;
        self.needed += other.needed;
        self.found += other.found;
        self.retrieved += other.retrieved;
        self.extra += other.extra;
        self.wrong_sense += other.wrong_sense;
    }
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// Counts serialised with their recall and precision beside them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures(pub Counts);

impl Serialize for Figures {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Out {
            #[serde(flatten)]
            counts: Counts,
            recall: Option<f64>,
            precision: Option<f64>,
        }
        Out {
            counts: self.0,
            recall: self.0.recall(),
            precision: self.0.precision(),
        }
        .serialize(s)
    }
}

/// Reads the counts back; the ratios beside them are derived, so ignored.
impl<'de> Deserialize<'de> for Figures {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Counts::deserialize(d).map(Figures)
    }
}

/// How one post fared: entries as glossary indexes, in glossary order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PostScore {
    pub(crate) retrieved: Vec<usize>,
    pub(crate) found: Vec<usize>,
    pub(crate) missed: Vec<usize>,
    pub(crate) extra: Vec<usize>,
    pub(crate) wrong_sense: Vec<usize>,
    pub(crate) complete: bool,
}

impl PostScore {
    /// Score the distinct retrieved entries of one post against its label.
    pub(crate) fn new(mut retrieved: Vec<usize>, label: &Label) -> PostScore {
        retrieved.sort_unstable();
        retrieved.dedup();
        let mut missed: Vec<usize> = label
            .needed
            .iter()
            .copied()
            .filter(|e| retrieved.binary_search(e).is_err())
            .collect();
        missed.sort_unstable();
        let found: Vec<usize> = retrieved
            .iter()
            .copied()
            .filter(|e| label.needed.contains(e))
            .collect();
        let extra: Vec<usize> = retrieved
            .iter()
            .copied()
            .filter(|e| !label.needed.contains(e))
            .collect();
        let wrong_sense: Vec<usize> = extra
            .iter()
            .copied()
            .filter(|e| label.wrong_sense.contains(e))
            .collect();
        let complete = missed.is_empty() && wrong_sense.is_empty();
        PostScore {
            retrieved,
            found,
            missed,
            extra,
            wrong_sense,
            complete,
        }
    }

    pub(crate) fn counts(&self) -> Counts {
        Counts {
            posts: 1,
            complete: usize::from(self.complete),
            needed: self.found.len() + self.missed.len(),
            found: self.found.len(),
            retrieved: self.retrieved.len(),
            extra: self.extra.len(),
            wrong_sense: self.wrong_sense.len(),
        }
    }
}

/// Totals for one retriever, overall and broken down.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Tally {
    pub(crate) total: Counts,
    pub(crate) by_tag: BTreeMap<String, Counts>,
    pub(crate) by_split: BTreeMap<Split, Counts>,
}

impl Tally {
    pub(crate) fn add(&mut self, score: &PostScore, label: &Label) {
        let c = score.counts();
        self.total.add(&c);
        // A tag written twice on one label still counts the post once.
        let mut tags: Vec<&String> = label.tags.iter().collect();
        tags.sort_unstable();
        tags.dedup();
        for tag in tags {
            self.by_tag.entry(tag.clone()).or_default().add(&c);
        }
        self.by_split.entry(label.split).or_default().add(&c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(needed: &[usize], wrong: &[usize], tags: &[&str], split: Split) -> Label {
        Label {
            needed: needed.to_vec(),
            wrong_sense: wrong.to_vec(),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            split,
        }
    }

    #[test]
    fn counts_a_post_by_hand() {
        // needed {0, 1, 2}, retrieved {1, 2, 3, 4} with 4 a wrong sense.
        let s = PostScore::new(
            vec![4, 2, 1, 3, 2],
            &label(&[0, 1, 2], &[4], &[], Split::Dev),
        );
        assert_eq!(s.retrieved, [1, 2, 3, 4]);
        assert_eq!(s.found, [1, 2]);
        assert_eq!(s.missed, [0]);
        assert_eq!(s.extra, [3, 4]);
        assert_eq!(s.wrong_sense, [4]);
        assert!(!s.complete);
        let c = s.counts();
        assert_eq!(
            (c.needed, c.found, c.retrieved, c.extra, c.wrong_sense),
            (3, 2, 4, 2, 1)
        );
    }

    #[test]
    fn a_post_with_nothing_needed() {
        let clean = PostScore::new(vec![], &label(&[], &[7], &[], Split::Dev));
        assert!(clean.complete);
        assert_eq!(clean.counts().recall(), None);
        assert_eq!(clean.counts().precision(), None);
        let leaked = PostScore::new(vec![7, 8], &label(&[], &[7], &[], Split::Dev));
        assert!(!leaked.complete);
        assert_eq!(leaked.counts().precision(), Some(0.0));
        // An extra that is not a wrong sense does not break completeness.
        assert!(PostScore::new(vec![8], &label(&[], &[7], &[], Split::Dev)).complete);
    }

    #[test]
    fn tally_breaks_down_by_tag_and_split() {
        let mut t = Tally::default();
        let a = label(&[0], &[], &["typo", "phrase"], Split::Dev);
        let b = label(&[1, 2], &[], &["typo"], Split::Test);
        t.add(&PostScore::new(vec![0], &a), &a);
        t.add(&PostScore::new(vec![1, 5], &b), &b);
        assert_eq!(t.total.posts, 2);
        assert_eq!(t.total.complete, 1);
        assert_eq!(t.total.recall(), Some(2.0 / 3.0));
        assert_eq!(t.total.precision(), Some(2.0 / 3.0));
        assert_eq!(t.by_tag["typo"].needed, 3);
        assert_eq!(t.by_tag["phrase"].posts, 1);
        assert_eq!(t.by_split[&Split::Test].found, 1);
        assert_eq!(t.by_split[&Split::Dev].complete, 1);
        // A tag repeated on one label counts its post once.
        let c = label(&[0], &[], &["typo", "typo"], Split::Dev);
        t.add(&PostScore::new(vec![0], &c), &c);
        assert_eq!(t.by_tag["typo"].posts, 3);
    }

    #[test]
    fn figures_serialise_counts_with_ratios() {
        let c = Counts {
            posts: 1,
            needed: 4,
            found: 1,
            retrieved: 2,
            ..Counts::default()
        };
        let v = serde_json::to_value(Figures(c)).unwrap();
        assert_eq!(v["needed"], 4);
        assert_eq!(v["recall"], 0.25);
        assert_eq!(v["precision"], 0.5);
    }

    #[test]
    fn figures_read_back_their_counts() {
        let c = Counts {
            posts: 3,
            complete: 1,
            needed: 4,
            found: 1,
            retrieved: 2,
            extra: 1,
            wrong_sense: 1,
        };
        let text = serde_json::to_string(&Figures(c)).unwrap();
        assert_eq!(serde_json::from_str::<Figures>(&text).unwrap(), Figures(c));
    }
}
