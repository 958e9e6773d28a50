//! `alias`: an entry's `aliases` retrieve it as its `source` would, through
//! every spelling matcher — exact, stemmed, trigram fuzzy (`--threshold`),
//! edit distance and split/joined words — with the match kind `alias`. As
//! in `edit`, only words not spelled correctly are read as typos.
//! This is how a glossary owner declares synonyms ("biscuits" for cookie,
//! "food to go" for takeaway). A source or alias without its leading
//! article is an alias too, matched as written ([`without_articles`]).

use super::edit::EditOf;
use super::exact::Exact;
use super::fuzzy::Fuzzy;
use super::keys::{self, Keyed};
use super::known::KnownWords;
use super::normalised::{stem_keys, Normalised};
use super::split::Split;
use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::Glossary;
use crate::phrase;
use std::sync::Arc;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "alias",
    summary: "the entry's declared aliases (synonyms), matched as written, stemmed, fuzzy, edit or split, and its terms without a leading article, as written; kind `alias`",
    build: |g, p: &Params| Ok(Box::new(Alias::new(g, p))),
    kinds: &[],
};

pub(crate) struct Alias {
    parts: Vec<Box<dyn Infallible>>,
    fuzzy: AliasFuzzy,
}

/// `alias`'s trigram matches, kept only on phrases with a word not in
/// `known` (the other matchers are shared with `shared.rs`).
pub(crate) struct AliasFuzzy {
    fuzzy: Option<Fuzzy>,
    known: Arc<KnownWords>,
}

impl AliasFuzzy {
    /// Over the alias keys `keys`, less those with a name or an acronym in
    /// them ("ISDN", "CoIP"), which a typo never gives.
    pub(crate) fn new(keys: &[Keyed], threshold: f64, known: Arc<KnownWords>) -> AliasFuzzy {
        let keys: Vec<Keyed> = keys
            .iter()
            .filter(|k| !phrase::has_name_or_acronym(k.written))
            .copied()
            .collect();
        AliasFuzzy {
            fuzzy: (!keys.is_empty()).then(|| Fuzzy::over(&keys, threshold)),
            known,
        }
    }

    /// The trigram matches of `post`'s phrases that hold a word not spelled
    /// right (a post of correct words skips them altogether), kind `alias`.
    pub(crate) fn retrieve(&self, post: &PostView) -> Vec<Match> {
        let Some(fuzzy) = &self.fuzzy else {
            return Vec::new();
        };
        let unknown: Vec<bool> = post.spelled_right(&self.known).iter().map(|r| !r).collect();
        if !unknown.contains(&true) {
            return Vec::new();
        }
        fuzzy
            .retrieve_where(post, |p| {
                unknown[p.first_word..p.first_word + p.len].contains(&true)
            })
            .into_iter()
            .map(|m| Match {
                kind: MatchKind::Alias,
                ..m
            })
            .collect()
    }
}

impl Alias {
    pub(crate) fn new(glossary: &Glossary, params: &Params) -> Alias {
        let keys = keys::aliases(glossary);
        let mut parts: Vec<Box<dyn Infallible>> = Vec::new();
        let known = if keys.is_empty() {
            Arc::default()
        } else {
            let known = Arc::new(KnownWords::new(glossary));
            let stemmed = stem_keys(&keys);
            parts.push(Box::new(Normalised::over(&keys, &stemmed)));
            parts.push(Box::new(EditOf::aliases(
                glossary,
                params.edit_bounds(),
                known.clone(),
            )));
            parts.push(Box::new(Split::over(&keys, &stemmed)));
            known
        };
        if let Some(exact) = without_articles(glossary) {
            parts.push(Box::new(exact));
        }
        Alias {
            parts,
            fuzzy: AliasFuzzy::new(&keys, params.threshold, known),
        }
    }
}

/// `exact` over the glossary's keys without their leading article, if it
/// has any ([`keys::without_articles`]).
pub(crate) fn without_articles(glossary: &Glossary) -> Option<Exact> {
    let keys = keys::without_articles(glossary);
    (!keys.is_empty()).then(|| Exact::over(&keys))
}

impl Infallible for Alias {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        self.parts
            .iter()
            .flat_map(|p| p.matches(post))
            .map(|m| Match {
                kind: MatchKind::Alias,
                ..m
            })
            .chain(self.fuzzy.retrieve(post))
            .collect()
    }
}
