//! The offline provider: no model, no network. It replaces each matched
//! phrase in the source text by its glossary target, which gives a
//! deterministic baseline and lets the whole pipeline run without a key.

use super::{CallFuture, Completion, Provider, ProviderError, Request, Substitution};

pub(super) struct Offline;

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

/// Replace every phrase by its target: case-insensitively, on word
/// boundaries only, longest phrase first (so "cold coffee" wins over
/// "coffee"). Matches are found in the original text, so a target is never
/// itself substituted again.
pub fn substitute(text: &str, substitutions: &[Substitution]) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut order: Vec<(Vec<char>, &str)> = substitutions
        .iter()
        .map(|s| {
            (
                s.phrase.trim().chars().collect::<Vec<char>>(),
                s.target.as_str(),
            )
        })
        .filter(|(phrase, _)| !phrase.is_empty())
        .collect();
    // Stable: among equally long phrases the first given wins.
    order.sort_by_key(|(phrase, _)| std::cmp::Reverse(phrase.len()));

    let mut taken = vec![false; chars.len()];
    // (start, length in chars, target)
    let mut spans: Vec<(usize, usize, &str)> = Vec::new();
    for (phrase, target) in &order {
        let len = phrase.len();
        let mut start = 0;
        while start + len <= chars.len() {
            let end = start + len;
            if !taken[start..end].iter().any(|&t| t)
                && same_ignoring_case(&chars[start..end], phrase)
                && starts_word(&chars, start)
                && ends_word(&chars, end)
            {
                taken[start..end].iter_mut().for_each(|t| *t = true);
                spans.push((start, len, target));
                start = end;
            } else {
                start += 1;
            }
        }
    }
    spans.sort_unstable_by_key(|&(start, _, _)| start);

    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, len, target) in spans {
        out.extend(&chars[at..start]);
        out.push_str(target);
        at = start + len;
    }
    out.extend(&chars[at..]);
    out
}

fn same_ignoring_case(a: &[char], b: &[char]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| x == y || x.to_lowercase().eq(y.to_lowercase()))
}

/// Letters and digits make words; an apostrophe between two of them does
/// too ("don't", "l'eau"), as in `phrase::words`.
fn in_word(chars: &[char], i: usize) -> bool {
    let c = chars[i];
    if c.is_alphanumeric() {
        return true;
    }
    (c == '\'' || c == '’')
        && i > 0
        && i + 1 < chars.len()
        && chars[i - 1].is_alphanumeric()
        && chars[i + 1].is_alphanumeric()
}

/// A match at `start` does not continue a word to its left.
fn starts_word(chars: &[char], start: usize) -> bool {
    start == 0 || !in_word(chars, start) || !in_word(chars, start - 1)
}

/// A match ending before `end` does not continue into a word to its right.
fn ends_word(chars: &[char], end: usize) -> bool {
    end == chars.len() || !in_word(chars, end - 1) || !in_word(chars, end)
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
    fn apostrophes_inside_words_are_not_boundaries() {
        let subs = [sub("don", "X"), sub("eau", "water")];
        assert_eq!(substitute("don't, l'eau, Don", &subs), "don't, l'eau, X");
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
