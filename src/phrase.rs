//! Words, phrases and phrase keys: the rules of docs/formats.md ("Phrases"), nothing else.
//!
//! 1. lower-case with `str::to_lowercase`;
//! 2. a word is a maximal run of alphanumeric characters, an apostrophe
//!    (`'` or `’`) between two letters stays inside it and is written `'`;
//! 3. a phrase is 1–4 consecutive words that do not cross a line break or
//!    one of `. , ; : ! ? ( ) [ ] " “ ” …`;
//! 4. a phrase's key is its words joined by one space;
//! 5. single words that are stop words, shorter than 3 characters or all
//!    digits are not looked up;
//! 6. glossary sources and aliases are keyed by rules 1–4.

use compact_str::CompactString;
use rustc_hash::FxHashSet;
use serde::Serialize;
use std::sync::OnceLock;

/// Longest phrase the approximate tiers (fuzzy, edit, split) enumerate, in
/// words: the study's 1–4.
pub const MAX_PHRASE_WORDS: usize = 4;

/// Longest glossary key, in words, that `exact` and `normalised` match
/// (docs/formats.md "v2: real glossaries": phrase length follows the glossary, within a documented
/// bound); `glossa lint` names longer keys.
pub(crate) const MAX_KEY_WORDS: usize = 32;

/// The Snowball English stop-word list, shipped with the crate.
const STOPWORDS_FILE: &str = include_str!("../data/stopwords-en.txt");

/// One word of a text, with where it stands in the original text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    /// The lower-cased word, apostrophes written `'`; held inline up to 24
    /// bytes (no allocation per word of a post).
    pub text: CompactString,
    /// Byte range in the original (not lower-cased) text.
    pub start: usize,
    pub end: usize,
    /// Index of the boundary-free segment the word belongs to; phrases
    /// never span two segments.
    pub segment: usize,
}

/// A run of 1–4 consecutive words inside one segment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Phrase {
    /// The words joined by one space.
    pub key: String,
    /// Index of the first word in the text's word list.
    pub(crate) first_word: usize,
    /// Number of words (1–4).
    pub len: usize,
    /// Byte range in the original text, from the first word's start to the
    /// last word's end.
    pub start: usize,
    pub end: usize,
    /// False for single words that rule 5 keeps out of look-ups.
    pub(crate) lookup: bool,
}

impl Phrase {
    /// Whether `self` lies inside `other` (word positions), and is shorter.
    pub fn inside(&self, other: &Phrase) -> bool {
        self.len < other.len
            && self.first_word >= other.first_word
            && self.first_word + self.len <= other.first_word + other.len
    }
}

