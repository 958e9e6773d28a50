//! `sense` (a filter): keeps an entry's match only where the post fits the
//! entry's `context`. A match inside an occurrence of a `context.not`
//! phrase is dropped (only that one: "Save the date! Date & walnut loaf"
//! keeps the second date); an entry with `context.any` is kept only when
//! one of those phrases occurs somewhere in the post. Entries without
//! `context` pass.
//!
//! Phrases are compared as stemmed phrase keys, word by word, inside one
//! phrase segment (docs/formats.md phrase rules), so case, punctuation and
//! inflection do not matter: `rolling out` also blocks `rolled out`. A
//! phrase that stems to the entry's own key or alias (`dated` for `date`)
//! is compared as written instead: by its stems it would match every
//! occurrence of the entry itself (`glossa lint` flags such phrases).

use super::normalised::Stems;
use super::windows::hash_words;
use super::{Filter, FilterInfo, Match, Params, PostView};
use crate::glossary::{Entry, Glossary};
use crate::phrase;
use rustc_hash::FxHashMap as HashMap;

pub(crate) const INFO: FilterInfo = FilterInfo {
    name: "sense",
    summary: "drops a match inside a `context.not` phrase, and an entry with `context.any` when none occurs in the post (stemmed)",
    build: |g, _: &Params| Ok(Box::new(Sense::new(g))),
};

/// One context phrase: its words, compared by stem or as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern {
    words: Vec<String>,
    by_stem: bool,
    /// [`hash_words`] of `words`, the key of its runs in the post.
    hash: u64,
}

impl Pattern {
    fn new(words: Vec<String>, by_stem: bool) -> Pattern {
        Pattern {
            hash: hash_words(&words),
            words,
            by_stem,
        }
    }
}

/// An entry's context phrases.
struct Rule {
    any: Vec<Pattern>,
    not: Vec<Pattern>,
}

pub(crate) struct Sense {
    rules: Vec<Option<Rule>>,
}

/// Whether `phrase` (a context phrase of `entry`) stems to the entry's own
/// key or one of its aliases, so that matching it by stems would match the
/// entry wherever it occurs.
pub(crate) fn stems_to_own_key(stems: &mut Stems, entry: &Entry, phrase: &str) -> bool {
    let key = phrase::key(phrase);
    let stemmed = stems.key(&key);
    std::iter::once(&entry.key)
        .chain(&entry.alias_keys)
        .any(|own| stems.key(own) == stemmed)
}

/// An entry's context phrases as the filter compares them; `None` for an
/// entry without `context` or with empty lists.
fn rule_of(stems: &mut Stems, entry: &Entry) -> Option<Rule> {
    let mut patterns = |phrases: &[String]| -> Vec<Pattern> {
        phrases
            .iter()
            .map(|p| (p, phrase::key(p)))
            .filter(|(_, k)| !k.is_empty())
            .map(|(p, k)| {
                if stems_to_own_key(stems, entry, p) {
                    Pattern::new(k.split(' ').map(str::to_string).collect(), false)
                } else {
                    Pattern::new(
                        k.split(' ').map(|w| stems.word(w).to_string()).collect(),
                        true,
                    )
                }
            })
            .collect()
    };
    let c = entry.context.as_ref()?;
    let rule = Rule {
        any: patterns(&c.any),
        not: patterns(&c.not),
    };
    (!rule.any.is_empty() || !rule.not.is_empty()).then_some(rule)
}

impl Sense {
    pub(crate) fn new(glossary: &Glossary) -> Sense {
        let mut stems = Stems::default();
        let rules = glossary
            .entries
            .iter()
            .map(|e| rule_of(&mut stems, e))
            .collect();
        Sense { rules }
    }
}

/// What the sense rule makes of one match of an entry in one post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No rule, or the post fits it here.
    Kept,
    /// The match lies in an occurrence of a `context.not` phrase, at words
    /// `first..first + len`.
    Contradicted { first: usize, len: usize },
    /// The entry has `context.any` phrases and none occurs.
    Unsupported,
}

impl Sense {
    /// The verdict on the match of `entry` at `words` (a word range; `None`
    /// for a match from no phrase, judged by the whole post): what
    /// [`Filter::filter`] applies, and what `glossa serve` explains.
    pub(crate) fn verdict(
        &self,
        post: &PostView,
        entry: usize,
        words: Option<(usize, usize)>,
    ) -> Verdict {
        match &self.rules[entry] {
            None => Verdict::Kept,
            Some(rule) => StemmedPost::of(post).verdict(rule, words),
        }
    }
}

