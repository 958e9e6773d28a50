//! `a+b`: the union of several retrievers' matches, in the order given.

use super::{Match, PostView, Retriever};

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