const fn is_boundary(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '"'
            | '“'
            | '”'
            | '…'
            | '\n'
            | '\r'
            | '\u{0B}'
            | '\u{0C}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// A decimal point or comma: between two digits ("0.2", "0,055") it does
/// not end a phrase (docs/formats.md "v2: real glossaries").
const fn is_decimal_mark(c: char) -> bool {
    c == '.' || c == ','
}

/// The micro sign (U+00B5) is the Greek letter mu (U+03BC) wherever words
/// are compared: "µg" and "μg" look the same and medical texts write both
/// (Unicode's case folding and compatibility mapping equate them; plain
/// lower-casing does not).
pub(crate) fn same_letter(c: char) -> char {
    if c == '\u{b5}' {
        '\u{3bc}'
    } else {
        c
    }
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '’'
}

/// Split `text` into words (rules 1–3). Boundaries are recorded as segment
/// changes so that [`phrases`] can respect them.
pub fn words(text: &str) -> Vec<Word> {
    if text.is_ascii() {
        ascii_words(text)
    } else {
        unicode_words(text)
    }
}

fn unicode_words(text: &str) -> Vec<Word> {
    let lower = text.to_lowercase();
    // Map every char of `lower` back to the byte offset of the original char
    // it came from: `to_lowercase` maps each char to one or more chars, in
    // order, so walking both strings side by side recovers the alignment.
    let mut origin: Vec<(usize, usize)> = Vec::with_capacity(lower.len());
    for (offset, c) in text.char_indices() {
        let end = offset + c.len_utf8();
        for _ in c.to_lowercase() {
            origin.push((offset, end));
        }
    }
    let chars: Vec<char> = lower.chars().collect();
    debug_assert_eq!(chars.len(), origin.len());

    let mut out = Vec::new();
    let mut segment = 0;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() {
            let start = i;
            let mut word = CompactString::default();
            while i < chars.len() {
                let c = chars[i];
                if c.is_alphanumeric() {
                    word.push(same_letter(c));
                    i += 1;
                } else if is_apostrophe(c)
                    && i > start
                    && chars[i - 1].is_alphabetic()
                    && chars.get(i + 1).is_some_and(|n| n.is_alphabetic())
                {
                    word.push('\'');
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Word {
                text: word,
                start: origin[start].0,
                end: origin[i - 1].1,
                segment,
            });
        } else {
            let joins_digits = is_decimal_mark(c)
                && i > 0
                && chars[i - 1].is_numeric()
                && chars.get(i + 1).is_some_and(|n| n.is_numeric());
            if is_boundary(c) && !joins_digits {
                segment += 1;
            }
            i += 1;
        }
    }
    out
}

/// The words of a key (its words joined by single spaces), as slices of
/// it. `str::split(' ')` sets up a searcher per call, which costs more than
/// the search itself on short keys, and every index splits every key.
pub(crate) fn key_words(key: &str) -> impl Iterator<Item = &str> {
    // A space is one byte, so every piece starts and ends on a char boundary.
    key.as_bytes().split(|&b| b == b' ').map(move |piece| {
        let start = piece.as_ptr() as usize - key.as_ptr() as usize;
        &key[start..start + piece.len()]
    })
}

/// The words of a text of ASCII letters, digits and spaces only (most
/// glossary terms), as written: the runs between spaces, all in one
/// segment. `None` for any other text.
pub(crate) fn plain_words(text: &str) -> Option<impl Iterator<Item = &str>> {
    text.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b' ')
        .then(|| key_words(text).filter(|w| !w.is_empty()))
}

/// What [`ascii_words`] makes of a byte: one table look-up per byte.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ascii {
    /// A letter or digit.
    Word,
    /// Punctuation that ends a phrase (but maybe a decimal mark).
    Boundary,
    Other,
}

const ASCII: [Ascii; 128] = {
    let mut table = [Ascii::Other; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = if (byte as u8).is_ascii_alphanumeric() {
            Ascii::Word
        } else if is_boundary(byte as u8 as char) {
            Ascii::Boundary
        } else {
            Ascii::Other
        };
        byte += 1;
    }
    table
};

/// [`words`] for ASCII text, where lower-casing keeps every byte in place
/// and each character is one byte: the same rules, without the offset map.
fn ascii_words(text: &str) -> Vec<Word> {
    let bytes = text.as_bytes();
    let class = |i: usize| {
        bytes
            .get(i)
            .map_or(Ascii::Other, |&b| ASCII[usize::from(b & 0x7f)])
    };
    let mut out = Vec::with_capacity(text.len() / 5);
    let mut segment = 0;
    let mut i = 0;
    while i < bytes.len() {
        match class(i) {
            Ascii::Word => {
                let start = i;
                loop {
                    while class(i) == Ascii::Word {
                        i += 1;
                    }
                    // An apostrophe between letters stays in the word.
                    let apostrophe = bytes.get(i) == Some(&b'\'')
                        && bytes[i - 1].is_ascii_alphabetic()
                        && bytes.get(i + 1).is_some_and(u8::is_ascii_alphabetic);
                    if !apostrophe {
                        break;
                    }
                    i += 1;
                }
                // One copy of the run, lower-cased in place: ASCII throughout.
                let mut word = CompactString::from(&text[start..i]);
                word.make_ascii_lowercase();
                out.push(Word {
                    text: word,
                    start,
                    end: i,
                    segment,
                });
            }
            Ascii::Boundary => {
                let joins_digits = is_decimal_mark(char::from(bytes[i]))
                    && i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                if !joins_digits {
                    segment += 1;
                }
                i += 1;
            }
            Ascii::Other => i += 1,
        }
    }
    out
}

