//! The Snowball English (Porter2) stemmer for words of ASCII bytes, with
//! rust-stemmers' rules exactly: the `english.sbl` that rust-stemmers 1.2
//! compiles (exceptions `arsen`/`commun`/`gener`, `ogi` → `og`, no
//! `ogist`). Other words go to rust-stemmers itself.
//!
//! Why a second implementation: stemming was the largest single cost of
//! building the indexes (every glossary word, every joined multi-word key)
//! and a seventh of scoring a post. rust-stemmers runs Snowball's generic
//! machinery (a binary search over each suffix table, character-boundary
//! checks on every step, a `String` rebuilt on each replacement), about
//! 4,000 instructions a word; these rules on a byte buffer take about 700
//! (callgrind, at start-up of the 100k-entry benchmark). `tests` check
//! every word of the shipped English list, the Snowball exceptions and
//! random words against rust-stemmers, and (run by hand, see the README)
//! any word lists named in `GLOSSA_STEM_CHECK`.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::LazyLock;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// The Snowball English stem of one word (rust-stemmers stems its whole
/// input as one word).
pub(crate) fn stem(word: &str) -> String {
    let bytes = word.as_bytes();
    // Upper-case letters are left to rust-stemmers: the algorithm marks
    // consonant `y`s as `Y` and would confuse them with the input's.
    if bytes
        .iter()
        .all(|&b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        let mut out = Vec::with_capacity(bytes.len() + 1);
        stem_ascii(bytes, &mut out);
        // ASCII in, ASCII out.
        String::from_utf8(out).expect("ASCII stem")
    } else {
        STEMMER.stem(word).into_owned()
    }
}

/// The stem as rust-stemmers makes it, for tests and for comparison.
#[cfg(test)]
pub(crate) fn reference(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

/// `a e i o u y` (Snowball's `v`; the marker `Y` is a consonant).
fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u' | b'y')
}

/// `v` with `w x Y` (`v_WXY`).
fn is_vowel_wxy(b: u8) -> bool {
    is_vowel(b) || matches!(b, b'w' | b'x' | b'Y')
}

/// Letters that may come before a deleted `li` (`valid_LI`).
fn is_valid_li(b: u8) -> bool {
    matches!(
        b,
        b'c' | b'd' | b'e' | b'g' | b'h' | b'k' | b'm' | b'n' | b'r' | b't'
    )
}

/// Whole words with a fixed stem (Snowball's `exception1`); `None` means
/// the word is its own stem.
const EXCEPTIONS: &[(&str, Option<&str>)] = &[
    ("andes", None),
    ("atlas", None),
    ("bias", None),
    ("cosmos", None),
    ("dying", Some("die")),
    ("early", Some("earli")),
    ("gently", Some("gentl")),
    ("howe", None),
    ("idly", Some("idl")),
    ("lying", Some("lie")),
    ("news", None),
    ("only", Some("onli")),
    ("singly", Some("singl")),
    ("skies", Some("sky")),
    ("skis", Some("ski")),
    ("sky", None),
    ("tying", Some("tie")),
    ("ugly", Some("ugli")),
];

/// Words left as they are after step 1a (`exception2`).
const INVARIANT_AFTER_1A: &[&[u8]] = &[
    b"succeed", b"proceed", b"exceed", b"canning", b"inning", b"earring", b"herring", b"outing",
];

/// A word being stemmed, with its regions (byte offsets, fixed once
/// marked, as in Snowball).
struct Word<'a> {
    w: &'a mut Vec<u8>,
    p1: usize,
    p2: usize,
}

impl Word<'_> {
    fn ends_with(&self, suffix: &[u8]) -> bool {
        self.w.ends_with(suffix)
    }

    /// Where a suffix of `len` bytes starts.
    fn start_of(&self, len: usize) -> usize {
        self.w.len() - len
    }

    /// Replaces the last `len` bytes with `by`.
    fn replace(&mut self, len: usize, by: &[u8]) {
        let at = self.start_of(len);
        self.w.truncate(at);
        self.w.extend_from_slice(by);
    }

    /// The longest of `suffixes` the word ends with (Snowball's
    /// `among`).
    fn longest<T: Copy>(&self, suffixes: &Suffixes<T>) -> Option<(usize, T)> {
        let last = *self.w.last()?;
        if suffixes.last_letters & letter_bit(last) == 0 {
            return None;
        }
        suffixes
            .rules
            .iter()
            .find(|(s, _)| self.ends_with(s))
            .map(|&(s, t)| (s.len(), t))
    }

    /// Snowball's `shortv` with the cursor at `at`: the bytes before it
    /// end in a short syllable.
    fn short_syllable_before(&self, at: usize) -> bool {
        let w = &self.w[..at];
        match at {
            0 | 1 => false,
            2 => !is_vowel(w[1]) && is_vowel(w[0]),
            _ => !is_vowel_wxy(w[at - 1]) && is_vowel(w[at - 2]) && !is_vowel(w[at - 3]),
        }
    }
}

