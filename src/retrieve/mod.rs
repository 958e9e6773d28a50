//! Retrievers: from a post's phrases to glossary matches.
//!
//! Every retriever implements [`Retriever`] and is registered by name in
//! [`REGISTRY`]; every filter implements [`Filter`] and is registered in
//! [`FILTERS`]; a few recommended compositions have short names in
//! [`COMPOSITIONS`] (`glossa`). A spec such as
//! `normalised+fuzzy+edit+alias|sense|longest` is parsed once into a
//! [`Spec`] (`spec.rs`) and built by [`build`].
//!
//! `a+b` is the union of the matches of `a` and `b`; `x|f` passes the
//! matches of `x` through the filter `f`, left to right. Adding a retriever
//! or a filter is one file plus one line in its registry.

mod alias;
mod case;
mod closest;
mod control;
mod edit;
mod exact;
mod fuzzy;
mod irregular;
mod keys;
mod known;
mod lemmas;
mod longer;
mod longest;
mod normalised;
mod oracle;
pub mod params;
mod porter2;
mod sense;
mod shared;
mod spec;
mod split;
mod terms;
mod union;
mod windows;
mod wordmap;

pub(crate) use edit::EditBounds;
pub use fuzzy::{dice, trigrams, Gram};
pub use irregular::{exceptions, wordnet_dir, Exceptions, MissingExceptions};
pub(crate) use keys::without_leading_article;
pub(crate) use known::{is_english as is_english_word, nearest_english};
pub use lemmas::LEMMA;
pub(crate) use longer::Longer;
pub(crate) use longest::targets_agree;
pub(crate) use normalised::{stem_word, Stems};
pub use params::{BadParam, ParamKind, Params, Tunable, LEMMAS, TUNABLE};
pub(crate) use sense::{context_verdict, stems_to_own_key, Sense, Verdict};
pub use spec::{Part, Spec, UnknownRetriever};

use crate::glossary::Glossary;
use crate::phrase::{self, Phrase, Word};
use known::KnownWords;
use serde::Serialize;
use std::fmt;
use std::sync::Arc;
use std::sync::OnceLock;

/// How an entry matched. The eight kinds below are the built-in ones
/// (their JSON names are the lowercase variant names, pinned by
/// docs/formats.md); a retriever adds its own with [`MatchKind::Other`]
/// and a [`KindInfo`] in its file, listed in its [`RetrieverInfo::kinds`].
///
/// What every kind shares is the score scale ([`Match::score`]) and one
/// flag, [`KindInfo::approximate`]: the one place that says whether a
/// kind's matches are close spellings rather than the entry's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MatchKind {
    /// The phrase key equals the entry key.
    Exact,
    /// Equal after stemming every word.
    Stem,
    /// Character-trigram Dice at or above the threshold.
    Fuzzy,
    /// Within the edit-distance bound, word by word.
    Edit,
    /// The same letters split or joined differently (`home made`).
    Split,
    /// Through one of the entry's declared aliases.
    Alias,
    /// Taken from the post's label.
    Oracle,
    /// Drawn at random (the `random` control condition).
    Random,
    /// A kind a retriever declares in its own file.
    Other(&'static KindInfo),
}

/// What a match kind is called and how near its matches are.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KindInfo {
    /// The name in every output (`"kind": "lemma"`): lowercase, unique.
    pub(crate) name: &'static str,
    /// What it means, in a few words (the page shows it).
    pub(crate) summary: &'static str,
    /// Every match of this kind is a close spelling (a similarity or an
    /// edit bound), not the entry's words by a rule: `closest` ranks it
    /// below a match by stem or as written, the page underlines it dashed.
    /// A match of another kind is approximate when its score is below 1
    /// (an alias found through a typo): [`Match::is_approximate`].
    pub(crate) approximate: bool,
}

