//! The combinators behind a spec: `a+b`, the union of several retrievers'
//! matches in the order given, and `x|f`, a retriever's matches passed
//! through filters left to right.

use super::shared::{SharedTiers, Tier};
use super::{Filter, Match, PostView, RetrieveError, Retriever};

/// One retriever of a union.
pub(crate) enum Part {
    Own(Box<dyn Retriever>),
    /// A tier's source matches, from the union's shared index.
    Shared(Tier),
    /// What `alias` gives, from the union's shared index.
    SharedAlias,
}

pub(crate) struct Union {
    parts: Vec<Part>,
    /// The index behind the `Shared` parts (see `shared.rs`).
    shared: Option<SharedTiers>,
}

impl Union {
    pub(crate) fn new(parts: Vec<Box<dyn Retriever>>) -> Union {
        Union {
            parts: parts.into_iter().map(Part::Own).collect(),
            shared: None,
        }
    }

    /// A union some of whose parts read `shared`.
    pub(crate) fn with_shared(parts: Vec<Part>, shared: SharedTiers) -> Union {
        Union {
            parts,
            shared: Some(shared),
        }
    }
}

impl Retriever for Union {
    fn retrieve(&self, post: &PostView) -> Result<Vec<Match>, RetrieveError> {
        // Only `with_shared` makes shared parts, and it holds their index.
        let mut dealt = self.shared.as_ref().map(|s| s.retrieve(post));
        let mut out = Vec::new();
        for part in &self.parts {
            match (part, dealt.as_mut()) {
                (Part::Own(p), _) => out.extend(p.retrieve(post)?),
                (Part::Shared(tier), Some(d)) => out.extend(d.sources(*tier)),
                (Part::SharedAlias, Some(d)) => out.extend(d.aliases()),
                (Part::Shared(_) | Part::SharedAlias, None) => {}
            }
        }
        Ok(out)
    }

    fn needs_labels(&self) -> bool {
        self.parts.iter().any(|p| match p {
            Part::Own(p) => p.needs_labels(),
            Part::Shared(_) | Part::SharedAlias => false,
        })
    }
}

pub(crate) struct Filtered {
    inner: Box<dyn Retriever>,
    filters: Vec<Box<dyn Filter>>,
}

impl Filtered {
    pub(crate) fn new(inner: Box<dyn Retriever>, filters: Vec<Box<dyn Filter>>) -> Filtered {
        Filtered { inner, filters }
    }
}

impl Retriever for Filtered {
    fn retrieve(&self, post: &PostView) -> Result<Vec<Match>, RetrieveError> {
        let matches = self.inner.retrieve(post)?;
        Ok(self
            .filters
            .iter()
            .fold(matches, |matches, f| f.filter(post, matches)))
    }

    fn needs_labels(&self) -> bool {
        self.inner.needs_labels()
    }
}