/// A step's suffixes, listed longest first, with the letters they end in:
/// most words end in none of them and skip the step at one test.
struct Suffixes<T: 'static> {
    rules: &'static [(&'static [u8], T)],
    last_letters: u32,
}

/// A byte's bit in [`Suffixes::last_letters`] (bytes 32 apart share one:
/// a shared bit only costs the search).
const fn letter_bit(b: u8) -> u32 {
    1 << (b & 31)
}

impl<T> Suffixes<T> {
    const fn new(rules: &'static [(&'static [u8], T)]) -> Suffixes<T> {
        let mut last_letters = 0;
        let mut i = 0;
        while i < rules.len() {
            let suffix = rules[i].0;
            // `longest` takes the first that fits: a table out of order
            // does not compile.
            assert!(i == 0 || rules[i - 1].0.len() >= suffix.len());
            last_letters |= letter_bit(suffix[suffix.len() - 1]);
            i += 1;
        }
        Suffixes {
            rules,
            last_letters,
        }
    }
}

/// Stems `word` (ASCII, no upper case) into `out`.
fn stem_ascii(word: &[u8], out: &mut Vec<u8>) {
    out.clear();
    if let Some((_, stem)) = EXCEPTIONS.iter().find(|(w, _)| w.as_bytes() == word) {
        out.extend_from_slice(stem.map_or(word, str::as_bytes));
        return;
    }
    out.extend_from_slice(word);
    if word.len() < 3 {
        return;
    }
    // Prelude: a leading apostrophe goes; `y` at the start or after a
    // vowel is a consonant, marked `Y`.
    if out[0] == b'\'' {
        out.remove(0);
    }
    let mut marked_y = false;
    if out.first() == Some(&b'y') {
        out[0] = b'Y';
        marked_y = true;
    }
    for i in 1..out.len() {
        if out[i] == b'y' && is_vowel(out[i - 1]) {
            out[i] = b'Y';
            marked_y = true;
        }
    }
    let (p1, p2) = regions(out);
    let mut word = Word { w: out, p1, p2 };
    step_1a(&mut word);
    if !INVARIANT_AFTER_1A.contains(&word.w.as_slice()) {
        step_1b(&mut word);
        step_1c(&mut word);
        step_2(&mut word);
        step_3(&mut word);
        step_4(&mut word);
        step_5(&mut word);
    }
    if marked_y {
        for b in out.iter_mut().filter(|b| **b == b'Y') {
            *b = b'y';
        }
    }
}

/// R1 and R2: after the first non-vowel that follows a vowel, and the same
/// again from there (R1 after `arsen`, `commun`, `gener`).
fn regions(w: &[u8]) -> (usize, usize) {
    let after_syllable = |from: usize| -> Option<usize> {
        let vowel = from + w[from..].iter().position(|&b| is_vowel(b))?;
        let consonant = vowel + 1 + w[vowel + 1..].iter().position(|&b| !is_vowel(b))?;
        Some(consonant + 1)
    };
    let len = w.len();
    let p1 = [&b"gener"[..], b"commun", b"arsen"]
        .iter()
        .find(|p| w.starts_with(p))
        .map(|p| Some(p.len()))
        .unwrap_or_else(|| after_syllable(0));
    match p1 {
        None => (len, len),
        Some(p1) => (p1, after_syllable(p1).unwrap_or(len)),
    }
}

fn step_1a(word: &mut Word) {
    // Step 0: possessive endings.
    const POSSESSIVE: Suffixes<()> = Suffixes::new(&[(b"'s'", ()), (b"'s", ()), (b"'", ())]);
    if let Some((len, ())) = word.longest(&POSSESSIVE) {
        word.replace(len, b"");
    }
    #[derive(Clone, Copy)]
    enum Rule {
        Sses,
        Ies,
        Keep,
        S,
    }
    const RULES: Suffixes<Rule> = Suffixes::new(&[
        (b"sses", Rule::Sses),
        (b"ied", Rule::Ies),
        (b"ies", Rule::Ies),
        (b"ss", Rule::Keep),
        (b"us", Rule::Keep),
        (b"s", Rule::S),
    ]);
    let Some((len, rule)) = word.longest(&RULES) else {
        return;
    };
    let start = word.start_of(len);
    match rule {
        Rule::Sses => word.replace(len, b"ss"),
        Rule::Ies => word.replace(len, if start >= 2 { b"i" } else { b"ie" }),
        Rule::Keep => {}
        // Deleted when a vowel comes before the letter before the `s`.
        Rule::S => {
            if start >= 1 && word.w[..start - 1].iter().any(|&b| is_vowel(b)) {
                word.replace(1, b"");
            }
        }
    }
}

