//! What the page shows besides the translation: where each glossary target
//! stands in it, and why an entry whose words are in the post was left out
//! (its `context` says the post means something else, or its words are
//! part of a longer entry's: "cream" in "ice cream").

pub(crate) use crate::generate::highlight::{highlight, Segment};
use crate::generate::pipeline::UsedEntry;
use crate::glossary::{Entry, Glossary};
use crate::retrieve::{best_per_entry, Longer, Match, PostView, Retriever, Sense, Spec, Verdict};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;
use std::ops::Range;
use std::sync::Arc;

/// An entry whose words are in the post but which the retriever's filters
/// dropped: because of its `context`, or because they are part of a longer
/// entry's words (`longest`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LeftOut {
    pub(crate) id: String,
    pub(crate) source: String,
    pub(crate) target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sense: Option<String>,
    /// The words of the post that matched it, as written.
    pub(crate) phrase: String,
    /// The `context.not` phrase found in the post, as written there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) post_says: Option<String>,
    /// The entry's `context.any` phrases, none of which is in the post.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) needs_one_of: Vec<String>,
    /// The id of the longer entry used whose words hold this one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) part_of: Option<String>,
    /// Word ranges, in the (simplified) text, of the phrases explained:
    /// the words this entry would have covered.
    #[serde(skip)]
    pub(crate) words: Vec<(usize, usize)>,
    /// A sentence for the reader.
    pub(crate) message: String,
}

/// The part of a retriever spec before its filters, with compositions
/// expanded: `glossa` → `normalised+irregular+edit+split+alias`. `None` when the spec
/// has no filter anywhere, or does not parse (building it says why).
pub(crate) fn unfiltered_spec(spec: &str) -> Option<String> {
    let unfiltered = Spec::parse(spec).ok()?.unfiltered()?;
    Some(unfiltered.to_string())
}

/// Entries that `unfiltered` (the retriever without its filters, see
/// [`unfiltered_spec`]) finds in `text` at places where the filtered one
/// kept no match of them (`used` with their places), and whose `context`,
/// or a longer entry used over the same words, explains why. An entry not
/// used at all is explained once; a used entry, at each place it was left
/// out ("Save the date! Sticky date loaf.": the first date).
pub(crate) fn left_out(
    glossary: &Arc<Glossary>,
    unfiltered: &dyn Retriever,
    text: &str,
    used: &[UsedEntry],
) -> Vec<LeftOut> {
    let view = PostView::new(text, None);
    // A retriever that fails here failed in the pipeline too, which
    // reports it: nothing is explained then.
    let all = unfiltered.retrieve(&view).unwrap_or_default();
    // Each entry's matches, the used entries and who holds whom, found
    // once: a long post has thousands of matches.
    let mut of_entry: HashMap<usize, Vec<usize>> = HashMap::default();
    for (i, m) in all.iter().enumerate() {
        of_entry.entry(m.entry).or_default().push(i);
    }
    let mut used_by_index: HashMap<usize, &UsedEntry> = HashMap::default();
    for u in used {
        if let Some(i) = glossary.index_of(&u.entry) {
            used_by_index.entry(i).or_insert(u);
        }
    }
    let explainer = Explainer {
        glossary,
        view: &view,
        sense: Sense::new(glossary),
        longer: Longer::of(&all),
        all,
        of_entry,
        used: used_by_index,
    };
    let mut out = Vec::new();
    for m in best_per_entry(explainer.all.clone()) {
        match explainer.used_as(m.entry) {
            None => out.extend(explainer.unused(&m)),
            // Used from no phrase (the oracle): no place to tell apart.
            Some(kept) if kept.places.is_empty() => {}
            Some(kept) => out.extend(explainer.places_left_out(m.entry, &kept.places)),
        }
    }
    out
}

/// What [`left_out`] reads: the post, the unfiltered matches, the entries
/// used (by glossary index).
struct Explainer<'a> {
    glossary: &'a Glossary,
    view: &'a PostView<'a>,
    sense: Sense,
    all: Vec<Match>,
    /// Per entry, the indices of its matches in `all`.
    of_entry: HashMap<usize, Vec<usize>>,
    longer: Longer,
    used: HashMap<usize, &'a UsedEntry>,
}

