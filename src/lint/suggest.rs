//! `glossa lint --suggest-aliases`: synonyms from WordNet's plain data
//! files, restricted to the entry's sense; the glossary is never changed.

use super::keys_of;
use super::wordnet::{Pos, Synset, WordNet, LEXFILES};
use crate::glossary::{Entry, Glossary};
use crate::phrase;
use crate::retrieve::Stems;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Synonyms proposed for one entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AliasSuggestion {
    pub(crate) line: usize,
    pub(crate) entry: String,
    /// Forms to consider adding to `aliases`.
    pub(crate) add: Vec<String>,
    /// The WordNet sense they come from: id (`n07635155`), file, gloss.
    pub(crate) synset: String,
    pub(crate) lexfile: &'static str,
    pub(crate) gloss: String,
    /// How that sense was chosen.
    pub(crate) why: String,
}

/// The result of [`suggest_aliases`].
#[derive(Debug, Clone, Serialize)]
pub struct Suggestions {
    pub(crate) wordnet: String,
    /// Lexicographer files a noun sense must fall in (empty: any).
    pub(crate) domain: Vec<&'static str>,
    pub(crate) domain_reason: String,
    /// Entries whose source WordNet knows.
    pub(crate) entries_in_wordnet: usize,
    pub(crate) suggestions: Vec<AliasSuggestion>,
    /// Entries WordNet knows but for which no sense could be chosen.
    pub(crate) unsure: Vec<Unsure>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unsure {
    pub(crate) line: usize,
    pub(crate) entry: String,
    pub(crate) reason: String,
}

/// The WordNet lemmas an entry's source may be written as.
fn lemmas(e: &Entry) -> Vec<String> {
    let mut out = vec![
        e.key.replace(' ', "_"),
        e.source.trim().to_lowercase().replace(' ', "_"),
        e.key.replace(' ', ""),
    ];
    out.dedup();
    let mut seen = HashSet::new();
    out.retain(|l| seen.insert(l.clone()));
    out
}

fn synsets_of(wn: &WordNet, e: &Entry) -> Vec<Synset> {
    let mut out: Vec<Synset> = Vec::new();
    for lemma in lemmas(e) {
        for s in wn.synsets(&lemma) {
            if !out.iter().any(|o| o.pos == s.pos && o.offset == s.offset) {
                out.push(s);
            }
        }
    }
    out
}

/// Content-word stems of a text: no stop words, at least 3 characters.
fn content_stems(text: &str, stems: &mut Stems) -> HashSet<String> {
    phrase::words(text)
        .into_iter()
        .filter(|w| phrase::is_lookup_word(&w.text))
        .map(|w| stems.word(&w.text).to_string())
        .collect()
}

/// A `--domain` that names no WordNet lexicographer file.
#[derive(Debug, thiserror::Error)]
#[error(
    "unknown --domain `{part}`: use auto, any, or WordNet lexicographer files such as noun.food, noun.artifact ({})",
    LEXFILES.join(", ")
)]
pub struct UnknownDomain {
    pub(crate) part: String,
}

/// Parse `--domain`: `auto`, `any`, a lexicographer file (`noun.food`) or
/// its short name (`food`); several may be joined by commas.
fn parse_domain(
    spec: &str,
    glossary: &Glossary,
    wn: &WordNet,
) -> Result<(Vec<&'static str>, String), UnknownDomain> {
    match spec.trim() {
        "any" => Ok((Vec::new(), "--domain any: every sense".to_string())),
        "auto" => {
            let mut counts = vec![0usize; LEXFILES.len()];
            for e in &glossary.entries {
                if let Some(s) = synsets_of(wn, e).iter().find(|s| s.pos == Pos::Noun) {
                    counts[s.lexfile] += 1;
                }
            }
            let (best, n) = counts
                .iter()
                .enumerate()
                .max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)))
                .map(|(i, n)| (i, *n))
                .unwrap_or((0, 0));
            if n == 0 {
                Ok((
                    Vec::new(),
                    "no entry is a WordNet noun: every sense".to_string(),
                ))
            } else {
                Ok((
                    vec![LEXFILES[best]],
                    format!(
                        "{}: the first WordNet noun sense of {n} of {} entries (--domain to change)",
                        LEXFILES[best],
                        glossary.len()
                    ),
                ))
            }
        }
        list => {
            let mut out = Vec::new();
            for part in list.split(',').map(str::trim) {
                let found = LEXFILES
                    .iter()
                    .find(|l| **l == part || **l == format!("noun.{part}"))
                    .ok_or_else(|| UnknownDomain {
                        part: part.to_string(),
                    })?;
                out.push(*found);
            }
            Ok((out, format!("--domain {list}")))
        }
    }
}

