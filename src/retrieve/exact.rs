//! `exact`: an entry is retrieved when its key equals a phrase's key, at
//! any length, and whenever its source is written in the post as in the
//! glossary (docs/formats.md "v2: real glossaries"): punctuation, digits and short words included; a
//! key in capitals only where the post writes capitals; a key that is one
//! lower-case stop word never. See [`super::terms`].

use super::keys::{self, Keyed};
use super::terms::{self, KeyForm, Literal, WordTarget, WordTrie};
use super::{Infallible, Match, Params, PostView, RetrieverInfo};
use crate::glossary::Glossary;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "exact",
    summary: "the entry's source as written in the post: any length, punctuation and digits; a key in capitals only in capitals",
    build: |g, _: &Params| Ok(Box::new(Exact::new(g))),
    kinds: &[],
};

pub(crate) struct Exact {
    forms: Vec<KeyForm>,
    /// Whole-word keys, numbered by [`WordTarget`]; a lone stop word is
    /// never looked up, so it is left out.
    trie: WordTrie,
    literal: Literal,
}

impl Exact {
    /// Over the glossary's source keys (the reference retriever).
    pub(crate) fn new(glossary: &Glossary) -> Exact {
        Exact::over(&keys::sources(glossary))
    }

    /// Over any list of keys.
    pub(crate) fn over(keys: &[Keyed]) -> Exact {
        let forms: Vec<KeyForm> = keys.iter().map(KeyForm::of).collect();
        let trie = WordTrie::new(
            forms
                .iter()
                .filter(|f| f.literal.is_none() && !f.lone_stop_word)
                .map(|f| {
                    let number = WordTarget::of(f).number();
                    (number, f.key.split([' ', '\'']).collect())
                }),
        );
        let literal = Literal::new(&forms);
        Exact {
            forms,
            trie,
            literal,
        }
    }
}

impl Exact {
    /// The keys' forms, numbered as the keys were given.
    pub(super) fn forms(&self) -> &[KeyForm] {
        &self.forms
    }
}

impl Infallible for Exact {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        terms::exact_matches(&self.forms, &self.trie, &self.literal, post)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind::Exact;

    #[test]
    fn matches_whole_phrase_keys_only() {
        let g = glossary(&[
            ("cold-coffee", "Cold Coffee"),
            ("coffee", "coffee"),
            ("cookie", "cookie"),
        ]);
        let got = run("exact", &g, "COLD coffee, and cookies!");
        assert_eq!(
            got,
            [
                ("cold-coffee".into(), Exact, "cold coffee".into()),
                ("coffee".into(), Exact, "coffee".into())
            ]
        );
    }

    #[test]
    fn does_not_cross_boundaries_and_skips_stop_words() {
        let g = glossary(&[("cold-coffee", "cold coffee"), ("the", "the"), ("up", "up")]);
        assert!(run("exact", &g, "It's cold. Coffee? The end, up").is_empty());
    }

    use super::super::keys::Keyed;
    use super::super::{PostView, Retriever};
    use crate::phrase;

    /// The entries (numbered as `sources`) that `exact` retrieves in `text`.
    fn found(sources: &[&str], text: &str) -> Vec<usize> {
        let phrase_keys: Vec<String> = sources.iter().map(|s| phrase::key(s)).collect();
        let keys: Vec<Keyed> = sources
            .iter()
            .zip(&phrase_keys)
            .enumerate()
            .map(|(entry, (s, key))| Keyed {
                entry,
                key,
                written: s,
            })
            .collect();
        let mut got: Vec<usize> = super::Exact::over(&keys)
            .retrieve(&PostView::new(text, None))
            .unwrap()
            .into_iter()
            .map(|m| m.entry)
            .collect();
        got.sort_unstable();
        got.dedup();
        got
    }