/// The verdict of `entry`'s own `context` on its match at `words`, the
/// rule made for this one entry (no index over the glossary): `None` when
/// the entry has no `context` to judge by.
pub(crate) fn context_verdict(
    entry: &Entry,
    post: &PostView,
    words: Option<(usize, usize)>,
) -> Option<Verdict> {
    let rule = rule_of(&mut Stems::default(), entry)?;
    Some(StemmedPost::of(post).verdict(&rule, words))
}

/// The post's words and stems, with their segments; its runs of words are
/// indexed once per post ([`PostView::windows`]), so each context phrase is
/// a lookup, not a scan of the post per match.
struct StemmedPost<'a> {
    post: &'a PostView<'a>,
}

impl StemmedPost<'_> {
    fn of<'a>(post: &'a PostView<'a>) -> StemmedPost<'a> {
        StemmedPost { post }
    }

    fn matches_at(&self, pattern: &Pattern, i: usize) -> bool {
        let n = pattern.words.len();
        let segments = self.post.segments();
        if segments[i + n - 1] != segments[i] {
            return false;
        }
        if pattern.by_stem {
            self.post.stems()[i..i + n] == pattern.words[..]
        } else {
            self.post.words[i..i + n]
                .iter()
                .zip(&pattern.words)
                .all(|(w, p)| w.text == *p)
        }
    }

    /// The first word of the first occurrence of `pattern` inside one
    /// segment that starts in `from..before`.
    fn first(&self, pattern: &Pattern, from: usize, before: usize) -> Option<usize> {
        let n = pattern.words.len();
        if n == 0 {
            return None;
        }
        let windows = self.post.windows(n, pattern.by_stem);
        let found = windows
            .at(pattern.hash, from)
            .take_while(|&i| i < before)
            .find(|&i| self.matches_at(pattern, i));
        found
    }

    fn verdict(&self, rule: &Rule, words: Option<(usize, usize)>) -> Verdict {
        let contradicted = rule.not.iter().find_map(|p| {
            let len = p.words.len();
            // An occurrence at `first` overlaps the match at `f..f + l`
            // when `first < f + l` and `f < first + len`.
            let (from, before) = match words {
                Some((f, l)) => ((f + 1).saturating_sub(len), f + l),
                None => (0, usize::MAX),
            };
            self.first(p, from, before).map(|first| (first, len))
        });
        if let Some((first, len)) = contradicted {
            Verdict::Contradicted { first, len }
        } else if !rule.any.is_empty()
            && rule
                .any
                .iter()
                .all(|p| self.first(p, 0, usize::MAX).is_none())
        {
            Verdict::Unsupported
        } else {
            Verdict::Kept
        }
    }
}

impl Filter for Sense {
    fn filter(&self, post: &PostView, matches: Vec<Match>) -> Vec<Match> {
        if matches.iter().all(|m| self.rules[m.entry].is_none()) {
            return matches;
        }
        let stemmed = StemmedPost::of(post);
        let mut keep: HashMap<(usize, Option<(usize, usize)>), bool> = HashMap::default();
        matches
            .into_iter()
            .filter(|m| {
                *keep.entry((m.entry, m.words)).or_insert_with(|| {
                    self.rules[m.entry]
                        .as_ref()
                        .is_none_or(|rule| stemmed.verdict(rule, m.words) == Verdict::Kept)
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;
    use super::super::MatchKind;
    use super::*;
    use crate::glossary::Glossary;
    use proptest::prelude::*;
    use std::sync::Arc;

    fn date(not: &str) -> Arc<Glossary> {
        Arc::new(
            Glossary::parse(
                "g.json",
                "g",
                &format!(
                    r#"{{"entries":[{{"id":"date","source":"date","target":"zimbo",
                    "context":{{"any":["walnut","fruit","cake","loaf"],"not":[{not}]}}}}]}}"#
                ),
            )
            .unwrap(),
        )
    }

