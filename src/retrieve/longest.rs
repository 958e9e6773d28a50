//! `longest` (a filter): drops an entry whose matched phrase lies inside
//! the phrase of a longer retrieved entry ("coffee" inside "cold coffees"),
//! unless it also matched elsewhere in the post.
//!
//! "Inside" is by word position: the longer match covers the shorter one's
//! words and has more of them. A longer match hides a shorter one only when
//! it is at least as sure (its score is not lower), so an exact "coffee" is
//! not hidden by a fuzzy "old coffee" → "cold coffee".
//!
//! Only a nested match through a stem or a typo is hidden ("bun" in
//! "cinnamon buns", "coffee" in "cold coffees"). A nested term written in
//! the post as in the glossary always stays (docs/formats.md, "written as
//! in the glossary ⇒ found"): translators' term lists need both "existing
//! data resources" and "data resources", "number of patients" and
//! "patients". Where its target conflicts with the covering term's
//! ([`targets_agree`]: "cream" → Sahne inside "ice cream" → Eis), the
//! prompt shows it as part of the longer term rather than hiding it.
//! Matches from no phrase (the oracle) are never dropped and hide nothing.

use super::{Filter, FilterInfo, Longer, Match, Params, PostView};
use crate::glossary::{Entry, Glossary};
use crate::target_match::{fold, written_without_spaces};
use icu_normalizer::DecomposingNormalizerBorrowed;
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

pub(crate) const INFO: FilterInfo = FilterInfo {
    name: "longest",
    summary: "drops an entry matched through a stem or a typo only inside a longer entry's phrase (coffee in `cold coffees`), unless it also matched elsewhere; a nested term written as in the glossary always stays (the prompt marks it as part of the longer term)",
    build: |g, _: &Params| Ok(Box::new(Longest { glossary: g.clone() })),
};

