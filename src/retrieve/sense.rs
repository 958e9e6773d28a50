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

/// What the sense rule makes of one entry in one post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No rule, or the post fits it.
    Kept,
    /// A `context.not` phrase occurs, at words `first..first + len`.
    Contradicted { first: usize, len: usize },
    /// The entry has `context.any` phrases and none occurs.
    Unsupported,
}

impl Sense {
    /// The verdict on `entry` for `post` (what [`Filter::filter`] applies,
    /// and what `glossa serve` explains).
    pub fn verdict(&self, post: &PostView, entry: usize) -> Verdict {
        match &self.rules[entry] {
            None => Verdict::Kept,
            Some(rule) => StemmedPost::of(post).verdict(rule),
        }
    }
}

/// The post's words as stems, with their segments.
struct StemmedPost<'a> {
    stems: &'a [String],
    segments: Vec<usize>,
}

impl StemmedPost<'_> {
    fn of<'a>(post: &'a PostView) -> StemmedPost<'a> {
        StemmedPost {
            stems: post.stems(),
            segments: post.words.iter().map(|w| w.segment).collect(),
        }
    }

    /// The first word where `phrase` occurs inside one segment.
    fn find(&self, phrase: &[String]) -> Option<usize> {
        let n = phrase.len();
        if n == 0 || n > self.stems.len() {
            return None;
        }
        (0..=self.stems.len() - n).find(|&i| {
            self.segments[i + n - 1] == self.segments[i] && self.stems[i..i + n] == phrase[..]
        })
    }

    fn verdict(&self, rule: &Rule) -> Verdict {
        let contradicted = rule.not.iter().find_map(|p| Some((self.find(p)?, p.len())));
        if let Some((first, len)) = contradicted {
            Verdict::Contradicted { first, len }
        } else if !rule.any.is_empty() && rule.any.iter().all(|p| self.find(p).is_none()) {
            Verdict::Unsupported
        } else {
            Verdict::Kept
        }
    }
}

impl Filter for Sense {
    fn filter(&self, post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        if matches.iter().all(|m| self.rules[m.entry].is_none()) {
            return matches;
        }
        let stemmed = StemmedPost::of(post);
        let mut keep: HashMap<usize, bool> = HashMap::new();
        matches
            .into_iter()
            .filter(|m| {
                *keep.entry(m.entry).or_insert_with(|| {
                    self.rules[m.entry]
                        .as_ref()
                        .is_none_or(|rule| stemmed.verdict(rule) == Verdict::Kept)
                })
            })
            .collect()
    }
}
