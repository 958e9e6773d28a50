//! What the page shows besides the translation: where each glossary target
//! stands in it, and why an entry whose words are in the post was left out
//! (its `context` says the post means something else, or its words are
//! part of a longer entry's: "cream" in "ice cream").

pub use crate::generate::highlight::{highlight, Segment};
use crate::generate::pipeline::UsedEntry;
use crate::glossary::{Entry, Glossary};
use crate::retrieve::{best_per_entry, PostView, Retriever, Sense, Spec, Verdict};
use serde::Serialize;
use std::sync::Arc;

/// An entry whose words are in the post but which the retriever's filters
/// dropped: because of its `context`, or because they are part of a longer
/// entry's words (`longest`).
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    pub id: String,
    pub source: String,
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sense: Option<String>,
    /// The words of the post that matched it, as written.
    pub phrase: String,
    /// The `context.not` phrase found in the post, as written there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post_says: Option<String>,
    /// The entry's `context.any` phrases, none of which is in the post.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs_one_of: Vec<String>,
    /// The id of the longer entry used whose words hold this one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part_of: Option<String>,
    /// Word ranges, in the (simplified) text, of every phrase that matched
    /// it: the words this entry would have covered.
    #[serde(skip)]
    pub words: Vec<(usize, usize)>,
    /// A sentence for the reader.
    pub message: String,
}

/// The part of a retriever spec before its filters, with compositions
/// expanded: `glossa` → `normalised+edit+split+alias`. `None` when the spec
/// has no filter anywhere, or does not parse (building it says why).
pub fn unfiltered_spec(spec: &str) -> Option<String> {
    let unfiltered = Spec::parse(spec).ok()?.unfiltered()?;
    Some(unfiltered.to_string())
}