/// The built-in kinds, in [`MatchKind`]'s order.
const BUILT_IN_KINDS: [KindInfo; 8] = [
    KindInfo {
        name: "exact",
        summary: "the same words",
        approximate: false,
    },
    KindInfo {
        name: "stem",
        summary: "another form of the word",
        approximate: false,
    },
    KindInfo {
        name: "fuzzy",
        summary: "a close spelling",
        approximate: true,
    },
    KindInfo {
        name: "edit",
        summary: "a close spelling",
        approximate: true,
    },
    KindInfo {
        name: "split",
        summary: "the same letters, split or joined differently",
        approximate: false,
    },
    KindInfo {
        name: "alias",
        summary: "one of its other forms",
        approximate: false,
    },
    KindInfo {
        name: "oracle",
        summary: "taken from the label",
        approximate: false,
    },
    KindInfo {
        name: "random",
        summary: "drawn at random",
        approximate: false,
    },
];

impl MatchKind {
    /// The kind's name, summary and nearness.
    pub(crate) fn info(self) -> &'static KindInfo {
        let i = match self {
            MatchKind::Other(info) => return info,
            MatchKind::Exact => 0,
            MatchKind::Stem => 1,
            MatchKind::Fuzzy => 2,
            MatchKind::Edit => 3,
            MatchKind::Split => 4,
            MatchKind::Alias => 5,
            MatchKind::Oracle => 6,
            MatchKind::Random => 7,
        };
        &BUILT_IN_KINDS[i]
    }

    /// The name in every output.
    pub(crate) fn name(self) -> &'static str {
        self.info().name
    }

    /// Every match of this kind is approximate ([`KindInfo::approximate`]).
    pub(crate) fn is_approximate(self) -> bool {
        self.info().approximate
    }

    /// Whether a match of this kind with `score` is approximate: the kind
    /// is, or the score is below 1 ([`Match::is_approximate`]).
    pub(crate) fn approximate_at(self, score: f64) -> bool {
        self.is_approximate() || score < 1.0
    }

    /// The kind called `name`: a built-in one or one a registered
    /// retriever declares.
    pub(crate) fn named(name: &str) -> Option<MatchKind> {
        const BUILT_IN: [MatchKind; 8] = [
            MatchKind::Exact,
            MatchKind::Stem,
            MatchKind::Fuzzy,
            MatchKind::Edit,
            MatchKind::Split,
            MatchKind::Alias,
            MatchKind::Oracle,
            MatchKind::Random,
        ];
        let declared = REGISTRY.iter().flat_map(|r| r.kinds.iter().copied());
        BUILT_IN
            .into_iter()
            .find(|k| k.name() == name)
            .or_else(|| declared.map(MatchKind::Other).find(|k| k.name() == name))
    }
}

impl fmt::Display for MatchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for MatchKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for MatchKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<MatchKind, D::Error> {
        let name = std::borrow::Cow::<str>::deserialize(d)?;
        MatchKind::named(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown match kind `{name}`")))
    }
}

/// One entry matched by one phrase.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// Index of the entry in the glossary.
    pub entry: usize,
    pub kind: MatchKind,
    /// The phrase key that matched (empty for the oracle).
    pub phrase: String,
    /// How sure the match is, on one scale for every kind (docs/formats.md,
    /// "Scores"): 1 when the entry's words stand in the post by a rule
    /// (as written, by stem, an alias, split or joined, a lemma table);
    /// below 1 a similarity in [0, 1), higher is nearer (fuzzy's Dice,
    /// `1 - edits / characters` for edit). [`best_per_entry`] and
    /// `longest` compare scores across kinds, so a new kind puts 1 only on
    /// matches as sure as an exact one and maps its own measure into
    /// [0, 1) otherwise.
    pub score: f64,
    /// Word range `[first, first + len)` of the phrase in the post; `None`
    /// for matches that come from no phrase (the oracle).
    pub words: Option<(usize, usize)>,
}

impl Match {
    /// Whether the match is a close spelling rather than the entry's
    /// words: its kind is approximate, or its score is below 1 (an alias
    /// found through a typo). `closest` ranks, the trace flags and the
    /// page marks matches by this alone.
    pub(crate) fn is_approximate(&self) -> bool {
        self.kind.approximate_at(self.score)
    }

