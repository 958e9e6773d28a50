//! The offline provider: no model, no network. It puts each retrieved
//! entry's target where retrieval kept its match in the post, which gives a
//! deterministic baseline and lets the whole pipeline run without a key.

use super::{CallFuture, Completion, Provider, ProviderError, ProviderKind, Request, Substitution};
use crate::target_match::{Claimed, Haystack};
use std::borrow::Cow;
use std::cmp::Reverse;
use std::ops::Range;

pub(super) struct Offline;

pub(super) const KIND: ProviderKind = ProviderKind {
    name: "offline",
    summary: "no model, no network: replaces matched phrases in the source text by their glossary targets",
    label: "Offline (no model)",
    key_var: None,
    default_model: None,
    build: |_| Ok(Box::new(Offline)),
    parse_reply: None,
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

/// Put each target at its places (a substitution without places: wherever
/// its phrase stands, by [`crate::target_match`]'s rule), the
/// longest place first where places overlap (so "cold coffee" wins over
/// "coffee"; among equally long ones the first substitution), carrying the
/// capital of the words replaced. Everything else is kept as it is, and a
/// target is never itself substituted again. A place outside the text or
/// inside a character is ignored.
pub(crate) fn substitute(text: &str, substitutions: &[Substitution]) -> String {
    let haystack = Haystack::new(text);
    let mut candidates: Vec<(Range<usize>, usize)> = Vec::new();
    for (i, s) in substitutions.iter().enumerate() {
        let places = match &s.places {
            Some(places) => places
                .iter()
                .filter(|r| r.start < r.end && text.get((*r).clone()).is_some())
                .cloned()
                .collect(),
            None => haystack.find(&s.phrase),
        };
        candidates.extend(places.into_iter().map(|r| (r, i)));
    }
    candidates.sort_by_key(|(r, i)| (Reverse(text[r.clone()].chars().count()), *i, r.start));
    let mut claimed = Claimed::default();
    let mut taken: Vec<(Range<usize>, usize)> = Vec::new();
    for (place, i) in candidates {
        if claimed.claim(&place) {
            taken.push((place, i));
        }
    }
    taken.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (place, i) in taken {
        out.push_str(&text[at..place.start]);
        let s = &substitutions[i];
        let written = &text[place.clone()];
        // docs/formats.md, "Case and keep": a kept entry stays as the post
        // writes it, a case-sensitive target as the glossary writes it.
        out.push_str(&if s.keep {
            Cow::Borrowed(written)
        } else if s.case_sensitive {
            Cow::Borrowed(s.target.as_str())
        } else {
            carry_capital(written, &s.target)
        });
        at = place.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `target` with a capital first letter when `source` starts with one and
/// the target with a lower-case letter ("Cookies" → "Dorpa"); a target is
/// never lower-cased, and one starting in a script without case (Han,
/// Arabic, ...) is left alone. The capital is the letter's title case
/// ("ǆ" → "ǅ", "ß" → "Ss"), not its upper case.
fn carry_capital<'t>(source: &str, target: &'t str) -> Cow<'t, str> {
    let mut chars = target.chars();
    let capital = |c: char| c.is_uppercase() || title_case(c).is_some_and(|t| t == c.to_string());
    match chars.next() {
        Some(first) if first.is_lowercase() && source.chars().next().is_some_and(capital) => {
            let title = title_case(first).unwrap_or_else(|| first.to_uppercase().collect());
            Cow::Owned(title + chars.as_str())
        }
        _ => Cow::Borrowed(target),
    }
}

/// A letter's title case where it is not its upper case (Unicode's
/// SpecialCasing and UnicodeData title mappings for letters of living
/// orthographies: the Latin digraphs of Serbo-Croatian, and "ß").
fn title_case(c: char) -> Option<String> {
    let t = match c {
        'ǆ' | 'ǅ' | 'Ǆ' => "ǅ",
        'ǉ' | 'ǈ' | 'Ǉ' => "ǈ",
        'ǌ' | 'ǋ' | 'Ǌ' => "ǋ",
        'ǳ' | 'ǲ' | 'Ǳ' => "ǲ",
        'ß' => "Ss",
        _ => return None,
    };
    Some(t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(phrase: &str, target: &str) -> Substitution {
        Substitution {
            phrase: phrase.into(),
            target: target.into(),
            places: None,
            case_sensitive: false,
            keep: false,
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
            case_sensitive: false,
            keep: false,
            forms: Vec::new(),
            forbidden: Vec::new(),
            places: Vec::new(),
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
            "Frosk mavi, mavi, coffees"
        );
    }

    /// A substitution at byte ranges given as `(start, end)`.
    fn at(phrase: &str, target: &str, places: &[(usize, usize)]) -> Substitution {
        Substitution {
            places: Some(places.iter().map(|&(s, e)| s..e).collect()),
            ..sub(phrase, target)
        }
    }

    #[test]
    fn only_the_places_given_are_replaced() {
        // Retrieval kept the loaf's date, not the one in "save the date".
        let text = "Save the date! Sticky date loaf.";
        let loaf = text.rfind("date").unwrap();
        let subs = [at("date", "zimbo", &[(loaf, loaf + 4)])];
        assert_eq!(substitute(text, &subs), "Save the date! Sticky zimbo loaf.");
        // Overlapping places: the longest wins, whatever the order given.
        let text = "Cold coffee today";
        let subs = [
            at("coffee", "mavi", &[(5, 11)]),
            at("cold coffee", "frosk mavi", &[(0, 11)]),
        ];
        assert_eq!(substitute(text, &subs), "Frosk mavi today");
        // Places outside the text or inside a character are ignored.
        let subs = [at("x", "y", &[(3, 99), (1, 2), (4, 4)])];
        assert_eq!(substitute("été", &subs), "été");
    }

    #[test]
    fn the_first_capital_is_carried_never_taken_away() {
        let subs = [
            sub("cookies", "dorpa"),
            sub("tea", "Tesh"),
            sub("roll", "brunel"),
        ];
        assert_eq!(
            substitute("Cookies, tea and a ROLL. cookies", &subs),
            "Dorpa, Tesh and a Brunel. dorpa"
        );
        assert_eq!(carry_capital("Éclair", "éclair"), "Éclair");
        assert_eq!(carry_capital("Tea", "模型"), "模型");
    }

    #[test]
    fn capitals_are_carried_in_every_cased_script_and_only_there() {
        assert_eq!(carry_capital("Кофе", "кава"), "Кава");
        assert_eq!(carry_capital("Ωρα", "ώρα"), "Ώρα");
        assert_eq!(carry_capital("Džem", "ǆem"), "ǅem");
        assert_eq!(carry_capital("Straße", "ßtraße"), "Sstraße");
        assert_eq!(carry_capital("Coffee", "قهوة"), "قهوة");
        assert_eq!(carry_capital("coffee", "kava"), "kava");
        assert_eq!(carry_capital("3D", "tisk"), "tisk");
    }

    #[test]
    fn case_sensitive_targets_are_written_exactly_and_kept_entries_as_in_the_post() {
        let text = "US made. Glossa Café opens; us too. glossa café!";
        let subs = [
            Substitution {
                case_sensitive: true,
                ..at("US", "iPhone", &[(0, 2)])
            },
            at("us", "nosotros", &[(29, 31)]),
            Substitution {
                keep: true,
                ..sub("Glossa Café", "Glossa Café")
            },
        ];
        assert_eq!(
            substitute(text, &subs),
            "iPhone made. Glossa Café opens; nosotros too. glossa café!"
        );
        // At a sentence start a lower-case target gets its capital, unless
        // the entry is case-sensitive.
        let text = "Us too";
        assert_eq!(substitute(text, &[sub("us", "nosotros")]), "Nosotros too");
        let exact = Substitution {
            case_sensitive: true,
            ..sub("us", "nosotros")
        };
        assert_eq!(substitute(text, &[exact]), "nosotros too");
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
