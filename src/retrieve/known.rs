//! Words spelled correctly: English words and the glossary's own words.
//! Typo tiers read only the other words as misspellings (SymSpell's and
//! every spell checker's rule), so a correctly spelled word is never
//! "corrected" into another glossary entry ("recently" → presentation,
//! "texts" → test).
//!
//! The English list is `data/words-en.txt` (from Debian's wamerican,
//! SCOWL size 50; see `data/words-en.README`), compiled in.

use crate::glossary::Glossary;
use rustc_hash::FxHashSet;
use std::sync::LazyLock;

const ENGLISH_FILE: &str = include_str!("../../data/words-en.txt");

static ENGLISH: LazyLock<FxHashSet<&'static str>> =
    LazyLock::new(|| ENGLISH_FILE.lines().filter(|l| !l.is_empty()).collect());

/// Whether `word` (lower-cased) is in the shipped English word list.
pub fn is_english(word: &str) -> bool {
    ENGLISH.contains(word)
}

/// The words a typo tier leaves alone.
#[derive(Debug, Default)]
pub struct KnownWords {
    glossary: FxHashSet<String>,
}

impl KnownWords {
    /// English words and every word of the glossary's sources and aliases.
    pub fn new(glossary: &Glossary) -> KnownWords {
        let glossary = glossary
            .entries
            .iter()
            .flat_map(|e| std::iter::once(&e.key).chain(&e.alias_keys))
            .flat_map(|k| k.split(' '))
            .map(str::to_string)
            .collect();
        KnownWords { glossary }
    }

    pub fn contains(&self, word: &str) -> bool {
        self.glossary.contains(word) || is_english(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_words_are_known_and_typos_are_not() {
        for w in [
            "recently",
            "information",
            "texts",
            "diverse",
            "large",
            "the",
        ] {
            assert!(is_english(w), "{w}");
        }
        for w in ["delivry", "croisants", "cappucino", "wholemael"] {
            assert!(!is_english(w), "{w}");
        }
    }

    #[test]
    fn the_glossary_words_are_known_too() {
        let g = crate::retrieve::test_support::glossary(&[("ff", "focaccia flatbread")]);
        let known = KnownWords::new(&g);
        assert!(known.contains("focaccia") && known.contains("flatbread"));
        assert!(!known.contains("focacia"));
    }
}