    /// Whether the match is the entry's source or an alias as written in
    /// the post (not found through a stem or a typo), with or without its
    /// leading article.
    pub(crate) fn is_written(&self, glossary: &Glossary) -> bool {
        let entry = &glossary.entries[self.entry];
        let without_article = || {
            std::iter::once((&entry.key, &entry.source))
                .chain(entry.alias_keys.iter().zip(&entry.aliases))
                .filter_map(|(key, written)| without_leading_article(key, written))
                .any(|(key, _)| key == self.phrase)
        };
        self.is_written_whole(glossary) || (self.kind == MatchKind::Alias && without_article())
    }

    /// Whether the match is the entry's source or an alias as written in
    /// the post, its article included.
    pub(crate) fn is_written_whole(&self, glossary: &Glossary) -> bool {
        let entry = &glossary.entries[self.entry];
        self.kind == MatchKind::Exact
            || entry.key == self.phrase
            || entry.alias_keys.contains(&self.phrase)
    }

    /// A match of the phrase at `span` (its key made here).
    pub(crate) fn of_span(
        entry: usize,
        kind: MatchKind,
        post: &PostView,
        span: &phrase::Span,
        score: f64,
    ) -> Match {
        Match {
            entry,
            kind,
            phrase: post.key_of(span.first_word, span.len),
            score,
            words: Some((span.first_word, span.len)),
        }
    }

    /// A match from no phrase of the post (the oracle's, a random draw's):
    /// no words, no phrase, score 1.
    pub(crate) fn unplaced(entry: usize, kind: MatchKind) -> Match {
        Match {
            entry,
            kind,
            phrase: String::new(),
            score: 1.0,
            words: None,
        }
    }

    pub(crate) fn of_phrase(entry: usize, kind: MatchKind, phrase: &Phrase, score: f64) -> Match {
        Match {
            entry,
            kind,
            phrase: phrase.key.clone(),
            score,
            words: Some((phrase.first_word, phrase.len)),
        }
    }
}

/// A post as retrievers see it: its words computed once, its phrases,
/// stems and tokens on first use, and the label's needed entries when the
/// post is labelled.
#[derive(Debug, Clone)]
pub struct PostView<'a> {
    pub(crate) text: &'a str,
    pub words: Vec<Word>,
    pub(crate) needed: Option<&'a [usize]>,
    /// Each word's segment (phrases never span two).
    segments: Vec<usize>,
    phrases: OnceLock<Vec<Phrase>>,
    spans: OnceLock<Vec<phrase::Span>>,
    /// The words' stems, shared by every retriever and filter that
    /// compares stems.
    stems: OnceLock<Vec<String>>,
    /// Which words are spelled right, and for which [`KnownWords`] (by
    /// address): the typo tiers of a composition share one.
    spelled_right: OnceLock<(usize, Vec<bool>)>,
    tokens: OnceLock<Vec<phrase::Token>>,
    parts: OnceLock<Vec<phrase::Part>>,
    /// Runs of words by length, for `sense`'s context phrases.
    windows: windows::WindowCache,
}