    #[test]
    fn real_terms_written_as_in_the_glossary_are_found() {
        // Terms from published term lists that the study's 1–4-word rules miss.
        let terms = [
            "static and contextual multilingual embeddings",
            "rigid internal fixation of the spine",
            "version 0.2",
            "CorefUD 1.0",
            "0,055 J/cm2",
            "systemic sclerosis (SSc)",
            "pre-, intra-, and postoperative",
            "July 29, 2021",
            "Still's disease",
            "Mt. Yellow's True Monarch",
            "LINDAT/CLARIAH-CZ",
            "UD",
            "e.g.",
            "U.S.",
        ];
        for (i, term) in terms.iter().enumerate() {
            let text = format!("As reported, {term} was used; see below.");
            assert_eq!(found(&terms, &text), [i], "{term}");
        }
        // Curly apostrophes, other case and whitespace runs are the same.
        assert_eq!(found(&terms, "STILL’S  DISEASE\twas ruled out"), [8]);
        assert_eq!(found(&terms, "Systemic   sclerosis (SSC)"), [5]);
    }

    #[test]
    fn punctuated_terms_are_not_found_inside_words_or_spelled_otherwise() {
        let terms = [
            "systemic sclerosis (SSc)",
            "pre-, intra-, and postoperative",
        ];
        assert!(found(&terms, "systemic sclerosis(SSc)").is_empty());
        assert!(found(&terms, "systemic sclerosis (SSc)x").is_empty());
        assert!(found(&terms, "pre-, intra-, and postoperatively").is_empty());
    }

    #[test]
    fn capitals_only_match_capitals_and_stop_words_never() {
        let terms = ["IT", "MRI", "it", "ct"];
        assert_eq!(found(&terms, "Ask IT about it."), [0]);
        assert!(found(&terms, "It is it.").is_empty());
        assert_eq!(found(&terms, "an MRI scan"), [1]);
        assert!(found(&terms, "an mri scan").is_empty());
        // A short lower-case key is looked up whatever its length, in any case.
        assert_eq!(found(&terms, "a CT scan"), [3]);
    }

    #[test]
    fn an_apostrophe_is_not_a_letter() {
        let terms = [
            "year",
            "whole year",
            "clock",
            "Still's disease",
            "Mr. Smith",
            "don't",
        ];
        assert_eq!(found(&terms, "a whole year’s work"), [0, 1]);
        assert_eq!(found(&terms, "at five o'clock"), [2]);
        assert_eq!(found(&terms, "Still's disease"), [3]);
        assert_eq!(found(&terms, "Mr. Smith's shop"), [4]);
        // A stop word is no key even inside a longer word.
        assert!(found(&terms, "don't").is_empty());
        assert!(found(&terms, "yearly clockwork").is_empty());
    }

    #[test]
    fn one_match_per_entry_and_place() {
        // Two keys of one entry that split into the same words ("year's",
        // "year s") are found once where the post writes them.
        let keys = ["year's", "year s"].map(|written| Keyed {
            entry: 7,
            key: written,
            written,
        });
        let got = super::Exact::over(&keys)
            .retrieve(&PostView::new("a year's work", None))
            .unwrap();
        let places: Vec<_> = got.iter().map(|m| (m.entry, m.words)).collect();
        assert_eq!(places, [(7, Some((1, 1)))]);
    }

    #[test]
    fn the_micro_sign_and_mu_are_one_letter() {
        // "µg" (U+00B5) in the glossary, "μg" (U+03BC) in the post, and back.
        let terms = ["0.5 \u{b5}g/kg", "\u{3bc}mol/L"];
        assert_eq!(found(&terms, "given 0.5 \u{3bc}g/kg daily"), [0]);
        assert_eq!(found(&terms, "in \u{b5}mol/L"), [1]);
        assert_eq!(phrase::key("\u{b5}g"), phrase::key("\u{3bc}g"));
    }

    #[test]
    fn terms_of_symbols_only_are_found_as_written() {
        // No words, so no phrase holds them: matched as written, never
        // touching a letter or digit, never confused with each other.
        let terms = ["±", "&", "→", "->", "..."];
        assert_eq!(found(&terms, "mean 5 ± 2 mg"), [0]);
        assert_eq!(found(&terms, "salt & pepper -> taste"), [1, 3]);
        assert_eq!(found(&terms, "(→) wait ..."), [2, 4]);
        assert!(found(&terms, "5±2, R&D, a->b, wait...").is_empty());
    }