fn step_1b(word: &mut Word) {
    const RULES: Suffixes<bool> = Suffixes::new(&[
        (b"eedly", true),
        (b"ingly", false),
        (b"edly", false),
        (b"eed", true),
        (b"ing", false),
        (b"ed", false),
    ]);
    let Some((len, eed)) = word.longest(&RULES) else {
        return;
    };
    let start = word.start_of(len);
    if eed {
        if start >= word.p1 {
            word.replace(len, b"ee");
        }
        return;
    }
    if !word.w[..start].iter().any(|&b| is_vowel(b)) {
        return;
    }
    word.replace(len, b"");
    let doubles: [&[u8]; 9] = [
        b"bb", b"dd", b"ff", b"gg", b"mm", b"nn", b"pp", b"rr", b"tt",
    ];
    if word.ends_with(b"at") || word.ends_with(b"bl") || word.ends_with(b"iz") {
        word.w.push(b'e');
    } else if doubles.iter().any(|d| word.ends_with(d)) {
        word.w.pop();
    } else if word.w.len() == word.p1 && word.short_syllable_before(word.w.len()) {
        word.w.push(b'e');
    }
}

fn step_1c(word: &mut Word) {
    let n = word.w.len();
    if n >= 3 && matches!(word.w[n - 1], b'y' | b'Y') && !is_vowel(word.w[n - 2]) {
        word.w[n - 1] = b'i';
    }
}

