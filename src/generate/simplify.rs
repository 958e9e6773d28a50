//! The simplify stage: English text → short sentences.

use serde::{Deserialize, Serialize};

/// How the text is simplified before retrieval and translation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Simplify {
    /// Split into sentences on sentence punctuation and line breaks, trimmed.
    #[default]
    Rules,
    /// One model call with prompts/simplify.v1.md.
    Llm,
    /// Use the text as it is.
    None,
}

/// Words that end with a full stop inside a sentence ("Mt. Yellow", "Dr.
/// Smith", "approx. 5"), lower-cased, without their stop.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "mt", "st", "jr", "sr", "vs", "etc", "e.g", "i.e", "cf", "al",
    "approx", "no", "nos", "fig", "figs", "vol", "pp", "ca", "inc", "ltd", "co",
];

/// Whether the full stop that ends `sentence` ends the sentence: not after
/// an abbreviation, a single letter or an initialism ("J. Smith", "U.S.",
/// "a.m."), nor before a
/// lower-case word or a digit ("9 a.m. to 5", "e.g. bread").
fn ends_sentence(sentence: &str, next: Option<char>) -> bool {
    if next.is_some_and(|n| n.is_lowercase() || n.is_numeric()) {
        return false;
    }
    let body = sentence.trim_end_matches('.');
    let word = body
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '.'))
        .next()
        .unwrap_or_default()
        .to_lowercase();
    let initialism = word.contains('.') && word.split('.').all(|part| part.chars().count() <= 2);
    word.chars().count() != 1 && !initialism && !ABBREVIATIONS.contains(&word.as_str())
}

/// Split `text` into trimmed sentences: after `.`, `!`, `?` or `…` followed
/// by white space or the end (so "£4.50" stays whole), and at line breaks;
/// a full stop after an abbreviation or an initial, or before a lower-case
/// word, does not end a sentence.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' || c == '\r' {
            push_trimmed(&mut out, &mut current);
            continue;
        }
        current.push(c);
        if matches!(c, '.' | '!' | '?' | '…') {
            // Keep runs like "?!" and "..." together with their sentence.
            while let Some(&n) = chars.peek() {
                if matches!(n, '.' | '!' | '?' | '…' | '"' | '”' | ')') {
                    current.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            if chars.peek().is_none_or(|n| n.is_whitespace()) {
                let next = chars.clone().find(|n| !n.is_whitespace());
                if c != '.' || ends_sentence(&current, next) {
                    push_trimmed(&mut out, &mut current);
                }
            }
        }
    }
    push_trimmed(&mut out, &mut current);
    out
}

fn push_trimmed(out: &mut Vec<String>, current: &mut String) {
    let s = current.trim();
    if !s.is_empty() {
        out.push(s.to_string());
    }
    current.clear();
}

/// Sentences from a model's reply: one per non-empty line, list markers
/// removed.
pub fn sentences_from_reply(reply: &str) -> Vec<String> {
    reply
        .lines()
        .map(|l| l.trim().trim_start_matches(['-', '*', '•']).trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_sentence_punctuation_and_line_breaks() {
        assert_eq!(
            sentences("Try our cold coffee!  Only £4.50 today.\nOpen until six?! Yes…"),
            [
                "Try our cold coffee!",
                "Only £4.50 today.",
                "Open until six?!",
                "Yes…"
            ]
        );
    }

    #[test]
    fn abbreviations_initials_and_times_do_not_end_a_sentence() {
        assert_eq!(
            sentences("Open 9 a.m. to 5 p.m. daily. Visit Mt. Yellow, e.g. by bus. J. Smith came."),
            [
                "Open 9 a.m. to 5 p.m. daily.",
                "Visit Mt. Yellow, e.g. by bus.",
                "J. Smith came."
            ]
        );
        assert_eq!(
            sentences("Made in the U.S. Fresh daily."),
            ["Made in the U.S. Fresh daily."]
        );
        assert_eq!(sentences("We bake. You eat."), ["We bake.", "You eat."]);
    }

    #[test]
    fn keeps_colons_and_commas_inside_a_sentence() {
        assert_eq!(
            sentences(" Save the date: the 12th, at noon "),
            ["Save the date: the 12th, at noon"]
        );
        assert!(sentences(" \n\n ").is_empty());
    }

    #[test]
    fn reply_lines_become_sentences() {
        assert_eq!(
            sentences_from_reply("- We sell coffee.\n\n* It is cold.\n"),
            ["We sell coffee.", "It is cold."]
        );
    }
}
