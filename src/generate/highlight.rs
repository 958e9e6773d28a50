//! Where each used entry's target stands in a translation, cut into
//! segments: what the page highlights and what the offline provider marks.

use super::pipeline::UsedEntry;
use crate::target_match::{self, Haystack};
use serde::Serialize;

/// A piece of the translation: plain text, or a glossary target standing
/// for `entry` (an index into the response's `entries`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Segment {
    pub(crate) text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) entry: Option<usize>,
}

/// Cut `output` into segments so that every place of a used entry's
/// target or form (by [`target_match`]'s rule, longest first, no overlaps)
/// is its own segment.
pub(crate) fn highlight(output: &str, used: &[UsedEntry]) -> Vec<Segment> {
    let spellings = super::pipeline::spellings(used);
    let places = target_match::claim_cased(&Haystack::new(output), &spellings, |i| {
        used[i].case_sensitive
    });
    let mut out = Vec::new();
    let mut at = 0;
    for (place, entry) in places {
        if place.start > at {
            out.push(Segment {
                text: output[at..place.start].to_string(),
                entry: None,
            });
        }
        at = place.end;
        out.push(Segment {
            text: output[place].to_string(),
            entry: Some(entry),
        });
    }
    if at < output.len() || out.is_empty() {
        out.push(Segment {
            text: output[at..].to_string(),
            entry: None,
        });
    }
    out
}