fn step_2(word: &mut Word) {
    #[derive(Clone, Copy)]
    enum Then {
        Replace(&'static [u8]),
        /// `ogi` → `og` after `l`.
        OgAfterL,
        /// `li` deleted after one of `valid_LI`.
        DeleteAfterValidLi,
    }
    use Then::*;
    const RULES: Suffixes<Then> = Suffixes::new(&[
        (b"ational", Replace(b"ate")),
        (b"ization", Replace(b"ize")),
        (b"iveness", Replace(b"ive")),
        (b"fulness", Replace(b"ful")),
        (b"ousness", Replace(b"ous")),
        (b"tional", Replace(b"tion")),
        (b"biliti", Replace(b"ble")),
        (b"lessli", Replace(b"less")),
        (b"fulli", Replace(b"ful")),
        (b"ousli", Replace(b"ous")),
        (b"entli", Replace(b"ent")),
        (b"aliti", Replace(b"al")),
        (b"iviti", Replace(b"ive")),
        (b"alism", Replace(b"al")),
        (b"ation", Replace(b"ate")),
        (b"anci", Replace(b"ance")),
        (b"enci", Replace(b"ence")),
        (b"abli", Replace(b"able")),
        (b"alli", Replace(b"al")),
        (b"izer", Replace(b"ize")),
        (b"ator", Replace(b"ate")),
        (b"bli", Replace(b"ble")),
        (b"ogi", OgAfterL),
        (b"li", DeleteAfterValidLi),
    ]);
    let Some((len, then)) = word.longest(&RULES) else {
        return;
    };
    let start = word.start_of(len);
    if start < word.p1 {
        return;
    }
    let before = start.checked_sub(1).map(|i| word.w[i]);
    match then {
        Replace(by) => word.replace(len, by),
        OgAfterL if before == Some(b'l') => word.replace(len, b"og"),
        DeleteAfterValidLi if before.is_some_and(is_valid_li) => word.replace(len, b""),
        OgAfterL | DeleteAfterValidLi => {}
    }
}

fn step_3(word: &mut Word) {
    // `None`: `ative`, deleted in R2 only.
    const RULES: Suffixes<Option<&[u8]>> = Suffixes::new(&[
        (b"ational", Some(b"ate")),
        (b"tional", Some(b"tion")),
        (b"alize", Some(b"al")),
        (b"icate", Some(b"ic")),
        (b"iciti", Some(b"ic")),
        (b"ative", None),
        (b"ical", Some(b"ic")),
        (b"ness", Some(b"")),
        (b"ful", Some(b"")),
    ]);
    let Some((len, by)) = word.longest(&RULES) else {
        return;
    };
    let start = word.start_of(len);
    if start < word.p1 {
        return;
    }
    match by {
        Some(by) => word.replace(len, by),
        None if start >= word.p2 => word.replace(len, b""),
        None => {}
    }
}

fn step_4(word: &mut Word) {
    // `true`: `ion`, deleted after `s` or `t` only.
    const RULES: Suffixes<bool> = Suffixes::new(&[
        (b"ement", false),
        (b"ance", false),
        (b"ence", false),
        (b"able", false),
        (b"ible", false),
        (b"ment", false),
        (b"ate", false),
        (b"ive", false),
        (b"ize", false),
        (b"iti", false),
        (b"ism", false),
        (b"ion", true),
        (b"ous", false),
        (b"ant", false),
        (b"ent", false),
        (b"ic", false),
        (b"al", false),
        (b"er", false),
    ]);
    let Some((len, ion)) = word.longest(&RULES) else {
        return;
    };
    let start = word.start_of(len);
    if start < word.p2 {
        return;
    }
    if !ion || (start >= 1 && matches!(word.w[start - 1], b's' | b't')) {
        word.replace(len, b"");
    }
}

fn step_5(word: &mut Word) {
    let Some(start) = word.w.len().checked_sub(1) else {
        return;
    };
    let delete = match word.w[start] {
        b'e' => start >= word.p2 || (start >= word.p1 && !word.short_syllable_before(start)),
        b'l' => start >= word.p2 && start >= 1 && word.w[start - 1] == b'l',
        _ => false,
    };
    if delete {
        word.w.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(word: &str) {
        assert_eq!(stem(word), reference(word), "stem of {word:?}");
    }

    #[test]
    fn every_english_word_stems_as_rust_stemmers_does() {
        let list = include_str!("../../data/words-en.txt");
        let mut checked = 0;
        for word in list.lines().filter(|l| !l.is_empty()) {
            same(word);
            // Inflected and derived forms reach the later steps' rules.
            for ending in ["s", "es", "ed", "ing", "ly", "ness", "ation", "'s", "ies"] {
                same(&format!("{word}{ending}"));
            }
            checked += 1;
        }
        assert!(checked > 50_000, "only {checked} words in the list");
    }

    #[test]
    fn snowball_exceptions_and_edge_cases() {
        for word in [
            "skis",
            "skies",
            "dying",
            "lying",
            "tying",
            "idly",
            "gently",
            "ugly",
            "early",
            "only",
            "singly",
            "sky",
            "news",
            "howe",
            "atlas",
            "cosmos",
            "bias",
            "andes",
            "inning",
            "outing",
            "canning",
            "herring",
            "earring",
            "proceed",
            "exceed",
            "succeed",
            "generous",
            "communism",
            "arsenal",
            "'s",
            "'",
            "a",
            "ab",
            "abc",
            "y",
            "yy",
            "yyy",
            "ayy",
            "sayy",
            "'yes",
            "''",
            "'s'",
            "ties",
            "cries",
            "gas",
            "gaps",
            "hoping",
            "hopping",
            "agreed",
            "feed",
            "luxuriously",
            "fluently",
            "geology",
            "archaeology",
            "ogi",
            "logi",
            "bli",
            "hopefulli",
            "cat's",
            "cats'",
            "x-ray",
            "re-enter",
            "3rd",
            "42",
            "k9s",
            "e-mail",
            "ied",
            "ies",
            "sies",
            "aed",
            "ing",
            "bing",
            "ebing",
            "oing",
            "sing",
            "eing",
        ] {
            same(word);
        }
    }

    /// Every word of the files named in `GLOSSA_STEM_CHECK` (paths joined
    /// by `:`), as written and lower-cased. Run by hand on large lists:
    /// `GLOSSA_STEM_CHECK=/usr/share/dict/american-english cargo test
    /// --release --lib -- --ignored word_lists`.
    #[test]
    #[ignore = "needs word lists named in GLOSSA_STEM_CHECK"]
    fn word_lists_stem_as_rust_stemmers_does() {
        let paths = std::env::var("GLOSSA_STEM_CHECK")
            .expect("GLOSSA_STEM_CHECK names the word lists to check (paths joined by `:`)");
        let mut checked = 0;
        for path in paths.split(':') {
            let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            for word in text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-')) {
                same(word);
                same(&word.to_lowercase());
                checked += 2;
            }
        }
        eprintln!("{checked} words stem as rust-stemmers stems them");
    }

    #[test]
    fn words_beyond_ascii_lower_case_go_to_rust_stemmers() {
        for word in ["Running", "café", "naïvely", "YELLOW", "straße"] {
            same(word);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// Random words over letters and pieces that the rules look at.
        #[test]
        fn random_words_stem_as_rust_stemmers_does(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "e", "i", "o", "u", "y", "b", "c", "d", "g", "l", "n", "s", "t", "w",
                    "x", "'", "ss", "ed", "ing", "ly", "li", "at", "bl", "iz", "ion", "al", "er",
                    "ic", "ful", "ness", "ous", "ive", "ate", "ent", "ance", "ence", "tional",
                    "ation", "ogi", "bli", "eed", "ies", "ied", "-", "1",
                ]),
                0..8,
            )
        ) {
            let word: String = pieces.concat();
            proptest::prop_assert_eq!(stem(&word), reference(&word), "{}", word);
        }
    }
}
