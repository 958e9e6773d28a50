//! `alias`: an entry's `aliases` retrieve it as its `source` would, through
//! every spelling matcher — exact, stemmed, trigram fuzzy (`--threshold`),
//! edit distance and split/joined words — with the match kind `alias`. As
//! in `edit`, only words not spelled correctly are read as typos.
//! This is how a glossary owner declares synonyms ("biscuits" for cookie,
//! "food to go" for takeaway).

use super::edit::Edit;
use super::fuzzy::Fuzzy;
use super::keys;
use super::known::KnownWords;
use super::normalised::Normalised;
use super::split::Split;
use super::{Match, MatchKind, Params, PostView, Retriever, RetrieverInfo};
use crate::glossary::Glossary;
use std::sync::Arc;

pub const INFO: RetrieverInfo = RetrieverInfo {
    name: "alias",
    summary: "the entry's declared aliases (synonyms), matched as written, stemmed, fuzzy, edit or split; kind `alias`",
    build: |g, p: &Params| Box::new(Alias::new(g, p)),
};

pub struct Alias {
    parts: Vec<Box<dyn Retriever>>,
    /// Trigram matches, kept only on phrases with a word not in `known`.
    fuzzy: Option<Fuzzy>,
    known: Arc<KnownWords>,
}

impl Alias {
    pub fn new(glossary: &Glossary, params: &Params) -> Alias {
        let keys = keys::aliases(glossary);
        if keys.is_empty() {
            return Alias {
                parts: Vec::new(),
                fuzzy: None,
                known: Arc::default(),
            };
        }
        let known = Arc::new(KnownWords::new(glossary));
        Alias {
            parts: vec![
                Box::new(Normalised::over(keys.clone())),
                Box::new(Edit::over(&keys, params.edit_bounds(), Some(known.clone()))),
                Box::new(Split::over(&keys)),
            ],
            fuzzy: Some(Fuzzy::over(&keys, params.threshold)),
            known,
        }
    }
}

impl Retriever for Alias {
    fn retrieve(&self, post: &PostView) -> Vec<Match> {
        // Trigram matches only on phrases with a word not spelled right;
        // a post of correct words skips them altogether.
        let unknown: Vec<bool> = post
            .words
            .iter()
            .map(|w| !self.known.contains(&w.text))
            .collect();
        let fuzzy = self
            .fuzzy
            .iter()
            .filter(|_| unknown.contains(&true))
            .flat_map(|f| {
                f.retrieve_where(post, |p| {
                    unknown[p.first_word..p.first_word + p.len].contains(&true)
                })
            });
        self.parts
            .iter()
            .flat_map(|p| p.retrieve(post))
            .chain(fuzzy)
            .map(|m| Match {
                kind: MatchKind::Alias,
                ..m
            })
            .collect()
    }
}