    #[test]
    fn a_not_phrase_drops_only_the_match_inside_it() {
        let g = date(r#""save the date","up to date""#);
        assert_eq!(
            run(
                "normalised|sense",
                &g,
                "Save the date! Date & walnut loaf too."
            ),
            [("date".into(), MatchKind::Exact, "date".into())]
        );
        let kept = crate::retrieve::build("normalised|sense", &g, &Default::default())
            .unwrap()
            .retrieve(&crate::retrieve::PostView::new(
                "Save the date! Date & walnut loaf too.",
                None,
            ))
            .unwrap();
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert_eq!(kept[0].words, Some((3, 1)));
        assert!(run(
            "normalised|sense",
            &g,
            "Save the date for our walnut party."
        )
        .is_empty());
    }

    #[test]
    fn a_not_phrase_that_stems_to_the_key_is_matched_as_written() {
        let g = date(r#""dated""#);
        assert_eq!(
            run("normalised|sense", &g, "Date and walnut cake, fresh fruit.").len(),
            1
        );
        // "dated" itself (a stem match of date) is still left out.
        assert!(run("normalised|sense", &g, "A dated walnut cake menu.").is_empty());
    }

    /// The verdict as first written: every context phrase compared with
    /// the words at every place of the post.
    fn reference(post: &PostView, rule: &Rule, words: Option<(usize, usize)>) -> Verdict {
        let segments = post.segments();
        let occurs_at = |p: &Pattern, i: usize| {
            let n = p.words.len();
            i + n <= post.words.len()
                && segments[i] == segments[i + n - 1]
                && (0..n).all(|k| {
                    let word = if p.by_stem {
                        post.stems()[i + k].as_str()
                    } else {
                        post.words[i + k].text.as_str()
                    };
                    word == p.words[k]
                })
        };
        for p in &rule.not {
            let len = p.words.len();
            for first in 0..post.words.len() {
                let covers = words.is_none_or(|(f, l)| first < f + l && f < first + len);
                if covers && occurs_at(p, first) {
                    return Verdict::Contradicted { first, len };
                }
            }
        }
        let occurs = |p: &Pattern| (0..post.words.len()).any(|i| occurs_at(p, i));
        if !rule.any.is_empty() && !rule.any.iter().any(occurs) {
            Verdict::Unsupported
        } else {
            Verdict::Kept
        }
    }

    const WORDS: [&str; 10] = [
        "date", "dates", "dated", "save", "the", "up", "to", "walnut", "loaf", "saved",
    ];

    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            4 => proptest::sample::select(&WORDS[..]).prop_map(str::to_string),
            1 => proptest::sample::select(&[".", ",", "!", "Date", "SAVE"][..]).prop_map(str::to_string),
        ];
        proptest::collection::vec(piece, 0..60).prop_map(|p| p.join(" "))
    }

    fn phrases() -> impl Strategy<Value = Vec<String>> {
        let phrase = proptest::collection::vec(proptest::sample::select(&WORDS[..]), 1..4)
            .prop_map(|w| w.join(" "));
        proptest::collection::vec(phrase, 0..4)
    }

    proptest! {
        #[test]
        fn verdicts_are_those_of_scanning_the_whole_post(
            post in text(),
            any in phrases(),
            not in phrases(),
            places in proptest::collection::vec((0..60usize, 1..4usize), 0..8),
        ) {
            let g = Glossary::parse(
                "g.json",
                "g",
                &serde_json::json!({"entries": [
                    {"id": "date", "source": "date", "target": "zimbo",
                     "aliases": ["save"], "context": {"any": any, "not": not}},
                    {"id": "loaf", "source": "loaf", "target": "brot"},
                ]})
                .to_string(),
            )
            .unwrap();
            let view = PostView::new(&post, None);
            let sense = Sense::new(&g);
            let rule = rule_of(&mut Stems::default(), &g.entries[0]);
            let count = view.words.len();
            let mut asked: Vec<Option<(usize, usize)>> = vec![None];
            asked.extend(
                places
                    .into_iter()
                    .filter(|&(f, l)| f + l <= count)
                    .map(Some),
            );
            asked.extend((0..count).map(|f| Some((f, 1))));
            for words in asked {
                let want = rule
                    .as_ref()
                    .map_or(Verdict::Kept, |r| reference(&view, r, words));
                prop_assert_eq!(sense.verdict(&view, 0, words), want);
                prop_assert_eq!(
                    context_verdict(&g.entries[0], &view, words),
                    rule.as_ref().map(|_| want)
                );
                prop_assert_eq!(sense.verdict(&view, 1, words), Verdict::Kept);
            }
        }
    }
}
