//! One index over sources and aliases for a union that names `normalised`,
//! `edit`, `split` and `alias` (the recommended `glossa` does).
//!
//! `alias` runs the same three matchers over the aliases that the union
//! already runs over the sources, so built apart every post is read twice
//! by each. Here each matcher is built once over both kinds of key (an
//! alias key's entry is numbered past the glossary's entries), read once
//! per post, and its matches are dealt back: source matches where the
//! union names the tier, alias matches (kind `alias`) where it names
//! `alias`, each in the order the separate retrievers give them. The
//! matchers treat every key on its own, so nothing changes but the work
//! (`tests` compares the two on random glossaries).

use super::alias::{self, AliasFuzzy};
use super::edit::{self, Edit};
use super::exact::Exact;
use super::keys;
use super::known::KnownWords;
use super::normalised::{self, stem_keys, Normalised};
use super::split::{self, Split};
use super::{Infallible, Match, MatchKind, Params, PostView};
use crate::glossary::Glossary;
use std::sync::Arc;

/// A matcher the shared index holds, in the order `alias` runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tier {
    Normalised,
    Edit,
    Split,
}

impl Tier {
    const ALL: [Tier; 3] = [Tier::Normalised, Tier::Edit, Tier::Split];

    /// The registered name of the tier's retriever.
    fn name(self) -> &'static str {
        match self {
            Tier::Normalised => normalised::INFO.name,
            Tier::Edit => edit::INFO.name,
            Tier::Split => split::INFO.name,
        }
    }

    /// The tier a registered retriever name stands for.
    pub(crate) fn named(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The registered name of the retriever whose aliases the index reads too.
pub(crate) const ALIAS: &str = alias::INFO.name;

/// Whether a union of these registered names is built over one index.
pub(crate) fn applies(names: &[&str]) -> bool {
    let once = |name: &str| names.iter().filter(|n| **n == name).count() == 1;
    once(ALIAS) && Tier::ALL.iter().all(|t| once(t.name()))
}

pub(crate) struct SharedTiers {
    /// The glossary's entry count: keys numbered from here are aliases.
    entries: usize,
    tiers: [Box<dyn Infallible>; 3],
    /// Sources and aliases without their leading article, as written (none
    /// in most glossaries: then no post pays for them).
    without_articles: Option<Exact>,
    fuzzy: AliasFuzzy,
}

/// One post's matches, dealt by tier and kind of key.
pub(crate) struct Dealt {
    sources: [Vec<Match>; 3],
    aliases: Vec<Match>,
}

impl Dealt {
    /// The source matches of `tier` (once: they are moved out).
    pub(crate) fn sources(&mut self, tier: Tier) -> Vec<Match> {
        std::mem::take(&mut self.sources[tier as usize])
    }

    /// What `alias` gives (once: they are moved out).
    pub(crate) fn aliases(&mut self) -> Vec<Match> {
        std::mem::take(&mut self.aliases)
    }
}

impl SharedTiers {
    pub(crate) fn new(glossary: &Glossary, params: &Params) -> SharedTiers {
        let entries = glossary.entries.len();
        let aliases = keys::aliases(glossary);
        let all = keys::sources_and_aliases(glossary);
        // Stemmed once for the three tiers and the known words.
        let stemmed = stem_keys(&all);
        let known = Arc::new(KnownWords::over(&all, &stemmed).of_whole(glossary));
        let ((normalised, edit), (split, fuzzy)) = rayon::join(
            || {
                rayon::join(
                    || Normalised::over(&all, &stemmed),
                    || Edit::over(&all, &stemmed, params.edit_bounds(), Some(known.clone())),
                )
            },
            || {
                rayon::join(
                    || Split::over(&all, &stemmed),
                    || AliasFuzzy::new(&aliases, params.threshold, known.clone()),
                )
            },
        );
        SharedTiers {
            entries,
            tiers: [Box::new(normalised), Box::new(edit), Box::new(split)],
            without_articles: alias::without_articles(glossary),
            fuzzy,
        }
    }

    /// Every tier's matches of `post`, dealt.
    pub(crate) fn retrieve(&self, post: &PostView) -> Dealt {
        let mut dealt = Dealt {
            sources: Default::default(),
            aliases: Vec::new(),
        };
        for (tier, retriever) in Tier::ALL.iter().zip(&self.tiers) {
            for m in retriever.matches(post) {
                if m.entry < self.entries {
                    dealt.sources[*tier as usize].push(m);
                } else {
                    dealt.aliases.push(Match {
                        entry: m.entry - self.entries,
                        kind: MatchKind::Alias,
                        ..m
                    });
                }
            }
        }
        // In `alias`'s order: its three tiers, the keys without articles, fuzzy.
        if let Some(exact) = &self.without_articles {
            let matches = exact.matches(post).into_iter();
            dealt.aliases.extend(matches.map(|m| Match {
                kind: MatchKind::Alias,
                ..m
            }));
        }
        dealt.aliases.extend(self.fuzzy.retrieve(post));
        dealt
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        best_per_entry, build, union::Union, Params, PostView, Retriever, REGISTRY,
    };
    use std::sync::Arc;

    /// Matches in a fixed order.
    fn sorted(matches: &[super::Match]) -> Vec<String> {
        let mut all: Vec<String> = matches.iter().map(|m| format!("{m:?}")).collect();
        all.sort();
        all
    }

    fn apart(spec: &str, g: &Arc<crate::glossary::Glossary>) -> Box<dyn Retriever> {
        let parts = spec
            .split('+')
            .map(|name| {
                let info = REGISTRY.iter().find(|i| i.name == name).unwrap();
                (info.build)(g, &Params::default()).unwrap()
            })
            .collect();
        Box::new(Union::new(parts))
    }

    #[test]
    fn applies_only_to_unions_naming_all_four_once() {
        assert!(super::applies(&["normalised", "edit", "split", "alias"]));
        assert!(super::applies(&[
            "alias",
            "fuzzy",
            "split",
            "edit",
            "normalised"
        ]));
        assert!(!super::applies(&["normalised", "edit", "alias"]));
        assert!(!super::applies(&[
            "normalised",
            "edit",
            "split",
            "alias",
            "edit"
        ]));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        /// Built over one index, a union gives exactly the matches that its
        /// retrievers built apart give. (Their order may differ between
        /// entries matched by one phrase through `edit`, whose word
        /// numbering differs; every reader goes by entry and place.)
        #[test]
        fn one_index_gives_what_the_retrievers_give_apart(
            entries in proptest::collection::vec(
                // Leading articles: keys without them are aliases too.
                ("((the|a) )?[abcdes]{2,8}( [abcdes]{2,8}){0,2}", proptest::collection::vec("((the|an) )?[abcdes]{2,8}( [abcdes]{2,8}){0,2}", 0..3)),
                1..25,
            ),
            posts in proptest::collection::vec("[abcdes]{2,9}( (the|[abcdes]{1,9})){0,8}", 1..8),
            order in 0usize..3,
        ) {
            let json: Vec<String> = entries
                .iter()
                .enumerate()
                .map(|(i, (source, aliases))| {
                    format!(
                        r#"{{"id":"e{i}","source":"{source}","target":"t{i}","aliases":{}}}"#,
                        serde_json::to_string(aliases).unwrap()
                    )
                })
                .collect();
            let g = Arc::new(
                crate::glossary::Glossary::parse("g.json", "g", &format!(r#"{{"entries":[{}]}}"#, json.join(",")))
                    .unwrap(),
            );
            let spec = ["normalised+edit+split+alias", "alias+split+normalised+edit", "edit+alias+normalised+split"][order];
            let shared = build(spec, &g, &Params::default()).unwrap();
            let separate = apart(spec, &g);
            // Each source without its first word too, so that keys without
            // their articles are met.
            let rests = entries.iter().filter_map(|(source, _)| source.split_once(' ')).map(|(_, rest)| rest.to_string());
            for text in posts.iter().cloned().chain(rests) {
                let text = &text;
                let post = PostView::new(text, None);
                let (a, b) = (shared.retrieve(&post).unwrap(), separate.retrieve(&post).unwrap());
                proptest::prop_assert_eq!(sorted(&a), sorted(&b), "{}", text);
                proptest::prop_assert_eq!(best_per_entry(a), best_per_entry(b));
            }
        }
    }
}