/// What stands between a token and the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gap {
    /// Nothing: the two touch.
    None,
    /// A run of spaces or tabs (any run equals any other).
    Space,
    /// Whitespace holding a line break; no key spans one.
    Break,
}

/// A word or a single other visible character of a text, for matching
/// glossary terms written with punctuation ("systemic sclerosis (SSc)",
/// "Mt. Yellow's") exactly as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The word as in [`words`], or the character lower-cased, `’` as `'`.
    pub text: String,
    /// Index in the word list, for word tokens.
    pub word: Option<usize>,
    pub(crate) gap: Gap,
    /// Byte range in the original text.
    pub(crate) start: usize,
    pub(crate) end: usize,
}

fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// `text` as words (exactly [`words`]) and the visible characters between
/// them, each with the whitespace before it.
pub fn tokens(text: &str, words: &[Word]) -> Vec<Token> {
    let mut out = Vec::with_capacity(words.len() * 2);
    let mut gap = Gap::None;
    let symbols = |from: usize, to: usize, gap: &mut Gap, out: &mut Vec<Token>| {
        for (offset, c) in text[from..to].char_indices() {
            if c.is_whitespace() {
                if is_line_break(c) {
                    *gap = Gap::Break;
                } else if *gap == Gap::None {
                    *gap = Gap::Space;
                }
                continue;
            }
            let start = from + offset;
            let text = if is_apostrophe(c) {
                "'".to_string()
            } else {
                c.to_lowercase().collect()
            };
            out.push(Token {
                text,
                word: None,
                gap: std::mem::replace(gap, Gap::None),
                start,
                end: start + c.len_utf8(),
            });
        }
    };
    let all = parts(text, words);
    let mut at = 0;
    for part in &all {
        // Between two parts of one word: its apostrophe, as a symbol.
        symbols(at, part.start, &mut gap, &mut out);
        out.push(Token {
            text: part.text(words).to_string(),
            word: Some(part.word),
            gap: std::mem::replace(&mut gap, Gap::None),
            start: part.start,
            end: part.end,
        });
        at = part.end;
    }
    symbols(at, text.len(), &mut gap, &mut out);
    out
}

/// A word, or the piece of a word between its apostrophes: "year's" is
/// `year` and `s`. An apostrophe is not a letter, so a glossary term
/// "year" is written in "a whole year's work" (docs/formats.md "v2: real glossaries"); `exact` looks
/// terms up over parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// Index of the word in the word list.
    pub(crate) word: usize,
    /// Byte range in the word's lower-cased text.
    pub(crate) in_word: (usize, usize),
    /// Byte range in the original text.
    pub(crate) start: usize,
    pub(crate) end: usize,
}

impl Part {
    pub(crate) fn text<'w>(&self, words: &'w [Word]) -> &'w str {
        &words[self.word].text[self.in_word.0..self.in_word.1]
    }
}

/// The parts of every word of `text`, in order.
pub(crate) fn parts(text: &str, words: &[Word]) -> Vec<Part> {
    let mut out = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        if !w.text.contains('\'') {
            out.push(Part {
                word: i,
                in_word: (0, w.text.len()),
                start: w.start,
                end: w.end,
            });
            continue;
        }
        // Both sides split at the same apostrophes (each lies between two
        // letters, so no piece is empty); the original may write `’`.
        let original = &text[w.start..w.end];
        let mut lower_at = 0;
        let mut original_at = w.start;
        let lower_pieces = w.text.split('\'');
        let original_pieces = original.split(is_apostrophe);
        for (lower, orig) in lower_pieces.zip(original_pieces) {
            out.push(Part {
                word: i,
                in_word: (lower_at, lower_at + lower.len()),
                start: original_at,
                end: original_at + orig.len(),
            });
            lower_at += lower.len() + 1;
            original_at += orig.len();
            // Step over the apostrophe that followed this piece.
            original_at += text[original_at..].chars().next().map_or(0, char::len_utf8);
        }
    }
    out
}

