//! The generation check (SPEC.md, "Generation check"): every needed
//! entry's target must appear in the output, case-insensitive and on word
//! boundaries, and no wrong-sense entry's target may appear.
//!
//! A target inside another ("mavi" inside "frosk mavi") is only counted
//! where it stands on its own: each needed occurrence must be found in its
//! own place, so one "frosk mavi" does not also satisfy "mavi".

use serde::{Deserialize, Serialize};

/// Which targets were missing and which leaked, by entry id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub missing: Vec<String>,
    pub leaked: Vec<String>,
    /// Every needed target was there and nothing leaked.
    pub ok: bool,
}

/// One glossary target to look for.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub id: &'a str,
    pub text: &'a str,
}

/// Byte ranges in `haystack` (already lower-cased) where `needle` stands
/// on word boundaries.
fn occurrences(haystack: &str, needle: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if needle.is_empty() {
        return out;
    }
    let mut from = 0;
    while let Some(i) = haystack[from..].find(needle) {
        let start = from + i;
        let end = start + needle.len();
        let before_ok = haystack[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let after_ok = haystack[end..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric());
        if before_ok && after_ok {
            out.push((start, end));
        }
        // Step one character, so overlapping occurrences are seen too.
        from = start + haystack[start..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

fn overlaps(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Check `output` against the needed and wrong-sense targets.
pub fn check(output: &str, needed: &[Target], wrong_sense: &[Target]) -> Verdict {
    let text = output.to_lowercase();
    // Longest targets claim their places first, so a shorter target nested
    // in a longer one needs an occurrence of its own.
    let mut order: Vec<&Target> = needed.iter().collect();
    order.sort_by_key(|t| std::cmp::Reverse(t.text.chars().count()));
    let mut claimed: Vec<(usize, usize)> = Vec::new();
    let mut missing = Vec::new();
    for t in order {
        let free = occurrences(&text, &t.text.to_lowercase())
            .into_iter()
            .find(|o| !claimed.iter().any(|c| overlaps(*c, *o)));
        match free {
            Some(o) => claimed.push(o),
            None => missing.push(t.id.to_string()),
        }
    }
    // Keep the caller's order for stable output.
    missing.sort_by_key(|id| needed.iter().position(|t| t.id == id));
    let leaked: Vec<String> = wrong_sense
        .iter()
        .filter(|t| {
            occurrences(&text, &t.text.to_lowercase())
                .iter()
                .any(|o| !claimed.iter().any(|c| overlaps(*c, *o)))
        })
        .map(|t| t.id.to_string())
        .collect();
    let ok = missing.is_empty() && leaked.is_empty();
    Verdict {
        missing,
        leaked,
        ok,
    }
}

/// Whether `target` appears in `output` on word boundaries, ignoring case.
pub fn contains_target(output: &str, target: &str) -> bool {
    !occurrences(&output.to_lowercase(), &target.to_lowercase()).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<'a>(id: &'a str, text: &'a str) -> Target<'a> {
        Target { id, text }
    }

    #[test]
    fn target_in_other_case_counts() {
        let v = check("FROSK MAVI tan!", &[t("cold-coffee", "frosk mavi")], &[]);
        assert!(v.ok, "{v:?}");
    }

    #[test]
    fn target_inside_another_word_does_not_count() {
        let v = check(
            "dorpas and mavit",
            &[t("cookie", "dorpa"), t("coffee", "mavi")],
            &[],
        );
        assert_eq!(v.missing, ["cookie", "coffee"]);
        assert!(!v.ok);
        assert!(check("ütdorpa", &[t("cookie", "dorpa")], &[]).missing == ["cookie"]);
    }

    #[test]
    fn nested_targets_each_need_their_own_place() {
        let needed = [t("coffee", "mavi"), t("cold-coffee", "frosk mavi")];
        assert_eq!(check("frosk mavi", &needed, &[]).missing, ["coffee"]);
        assert!(check("frosk mavi, mavi", &needed, &[]).ok);
        assert!(check("mavi; frosk mavi", &needed, &[]).ok);
    }

    #[test]
    fn wrong_sense_leaks_are_reported() {
        let v = check(
            "zimbo tan brunka",
            &[t("brunch", "brunka")],
            &[t("date", "zimbo")],
        );
        assert_eq!(v.leaked, ["date"]);
        assert!(v.missing.is_empty());
        assert!(!v.ok);
        // A wrong-sense target that only occurs inside a needed one does not leak.
        let v = check(
            "frosk mavi",
            &[t("cold-coffee", "frosk mavi")],
            &[t("coffee", "mavi")],
        );
        assert!(v.ok, "{v:?}");
    }

    #[test]
    fn punctuation_and_unicode_are_boundaries() {
        assert!(contains_target("«Zimbo»!", "zimbo"));
        assert!(!contains_target("zimboé", "zimbo"));
        assert!(contains_target("café-zimbo", "zimbo"));
    }
}
