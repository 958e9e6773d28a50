//! The entries a post could match: a superset of what every retriever
//! `glossa` is made of (`normalised`, `irregular`, `edit`, `split`,
//! `alias`, and `exact`) can match or has to count, so that those
//! retrievers give the same matches on these entries as on the whole
//! glossary (docs/formats.md, "Compiled glossaries").
//!
//! An entry is a candidate when one of its keys (source or alias):
//!
//! - has a word that is a word of the post, the stem of one, or a base
//!   form of one in WordNet's exception lists (or their stems): what
//!   `exact`, `normalised`, `irregular`, the keys without their article,
//!   and `edit`'s words "as written" or "by stem" need, since every one of
//!   them matches a key only where each of its words does;
//! - has a word (or a stem) within `edit`'s bound for its length of a post
//!   word that is not spelled right (or of its stem), by unrestricted
//!   Damerau–Levenshtein distance: `edit`'s typo readings, and every key
//!   word it counts before keeping at most two readings at the nearest
//!   distance; for a spelled-right word, the key words one edit off that
//!   `edit` counts for a long key ("pain au chocolate");
//! - written without spaces, or that form's stem, equals a run of up to
//!   four post words written together, or its stem (`split`);
//! - is an alias whose trigram Dice with a run of up to four post words
//!   holding a word not spelled right is at least the threshold (`alias`'s
//!   trigram pass; counted exactly from the trigrams' posting lists).
//!
//! Entries with a key of symbols only, and the first entry (a glossary is
//! never empty), are always candidates. Runs of words are taken across
//! sentence ends too (a run more is only a candidate more).

use super::search;
use super::{Compiled, CompiledError};
use crate::phrase::{self, MAX_PHRASE_WORDS};
use crate::retrieve::{exceptions, is_english_word, stem_word, trigrams, Params, Spec};
use rustc_hash::{FxHashMap, FxHashSet};

/// The retrievers whose candidates [`Compiled::candidates`] gives. Filters
/// (`sense`, `closest`, `longest`, and the case rule) read only the entries
/// matched.
const SUPPORTED: &[&str] = &[
    "exact",
    "normalised",
    "irregular",
    "edit",
    "split",
    "alias",
    "none",
];

/// A spec whose matches the candidates might not hold: it needs the whole
/// glossary loaded.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct Unsupported(pub(crate) String);

/// `Ok` when the candidates of [`Compiled::candidates`] hold every entry
/// `spec` can match with `params`.
pub(crate) fn supports(spec: &str, params: &Params) -> Result<(), Unsupported> {
    supports_with(spec, params, false)
}

/// As [`supports`], for a command that also loads every entry its labels
/// name ([`Compiled::by_ids`]): `oracle` retrieves only those.
pub(crate) fn supports_labelled(spec: &str, params: &Params) -> Result<(), Unsupported> {
    supports_with(spec, params, true)
}

fn supports_with(spec: &str, params: &Params, labelled: bool) -> Result<(), Unsupported> {
    let parsed = Spec::parse(spec).map_err(|e| Unsupported(e.to_string()))?;
    if let Some(name) = parsed
        .retrievers()
        .into_iter()
        .find(|n| !(SUPPORTED.contains(n) || labelled && *n == "oracle"))
    {
        return Err(Unsupported(format!(
            "`{name}` compares a post with the whole glossary"
        )));
    }
    if parsed.uses("alias") && params.threshold <= 0.0 {
        return Err(Unsupported(
            "a --threshold of 0 lets `alias` match every alias with as many words".to_string(),
        ));
    }
    Ok(())
}

impl Compiled {
    /// Whether `word` (whose stem is `stem`) is spelled right as
    /// `retrieve/known.rs` judges it over the whole glossary: an English
    /// word, a glossary word, or an inflection of one (possessives as
    /// their word).
    fn knows(&self, word: &str, stem: &str) -> bool {
        use crate::glossary::WholeGlossary;
        let inflects = |w: &str| {
            self.has_stem(stem)
                && (stem.len().saturating_sub(1).max(1)..w.len()).any(|at| {
                    w.is_char_boundary(at) && {
                        let base = &w[..at];
                        self.has_word(base) && stem_word(base) == stem
                    }
                })
        };
        let spelled = |w: &str| is_english_word(w) || self.has_word(w) || inflects(w);
        spelled(word) || word.strip_suffix("'s").is_some_and(spelled)
    }