/// Whether a glossary term is written in capitals: two or more cased
/// letters, none lower-case ("IT", "MRI", "LINDAT/CLARIAH-CZ"). Such a key
/// matches only where the post writes it in capitals too (docs/formats.md "v2: real glossaries"), so
/// the pronoun "it" never retrieves "IT".
pub(crate) fn is_capitals(text: &str) -> bool {
    let mut upper = 0;
    for c in text.chars() {
        if c.is_lowercase() {
            return false;
        }
        if c.is_uppercase() {
            upper += 1;
        }
    }
    upper >= 2
}

/// Whether a post word is written as a name or an acronym, with a capital
/// after its first letter ("ISBN", "SunSoft", "iPhone"), or is a model
/// name of letters and digits ("i486"): such words are
/// not misspellings of glossary words, they are mostly missing from word
/// lists, and one letter off is another name ("ISBN" is not "ISDN"). A word
/// all in capitals counts only up to [`ACRONYM_CHARS`] characters and not
/// in a post written in capitals (`shouting`): longer, it is more likely a
/// word stressed ("fresh CROISANTS") than an acronym.
pub(crate) fn is_name_or_acronym(word: &str, shouting: bool) -> bool {
    if is_model_name(word) {
        return true;
    }
    if !has_inner_capital(word) {
        return false;
    }
    let mixed = word.chars().any(char::is_lowercase);
    mixed || !shouting && word.chars().nth(ACRONYM_CHARS).is_none()
}

/// A capital after the first character ("ISBN", "SunSoft").
fn has_inner_capital(word: &str) -> bool {
    word.chars().skip(1).any(char::is_uppercase)
}

/// Letters and digits in one word ("i486", "arm700", "mp3"): a model, a
/// version or a code, never a misspelling of a word.
fn is_model_name(word: &str) -> bool {
    word.chars().any(char::is_numeric) && word.chars().any(char::is_alphabetic)
}

/// The longest word in capitals read as an acronym ("EDVAC", "ISBN").
const ACRONYM_CHARS: usize = 5;

/// Whether a glossary term has a word written as a name, an acronym or a
/// model ("ISDN", "ARM7500", "CoIP", "Mac OS", "i486"; whatever its
/// length): the typo tiers never respell it.
pub(crate) fn has_name_or_acronym(term: &str) -> bool {
    // Most terms are ASCII with no capital and no digit: no word in them
    // can be either (checked for every key of every typo tier's index).
    if term
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase() && !b.is_ascii_digit())
    {
        return false;
    }
    term.split(|c: char| !c.is_alphanumeric())
        .any(|word| has_inner_capital(word) || is_model_name(word))
}

/// Whether most of a post's words of two or more characters are written
/// in capitals ("FRESH FOCACIA TODAY"): its capitals say nothing of names.
pub(crate) fn is_shouting(text: &str, words: &[Word]) -> bool {
    let (mut long, mut capitals) = (0usize, 0usize);
    for w in words {
        let written = &text[w.start..w.end];
        if written.chars().nth(1).is_some() {
            long += 1;
            capitals += usize::from(!written.chars().any(char::is_lowercase));
        }
    }
    2 * capitals > long
}

/// Marks as spelled right the words that the post writes as names:
/// capitalised ("Knightley", "Hartfield") inside a sentence, at any one of
/// their places, in a post not written in title case. Such a word missing
/// from the word list is a person or a place, not a misspelling: on Jane
/// Austen's novels the names of the five books whose people no glossary
/// held were most of the default's unsupported entries ("Knightley" read
/// as `knightly`, "Dashwood" as `basswood`; `bash bench/real.sh`). The
/// first word of a sentence tells nothing, and in a post in title case
/// neither does a capital: there more words of two or more letters inside
/// sentences are capitalised than not ("Fresh Croisants Today", "Try our
/// new Sourdogh Loaf"), where running text has few ("read Miss Crawford's
/// note").
pub(crate) fn mark_names(text: &str, words: &[Word], spelled_right: &mut [bool]) {
    let capitalised = |w: &Word| {
        let mut chars = text[w.start..w.end].chars();
        chars.next().is_some_and(char::is_uppercase)
            && chars.clone().next().is_some()
            && !chars.any(char::is_uppercase)
    };
    // Most posts have no capitalised unknown word after their first.
    let unknown_capitalised = |(w, right): (&Word, &bool)| !right && capitalised(w);
    if !words
        .iter()
        .zip(&*spelled_right)
        .skip(1)
        .any(unknown_capitalised)
    {
        return;
    }
    let (mut lower, mut title) = (0usize, 0usize);
    let mut named: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if i == 0 || starts_sentence(text, &words[i - 1], w) {
            continue;
        }
        let capital = capitalised(w);
        if capital && !spelled_right[i] {
            named.push(&w.text);
        }
        if w.text.chars().nth(1).is_some() {
            if capital {
                title += 1;
            } else {
                lower += usize::from(written_in_lower_case(&text[w.start..w.end]));
            }
        }
    }
    if named.is_empty() || title > lower {
        return;
    }
    for (right, w) in spelled_right.iter_mut().zip(words) {
        *right |= named.contains(&w.text.as_str());
    }
}