pub(crate) struct Longest {
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

/// The runs of letters and digits of `text`.
fn alphanumeric_runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Whether `inner`'s target agrees with `outer`'s (either's `forms` count):
/// some piece of a word of `inner`'s target is written in `outer`'s. A
/// piece is three characters (two in scripts written without spaces), or
/// the whole of a shorter word, case and accents aside, so inflections and
/// compounds agree
/// ("jazykové modely" with "kontextových jazykových modelů", "Druck" with
/// "Bluthochdruck", "网络" with "神经网络") and unrelated words do not
/// ("Sahne" with "Eis").
pub(crate) fn targets_agree(outer: &Entry, inner: &Entry) -> bool {
    // Accents aside: Czech vowel length and German umlauts alternate
    // inside one word's forms ("práce", "pracovní"; "Haus", "Häuser").
    let nfd = DecomposingNormalizerBorrowed::new_nfd();
    let fold = |t: &String| {
        fold(&nfd.normalize(t))
            .chars()
            .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
            .collect::<String>()
    };
    let outer: Vec<String> = std::iter::once(&outer.target)
        .chain(&outer.forms)
        .map(fold)
        .collect();
    let inner: Vec<String> = std::iter::once(&inner.target)
        .chain(&inner.forms)
        .map(fold)
        .collect();
    let written_in_outer = |piece: &[char]| {
        let piece: String = piece.iter().collect();
        outer.iter().any(|o| o.contains(&piece))
    };
    inner.iter().any(|target| {
        let mut words = alphanumeric_runs(target).peekable();
        if words.peek().is_none() {
            // A target of symbols only: written whole, or not at all.
            return outer.iter().any(|o| o.contains(target.trim()));
        }
        words.any(|word| {
            let chars: Vec<char> = word.chars().collect();
            let size = if chars.iter().any(|&c| written_without_spaces(c)) {
                2
            } else {
                3
            };
            if chars.len() <= size {
                written_in_outer(&chars)
            } else {
                chars.windows(size).any(written_in_outer)
            }
        })
    })
}

impl Filter for Longest {
    fn filter(&self, _post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        // Only a longer match that holds a match's words can hide it.
        let longer = Longer::of(&matches);
        let hidden = |m: &Match| longer.holding(m).any(|o| self.hides(&matches[o], m));
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
    fn a_nested_term_written_as_in_the_glossary_stays_when_its_target_agrees() {
        let g = glossary(&[
            ("lm", "language models", "jazykové modely"),
            (
                "clm",
                "contextual language models",
                "kontextových jazykových modelů",
            ),
            ("ic", "ice cream", "glace"),
            ("icv", "vanilla ice cream", "glace à la vanille"),
            ("druck", "pressure", "Druck"),
            ("bp", "high blood pressure", "Bluthochdruck"),
            ("net", "network", "网络"),
            ("nn", "neural network", "神经网络"),
        ]);
        // Inflected, compounded, or in a script without spaces: they agree.
        assert_eq!(
            ids(&g, "We study contextual language models."),
            ["lm", "clm"]
        );
        assert_eq!(ids(&g, "Vanilla ice cream"), ["ic", "icv"]);
        assert_eq!(ids(&g, "High blood pressure"), ["druck", "bp"]);
        assert_eq!(ids(&g, "A neural network"), ["net", "nn"]);
        assert_eq!(ids(&g, "Vanilla ice creams"), ["icv"]);
    }

    #[test]
    fn a_nested_term_written_as_in_the_glossary_stays_whatever_its_target() {
        let g = glossary(&[
            ("cream", "cream", "Sahne"),
            ("ice-cream", "ice cream", "Eis"),
            ("miss", "miss", "Fehlschuss"),
            ("miss-bennet", "Miss Bennet", "Miss Bennet"),
        ]);
        // Written as in the glossary: kept, though "Sahne" conflicts with
        // "Eis" (the prompt marks it as part of "ice cream").
        assert_eq!(ids(&g, "Ice cream today"), ["cream", "ice-cream"]);
        assert_eq!(
            ids(&g, "A letter for Miss Bennet."),
            ["miss", "miss-bennet"]
        );
        // Through a stem inside a longer match: hidden.
        assert_eq!(ids(&g, "Ice creams today"), ["ice-cream"]);
        assert_eq!(ids(&g, "Ice creams and cream"), ["cream", "ice-cream"]);
    }

    #[test]
    fn a_longer_term_read_across_an_apostrophe_holds_only_its_own_words() {
        // "s video" is read in "computer's video" (an apostrophe is not a
        // letter), over the words "computer's" and "video": "computer" is
        // not among its words, so it is not hidden.
        let g = glossary(&[
            ("computer", "computer", "ordinateur"),
            ("s-video", "S-Video", "S-Vidéo"),
        ]);
        let got = run("exact|longest", &g, "a computer's video output");
        let ids: Vec<&str> = got.iter().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(ids, ["computer", "s-video"]);
    }

    #[test]
    fn agreement_needs_a_shared_piece_of_a_word() {
        let entry = |target: &str| Entry {
            id: String::new(),
            source: String::new(),
            target: target.into(),
            sense: None,
            case_sensitive: false,
            keep: false,
            aliases: Vec::new(),
            context: None,
            forms: Vec::new(),
            forbidden: Vec::new(),
            key: String::new(),
            alias_keys: Vec::new(),
            line: 0,
        };
        let agree = |outer: &str, inner: &str| targets_agree(&entry(outer), &entry(inner));
        assert!(agree("frosk mavi", "mavi"));
        assert!(agree("CorefUD 1.0", "UD"));
        assert!(agree("Bluthochdruck", "Drücke, Druck"));
        assert!(agree("Häuser", "Haus"));
        assert!(agree("pracovní postup", "práce"));
        assert!(agree("5 \u{3bc}g", "\u{b5}g"));
        assert!(agree("黄山真君", "真君"));
        assert!(agree("a ± b", "±"));
        assert!(!agree("Eis", "Sahne"));
        assert!(!agree("glace", "crème"));
        assert!(!agree("语言建模", "模型"));
        assert!(!agree("a + b", "±"));
        // Either's `forms` count.
        let mut cream = entry("Sahne");
        cream.forms = vec!["Rahm".into()];
        let mut ice_cream = entry("Eis");
        assert!(!targets_agree(&ice_cream, &cream));
        ice_cream.forms = vec!["Rahmeis".into()];
        assert!(targets_agree(&ice_cream, &cream));
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

#[cfg(test)]
mod properties {
    use super::super::{build, Params, PostView};
    use crate::glossary::Glossary;
    use proptest::prelude::*;
    use std::sync::Arc;

    const WORDS: [&str; 8] = [
        "ice", "cream", "cold", "coffee", "cinnamon", "bun", "walnut", "loaf",
    ];

    fn phrase() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(WORDS.to_vec()), 1..4)
            .prop_map(|w| w.join(" "))
    }

    /// Entries over `sources`; a target is the source itself (every
    /// nested target agrees) or a made-up word (most conflict).
    fn glossary(sources: &[String], targets_agree: bool) -> Arc<Glossary> {
        let entries: Vec<String> = sources
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let target = if targets_agree {
                    s.clone()
                } else {
                    format!("zq{i}x")
                };
                format!(r#"{{"id":"e{i}","source":"{s}","target":"{target}"}}"#)
            })
            .collect();
        let json = format!(r#"{{"entries":[{}]}}"#, entries.join(","));
        Arc::new(Glossary::parse("g.json", "g", &json).unwrap())
    }

    proptest! {
        /// The default keeps every term written as in the glossary, inside
        /// a longer term or not, whether their targets agree or conflict.
        #[test]
        fn the_default_keeps_every_written_term(
            sources in proptest::collection::btree_set(phrase(), 1..8),
            post in proptest::collection::vec(
                (proptest::sample::select(WORDS.to_vec()), proptest::sample::select(vec![" ", " ", ", ", "-"])),
                1..14,
            ),
            targets_agree in any::<bool>(),
        ) {
            let sources: Vec<String> = sources.into_iter().collect();
            let g = glossary(&sources, targets_agree);
            let text: String = post.iter().map(|(w, sep)| format!("{w}{sep}")).collect();
            let view = PostView::new(&text, None);
            let written = build("exact", &g, &Params::default()).unwrap().retrieve(&view).unwrap();
            let kept: Vec<usize> = build("glossa", &g, &Params::default())
                .unwrap()
                .retrieve(&view)
                .unwrap()
                .iter()
                .map(|m| m.entry)
                .collect();
            for m in &written {
                prop_assert!(
                    kept.contains(&m.entry),
                    "{:?} written in {text:?} but not kept (targets agree: {targets_agree})",
                    sources[m.entry]
                );
            }
        }
    }
}