/// Entries that `unfiltered` (the retriever without its filters, see
/// [`unfiltered_spec`]) finds in `text` but that are not in `used`, and
/// whose `context`, or a longer entry used over the same words, explains
/// why.
pub fn left_out(
    glossary: &Arc<Glossary>,
    unfiltered: &dyn Retriever,
    text: &str,
    used: &[UsedEntry],
) -> Vec<LeftOut> {
    let view = PostView::new(text, None);
    let sense = Sense::new(glossary);
    let quote = |first: usize, len: usize| {
        text[view.words[first].start..view.words[first + len - 1].end].to_string()
    };
    let mut out = Vec::new();
    let all = unfiltered.retrieve(&view);
    let used_index: Vec<usize> = used
        .iter()
        .filter_map(|u| glossary.index_of(&u.entry))
        .collect();
    // A match of a used entry over more words, holding all of `words`,
    // with its words.
    let holder = |entry: usize, (first, len): (usize, usize)| {
        all.iter().find_map(|o| {
            let (of, ol) = o.words?;
            let holds = o.entry != entry
                && used_index.contains(&o.entry)
                && ol > len
                && of <= first
                && first + len <= of + ol;
            holds.then_some((o, (of, ol)))
        })
    };
    for m in best_per_entry(all.clone()) {
        if used_index.contains(&m.entry) {
            continue;
        }
        let entry: &Entry = &glossary.entries[m.entry];
        let Some((at, words)) = m.words else {
            continue;
        };
        let phrase = quote(at, words);
        // The sense filter's own verdict, so the page explains what it did.
        let verdict = match &entry.context {
            Some(_) => sense.verdict(&view, m.entry, m.words),
            None => Verdict::Kept,
        };
        let mut part_of = None;
        let (message, says, needs_one_of) = match verdict {
            Verdict::Contradicted { first, len } => {
                let says = quote(first, len);
                let message = format!(
                    "'{}' was left out here: the post says '{}'",
                    phrase.to_lowercase(),
                    says.to_lowercase()
                );
                (message, Some(says), Vec::new())
            }
            Verdict::Unsupported => {
                // Only an entry with a `context` gets this verdict.
                let any = entry.context.as_ref().map_or(&[][..], |c| &c.any[..]);
                let message = format!(
                    "'{}' was left out here: nothing in the post points to {} (looked for: {})",
                    phrase.to_lowercase(),
                    entry.sense.as_deref().map_or_else(
                        || format!("the sense of '{}'", entry.source),
                        str::to_string
                    ),
                    any.join(", ")
                );
                (message, None, any.to_vec())
            }
            Verdict::Kept => {
                // Every place of it is part of a longer entry used there.
                let holders: Option<Vec<_>> = all
                    .iter()
                    .filter(|a| a.entry == m.entry)
                    .map(|a| holder(m.entry, a.words?))
                    .collect();
                let Some(&(longer, (of, ol))) = holders.as_deref().and_then(<[_]>::first) else {
                    continue;
                };
                let outer = &glossary.entries[longer.entry];
                part_of = Some(outer.id.clone());
                let message = format!(
                    "'{}' was left out here: it is part of '{}', which `{}` translates as '{}'",
                    phrase.to_lowercase(),
                    quote(of, ol).to_lowercase(),
                    outer.id,
                    outer.target
                );
                (message, None, Vec::new())
            }
        };
        out.push(LeftOut {
            id: entry.id.clone(),
            source: entry.source.clone(),
            target: entry.target.clone(),
            sense: entry.sense.clone(),
            phrase,
            post_says: says,
            needs_one_of,
            part_of,
            words: all
                .iter()
                .filter(|a| a.entry == m.entry)
                .filter_map(|a| a.words)
                .collect(),
            message,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::MatchKind;

    fn used(entry: &str, target: &str) -> UsedEntry {
        UsedEntry {
            entry: entry.into(),
            source: entry.into(),
            target: target.into(),
            kind: MatchKind::Exact,
            phrase: entry.into(),
            score: 1.0,
            sense: None,
            forms: Vec::new(),
        }
    }

    #[test]
    fn longest_target_wins_and_words_must_stand_alone() {
        let segs = highlight(
            "Frosk mavi and mavi, not mavis.",
            &[used("coffee", "mavi"), used("cold-coffee", "frosk mavi")],
        );
        let marked: Vec<(&str, Option<usize>)> =
            segs.iter().map(|s| (s.text.as_str(), s.entry)).collect();
        assert_eq!(
            marked,
            [
                ("Frosk mavi", Some(1)),
                (" and ", None),
                ("mavi", Some(0)),
                (", not mavis.", None)
            ]
        );
    }

    #[test]
    fn forms_and_scripts_without_spaces_are_highlighted() {
        let mut canal = used("canal", "Spinalkanal");
        canal.forms = vec!["Spinalkanals".into()];
        let segs = highlight(
            "Enge des Spinalkanals; 模型的输出",
            &[canal, used("model", "模型")],
        );
        let marked: Vec<(&str, Option<usize>)> =
            segs.iter().map(|s| (s.text.as_str(), s.entry)).collect();
        assert_eq!(
            marked,
            [
                ("Enge des ", None),
                ("Spinalkanals", Some(0)),
                ("; ", None),
                ("模型", Some(1)),
                ("的输出", None)
            ]
        );
    }

    #[test]
    fn no_targets_is_one_plain_segment() {
        assert_eq!(
            highlight("", &[]),
            [Segment {
                text: String::new(),
                entry: None
            }]
        );
    }

    #[test]
    fn compositions_expand_to_their_unfiltered_part() {
        assert_eq!(unfiltered_spec("normalised+fuzzy"), None);
        assert_eq!(unfiltered_spec("exact|sense").as_deref(), Some("exact"));
        let glossa = unfiltered_spec(crate::retrieve::RECOMMENDED);
        assert!(
            glossa
                .as_deref()
                .is_some_and(|s| !s.contains('|') && !s.contains("glossa")),
            "{glossa:?}"
        );
    }

    #[test]
    fn a_term_inside_a_longer_one_is_explained() {
        let g = Arc::new(
            Glossary::parse(
                "g.json",
                "g",
                r#"{"entries":[{"id":"cream","source":"cream","target":"Sahne"},
                   {"id":"ice-cream","source":"ice cream","target":"Eis"}]}"#,
            )
            .unwrap(),
        );
        let unfiltered = unfiltered_spec(crate::retrieve::RECOMMENDED).unwrap();
        let r = crate::retrieve::build(&unfiltered, &g, &Default::default()).unwrap();
        let out = left_out(
            &g,
            r.as_ref(),
            "Ice Cream today",
            &[used("ice-cream", "Eis")],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].message,
            "'cream' was left out here: it is part of 'ice cream', which `ice-cream` translates as 'Eis'"
        );
        assert_eq!(out[0].part_of.as_deref(), Some("ice-cream"));
        // Written on its own too and still left out: not for this reason.
        let out = left_out(
            &g,
            r.as_ref(),
            "Ice cream and cream",
            &[used("ice-cream", "Eis")],
        );
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn save_the_date_explains_why_the_fruit_was_left_out() {
        let g = Arc::new(
            Glossary::parse(
                "g.json",
                "g",
                r#"{"entries":[{"id":"date","source":"date","target":"zimbo",
                   "context":{"any":["fruit"],"not":["save the date"]}}]}"#,
            )
            .unwrap(),
        );
        // What `exact|sense` finds before its filter.
        assert_eq!(unfiltered_spec("exact|sense").as_deref(), Some("exact"));
        let exact = crate::retrieve::build("exact", &g, &Default::default()).unwrap();
        let out = left_out(&g, exact.as_ref(), "Save the Date: brunch!", &[]);
        assert_eq!(out.len(), 1);
        assert_eq!(
            out[0].message,
            "'date' was left out here: the post says 'save the date'"
        );
        let out = left_out(&g, exact.as_ref(), "A date to remember", &[]);
        assert!(
            out[0]
                .message
                .starts_with("'date' was left out here: nothing in the post points to"),
            "{}",
            out[0].message
        );
        // A post that fits the context keeps the entry: nothing to explain.
        let kept = "Date fruit, fresh";
        assert!(left_out(&g, exact.as_ref(), kept, &[]).is_empty());
    }
}
