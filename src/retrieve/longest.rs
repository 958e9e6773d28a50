//! `longest` (a filter): drops an entry whose matched phrase lies inside
//! the phrase of a longer retrieved entry ("coffee" inside "cold coffee"),
//! unless it also matched elsewhere in the post.
//!
//! "Inside" is by word position: the longer match covers the shorter one's
//! words and has more of them. A longer match hides a shorter one only when
//! it is at least as sure (its score is not lower), so an exact "coffee" is
//! not hidden by a fuzzy "old coffee" → "cold coffee".
//!
//! A nested term written in the post as in the glossary always stays:
//! "written as in the glossary ⇒ found" holds for the default too, and real
//! term lists need both "contextual language models" and "language models"
//! (a term whose target disagrees, "cream" → crème inside "ice cream" →
//! glace, stays as well: which one a sentence needs is the translator's
//! call, and a missing needed term costs more than an extra one). Only
//! nested matches through a stem or a typo are hidden ("bun" in "cinnamon
//! buns", "coffee" in "cold coffees"). Matches from no phrase (the oracle)
//! are never dropped and hide nothing.

use super::{Filter, FilterInfo, Match, Params, PostView};
use crate::glossary::Glossary;
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

pub const INFO: FilterInfo = FilterInfo {
    name: "longest",
    summary: "drops an entry matched only inside a longer entry's phrase through a stem or typo (coffee in `cold coffees`), unless it also matched elsewhere; a term written as in the glossary always stays",
    build: |g, _: &Params| Box::new(Longest { glossary: g.clone() }),
};

pub struct Longest {
    glossary: Arc<Glossary>,
}

impl Longest {
    /// Whether `outer` hides `inner`.
    fn hides(&self, outer: &Match, inner: &Match) -> bool {
        let (Some((of, ol)), Some((f, l))) = (outer.words, inner.words) else {
            return false;
        };
        let covers = outer.entry != inner.entry
            && ol > l
            && of <= f
            && f + l <= of + ol
            && outer.score >= inner.score;
        covers && !inner.is_written(&self.glossary)
    }
}

impl Filter for Longest {
    fn filter(&self, _post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        // A post has few matches; any match may cover any other, whatever
        // the keys' lengths.
        let hidden = |m: &Match| matches.iter().any(|o| self.hides(o, m));
        // An entry stays when at least one of its matches is hidden by none.
        let visible: HashSet<usize> = matches
            .iter()
            .filter(|m| !hidden(m))
            .map(|m| m.entry)
            .collect();
        matches
            .into_iter()
            .filter(|m| visible.contains(&m.entry))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;
    use super::*;

    fn glossary(entries: &[(&str, &str, &str)]) -> Arc<Glossary> {
        let entries: Vec<String> = entries
            .iter()
            .map(|(id, source, target)| {
                format!(r#"{{"id":"{id}","source":"{source}","target":"{target}"}}"#)
            })
            .collect();
        Arc::new(
            Glossary::parse(
                "g.json",
                "g",
                &format!(r#"{{"entries":[{}]}}"#, entries.join(",")),
            )
            .unwrap(),
        )
    }

    fn ids(g: &Arc<Glossary>, text: &str) -> Vec<String> {
        run("normalised|longest", g, text)
            .into_iter()
            .map(|(id, _, _)| id)
            .collect()
    }

    #[test]
    fn a_nested_stem_or_typo_match_is_hidden() {
        let g = glossary(&[
            ("coffee", "coffee", "mavi"),
            ("cold-coffee", "cold coffee", "frosk mavi"),
        ]);
        assert_eq!(ids(&g, "Cold coffees today"), ["cold-coffee"]);
        // Written as in the glossary: kept.
        assert_eq!(ids(&g, "Cold coffee today"), ["coffee", "cold-coffee"]);
        // Matched elsewhere on its own: kept.
        assert_eq!(
            ids(&g, "Cold coffees or hot coffee"),
            ["coffee", "cold-coffee"]
        );
    }

    #[test]
    fn a_nested_term_written_as_in_the_glossary_stays() {
        let g = glossary(&[
            ("lm", "language models", "jazykové modely"),
            (
                "clm",
                "contextual language models",
                "kontextových jazykových modelů",
            ),
            ("ic", "ice cream", "glace"),
            ("icv", "vanilla ice cream", "vanilkový krém"),
        ]);
        assert_eq!(
            ids(&g, "We study contextual language models."),
            ["lm", "clm"]
        );
        assert_eq!(ids(&g, "Vanilla ice cream"), ["ic", "icv"]);
        assert_eq!(ids(&g, "Vanilla ice creams"), ["icv"]);
    }

    #[test]
    fn keys_longer_than_four_words_cover_what_is_inside() {
        let g = glossary(&[
            ("spine", "spine", "páteř"),
            (
                "fix",
                "rigid internal fixation of the spines",
                "rigidní vnitřní fixace páteří",
            ),
        ]);
        // "spine" matched only through its stem inside the long term.
        assert_eq!(
            ids(&g, "After rigid internal fixation of the spines."),
            ["fix"]
        );
    }
}
