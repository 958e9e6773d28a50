//! Per-use warnings: an ambiguous entry used in a post where nothing
//! confirms the sense the glossary means. `glossa lint` says it once per
//! glossary; this says it for the post at hand, where the owner is.
//!
//! An entry is ambiguous when one of its one-word keys is on lint's list
//! ([`crate::lint::listed_ambiguous`]) or when it has a `sense` (its owner
//! thought it needed one). A use is confirmed when the entry has a
//! `context` and the post fits it at that place (the `sense` filter's own
//! verdict: docs/formats.md, "Beyond the reference five", `sense`).

use crate::glossary::Glossary;
use crate::lint::{listed_ambiguous, Ambiguous};
use crate::retrieve::{context_verdict, Match, MatchKind, PostView, Verdict};
use serde::Serialize;

/// An ambiguous entry used without a `context` that confirms it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Unconfirmed {
    pub(crate) entry: String,
    pub(crate) source: String,
    pub(crate) target: String,
    /// The words of the post that matched, as written (the first such
    /// place).
    pub(crate) phrase: String,
    /// How it matched there.
    pub(crate) kind: MatchKind,
    /// The word of lint's ambiguous list it is, with the word's senses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) listed: Option<Ambiguous>,
    /// The entry's own `sense` note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sense: Option<String>,
    /// What the entry's `context` made of the place: `none` (no
    /// `context`), `contradicted` (a `not` phrase is there: a retriever
    /// without the `sense` filter kept it), `unsupported` (none of the
    /// `any` phrases is in the post).
    pub(crate) context: ContextState,
}

/// What an entry's `context` said where it was used unconfirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ContextState {
    None,
    Contradicted,
    Unsupported,
}

/// Per ambiguous entry among `kept` (the retriever's matches after its
/// filters, every place), the first place in the post where nothing
/// confirms its sense; entries in glossary order. Oracle matches come from
/// the label, which already says which sense the post means.
pub(crate) fn unconfirmed(
    glossary: &Glossary,
    view: &PostView,
    kept: &[Match],
) -> Vec<Unconfirmed> {
    let mut places: Vec<&Match> = kept
        .iter()
        .filter(|m| m.kind != MatchKind::Oracle && m.words.is_some())
        .collect();
    places.sort_by_key(|m| (m.entry, m.words));
    let mut out: Vec<Unconfirmed> = Vec::new();
    for m in places {
        let e = &glossary.entries[m.entry];
        if out.last().is_some_and(|u| u.entry == e.id) {
            continue;
        }
        let listed = listed_ambiguous(e);
        if listed.is_none() && e.sense.is_none() {
            continue;
        }
        let context = match context_verdict(e, view, m.words) {
            Some(Verdict::Kept) => continue,
            Some(Verdict::Contradicted { .. }) => ContextState::Contradicted,
            Some(Verdict::Unsupported) => ContextState::Unsupported,
            None => ContextState::None,
        };
        let (first, len) = m.words.expect("places have words");
        out.push(Unconfirmed {
            entry: e.id.clone(),
            source: e.source.clone(),
            target: e.target.clone(),
            phrase: view.span(first, len).to_string(),
            kind: m.kind,
            listed,
            sense: e.sense.clone(),
            context,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::{build, Params};
    use std::sync::Arc;

    fn cafe() -> Arc<Glossary> {
        Arc::new(Glossary::load(std::path::Path::new("glossaries/cafe.json")).unwrap())
    }

    /// The unconfirmed uses `spec` leaves in `text`: (entry, phrase, state).
    fn warned(g: &Arc<Glossary>, spec: &str, text: &str) -> Vec<(String, String, ContextState)> {
        let r = build(spec, g, &Params::default()).unwrap();
        let view = PostView::new(text, None);
        let kept = r.retrieve(&view).unwrap();
        unconfirmed(g, &view, &kept)
            .into_iter()
            .map(|u| (u.entry, u.phrase, u.context))
            .collect()
    }

    #[test]
    fn listed_words_and_entries_with_a_sense_warn_without_a_context() {
        // The café glossary's `roll` and `mint`, their `context` removed,
        // as an owner's first glossary has them.
        let mut g = (*cafe()).clone();
        for e in &mut g.entries {
            if e.id == "roll" || e.id == "mint" {
                e.context = None;
                e.sense = None;
            }
        }
        let g = Arc::new(g);
        let got = warned(
            &g,
            "glossa",
            "Rolling out our new menu! Vintage mugs in mint condition.",
        );
        let names: Vec<(&str, &str)> = got
            .iter()
            .map(|(e, p, _)| (e.as_str(), p.as_str()))
            .collect();
        assert_eq!(names, [("roll", "Rolling"), ("mint", "mint")]);
        assert!(got.iter().all(|(_, _, c)| *c == ContextState::None));
        // `tea` has a sense and no context: a use is never confirmed.
        assert_eq!(
            warned(&g, "glossa", "Mint tea, fresh."),
            [
                ("mint".into(), "Mint".into(), ContextState::None),
                ("tea".into(), "tea".into(), ContextState::None)
            ]
        );
    }

    #[test]
    fn a_context_the_post_fits_confirms_the_use() {
        let g = cafe();
        // `roll` (bacon is one of its `any` words) and `cookie` (only
        // `not` phrases, none in the post) are confirmed.
        assert!(warned(&g, "glossa", "A bacon roll and fresh cookies.").is_empty());
        // Without the `sense` filter, a contradicted place is kept, and
        // warned about; the filter drops it, so nothing is left to warn.
        assert_eq!(
            warned(&g, "normalised", "Save the date!"),
            [("date".into(), "date".into(), ContextState::Contradicted)]
        );
        assert!(warned(&g, "glossa", "Save the date!").is_empty());
        assert_eq!(
            warned(&g, "exact", "A roll of tape."),
            [("roll".into(), "roll".into(), ContextState::Unsupported)]
        );
    }

    #[test]
    fn plain_entries_never_warn() {
        let g = cafe();
        assert!(warned(&g, "glossa", "Cold coffee and a croissant.").is_empty());
    }
}
