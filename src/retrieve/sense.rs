//! `sense` (a filter): keeps an entry only in posts that fit its
//! `context`. An entry with `context.not` is dropped for a post containing
//! one of those phrases; an entry with `context.any` is kept only when one
//! of those phrases occurs in the post. Entries without `context` pass.
//!
//! Phrases are compared as stemmed phrase keys, word by word, inside one
//! phrase segment (SPEC.md phrase rules), so case, punctuation and
//! inflection do not matter: `rolling out` also blocks `rolled out`.

use super::normalised::Stems;
use super::{Filter, FilterInfo, Match, Params, PostView};
use crate::glossary::Glossary;
use crate::phrase;
use std::collections::HashMap;

pub const INFO: FilterInfo = FilterInfo {
    name: "sense",
    summary: "drops an entry when a `context.not` phrase occurs in the post, or when it has `context.any` and none occurs (stemmed)",
    build: |g, _: &Params| Box::new(Sense::new(g)),
};

/// An entry's context phrases, each as its words' stems.
struct Rule {
    any: Vec<Vec<String>>,
    not: Vec<Vec<String>>,
}

pub struct Sense {
    rules: Vec<Option<Rule>>,
}

impl Sense {
    pub fn new(glossary: &Glossary) -> Sense {
        let mut stems = Stems::default();
        let mut stemmed = |phrases: &[String]| -> Vec<Vec<String>> {
            phrases
                .iter()
                .map(|p| phrase::key(p))
                .filter(|k| !k.is_empty())
                .map(|k| k.split(' ').map(|w| stems.word(w).to_string()).collect())
                .collect()
        };
        let rules = glossary
            .entries
            .iter()
            .map(|e| {
                e.context.as_ref().and_then(|c| {
                    let rule = Rule {
                        any: stemmed(&c.any),
                        not: stemmed(&c.not),
                    };
                    (!rule.any.is_empty() || !rule.not.is_empty()).then_some(rule)
                })
            })
            .collect();
        Sense { rules }
    }
}

/// The post's words as stems, with their segments.
struct StemmedPost<'a> {
    stems: &'a [String],
    segments: Vec<usize>,
}

impl StemmedPost<'_> {
    fn occurs(&self, phrase: &[String]) -> bool {
        let n = phrase.len();
        n > 0
            && n <= self.stems.len()
            && (0..=self.stems.len() - n).any(|i| {
                self.segments[i + n - 1] == self.segments[i] && self.stems[i..i + n] == phrase[..]
            })
    }

    fn fits(&self, rule: &Rule) -> bool {
        !rule.not.iter().any(|p| self.occurs(p))
            && (rule.any.is_empty() || rule.any.iter().any(|p| self.occurs(p)))
    }
}

impl Filter for Sense {
    fn filter(&self, post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        if matches.iter().all(|m| self.rules[m.entry].is_none()) {
            return matches;
        }
        let stemmed = StemmedPost {
            stems: post.stems(),
            segments: post.words.iter().map(|w| w.segment).collect(),
        };
        let mut keep: HashMap<usize, bool> = HashMap::new();
        matches
            .into_iter()
            .filter(|m| {
                *keep.entry(m.entry).or_insert_with(|| {
                    self.rules[m.entry]
                        .as_ref()
                        .is_none_or(|rule| stemmed.fits(rule))
                })
            })
            .collect()
    }
}