impl<'a> PostView<'a> {
    pub fn new(text: &'a str, needed: Option<&'a [usize]>) -> PostView<'a> {
        let words = phrase::words(text);
        let segments = words.iter().map(|w| w.segment).collect();
        PostView {
            text,
            words,
            needed,
            segments,
            phrases: OnceLock::new(),
            spans: OnceLock::new(),
            stems: OnceLock::new(),
            spelled_right: OnceLock::new(),
            tokens: OnceLock::new(),
            parts: OnceLock::new(),
            windows: windows::WindowCache::default(),
        }
    }

    /// Every phrase of 1–4 words (docs/formats.md phrase rules 1–5), as the approximate
    /// tiers look them up.
    pub fn phrases(&self) -> &[Phrase] {
        self.phrases.get_or_init(|| phrase::phrases_of(&self.words))
    }

    /// Where every phrase stands, in the order of [`PostView::phrases`],
    /// without making their keys.
    pub(crate) fn spans(&self) -> &[phrase::Span] {
        self.spans.get_or_init(|| phrase::spans_of(&self.words))
    }

    /// The Snowball English stem of each word, in order.
    pub(crate) fn stems(&self) -> &[String] {
        self.stems.get_or_init(|| {
            self.words
                .iter()
                .map(|w| normalised::stem_word(&w.text))
                .collect()
        })
    }

    /// Per word, whether a typo tier leaves it alone: `known` holds it
    /// spelled right, or it is written as a name or an acronym
    /// ([`phrase::is_name_or_acronym`], [`phrase::mark_names`]). Worked out once per post for the
    /// first word list asked (`edit` and the alias typo pass of a
    /// composition ask the same one).
    pub(crate) fn spelled_right(&self, known: &KnownWords) -> std::borrow::Cow<'_, [bool]> {
        let owner = known as *const KnownWords as usize;
        let work_out = || -> Vec<bool> {
            let shouting = phrase::is_shouting(self.text, &self.words);
            let mut right: Vec<bool> = self
                .words
                .iter()
                .zip(self.stems())
                .map(|(w, stem)| {
                    known.knows(&w.text, stem)
                        || phrase::is_name_or_acronym(&self.text[w.start..w.end], shouting)
                })
                .collect();
            phrase::mark_names(self.text, &self.words, &mut right);
            right
        };
        match self.spelled_right.get_or_init(|| (owner, work_out())) {
            (first, flags) if *first == owner => std::borrow::Cow::Borrowed(flags),
            _ => std::borrow::Cow::Owned(work_out()),
        }
    }

    /// The words and the visible characters between them.
    pub(crate) fn tokens(&self) -> &[phrase::Token] {
        self.tokens
            .get_or_init(|| phrase::tokens(self.text, &self.words))
    }

    /// The words split at their apostrophes ("year's": `year`, `s`).
    pub(crate) fn parts(&self) -> &[phrase::Part] {
        self.parts
            .get_or_init(|| phrase::parts(self.text, &self.words))
    }

    /// Where every run of `n` words inside one segment stands, by its
    /// stems or its words as written: indexed once per post and length.
    pub(crate) fn windows(&self, n: usize, by_stem: bool) -> Arc<windows::Windows> {
        self.windows.get(n, by_stem, || {
            if by_stem {
                windows::Windows::of(self.stems(), &self.segments, n)
            } else {
                let words: Vec<&str> = self.words.iter().map(|w| w.text.as_str()).collect();
                windows::Windows::of(&words, &self.segments, n)
            }
        })
    }

    /// Each word's segment.
    pub(crate) fn segments(&self) -> &[usize] {
        &self.segments
    }

    /// The original text of words `first..first + len`.
    pub(crate) fn span(&self, first: usize, len: usize) -> &'a str {
        &self.text[self.words[first].start..self.words[first + len - 1].end]
    }

    /// The phrase key of words `first..first + len`.
    pub(crate) fn key_of(&self, first: usize, len: usize) -> String {
        let words = &self.words[first..first + len];
        let mut key = String::with_capacity(words.iter().map(|w| w.text.len() + 1).sum());
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                key.push(' ');
            }
            key.push_str(&w.text);
        }
        key
    }

    /// The phrases that rule 5 allows to be looked up.
    pub(crate) fn lookup_phrases(&self) -> impl Iterator<Item = &Phrase> {
        self.phrases().iter().filter(|p| p.lookup)
    }
}

/// Turns a post into glossary matches. Matches may name an entry more than
/// once (one per phrase); [`best_per_entry`] keeps one each.
///
/// The contract (docs/formats.md, "Retrievers"): a retriever is built
/// once per glossary and parameters by its [`RetrieverInfo::build`],
/// which may fail with a [`BuildError`] (a file it needs is missing, a
/// parameter is wrong); `retrieve` may then fail for one post with a
/// [`RetrieveError`] (a service that did not answer), and the callers
/// record it for that post (a run's call, translate's trace) or stop
/// (eval). Every match's score is on the one scale of [`Match::score`]; a
/// kind of its own is a [`MatchKind::Other`].
pub trait Retriever: Send + Sync {
    fn retrieve(&self, post: &PostView) -> Result<Vec<Match>, RetrieveError>;

