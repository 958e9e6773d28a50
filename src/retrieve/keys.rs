//! The keys a matcher looks up: an entry's `source` key, or its aliases'
//! keys. The reference retrievers use source keys only (SPEC.md); `alias`
//! runs the same matchers over alias keys.

use crate::glossary::Glossary;

/// One key of one entry, borrowed from the glossary (the matchers copy
/// what they keep).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keyed<'g> {
    /// Index of the entry in the glossary.
    pub entry: usize,
    /// Phrase key (SPEC.md phrase rule 6).
    pub key: &'g str,
    /// The key as the glossary writes it (capitals and punctuation matter
    /// to `exact`).
    pub written: &'g str,
}

/// Every entry's source key, in glossary order.
pub fn sources(glossary: &Glossary) -> Vec<Keyed<'_>> {
    glossary
        .entries
        .iter()
        .enumerate()
        .map(|(entry, e)| Keyed {
            entry,
            key: &e.key,
            written: &e.source,
        })
        .collect()
}

/// Every entry's alias keys, in glossary order then alias order. An alias
/// whose key repeats its entry's source key or an earlier alias is left out.
pub fn aliases(glossary: &Glossary) -> Vec<Keyed<'_>> {
    let mut out = Vec::new();
    for (entry, e) in glossary.entries.iter().enumerate() {
        for (i, key) in e.alias_keys.iter().enumerate() {
            let written = &e.aliases[i];
            let same = |other_key: &String, other_written: &String| {
                // Keys of symbols only are all empty: their text tells them apart.
                key == other_key && (!key.is_empty() || written.trim() == other_written.trim())
            };
            let repeated =
                same(&e.key, &e.source) || (0..i).any(|j| same(&e.alias_keys[j], &e.aliases[j]));
            if !repeated {
                out.push(Keyed {
                    entry,
                    key,
                    written,
                });
            }
        }
    }
    out
}

/// Every source key, then every alias key numbered past the glossary's
/// entries (an alias key's entry is `entries + i`): one list of every
/// different key the glossary has.
pub fn sources_and_aliases(glossary: &Glossary) -> Vec<Keyed<'_>> {
    let entries = glossary.entries.len();
    let aliases = aliases(glossary);
    let mut all = Vec::with_capacity(entries + aliases.len());
    all.extend(sources(glossary));
    all.extend(aliases.into_iter().map(|k| Keyed {
        entry: entries + k.entry,
        ..k
    }));
    all
}
