//! Words spelled correctly: English words, the glossary's own words and
//! their inflections (a glossary word with an ending that leaves its
//! Snowball stem as it is: `focaccias`, `annotations`). Typo tiers read
//! only the other words as misspellings (SymSpell's and every spell
//! checker's rule), so a correctly spelled word is never "corrected" into
//! another glossary entry ("recently" → presentation, "texts" → test); an
//! inflection is found by its stem instead.
//!
//! The English list is `data/words-en.txt` (from Debian's wamerican-large
//! and wbritish-large, SCOWL size 70; see `data/words-en.README`),
//! compiled in.

use super::keys::{self, Keyed};
use super::normalised::{stem_keys, stem_word};
use super::wordmap::WordMap;
use crate::glossary::{word_count, Glossary, WholeGlossary};
use crate::phrase;
use rustc_hash::FxHashSet;
use std::sync::LazyLock;

const ENGLISH_FILE: &str = include_str!("../../data/words-en.txt");

static ENGLISH: LazyLock<FxHashSet<&'static str>> = LazyLock::new(|| {
    let words = || ENGLISH_FILE.lines().filter(|l| !l.is_empty());
    // Sized first: growing a set of 100k words rehashes it a dozen times.
    let mut set = FxHashSet::with_capacity_and_hasher(words().count(), Default::default());
    set.extend(words());
    set
});

/// Whether `word` (lower-cased) is in the shipped English word list.
pub(crate) fn is_english(word: &str) -> bool {
    ENGLISH.contains(word)
}

/// The English word a misspelling of it most likely meant: at most `max`
/// slips away, where a letter left out, one too many or two swapped is
/// one slip and a letter replaced by another is two ("muxer" is not read
/// as "mixer", "rasberry" is "raspberry"). Only words with the same first
/// letter are tried (a typo rarely changes it, and it keeps the search to
/// a few thousand words); ties go to the earlier word of the list.
pub(crate) fn nearest_english(word: &str, max: usize) -> Option<&'static str> {
    let first = word.chars().next()?;
    let typed: Vec<char> = word.chars().collect();
    ENGLISH_FILE
        .lines()
        .filter(|w| w.starts_with(first) && w.chars().count().abs_diff(typed.len()) <= max)
        .map(|w| (slips(&typed, &w.chars().collect::<Vec<_>>()), w))
        .filter(|&(d, _)| d > 0 && d <= max)
        .min_by_key(|&(d, _)| d)
        .map(|(_, w)| w)
}

/// Optimal string alignment distance with a substitution costing two
/// (strsim's distances weigh every edit alike).
fn slips(a: &[char], b: &[char]) -> usize {
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let same = a[i - 1] == b[j - 1];
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + if same { 0 } else { 2 });
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && !same {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The words a typo tier leaves alone.
#[derive(Debug, Default)]
pub(crate) struct KnownWords {
    glossary: WordMap<()>,
    /// The stems of the glossary's words.
    stems: WordMap<()>,
    /// The whole glossary's words and stems, when the glossary is part of
    /// a compiled one ([`Glossary::whole`]).
    whole: Option<std::sync::Arc<dyn WholeGlossary>>,
}

impl KnownWords {
    /// English words, every word of the glossary's sources and aliases, and
    /// every word with the stem of one of those.
    pub(crate) fn new(glossary: &Glossary) -> KnownWords {
        let keys = keys::sources_and_aliases(glossary);
        KnownWords::over(&keys, &stem_keys(&keys)).of_whole(glossary)
    }

    /// These words, and the whole glossary's when `glossary` is part of a
    /// compiled one.
    pub(crate) fn of_whole(mut self, glossary: &Glossary) -> KnownWords {
        self.whole = glossary.whole.clone();
        self
    }

    fn has_word(&self, word: &str) -> bool {
        self.glossary.contains(word) || self.whole.as_ref().is_some_and(|w| w.has_word(word))
    }

    fn has_stem(&self, stem: &str) -> bool {
        self.stems.contains(stem) || self.whole.as_ref().is_some_and(|w| w.has_stem(stem))
    }

    /// [`KnownWords::new`] from the glossary's sources and aliases
    /// ([`keys::sources_and_aliases`]) and their stems ([`stem_keys`]).
    pub(crate) fn over(keys: &[Keyed], stemmed: &[String]) -> KnownWords {
        debug_assert_eq!(keys.len(), stemmed.len());
        // Sized for two thirds of the words of all keys, not all: distinct
        // words are fewer (1.4 million of 2.1 million at 1M entries), and
        // sets sized for every word took twice the memory there (71 MB
        // instead of 36 MB each); sized for none they grew by rehashing.
        let words: usize = keys.iter().map(|k| word_count(k.key)).sum::<usize>() * 2 / 3;
        let mut known = KnownWords {
            glossary: WordMap::with_capacity(words),
            stems: WordMap::with_capacity(words),
            whole: None,
        };
        for (k, stems) in keys.iter().zip(stemmed) {
            for (word, stem) in phrase::key_words(k.key).zip(phrase::key_words(stems)) {
                known.glossary.insert(word, ());
                known.stems.insert(stem, ());
            }
        }
        known
    }

    /// Whether `word`, whose stem is `stem`, is spelled right. A
    /// possessive is as its word ("women's", "baker's"): the list leaves
    /// possessives out.
    pub(crate) fn knows(&self, word: &str, stem: &str) -> bool {
        // English first: most words of a post are.
        let spelled = |w: &str| is_english(w) || self.has_word(w) || self.inflects(w, stem);
        spelled(word) || word.strip_suffix("'s").is_some_and(spelled)
    }

    /// Whether `word` is a glossary word with an ending added that leaves
    /// its stem unchanged (`rountis` for `rounti`). A word that only
    /// shares a stem is not: `pouplo` may be a misspelt `poupla` as well as
    /// `pouplos` cut short.
    fn inflects(&self, word: &str, stem: &str) -> bool {
        // A base glossary word is no shorter than its stem (Porter2 strips
        // or rewrites an ending); one letter less is tried as a margin.
        self.has_stem(stem)
            && (stem.len().saturating_sub(1).max(1)..word.len()).any(|at| {
                word.is_char_boundary(at) && {
                    let base = &word[..at];
                    self.has_word(base) && stem_word(base) == stem
                }
            })
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
        // British spellings too: "normalised" is no typo of "formalised";
        // rarer words ("demotic" is not `devote`), words with apostrophes,
        // and words with accents written without.
        for w in [
            "normalised",
            "synchronisation",
            "flavours",
            "defence",
            "demotic",
            "sessile",
            "o'clock",
            "cafe",
            "café",
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
        let knows = |w: &str| known.knows(w, &stem_word(w));
        assert!(knows("focaccia") && knows("flatbread"));
        // Inflections of a glossary word are spelled right too.
        assert!(knows("focaccias") && knows("flatbreads"));
        assert!(!knows("focacia") && !knows("focacias"));
        // Possessives, of English and of glossary words.
        assert!(knows("women's") && knows("focaccia's"));
        assert!(!knows("focacia's"));
        // Sharing a stem is not enough: the word must be a glossary word
        // with an ending.
        let g = crate::retrieve::test_support::glossary(&[("p", "pouplos")]);
        let known = KnownWords::new(&g);
        assert_eq!(stem_word("pouplo"), stem_word("pouplos"));
        assert!(!known.knows("pouplo", &stem_word("pouplo")));
        let g = crate::retrieve::test_support::glossary(&[("r", "rounti")]);
        let known = KnownWords::new(&g);
        assert!(known.knows("rountis", &stem_word("rountis")));
    }
}
