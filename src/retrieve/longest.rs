//! `longest` (a filter): drops an entry whose matched phrase lies inside
//! the phrase of a longer retrieved entry ("coffee" inside "cold coffee"),
//! unless it also matched elsewhere in the post.
//!
//! "Inside" is by word position: the longer match covers the shorter one's
//! words and has more of them. A longer match hides a shorter one only when
//! it is at least as sure (its score is not lower), so an exact "coffee" is
//! not hidden by a fuzzy "old coffee" → "cold coffee".
//!
//! A nested term written in the post as in the glossary, whose target agrees
//! with the covering term's target, stays: real term lists name both
//! "contextual language models" and "language models" (and "coffee" → mavi
//! inside "cold coffee" → frosk mavi is the same word), so giving the model
//! both costs nothing and a term written as in the glossary is never lost.
//! A nested match through a stem or typo stays hidden ("bun" in "cinnamon
//! buns"), and so does a nested term whose target disagrees ("cream" →
//! crème inside "ice cream" → glace). Matches from no phrase (the oracle)
//! are never dropped and hide nothing.

use super::{Filter, FilterInfo, Match, MatchKind, Params, PostView};
use crate::glossary::Glossary;
use std::collections::HashSet;
use std::sync::Arc;

pub const INFO: FilterInfo = FilterInfo {
    name: "longest",
    summary: "drops an entry matched only inside a longer entry's phrase (coffee in `cold coffees`), unless it also matched elsewhere or is written as in the glossary with a target that agrees",
    build: |g, _: &Params| Box::new(Longest { glossary: g.clone() }),
};

pub struct Longest {
    glossary: Arc<Glossary>,
}

/// Whether `inner`'s target agrees with `outer`'s: written inside it, or
/// every word of 4+ letters starting as one of `outer`'s words does (its
/// first four letters), so inflected forms agree ("jazykové modely" with
/// "kontextových jazykových modelů").
fn targets_agree(outer: &str, inner: &str) -> bool {
    let (outer, inner) = (outer.to_lowercase(), inner.to_lowercase());
    if outer.contains(&inner) {
        return true;
    }
    let prefix = |w: &str| w.chars().take(4).collect::<String>();
    let outer_prefixes: Vec<String> = outer.split_whitespace().map(prefix).collect();
    let mut long_words = inner
        .split_whitespace()
        .filter(|w| w.chars().count() >= 4)
        .peekable();
    long_words.peek().is_some() && long_words.all(|w| outer_prefixes.contains(&prefix(w)))
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
        if !covers {
            return false;
        }
        let entries = &self.glossary.entries;
        let written = inner.kind == MatchKind::Exact;
        let nested_term =
            written && targets_agree(&entries[outer.entry].target, &entries[inner.entry].target);
        !nested_term
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
    fn a_nested_stem_match_or_disagreeing_target_is_hidden() {
        let g = glossary(&[
            ("coffee", "coffee", "mavi"),
            ("cold-coffee", "cold coffee", "frosk mavi"),
            ("cream", "cream", "crème"),
            ("ice-cream", "ice cream", "glace"),
        ]);
        assert_eq!(ids(&g, "Cold coffees today"), ["cold-coffee"]);
        assert_eq!(ids(&g, "Ice cream today"), ["ice-cream"]);
        // Written as in the glossary, with a target inside the longer one's.
        assert_eq!(ids(&g, "Cold coffee today"), ["coffee", "cold-coffee"]);
        assert_eq!(
            ids(&g, "Cold coffees or hot coffee"),
            ["coffee", "cold-coffee"]
        );
    }

    #[test]
    fn a_nested_term_with_an_agreeing_target_stays() {
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
        assert_eq!(ids(&g, "Vanilla ice cream"), ["icv"]);
    }

    #[test]
    fn targets_agree_by_containment_or_word_starts() {
        assert!(targets_agree("frosk mavi", "mavi"));
        assert!(targets_agree(
            "kontextových jazykových modelů",
            "jazykové modely"
        ));
        assert!(!targets_agree("glace", "crème"));
        assert!(!targets_agree("vanilkový krém", "glace"));
    }

    #[test]
    fn keys_longer_than_four_words_cover_what_is_inside() {
        let g = glossary(&[
            ("spine", "spine", "páteř"),
            ("spines", "fixation", "zzz"),
            (
                "fix",
                "rigid internal fixation of the spine",
                "rigidní vnitřní fixace páteře",
            ),
        ]);
        // "spine" agrees with the long term's target and stays; "fixation"
        // → zzz does not.
        assert_eq!(
            ids(&g, "After rigid internal fixation of the spine."),
            ["spine", "fix"]
        );
    }
}