    /// The entries of the posting list a map gave for a key (`None`: the
    /// key is not in the map), into `out`.
    fn look_up(&self, found: Option<u64>, out: &mut Vec<u32>) -> Result<(), CompiledError> {
        match found {
            Some(at) => self.posting(at, self.len(), out),
            None => Ok(()),
        }
    }

    /// The entries within `edit`'s bounds of `word` in `map` (words or
    /// stems), at most `ceiling` edits.
    fn near(
        &self,
        map: &fst::Map<super::Bytes>,
        word: &str,
        ceiling: usize,
        params: &Params,
        out: &mut Vec<u32>,
    ) -> Result<(), CompiledError> {
        let bounds = params.edit_bounds();
        for hit in search::within(map.as_fst(), word, ceiling) {
            if hit.distance <= bounds.max_distance(hit.chars).min(ceiling) {
                self.posting(hit.value, self.len(), out)?;
            }
        }
        Ok(())
    }

    /// The candidate entries of the posts `texts` (sorted, distinct) for
    /// the retrievers [`supports`] accepts, with `params`.
    pub(crate) fn candidates<'t>(
        &self,
        texts: impl IntoIterator<Item = &'t str>,
        params: &Params,
    ) -> Result<Vec<u32>, CompiledError> {
        let mut out: Vec<u32> = self.header.symbol_entries.clone();
        if !self.is_empty() {
            out.push(0);
        }
        let bounds = params.edit_bounds();
        let ceiling = (0..=64).map(|n| bounds.max_distance(n)).max().unwrap_or(0);
        let table = exceptions().ok();
        let mut done: FxHashSet<String> = FxHashSet::default();
        for text in texts {
            let words = phrase::words(text);
            let mut unknown = vec![false; words.len()];
            for (i, w) in words.iter().enumerate() {
                let word = w.text.as_str();
                let stem = stem_word(word);
                unknown[i] = !self.knows(word, &stem);
                if !done.insert(word.to_string()) {
                    continue;
                }
                self.look_up(self.words.get(word), &mut out)?;
                self.look_up(self.stems.get(&stem), &mut out)?;
                for base in table.map_or(&[][..], |t| t.bases(word)) {
                    self.look_up(self.words.get(base), &mut out)?;
                    self.look_up(self.stems.get(stem_word(base)), &mut out)?;
                }
                if ceiling == 0 || word.chars().count() < bounds.one_from {
                    continue;
                }
                if unknown[i] {
                    self.near(&self.words, word, ceiling, params, &mut out)?;
                    self.near(&self.stems, &stem, ceiling, params, &mut out)?;
                } else {
                    self.near(&self.words, word, 1, params, &mut out)?;
                }
            }
            let fuzzy = params.threshold > 0.0 && self.alias_key_count() > 0;
            for first in 0..words.len() {
                let mut joined = String::new();
                let mut key = String::new();
                for len in 1..=MAX_PHRASE_WORDS.min(words.len() - first) {
                    let w = words[first + len - 1].text.as_str();
                    joined.push_str(w);
                    if len > 1 {
                        key.push(' ');
                    }
                    key.push_str(w);
                    self.look_up(self.joined.get(&joined), &mut out)?;
                    self.look_up(self.joined.get(stem_word(&joined)), &mut out)?;
                    if fuzzy && unknown[first..first + len].contains(&true) {
                        self.alias_grams(&key, params.threshold, &mut out)?;
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The entries of the alias keys whose trigram Dice with `key` is at
    /// least `threshold`.
    fn alias_grams(
        &self,
        key: &str,
        threshold: f64,
        out: &mut Vec<u32>,
    ) -> Result<(), CompiledError> {
        let grams = trigrams(key);
        let mut shared: FxHashMap<u32, u32> = FxHashMap::default();
        let mut ids = Vec::new();
        let limit = self.alias_key_count();
        for g in &grams {
            ids.clear();
            if let Some(at) = self.grams.get(g.to_be_bytes()) {
                self.posting(at, limit, &mut ids)?;
            }
            for &id in &ids {
                *shared.entry(id).or_default() += 1;
            }
        }
        for (id, count) in shared {
            let bad = || CompiledError::refused(&self.path, "an alias key lies outside its table");
            if id as usize >= limit {
                return Err(bad());
            }
            let (entry, size) = self.alias_key(id).ok_or_else(bad)?;
            let dice = 2.0 * f64::from(count) / (grams.len() as f64 + f64::from(size));
            // A hair below the threshold too: a candidate more costs nothing.
            if dice >= threshold - 1e-9 && (entry as usize) < self.len() {
                out.push(entry);
            }
        }
        Ok(())
    }
}