    /// Whether the retriever only works on labelled posts.
    fn needs_labels(&self) -> bool {
        false
    }
}

/// A retriever that cannot fail (every built-in one): its matches as a
/// plain list. Implementing it makes a type a [`Retriever`] whose
/// `retrieve` never errs.
pub(crate) trait Infallible: Send + Sync {
    fn matches(&self, post: &PostView) -> Vec<Match>;

    /// Whether the retriever only works on labelled posts.
    fn needs_labels(&self) -> bool {
        false
    }
}

impl<T: Infallible> Retriever for T {
    fn retrieve(&self, post: &PostView) -> Result<Vec<Match>, RetrieveError> {
        Ok(self.matches(post))
    }

    fn needs_labels(&self) -> bool {
        Infallible::needs_labels(self)
    }
}

/// Takes a post's matches (all of them, one per matching phrase) and keeps
/// some. Filters see every match, not only the best one per entry, so they
/// can tell where else an entry matched.
pub(crate) trait Filter: Send + Sync {
    fn filter(&self, post: &PostView, matches: Vec<Match>) -> Vec<Match>;
}

/// A retriever that reads the labelled answer (`oracle`, or a spec
/// holding it) asked for where the posts have no labels.
#[derive(Debug, thiserror::Error)]
#[error(
    "`{spec}` needs labelled posts (it returns the labelled answer): use it with `glossa eval`, \
     `glossa run` or `glossa check --labels`, or pick another retriever"
)]
pub struct NeedsLabels {
    pub(crate) spec: String,
}

/// `Ok` unless `retriever` needs labels: the one check every command that
/// retrieves for unlabelled posts makes.
pub fn refuse_without_labels(retriever: &dyn Retriever, spec: &str) -> Result<(), NeedsLabels> {
    match retriever.needs_labels() {
        true => Err(NeedsLabels {
            spec: spec.to_string(),
        }),
        false => Ok(()),
    }
}

/// Why a retriever or a filter could not be built: the message names the
/// retriever, and the file or parameter at fault.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The spec names no registered retriever or filter.
    #[error(transparent)]
    Unknown(#[from] UnknownRetriever),
    /// A parameter the retriever needs was not given.
    #[error("`{retriever}` needs --{flag}: {what}")]
    MissingParam {
        retriever: &'static str,
        /// The flag (the parameter's name with `-` for `_`).
        flag: String,
        /// What to give it, with an example.
        what: &'static str,
    },
    /// A file the retriever reads cannot be read.
    #[error("`{retriever}` cannot read {} (--{flag}): {error}", path.display())]
    MissingFile {
        retriever: &'static str,
        flag: String,
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// A line of such a file is not what the retriever reads.
    #[error("`{retriever}`: {}:{line}: {problem}", path.display())]
    BadFile {
        retriever: &'static str,
        path: std::path::PathBuf,
        line: usize,
        problem: String,
    },
    /// A parameter's value the retriever cannot use.
    #[error("`{retriever}`: {problem}")]
    BadParam {
        retriever: &'static str,
        problem: String,
    },
}

/// Why a retriever found no matches for one post (a model or a service
/// it asks did not answer): the retriever and what went wrong. The post
/// fails; the others go on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("retriever `{retriever}` failed: {message}")]
pub struct RetrieveError {
    pub(crate) retriever: String,
    pub(crate) message: String,
}

/// How a registered retriever is built.
pub(crate) type BuildRetriever =
    fn(&Arc<Glossary>, &Params) -> Result<Box<dyn Retriever>, BuildError>;

/// How a registered filter is built.
pub(crate) type BuildFilter = fn(&Arc<Glossary>, &Params) -> Result<Box<dyn Filter>, BuildError>;

/// A registered retriever.
pub struct RetrieverInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub(crate) build: BuildRetriever,
    /// The match kinds of its own it gives (beside the built-in ones), so
    /// that a saved result naming one reads back.
    pub(crate) kinds: &'static [&'static KindInfo],
}