/// Why one place was left out (the fields of [`LeftOut`] of that name).
struct Why {
    message: String,
    post_says: Option<String>,
    needs_one_of: Vec<String>,
    part_of: Option<String>,
}

impl Why {
    fn said(message: String) -> Why {
        Why {
            message,
            post_says: None,
            needs_one_of: Vec::new(),
            part_of: None,
        }
    }
}

impl Explainer<'_> {
    fn used_as(&self, entry: usize) -> Option<&UsedEntry> {
        self.used.get(&entry).copied()
    }

    /// The matches of `entry`, in the order found.
    fn matches_of(&self, entry: usize) -> impl Iterator<Item = &Match> {
        self.of_entry
            .get(&entry)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&i| &self.all[i])
    }

    fn quote(&self, first: usize, len: usize) -> String {
        self.view.span(first, len).to_string()
    }

    /// A match of a used entry over more words, holding all of `words`,
    /// with its words.
    fn holder(
        &self,
        entry: usize,
        (first, len): (usize, usize),
    ) -> Option<(usize, (usize, usize))> {
        // The first such match in `all`.
        let o = self
            .longer
            .holding_words((first, len))
            .filter(|&o| self.all[o].entry != entry && self.used_as(self.all[o].entry).is_some())
            .min()?;
        Some((self.all[o].entry, self.all[o].words?))
    }

    /// The message for words inside a longer entry used there.
    fn part_of(&self, phrase: &str, longer: usize, (of, ol): (usize, usize)) -> Why {
        let outer = &self.glossary.entries[longer];
        let message = format!(
            "'{}' was left out here: it is part of '{}', which `{}` translates as '{}'",
            phrase.to_lowercase(),
            self.quote(of, ol).to_lowercase(),
            outer.id,
            outer.target
        );
        Why {
            part_of: Some(outer.id.clone()),
            ..Why::said(message)
        }
    }

    /// The sense filter's own verdict at `words`, so the page explains
    /// what it did; `None` when the entry's `context` keeps it there.
    fn sense_why(&self, entry: usize, words: (usize, usize), phrase: &str) -> Option<Why> {
        let e = &self.glossary.entries[entry];
        e.context.as_ref()?;
        match self.sense.verdict(self.view, entry, Some(words)) {
            Verdict::Contradicted { first, len } => {
                let says = self.quote(first, len);
                let message = format!(
                    "'{}' was left out here: the post says '{}'",
                    phrase.to_lowercase(),
                    says.to_lowercase()
                );
                Some(Why {
                    post_says: Some(says),
                    ..Why::said(message)
                })
            }
            Verdict::Unsupported => {
                // Only an entry with a `context` gets this verdict.
                let any = e.context.as_ref().map_or(&[][..], |c| &c.any[..]);
                let message = format!(
                    "'{}' was left out here: nothing in the post points to {} (looked for: {})",
                    phrase.to_lowercase(),
                    e.sense
                        .as_deref()
                        .map_or_else(|| format!("the sense of '{}'", e.source), str::to_string),
                    any.join(", ")
                );
                Some(Why {
                    needs_one_of: any.to_vec(),
                    ..Why::said(message)
                })
            }
            Verdict::Kept => None,
        }
    }

    /// An entry not used at all, explained at its best match.
    fn unused(&self, m: &Match) -> Option<LeftOut> {
        let words = m.words?;
        let phrase = self.quote(words.0, words.1);
        let why = match self.sense_why(m.entry, words, &phrase) {
            Some(why) => why,
            None => {
                // Every place of it is part of a longer entry used there.
                let holders: Option<Vec<_>> = self
                    .matches_of(m.entry)
                    .map(|a| self.holder(m.entry, a.words?))
                    .collect();
                let &(longer, at) = holders.as_deref()?.first()?;
                self.part_of(&phrase, longer, at)
            }
        };
        let places = self.matches_of(m.entry).filter_map(|a| a.words).collect();
        Some(self.record(m.entry, phrase, why, places))
    }

    /// A used entry's places that the filters dropped (no kept place
    /// overlaps them), each explained.
    fn places_left_out(&self, entry: usize, kept: &[Range<usize>]) -> Vec<LeftOut> {
        // Kept places by start, with the furthest end so far: a place
        // overlaps one of them when the furthest end among those starting
        // before it ends lies past its start.
        let mut kept: Vec<&Range<usize>> = kept.iter().collect();
        kept.sort_by_key(|k| k.start);
        let reach: Vec<usize> = kept
            .iter()
            .scan(0, |far, k| {
                *far = k.end.max(*far);
                Some(*far)
            })
            .collect();
        let overlaps_kept = |bytes: &Range<usize>| {
            let before = kept.partition_point(|k| k.start < bytes.end);
            before > 0 && reach[before - 1] > bytes.start
        };
        let mut places: Vec<(usize, usize)> = self
            .matches_of(entry)
            .filter_map(|a| a.words)
            .filter(|&(first, len)| {
                let bytes = self.view.words[first].start..self.view.words[first + len - 1].end;
                !overlaps_kept(&bytes)
            })
            .collect();
        places.sort_unstable();
        places.dedup();
        let mut out: Vec<LeftOut> = Vec::new();
        let mut said: HashSet<String> = HashSet::default();
        for words in places {
            let phrase = self.quote(words.0, words.1);
            let why = match self.sense_why(entry, words, &phrase) {
                Some(why) => why,
                None => match self.holder(entry, words) {
                    Some((longer, at)) => self.part_of(&phrase, longer, at),
                    None => continue,
                },
            };
            // One word inside another match of the same entry: once.
            if said.insert(why.message.clone()) {
                out.push(self.record(entry, phrase, why, vec![words]));
            }
        }
        out
    }

    /// The [`LeftOut`] of `entry` at `words`, for the reason `why`.
    fn record(
        &self,
        entry: usize,
        phrase: String,
        why: Why,
        words: Vec<(usize, usize)>,
    ) -> LeftOut {
        let e: &Entry = &self.glossary.entries[entry];
        let Why {
            message,
            post_says,
            needs_one_of,
            part_of,
        } = why;
        LeftOut {
            id: e.id.clone(),
            source: e.source.clone(),
            target: e.target.clone(),
            sense: e.sense.clone(),
            phrase,
            post_says,
            needs_one_of,
            part_of,
            words,
            message,
        }
    }
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
            case_sensitive: false,
            keep: false,
            forms: Vec::new(),
            forbidden: Vec::new(),
            places: Vec::new(),
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

    #[test]
    fn a_used_entry_is_explained_where_it_was_left_out() {
        let g = Arc::new(Glossary::load(std::path::Path::new("glossaries/cafe.json")).unwrap());
        let unfiltered = unfiltered_spec(crate::retrieve::RECOMMENDED).unwrap();
        let r = crate::retrieve::build(&unfiltered, &g, &Default::default()).unwrap();
        // The sense filter kept the loaf's date, not the first one.
        let text = "Save the date!\nSticky date loaf, date night.";
        let loaf = text.find("date loaf").unwrap();
        let mut date = used("date", "zimbo");
        date.places = std::iter::once(loaf..loaf + 4).collect();
        let out = left_out(&g, r.as_ref(), text, &[date.clone()]);
        let said: Vec<(&str, Option<&str>)> = out
            .iter()
            .map(|o| (o.message.as_str(), o.post_says.as_deref()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "'date' was left out here: the post says 'save the date'",
                    Some("Save the date")
                ),
                (
                    "'date' was left out here: the post says 'date night'",
                    Some("date night")
                )
            ]
        );
        assert_eq!(out[0].words, [(2, 1)]);
        // Kept everywhere: nothing to explain.
        date.places = text
            .match_indices("date")
            .map(|(at, _)| at..at + 4)
            .collect();
        assert!(left_out(&g, r.as_ref(), text, &[date]).is_empty());
    }
}