fn written_in_lower_case(word: &str) -> bool {
    !word.chars().any(char::is_uppercase)
}

/// Whether `word` begins a sentence, seen from the characters between it
/// and the word `before`: only spaces and the marks inside a sentence
/// (commas, dashes, brackets, "&") continue one; a full stop after a short
/// capitalised word is an abbreviation ("Mr. Darcy", "St. James").
fn starts_sentence(text: &str, before: &Word, word: &Word) -> bool {
    let gap = &text[before.end..word.start];
    let continues = |c: char| {
        c.is_whitespace() && !is_line_break(c)
            || matches!(
                c,
                ',' | ';' | '-' | '\u{2013}' | '\u{2014}' | '/' | '&' | '(' | ')' | '[' | ']'
            )
    };
    if gap.chars().all(continues) {
        return false;
    }
    let written = &text[before.start..before.end];
    let abbreviation = gap.starts_with('.')
        && gap[1..].chars().all(continues)
        && written.chars().count() <= 3
        && written.chars().next().is_some_and(char::is_uppercase);
    !abbreviation
}

/// Whether a span of a post is written without lower-case letters.
pub(crate) fn written_in_capitals(span: &str) -> bool {
    !span.chars().any(char::is_lowercase)
}

fn stopwords() -> &'static FxHashSet<&'static str> {
    // FxHash: asked for every word of every post and glossary key.
    static SET: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| {
        STOPWORDS_FILE
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Whether `word` is in the shipped stop-word list.
pub(crate) fn is_stopword(word: &str) -> bool {
    stopwords().contains(word)
}

/// Rule 5: whether a single word is looked up on its own.
pub(crate) fn is_lookup_word(word: &str) -> bool {
    skip_reason(word).is_none()
}

/// Why rule 5 keeps a single word out of look-ups, if it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skip {
    StopWord,
    AllDigits,
    Short,
}

/// The first of rule 5's reasons that applies to `word`.
pub(crate) fn skip_reason(word: &str) -> Option<Skip> {
    if is_stopword(word) {
        Some(Skip::StopWord)
    } else if word.chars().all(char::is_numeric) {
        Some(Skip::AllDigits)
    } else if word.chars().count() < 3 {
        Some(Skip::Short)
    } else {
        None
    }
}

/// Where a phrase stands, without its key: what matchers that look words
/// up one by one need (they make a key only for what they match).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// Index of the first word in the text's word list.
    pub(crate) first_word: usize,
    /// Number of words (1–4).
    pub(crate) len: usize,
    /// False for single words that rule 5 keeps out of look-ups.
    pub(crate) lookup: bool,
}

/// Every phrase of `words` as a [`Span`], ordered by start position, then
/// by length (rules 1–5; the order and the rules of [`phrases_of`]).
pub(crate) fn spans_of(words: &[Word]) -> Vec<Span> {
    let mut out = Vec::with_capacity(words.len() * MAX_PHRASE_WORDS);
    for first in 0..words.len() {
        for len in 1..=MAX_PHRASE_WORDS {
            let last = first + len - 1;
            if last >= words.len() || words[last].segment != words[first].segment {
                break;
            }
            out.push(Span {
                first_word: first,
                len,
                lookup: len > 1 || is_lookup_word(&words[first].text),
            });
        }
    }
    out
}