/// A registered filter.
pub struct FilterInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub(crate) build: BuildFilter,
}

/// A named composition: a short name for a spec.
pub struct Composition {
    pub name: &'static str,
    pub(crate) spec: &'static str,
    pub summary: &'static str,
}

/// Every retriever, by name, in the order `glossa retrievers` lists them.
pub const REGISTRY: &[RetrieverInfo] = &[
    exact::INFO,
    normalised::INFO,
    irregular::INFO,
    fuzzy::INFO,
    fuzzy::BRUTE_INFO,
    edit::INFO,
    split::INFO,
    alias::INFO,
    lemmas::INFO,
    oracle::INFO,
    control::NONE_INFO,
    control::RANDOM_INFO,
];

/// Every filter, by name.
pub const FILTERS: &[FilterInfo] = &[sense::INFO, closest::INFO, longest::INFO];

/// The recommended composition: the default of `retrieve`, `translate` and `run`.
pub const RECOMMENDED: &str = "glossa";

/// Short names for compositions.
pub const COMPOSITIONS: &[Composition] = &[Composition {
    name: RECOMMENDED,
    spec: "normalised+irregular+edit+split+alias|closest|sense|longest",
    summary: "recommended: inflections (irregular ones too), bounded typos, split/joined words, aliases; then senses, longest match",
}];

/// The five reference retrievers of docs/formats.md, in report order.
pub const REFERENCE: &[&str] = &["exact", "normalised", "fuzzy", "normalised+fuzzy", "oracle"];