/// Propose synonyms from WordNet for each entry, in the entry's sense: the
/// WordNet senses of its source are kept when they are nouns whose
/// lexicographer file (or a hypernym's) is in the domain, or any part of
/// speech whose gloss shares a word with the entry's `sense` note and
/// `context.any`; with a `sense` note the best-sharing senses win, without
/// one the most frequent sense in the domain. Forms already in the entry
/// (also after stemming) or used by another entry are left out.
pub fn suggest_aliases(
    glossary: &Glossary,
    wn: &WordNet,
    domain: &str,
) -> Result<Suggestions, UnknownDomain> {
    let (domain, domain_reason) = parse_domain(domain, glossary, wn)?;
    let mut stems = Stems::default();
    let used: HashMap<String, usize> = keys_of(glossary, &mut stems)
        .into_iter()
        .map(|k| (k.stems.join(" "), k.entry))
        .collect();
    let mut result = Suggestions {
        wordnet: wn.dir.display().to_string(),
        domain: domain.clone(),
        domain_reason,
        entries_in_wordnet: 0,
        suggestions: Vec::new(),
        unsure: Vec::new(),
    };
    for e in &glossary.entries {
        let synsets = synsets_of(wn, e);
        if synsets.is_empty() {
            continue;
        }
        result.entries_in_wordnet += 1;
        let scored = score_senses(wn, e, &synsets, &domain, &mut stems);
        let Some((chosen, why)) = choose(e, &scored) else {
            result.unsure.push(Unsure {
                line: e.line,
                entry: e.id.clone(),
                reason: format!(
                    "none of its {} WordNet sense(s) is in the domain or matches its `sense` note",
                    synsets.len()
                ),
            });
            continue;
        };
        for s in chosen {
            let add = new_forms(e, s, &used, &mut stems);
            if add.is_empty() {
                continue;
            }
            result.suggestions.push(AliasSuggestion {
                line: e.line,
                entry: e.id.clone(),
                add,
                synset: s.id(),
                lexfile: s.lexfile_name(),
                gloss: s.gloss.clone(),
                why: why.clone(),
            });
        }
    }
    Ok(result)
}

/// The senses worth considering (in the domain, or sharing a word with the
/// entry's note), each with its fit to the note: words shared with the
/// synset's own gloss and words count twice, with its two nearest
/// hypernyms' words once.
fn score_senses<'s>(
    wn: &WordNet,
    e: &Entry,
    synsets: &'s [Synset],
    domain: &[&str],
    stems: &mut Stems,
) -> Vec<(usize, &'s Synset)> {
    let in_domain = |s: &Synset| {
        domain.is_empty()
            || (s.pos == Pos::Noun
                && wn
                    .ancestors(s)
                    .iter()
                    .any(|a| domain.contains(&a.lexfile_name())))
    };
    let mut note = e.sense.clone().unwrap_or_default();
    if let Some(c) = &e.context {
        for p in &c.any {
            note.push(' ');
            note.push_str(p);
        }
    }
    let wanted = content_stems(&note, stems);
    let words = |s: &Synset| {
        s.words
            .iter()
            .map(|w| w.replace('_', " "))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut scored = Vec::new();
    for s in synsets {
        let own = content_stems(&format!("{} {}", s.gloss, words(s)), stems);
        let own_shared = own.intersection(&wanted).count();
        let mut above = String::new();
        for a in wn.ancestors(s).iter().skip(1).take(2) {
            above.push(' ');
            above.push_str(&words(a));
        }
        let above_shared = content_stems(&above, stems)
            .difference(&own)
            .filter(|w| wanted.contains(*w))
            .count();
        if in_domain(s) || own_shared > 0 {
            scored.push((2 * own_shared + above_shared, s));
        }
    }
    scored
}

/// The best-fitting senses, else the most frequent noun sense; and why.
/// `None` when no sense qualifies.
fn choose<'s>(e: &Entry, scored: &[(usize, &'s Synset)]) -> Option<(Vec<&'s Synset>, String)> {
    let best = scored.iter().map(|(n, _)| *n).max().unwrap_or(0);
    if best > 0 {
        return Some((
            scored
                .iter()
                .filter(|(n, _)| *n == best)
                .map(|(_, s)| *s)
                .collect(),
            format!("best fit to the entry's `sense`/`context.any` (score {best}: a shared gloss word counts 2, a hypernym's word 1)"),
        ));
    }
    let (_, s) = scored.iter().find(|(_, s)| s.pos == Pos::Noun)?;
    let why = if e.sense.is_some() {
        "the most frequent WordNet sense in the domain (the `sense` note matched none)"
    } else {
        "the most frequent WordNet sense in the domain (no `sense` note to choose by)"
    };
    Some((vec![*s], why.to_string()))
}

/// The synset's forms worth adding to the entry. Left out: forms the
/// glossary already has (after stemming), and forms containing the source
/// (already retrieved).
fn new_forms(
    e: &Entry,
    s: &Synset,
    used: &HashMap<String, usize>,
    stems: &mut Stems,
) -> Vec<String> {
    let own_stems: Vec<String> = e
        .key
        .split(' ')
        .map(|w| stems.word(w).to_string())
        .collect();
    let mut add: Vec<String> = Vec::new();
    for w in &s.words {
        let form = w.replace('_', " ").to_lowercase();
        let key = phrase::key(&form);
        let stemmed: Vec<String> = key.split(' ').map(|w| stems.word(w).to_string()).collect();
        let contains_source = own_stems.len() < stemmed.len()
            && stemmed
                .windows(own_stems.len())
                .any(|w| w == own_stems.as_slice());
        if key.is_empty()
            || used.contains_key(&stemmed.join(" "))
            || contains_source
            || add.contains(&form)
        {
            continue;
        }
        add.push(form);
    }
    add
}