/// Every phrase of `words`, ordered by start position, then by length.
pub fn phrases_of(words: &[Word]) -> Vec<Phrase> {
    spans_of(words)
        .into_iter()
        .map(|span| {
            let words = &words[span.first_word..span.first_word + span.len];
            let mut key = String::with_capacity(words.iter().map(|w| w.text.len() + 1).sum());
            for (i, w) in words.iter().enumerate() {
                if i > 0 {
                    key.push(' ');
                }
                key.push_str(&w.text);
            }
            Phrase {
                key,
                first_word: span.first_word,
                len: span.len,
                start: words[0].start,
                end: words[span.len - 1].end,
                lookup: span.lookup,
            }
        })
        .collect()
}

/// Every phrase of `text` (rules 1–5).
pub fn phrases(text: &str) -> Vec<Phrase> {
    phrases_of(&words(text))
}

/// `text` in Unicode NFC, borrowed when it already is (most text): "cafe"
/// with U+0301 and "café" are one word to every matcher. Posts are composed
/// where they enter glossa (so offsets into them stay consistent from then
/// on), glossary keys when they are built.
pub(crate) fn nfc(text: &str) -> std::borrow::Cow<'_, str> {
    icu_normalizer::ComposingNormalizerBorrowed::new_nfc().normalize(text)
}

/// Serde: a string read in NFC (see [`nfc`]).
pub(crate) fn deserialize_nfc<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let text = <String as serde::Deserialize>::deserialize(d)?;
    Ok(match nfc(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(composed) => composed,
    })
}

/// The key of a glossary source or alias (rule 6): all its words joined by
/// one space, whatever separated them.
pub fn key(text: &str) -> String {
    match plain_words(text) {
        // Most glossary terms: no string per word.
        Some(words) => {
            let mut key = join_words(words, text.len());
            key.make_ascii_lowercase();
            key
        }
        None => join_words(words(text).iter().map(|w| w.text.as_str()), text.len()),
    }
}