    #[test]
    fn digits_and_decimals_stay_in_one_phrase() {
        let terms = ["2021", "4.50 price", "version 0.2"];
        assert_eq!(found(&terms, "In 2021, the 4.50 price."), [0, 1]);
        assert_eq!(found(&terms, "version 0,2 is out"), [2]);
        assert!(found(&terms, "version 0. 2").is_empty());
    }

    proptest::proptest! {
        /// docs/formats.md "v2: real glossaries": a source written in a post as in the glossary (case,
        /// whitespace runs and curly apostrophes aside), not inside a longer
        /// word, is retrieved by `exact`.
        #[test]
        fn written_as_in_the_glossary_means_found(
            parts in proptest::collection::vec(
                ("[a-zA-Z0-9]{1,5}", proptest::sample::select(vec![
                    " ", "  ", "-", "/", ".", ",", ". ", ", ", " (", ") ", "'", "’", ": ", " & ",
                ])),
                1..9,
            ),
            last in "[a-zA-Z0-9]{1,5}",
            upper in proptest::bool::ANY,
            before in "[a-z]{1,6}",
            after in "[a-z]{1,6}",
        ) {
            let written: String = parts.iter().map(|(w, sep)| format!("{w}{sep}")).collect::<String>() + &last;
            let key = phrase::key(&written);
            let lone_stop_word = !phrase::is_capitals(&written)
                && !key.contains(' ')
                && phrase::is_stopword(&key);
            proptest::prop_assume!(!lone_stop_word);
            // Case may change unless the key is written in capitals.
            let in_post = if phrase::is_capitals(&written) {
                written.clone()
            } else if upper {
                written.to_uppercase()
            } else {
                written.to_lowercase()
            };
            let in_post = in_post.replace(' ', " \t ").replace('’', "'");
            let text = format!("{before} {in_post} {after}");
            proptest::prop_assert!(found(&[&written], &text) == [0], "{written:?} in {text:?}");
        }

        /// The same for terms that begin or end with a symbol ("(SSc)",
        /// "C++", ".NET") or are symbols only ("±"): found where nothing
        /// touching them is a letter or digit, never inside a longer word.
        #[test]
        fn symbols_at_a_terms_ends_are_written_as_in_the_glossary(
            lead in "[(+#.±&/-]{0,2}",
            body in "([a-zA-Z0-9]{1,4}[ .,/+-]{1,2}){0,3}[a-zA-Z0-9]{1,4}",
            trail in "[)+#.±&%/-]{0,2}",
            with_words in proptest::bool::ANY,
            before in proptest::sample::select(vec!["see ", "(", "a, ", "\"", ""]),
            after in proptest::sample::select(vec![" now", ")", ", then", "!", ""]),
            touching in "[a-z0-9]",
        ) {
            let written = if with_words { format!("{lead}{body}{trail}") } else { format!("{lead}{trail}") };
            let written = written.trim();
            proptest::prop_assume!(!written.is_empty());
            let key = phrase::key(written);
            let lone_stop_word = !phrase::is_capitals(written)
                && !key.is_empty()
                && !key.contains(' ')
                && phrase::is_stopword(&key);
            proptest::prop_assume!(!lone_stop_word);
            let text = format!("{before}{written}{after}");
            proptest::prop_assert!(found(&[written], &text) == [0], "{written:?} in {text:?}");
            // A term of symbols only is inside a longer word when a letter
            // or digit touches it. (A term with words is also found as its
            // phrase key, docs/formats.md's `exact`: "C++" is keyed "c".)
            if key.is_empty() {
                for inside in [
                    format!("see {touching}{written} now"),
                    format!("see {written}{touching} now"),
                ] {
                    proptest::prop_assert!(found(&[written], &inside).is_empty(), "{written:?} in {inside:?}");
                }
            }
        }
    }
}
