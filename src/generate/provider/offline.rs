//! The offline provider: no model, no network. It replaces each matched
//! phrase in the source text by its glossary target, which gives a
//! deterministic baseline and lets the whole pipeline run without a key.

use super::{CallFuture, Completion, Provider, ProviderError, ProviderKind, Request, Substitution};
use crate::generate::target_match::{self, Haystack};

pub(super) struct Offline;

pub(super) const KIND: ProviderKind = ProviderKind {
    name: "offline",
    summary: "no model, no network: replaces matched phrases in the source text by their glossary targets",
    label: "Offline (no model)",
    key_var: None,
    default_model: None,
    build: |_| Ok(Box::new(Offline)),
};

impl Provider for Offline {
    fn name(&self) -> &str {
        "offline"
    }

    fn identity(&self) -> String {
        "offline".to_string()
    }

    fn call<'a>(&'a self, req: &'a Request) -> CallFuture<'a> {
        let text = substitute(&req.text, &req.substitutions);
        Box::pin(async move {
            Ok::<_, ProviderError>(Completion {
                text,
                ..Completion::default()
            })
        })
    }
}

/// Replace every phrase by its target where it stands (by
/// [`target_match`]'s rule), longest phrase first (so "cold coffee" wins
/// over "coffee"). Places are found in the original text, so a target is
/// never itself substituted again.
pub fn substitute(text: &str, substitutions: &[Substitution]) -> String {
    let phrases: Vec<(&str, &str)> = substitutions
        .iter()
        .map(|s| (s.target.as_str(), s.phrase.as_str()))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (place, target) in target_match::claim(&Haystack::new(text), &phrases) {
        out.push_str(&text[at..place.start]);
        out.push_str(target);
        at = place.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(phrase: &str, target: &str) -> Substitution {
        Substitution {
            phrase: phrase.into(),
            target: target.into(),
        }
    }

    #[test]
    fn apostrophes_are_boundaries_as_in_the_check() {
        // The same rule as the output check and the page: "eau" stands in
        // "l'eau", "don" in "don't".
        let subs = [sub("don", "X"), sub("eau", "water")];
        assert_eq!(substitute("don't, l'eau, Don", &subs), "X't, l'water, X");
    }

    #[test]
    fn apostrophes_agree_with_the_check_and_the_highlighting() {
        use crate::generate::check::contains_target;
        use crate::generate::pipeline::UsedEntry;
        use crate::retrieve::MatchKind;
        let text = "l'eau, l’eau, don't, eaux";
        let used = |target: &str| UsedEntry {
            entry: target.into(),
            source: target.into(),
            target: target.into(),
            kind: MatchKind::Exact,
            phrase: target.into(),
            score: 1.0,
            sense: None,
            forms: Vec::new(),
        };
        let expected = [
            ("eau", true),
            ("don", true),
            ("t", true),
            ("ea", false),
            ("on", false),
        ];
        for (needle, stands) in expected {
            let substituted = substitute(text, &[sub(needle, "#")]) != text;
            let checked = contains_target(text, needle, &[]);
            assert_eq!(checked, stands, "{needle}");
            let marked = crate::generate::highlight::highlight(text, &[used(needle)])
                .iter()
                .any(|s| s.entry.is_some());
            assert_eq!((substituted, marked), (checked, checked), "{needle}");
        }
        // Where they agree: "eau" stands after an apostrophe, not in "eaux".
        assert_eq!(
            substitute(text, &[sub("eau", "#")]),
            "l'#, l’#, don't, eaux"
        );
    }

    #[test]
    fn longest_phrase_first_and_inside_words_untouched() {
        let subs = [sub("coffee", "mavi"), sub("cold coffee", "frosk mavi")];
        assert_eq!(
            substitute("Cold coffee, coffee, coffees", &subs),
            "frosk mavi, mavi, coffees"
        );
    }

    #[test]
    fn phrases_of_symbols_match_anywhere_they_end() {
        let subs = [sub("c++", "C plus plus")];
        assert_eq!(substitute("I like C++.", &subs), "I like C plus plus.");
    }

    #[test]
    fn non_ascii_case_folding() {
        let subs = [sub("ÉTÉ", "summer")];
        assert_eq!(substitute("un été chaud", &subs), "un summer chaud");
    }

    #[test]
    fn empty_phrases_are_ignored() {
        assert_eq!(substitute("abc", &[sub("  ", "x")]), "abc");
    }
}