/// `words` joined by one space.
fn join_words<'w>(words: impl Iterator<Item = &'w str>, capacity: usize) -> String {
    let mut joined = String::with_capacity(capacity);
    for (i, w) in words.enumerate() {
        if i > 0 {
            joined.push(' ');
        }
        joined.push_str(w);
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_acronyms_have_a_capital_after_the_first_letter() {
        for (word, name) in [
            ("ISBN", true),
            ("SunSoft", true),
            ("iPhone", true),
            ("IBM's", true),
            ("Focacia", false),
            ("focacia", false),
            ("I", false),
            ("i486", true),
            ("passw0rd", true),
            ("1984", false),
        ] {
            assert_eq!(is_name_or_acronym(word, false), name, "{word}");
        }
        // A long word in capitals is stressed, not an acronym.
        assert!(!is_name_or_acronym("CROISANTS", false));
        assert!(is_name_or_acronym("EDVAC", false));
        // Shouting: capitals say nothing, mixed case still does.
        assert!(!is_name_or_acronym("ISBN", true));
        assert!(is_name_or_acronym("SunSoft", true));
        assert!(has_name_or_acronym("ARM7500 chip"));
        assert!(has_name_or_acronym("Mac OS"));
        assert!(!has_name_or_acronym("Sourdough loaf"));
        let text = "FRESH FOCACIA today";
        assert!(is_shouting(text, &words(text)));
        let text = "Fresh focacia, ISBN 12";
        assert!(!is_shouting(text, &words(text)));
    }

    /// Capitalised inside a sentence and unknown: a name, wherever else
    /// the post writes it; not at a sentence's start, not after a full
    /// stop (but after "Mr."), not in a post in title case.
    #[test]
    fn unknown_capitalised_words_inside_sentences_are_names() {
        let names = |text: &str, unknown: &[&str]| -> Vec<String> {
            let words = words(text);
            let is_unknown = |w: &Word| unknown.contains(&w.text.as_str());
            let mut right: Vec<bool> = words.iter().map(|w| !is_unknown(w)).collect();
            mark_names(text, &words, &mut right);
            let named = words.iter().zip(right).filter(|(w, r)| *r && is_unknown(w));
            named.map(|(w, _)| w.text.to_string()).collect()
        };
        let austen =
            "Knightley came. She had read Miss Crawford's note, and Mr. Knightley was at Hartfield";
        assert_eq!(
            names(austen, &["knightley", "hartfield", "crawford's"]),
            ["knightley", "crawford's", "knightley", "hartfield"]
        );
        // Sentence starts: the post's, after a full stop, a line break, a quote.
        for text in [
            "Knightley came",
            "We met. Knightley came",
            "We met\nKnightley came",
            "she said \"Knightley came",
        ] {
            assert!(names(text, &["knightley"]).is_empty(), "{text:?}");
        }
        // Known words and lower-case unknown words are not names.
        assert!(names("fresh croisants and Sourdough today", &["croisants"]).is_empty());
        // Title case: most words inside the sentence capitalised.
        assert!(names("Try our new Sourdogh Loaf Today", &["sourdogh"]).is_empty());
        assert!(names("Fresh Croisants Today!", &["croisants"]).is_empty());
        assert_eq!(
            names("our new Sourdogh loaf is out of the oven", &["sourdogh"]),
            ["sourdogh"]
        );
    }

    proptest::proptest! {
        /// The ASCII shortcut splits exactly as the general rules do.
        #[test]
        fn ascii_words_follow_the_general_rules(text in "[a-zA-Z0-9' .,;:!?()\\[\\]\"\n\r\t\x0b\x0c_-]{0,40}") {
            proptest::prop_assert_eq!(ascii_words(&text), unicode_words(&text));
        }
    }

    proptest::proptest! {
        /// Plain text's words and key are the general rules' (one segment).
        #[test]
        fn plain_words_follow_the_general_rules(text in "[a-zA-Z0-9 .'-]{0,30}") {
            let general = words(&text);
            match plain_words(&text) {
                Some(plain) => {
                    let plain: Vec<String> = plain.map(str::to_ascii_lowercase).collect();
                    proptest::prop_assert_eq!(&plain, &general.iter().map(|w| w.text.clone()).collect::<Vec<_>>());
                    proptest::prop_assert!(general.iter().all(|w| w.segment == 0));
                }
                None => proptest::prop_assert!(text.bytes().any(|b| !b.is_ascii_alphanumeric() && b != b' ')),
            }
            let joined: Vec<String> = general.into_iter().map(|w| w.text.into()).collect();
            proptest::prop_assert_eq!(key(&text), joined.join(" "));
        }
    }

    proptest::proptest! {
        /// `key_words` is `split(' ')`, whatever the text.
        #[test]
        fn key_words_split_on_spaces(text in "[a-zé' ]{0,20}") {
            proptest::prop_assert_eq!(key_words(&text).collect::<Vec<_>>(), text.split(' ').collect::<Vec<_>>());
            proptest::prop_assert_eq!(crate::glossary::word_count(&text), if text.is_empty() { 0 } else { text.split(' ').count() });
        }
    }

    fn keys(text: &str) -> Vec<String> {
        phrases(text).into_iter().map(|p| p.key).collect()
    }

    fn word_texts(text: &str) -> Vec<String> {
        words(text).into_iter().map(|w| w.text.into()).collect()
    }

    #[test]
    fn lower_cases_with_unicode_mapping() {
        assert_eq!(word_texts("CAFÉ Straße ÖL"), ["café", "straße", "öl"]);
        // Final sigma is mapped as str::to_lowercase does.
        assert_eq!(word_texts("ΟΔΟΣ"), ["οδος"]);
    }

    #[test]
    fn apostrophes_between_letters_stay_in_the_word() {
        assert_eq!(word_texts("Don’t stop"), ["don't", "stop"]);
        assert_eq!(word_texts("don't"), ["don't"]);
        assert_eq!(word_texts("'quoted' words'"), ["quoted", "words"]);
        assert_eq!(word_texts("90's"), ["90", "s"]);
        assert_eq!(word_texts("rock'n'roll"), ["rock'n'roll"]);
        assert_eq!(word_texts("it''s"), ["it", "s"]);
    }

    #[test]
    fn hyphen_slash_and_spaces_separate_words_but_not_phrases() {
        assert_eq!(
            keys("week-ends/daily  deal"),
            [
                "week",
                "week ends",
                "week ends daily",
                "week ends daily deal",
                "ends",
                "ends daily",
                "ends daily deal",
                "daily",
                "daily deal",
                "deal"
            ]
        );
    }

    #[test]
    fn every_boundary_character_stops_a_phrase() {
        for b in [
            ".", ",", ";", ":", "!", "?", "(", ")", "[", "]", "\"", "“", "”", "…", "\n", "\r\n",
        ] {
            let text = format!("hot{b}tea");
            assert_eq!(keys(&text), ["hot", "tea"], "boundary {b:?}");
        }
    }

    #[test]
    fn other_symbols_only_separate_words() {
        for s in ["&", "+", "*", "#", "@", "'", "’", "-", "/", "😀", "\t"] {
            let text = format!("hot {s} tea");
            assert_eq!(keys(&text), ["hot", "hot tea", "tea"], "symbol {s:?}");
        }
    }

    #[test]
    fn phrases_are_ordered_by_start_then_length_and_capped_at_four() {
        let k = keys("a b c d e");
        assert_eq!(k.len(), 4 + 4 + 3 + 2 + 1);
        assert_eq!(&k[..5], ["a", "a b", "a b c", "a b c d", "b"]);
        assert!(!k.contains(&"a b c d e".to_string()));
    }

    #[test]
    fn single_words_skipped_by_rule_five() {
        let p = phrases("Free home delivry on week-ends at 12 to 4!");
        let skipped: Vec<&str> = p
            .iter()
            .filter(|p| !p.lookup)
            .map(|p| p.key.as_str())
            .collect();
        assert_eq!(skipped, ["on", "at", "12", "to", "4"]);
        assert!(p.iter().filter(|p| p.len > 1).all(|p| p.lookup));
    }

    #[test]
    fn short_words_counted_in_characters_not_bytes() {
        assert!(is_lookup_word("çay"));
        assert!(!is_lookup_word("çy"));
        assert!(!is_lookup_word("2026"));
        assert!(is_lookup_word("4th"));
    }

    #[test]
    fn spans_point_into_the_original_text() {
        let text = "Try ÉCLAIRS, now";
        let p = phrases(text);
        let eclairs = p.iter().find(|p| p.key == "éclairs").unwrap();
        assert_eq!(&text[eclairs.start..eclairs.end], "ÉCLAIRS");
        let try_eclairs = p.iter().find(|p| p.key == "try éclairs").unwrap();
        assert_eq!(&text[try_eclairs.start..try_eclairs.end], "Try ÉCLAIRS");
    }

    #[test]
    fn emoji_and_repeated_spaces() {
        assert_eq!(keys("cold   ☕coffee🎉"), ["cold", "cold coffee", "coffee"]);
    }

    #[test]
    fn keys_of_sources_join_words_whatever_separates_them() {
        assert_eq!(key("Cold-Coffee"), "cold coffee");
        assert_eq!(key("  Don’t  Panic "), "don't panic");
        assert_eq!(key("..."), "");
    }

    #[test]
    fn tokens_split_words_at_apostrophes_and_keep_the_apostrophe() {
        let text = "Don’t (SSc) Yellow's";
        let words = words(text);
        let tokens: Vec<(String, Option<usize>, Gap)> = tokens(text, &words)
            .into_iter()
            .map(|t| (t.text, t.word, t.gap))
            .collect();
        let t = |s: &str, w: Option<usize>, g: Gap| (s.to_string(), w, g);
        assert_eq!(
            tokens,
            [
                t("don", Some(0), Gap::None),
                t("'", None, Gap::None),
                t("t", Some(0), Gap::None),
                t("(", None, Gap::Space),
                t("ssc", Some(1), Gap::None),
                t(")", None, Gap::None),
                t("yellow", Some(2), Gap::Space),
                t("'", None, Gap::None),
                t("s", Some(2), Gap::None),
            ]
        );
    }

    #[test]
    fn stop_word_list_is_loaded() {
        assert!(is_stopword("the"));
        assert!(is_stopword("don't"));
        assert!(!is_stopword("coffee"));
    }
}