/// Expand a comma-separated list of specs (`all` → the reference five).
pub fn expand_list(list: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for spec in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let names: Vec<String> = if spec == "all" {
            REFERENCE.iter().map(|s| s.to_string()).collect()
        } else {
            vec![spec.to_string()]
        };
        for name in names {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// Build the retriever named by `spec` (see [`Spec`]): registered
/// retrievers and compositions joined by `+`, then filters after `|`.
pub fn build(
    spec: &str,
    glossary: &Arc<Glossary>,
    params: &Params,
) -> Result<Box<dyn Retriever>, BuildError> {
    Spec::parse(spec)?.build(glossary, params)
}

/// What `spec` would find less than it should for want of data that is
/// not installed, as a note for the user: WordNet's exception lists for
/// `irregular` (the default uses it). `None` when nothing is missing or
/// the spec does not parse (building it says why).
pub fn missing_data(spec: &str) -> Option<String> {
    let spec = Spec::parse(spec).ok()?;
    if !spec.uses(irregular::INFO.name) {
        return None;
    }
    irregular::exceptions().err().map(ToString::to_string)
}

/// One match per entry, in glossary order: the highest score, the earliest
/// one among equals (so a union prefers its first retriever).
pub fn best_per_entry(matches: Vec<Match>) -> Vec<Match> {
    let mut best: Vec<Match> = Vec::new();
    // Where each entry's best match is in `best`: a long post has thousands.
    let mut at: rustc_hash::FxHashMap<usize, usize> = Default::default();
    for m in matches {
        match at.get(&m.entry) {
            Some(&i) if m.score > best[i].score => best[i] = m,
            Some(_) => {}
            None => {
                at.insert(m.entry, best.len());
                best.push(m);
            }
        }
    }
    best.sort_by_key(|m| m.entry);
    best
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    /// A glossary from `(id, source)` pairs.
    pub(crate) fn glossary(entries: &[(&str, &str)]) -> Arc<Glossary> {
        let entries = entries
            .iter()
            .map(|(id, source)| format!(r#"{{"id":"{id}","source":"{source}","target":"t-{id}"}}"#))
            .collect::<Vec<_>>()
            .join(",");
        Arc::new(
            Glossary::parse(
                "test.json",
                "test",
                &format!(r#"{{"entries":[{entries}]}}"#),
            )
            .unwrap(),
        )
    }

    /// Ids retrieved by `spec` for `text`, with their kinds and phrases.
    pub(crate) fn run(
        spec: &str,
        g: &Arc<Glossary>,
        text: &str,
    ) -> Vec<(String, MatchKind, String)> {
        let r = build(spec, g, &Params::default()).unwrap();
        best_per_entry(r.retrieve(&PostView::new(text, None)).unwrap())
            .into_iter()
            .map(|m| (g.entries[m.entry].id.clone(), m.kind, m.phrase))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

    #[test]
    fn every_kind_keeps_its_json_name_and_reads_back() {
        // The built-in names are pinned by docs/formats.md; a declared kind
        // reads back through the registry; names are unique.
        let built_in = [
            (MatchKind::Exact, "exact"),
            (MatchKind::Stem, "stem"),
            (MatchKind::Fuzzy, "fuzzy"),
            (MatchKind::Edit, "edit"),
            (MatchKind::Split, "split"),
            (MatchKind::Alias, "alias"),
            (MatchKind::Oracle, "oracle"),
            (MatchKind::Random, "random"),
        ];
        let declared = REGISTRY
            .iter()
            .flat_map(|r| r.kinds.iter().map(|&k| (MatchKind::Other(k), k.name)));
        let mut names = Vec::new();
        for (kind, name) in built_in.into_iter().chain(declared) {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, name);
            assert_eq!(serde_json::from_value::<MatchKind>(json).unwrap(), kind);
            assert_eq!(kind.to_string(), name);
            names.push(name);
        }
        assert!(names.contains(&"lemma"));
        let unique: std::collections::BTreeSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        let err = serde_json::from_value::<MatchKind>(serde_json::json!("typo")).unwrap_err();
        assert!(
            err.to_string().contains("unknown match kind `typo`"),
            "{err}"
        );
    }

    #[test]
    fn approximate_is_the_kind_or_a_score_below_one() {
        let at = |kind: MatchKind, score: f64| Match {
            entry: 0,
            kind,
            phrase: "x".into(),
            score,
            words: Some((0, 1)),
        };
        assert!(at(MatchKind::Fuzzy, 1.0).is_approximate());
        assert!(at(MatchKind::Edit, 0.8).is_approximate());
        // An alias through a typo is; as written or by stem it is not.
        assert!(at(MatchKind::Alias, 0.9).is_approximate());
        for kind in [
            MatchKind::Exact,
            MatchKind::Stem,
            MatchKind::Split,
            MatchKind::Alias,
        ] {
            assert!(!at(kind, 1.0).is_approximate(), "{kind}");
        }
        assert!(!at(MatchKind::Other(&LEMMA), 1.0).is_approximate());
    }

    #[test]
    fn expand_list_dedups_and_expands_all() {
        assert_eq!(expand_list("exact, all"), REFERENCE);
        assert_eq!(expand_list("fuzzy,fuzzy"), ["fuzzy"]);
    }

    #[test]
    fn each_word_list_gets_its_own_answer_on_one_post() {
        let post = PostView::new("rountis and focacias", None);
        let rounti = KnownWords::new(&glossary(&[("r", "rounti")]));
        let focaccia = KnownWords::new(&glossary(&[("f", "focacias")]));
        // The first list asked is remembered; another still gets its own.
        assert_eq!(*post.spelled_right(&rounti), [true, true, false]);
        assert_eq!(*post.spelled_right(&focaccia), [false, true, true]);
        assert_eq!(*post.spelled_right(&rounti), [true, true, false]);
    }

    #[test]
    fn union_keeps_the_best_match_preferring_the_first_retriever() {
        let g = glossary(&[("cookie", "cookie"), ("tea", "tea")]);
        let got = run("normalised+fuzzy", &g, "Cookies and teas, cookiez");
        assert_eq!(
            got,
            [
                ("cookie".into(), MatchKind::Stem, "cookies".into()),
                ("tea".into(), MatchKind::Stem, "teas".into())
            ]
        );
    }
}
