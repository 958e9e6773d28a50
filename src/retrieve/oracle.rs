//! `oracle`: exactly the post's labelled `needed` entries. It separates
//! search failures from generation failures; it exists only for labelled
//! posts.

use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "oracle",
    summary: "exactly the label's needed entries (labelled posts only): the ceiling for retrieval",
    build: |_, _: &Params| Ok(Box::new(Oracle)),
    kinds: &[],
};

pub(crate) struct Oracle;

impl Infallible for Oracle {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        post.needed
            .unwrap_or_default()
            .iter()
            .map(|&entry| Match::unplaced(entry, MatchKind::Oracle))
            .collect()
    }

    fn needs_labels(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::glossary;
    use super::super::{build, Params, PostView};

    #[test]
    fn returns_exactly_the_needed_entries() {
        let g = glossary(&[("tea", "tea"), ("date", "date")]);
        let r = build("oracle", &g, &Params::default()).unwrap();
        assert!(r.needs_labels());
        let needed = [1];
        let got = r
            .retrieve(&PostView::new("tea, and nothing else", Some(&needed)))
            .unwrap();
        assert_eq!(got.iter().map(|m| m.entry).collect::<Vec<_>>(), [1]);
        assert!(r.retrieve(&PostView::new("tea", None)).unwrap().is_empty());
    }
}
