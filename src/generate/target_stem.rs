//! `--check stem`: a target also counts where the output's words stem like
//! its words (Snowball stemmer of the glossary's `target_lang`), so an
//! inflection no `forms` list names still passes: "Spinalkanals" for
//! "Spinalkanal". Words are the phrase rules' words (`phrase::words`).

use crate::phrase;
use rust_stemmers::{Algorithm, Stemmer};
use std::ops::Range;

/// The languages with a Snowball stemmer, by ISO 639-1 code.
const STEMMERS: &[(&str, Algorithm)] = &[
    ("ar", Algorithm::Arabic),
    ("da", Algorithm::Danish),
    ("de", Algorithm::German),
    ("el", Algorithm::Greek),
    ("en", Algorithm::English),
    ("es", Algorithm::Spanish),
    ("fi", Algorithm::Finnish),
    ("fr", Algorithm::French),
    ("hu", Algorithm::Hungarian),
    ("it", Algorithm::Italian),
    ("nb", Algorithm::Norwegian),
    ("nl", Algorithm::Dutch),
    ("nn", Algorithm::Norwegian),
    ("no", Algorithm::Norwegian),
    ("pt", Algorithm::Portuguese),
    ("ro", Algorithm::Romanian),
    ("ru", Algorithm::Russian),
    ("sv", Algorithm::Swedish),
    ("ta", Algorithm::Tamil),
    ("tr", Algorithm::Turkish),
];

/// The target language has no Snowball stemmer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`--check stem` needs a Snowball stemmer for the glossary's target language `{lang}`; \
     there is one for {}",
    STEMMERS.iter().map(|(code, _)| *code).collect::<Vec<_>>().join(", ")
)]
pub struct NoStemmer {
    pub(crate) lang: String,
}

/// Stems of a text's words, with their byte ranges.
pub(crate) struct StemmedWords {
    stems: Vec<String>,
    ranges: Vec<Range<usize>>,
}

pub(crate) struct TargetStemmer {
    stemmer: Stemmer,
}

impl TargetStemmer {
    /// The stemmer of `lang` (`de`, `de-AT`, `pt_BR`, ...).
    pub(crate) fn for_language(lang: &str) -> Result<TargetStemmer, NoStemmer> {
        let code = lang
            .split(['-', '_'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        STEMMERS
            .iter()
            .find(|(c, _)| *c == code)
            .map(|&(_, algorithm)| TargetStemmer {
                stemmer: Stemmer::create(algorithm),
            })
            .ok_or_else(|| NoStemmer {
                lang: lang.to_string(),
            })
    }

    pub(crate) fn words(&self, text: &str) -> StemmedWords {
        let words = phrase::words(text);
        StemmedWords {
            stems: words
                .iter()
                .map(|w| self.stemmer.stem(&w.text).into_owned())
                .collect(),
            ranges: words.iter().map(|w| w.start..w.end).collect(),
        }
    }

    /// Where `target`'s words stand in `output` as a run of words with the
    /// same stems, as byte ranges of the output.
    pub(crate) fn places(&self, output: &StemmedWords, target: &str) -> Vec<Range<usize>> {
        let want = self.words(target).stems;
        if want.is_empty() || want.len() > output.stems.len() {
            return Vec::new();
        }
        output
            .stems
            .windows(want.len())
            .enumerate()
            .filter(|(_, run)| *run == want.as_slice())
            .map(|(i, _)| output.ranges[i].start..output.ranges[i + want.len() - 1].end)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_match_through_stems() {
        let de = TargetStemmer::for_language("de-AT").unwrap();
        let out = "Die Enge des Spinalkanals nimmt zu.";
        let words = de.words(out);
        let found: Vec<&str> = de
            .places(&words, "Spinalkanal")
            .into_iter()
            .map(|r| &out[r])
            .collect();
        assert_eq!(found, ["Spinalkanals"]);
        assert!(de.places(&words, "Spinalkanalstenose").is_empty());
    }

    #[test]
    fn languages_without_a_stemmer_are_named() {
        let err = TargetStemmer::for_language("cs").err().unwrap();
        assert!(
            err.to_string()
                .contains("target language `cs`; there is one for ar, da, de"),
            "{err}"
        );
    }
}
