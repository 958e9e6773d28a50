//! The simplify stage: English text → short sentences.

use serde::{Deserialize, Serialize};
use std::ops::Range;

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

/// Where the simplified text (its sentences joined by line breaks) stands
/// in the post: each sentence is a slice of the post, in order, with only
/// white space between them. Lets the offline provider write into the post
/// as given, its line breaks and spacing kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceMap {
    /// Per sentence: its start in the joined text, its start in the post,
    /// its length.
    sentences: Vec<(usize, usize, usize)>,
}

impl SourceMap {
    /// The map of `sentences` (as joined with `\n`) into `post`, or `None`
    /// when they are not slices of it in order (a model's rewrite).
    pub(crate) fn new(post: &str, sentences: &[String]) -> Option<SourceMap> {
        let (mut joined, mut at) = (0, 0);
        let mut out = Vec::with_capacity(sentences.len());
        for s in sentences {
            let gap = post[at..].len() - post[at..].trim_start().len();
            at += gap;
            if !post[at..].starts_with(s.as_str()) {
                return None;
            }
            out.push((joined, at, s.len()));
            joined += s.len() + 1;
            at += s.len();
        }
        Some(SourceMap { sentences: out })
    }

    /// The post from its first sentence to the end of its last.
    pub(crate) fn span(&self) -> Range<usize> {
        match (self.sentences.first(), self.sentences.last()) {
            (Some(&(_, first, _)), Some(&(_, last, len))) => first..last + len,
            _ => 0..0,
        }
    }

    /// The place in the post of byte `at` of the joined text (a sentence's
    /// end maps to its end in the post, not to the next one's start).
    pub(crate) fn offset(&self, at: usize) -> usize {
        // Sentences stand in order, one byte apart in the joined text: the
        // first one not ending before `at` is the only one that can hold
        // it (a binary search: a long post has thousands of places).
        let k = self
            .sentences
            .partition_point(|&(joined, _, len)| joined + len < at);
        self.sentences
            .get(k)
            .filter(|&&(joined, _, _)| joined <= at)
            .map_or(at, |&(joined, post, _)| post + at - joined)
    }

    /// `range` of the joined text as a range of the post.
    pub(crate) fn range(&self, range: &Range<usize>) -> Range<usize> {
        self.offset(range.start)..self.offset(range.end)
    }
}

/// Sentences from a model's reply: one per non-empty line, list markers
/// removed.
pub(crate) fn sentences_from_reply(reply: &str) -> Vec<String> {
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
    fn the_joined_sentences_map_back_into_the_post() {
        let post = "  Cookies are back.\r\n\nFresh cookies!  Only £4.50.\n";
        let split = sentences(post);
        let joined = split.join("\n");
        let map = SourceMap::new(post, &split).unwrap();
        assert_eq!(&post[map.span()], post.trim());
        // Every word of the joined text is the same word in the post.
        for word in ["Cookies", "back.", "Fresh", "cookies!", "£4.50."] {
            let at = joined.find(word).unwrap();
            let range = map.range(&(at..at + word.len()));
            assert_eq!(&post[range], word);
        }
        // A sentence's end is its own end, not the next one's start.
        assert_eq!(map.offset("Cookies are back.".len()), 2 + 17);
        // A model's rewrite is not a slice of the post.
        let rewritten = ["Cookies are back".to_string()];
        assert!(SourceMap::new("We sell cookies.", &rewritten).is_none());
        assert!(SourceMap::new("b. a.", &["a.".into(), "b.".into()]).is_none());
    }

    #[test]
    fn reply_lines_become_sentences() {
        assert_eq!(
            sentences_from_reply("- We sell coffee.\n\n* It is cold.\n"),
            ["We sell coffee.", "It is cold."]
        );
    }

    proptest::proptest! {
        #[test]
        fn offsets_are_those_of_the_sentence_holding_them(
            parts in proptest::collection::vec(("[a-z.]{0,6}", "[ \n]{0,3}"), 0..12)
        ) {
            let post: String = parts.iter().map(|(s, gap)| format!("{s}{gap}")).collect();
            let sentences: Vec<String> = parts.iter().map(|(s, _)| s.clone()).collect();
            let map = SourceMap::new(&post, &sentences).unwrap();
            let joined = sentences.join("\n").len();
            for at in 0..=joined + 1 {
                let want = map
                    .sentences
                    .iter()
                    .find(|&&(j, _, len)| (j..=j + len).contains(&at))
                    .map_or(at, |&(j, p, _)| p + at - j);
                proptest::prop_assert_eq!(map.offset(at), want);
            }
        }
    }
}
