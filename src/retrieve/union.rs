//! The combinators behind a spec: `a+b`, the union of several retrievers'
//! matches in the order given, and `x|f`, a retriever's matches passed
//! through filters left to right.

use super::{Filter, Match, PostView, Retriever};

pub struct Union {
    parts: Vec<Box<dyn Retriever>>,
}

impl Union {
    pub fn new(parts: Vec<Box<dyn Retriever>>) -> Union {
        Union { parts }
    }
}

impl Retriever for Union {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        self.parts.iter().flat_map(|p| p.retrieve(post)).collect()
    }

    fn needs_labels(&self) -> bool {
        self.parts.iter().any(|p| p.needs_labels())
    }
}

pub struct Filtered {
    inner: Box<dyn Retriever>,
    filters: Vec<Box<dyn Filter>>,
}

impl Filtered {
    pub fn new(inner: Box<dyn Retriever>, filters: Vec<Box<dyn Filter>>) -> Filtered {
        Filtered { inner, filters }
    }
}

impl Retriever for Filtered {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        self.filters
            .iter()
            .fold(self.inner.retrieve(post), |matches, f| {
                f.filter(post, matches)
            })
    }

    fn needs_labels(&self) -> bool {
        self.inner.needs_labels()
    }
}
