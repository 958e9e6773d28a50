//! The "failing posts" table of `eval --show failing` and `run --show
//! failing`: each post a retriever left incomplete (eval), or whose calls
//! were not all right (run), with what went wrong.

use super::{Align, Table};
use crate::dataset::Split;
use crate::eval::EvalResult;
use crate::run_dir::calls::{for_each_call, CallsError};
use crate::run_dir::latest::Latest;
use crate::run_dir::record::CallRecord;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// A post an eval retriever left incomplete.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FailingPost {
    pub(crate) retriever: String,
    pub(crate) post: String,
    pub(crate) split: Split,
    pub(crate) missed: Vec<String>,
    pub(crate) wrong_sense: Vec<String>,
    pub(crate) extra: Vec<String>,
}

/// Every incomplete post of every retriever, in the result's order.
pub(crate) fn eval_failing(result: &EvalResult) -> Vec<FailingPost> {
    result
        .retrievers
        .iter()
        .flat_map(|r| {
            r.per_post
                .iter()
                .filter(|p| !p.complete)
                .map(|p| FailingPost {
                    retriever: r.name.clone(),
                    post: p.post.clone(),
                    split: p.split,
                    missed: p.missed.clone(),
                    wrong_sense: p.wrong_sense.clone(),
                    extra: p.extra.clone(),
                })
        })
        .collect()
}

/// The table of [`eval_failing`]; `kept` says whether the result holds
/// per-post details at all.
pub(crate) fn eval_table(failing: &[FailingPost], kept: bool) -> Table {
    let note = if kept {
        "Failing posts: none (every post complete)"
    } else {
        "Failing posts: not known (per-post details were left out; --per-post on keeps them)"
    };
    let mut t = Table::new(
        Some(&format!("Failing posts: {}", failing.len())),
        &[
            ("Retriever", Align::Left),
            ("Post", Align::Left),
            ("Split", Align::Left),
            ("Missed", Align::Left),
            ("Wrong sense", Align::Left),
            ("Extra", Align::Left),
        ],
    )
    .when_empty(note);
    for f in failing {
        t.push(vec![
            f.retriever.clone(),
            f.post.clone(),
            f.split.to_string(),
            f.missed.join(", "),
            f.wrong_sense.join(", "),
            f.extra.join(", "),
        ]);
    }
    t
}

/// A post of a run whose calls were not all right.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailingRunPost {
    pub(crate) retriever: String,
    pub(crate) post: String,
    pub(crate) right: usize,
    pub(crate) calls: usize,
    /// Calls that got no output.
    pub(crate) failed: usize,
    /// Needed entries whose target was missing from an output, each once.
    pub(crate) missing: Vec<String>,
    /// Wrong-sense entries whose target stood in an output, each once.
    pub(crate) leaked: Vec<String>,
    /// The first failed call's error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

/// The latest record of each call in `calls.jsonl`, in the order calls
/// first appear (a `--retry-errors` run appends newer records).
pub fn latest_calls(calls_file: &Path) -> Result<Vec<CallRecord>, CallsError> {
    // Each call's latest record, with the place where the call first came.
    let mut latest: Latest<(usize, CallRecord)> = Latest::default();
    for_each_call(calls_file, |r| {
        let key = r.key();
        let first = latest.get(&key).map_or(latest.len(), |(first, _)| *first);
        latest.record_key(key, (first, r));
    })?;
    let mut calls: Vec<(usize, CallRecord)> = latest.into_iter().map(|(_, v)| v).collect();
    calls.sort_unstable_by_key(|(first, _)| *first);
    Ok(calls.into_iter().map(|(_, r)| r).collect())
}

/// Every (retriever, post) of `calls` with a call not right, in order.
pub fn run_failing(calls: &[CallRecord]) -> Vec<FailingRunPost> {
    let mut out: Vec<FailingRunPost> = Vec::new();
    let mut at: HashMap<(&str, &str), usize> = HashMap::new();
    for c in calls {
        let i = *at
            .entry((c.retriever.as_str(), c.post.as_str()))
            .or_insert_with(|| {
                out.push(FailingRunPost {
                    retriever: c.retriever.clone(),
                    post: c.post.clone(),
                    right: 0,
                    calls: 0,
                    failed: 0,
                    missing: Vec::new(),
                    leaked: Vec::new(),
                    error: None,
                });
                out.len() - 1
            });
        let f = &mut out[i];
        f.calls += 1;
        f.right += usize::from(c.right());
        f.failed += usize::from(c.error.is_some());
        for (list, ids) in [
            (&mut f.missing, &c.check.missing),
            (&mut f.leaked, &c.check.leaked),
        ] {
            for id in ids {
                if !list.contains(id) {
                    list.push(id.clone());
                }
            }
        }
        if f.error.is_none() {
            f.error.clone_from(&c.error);
        }
    }
    out.retain(|f| f.right < f.calls);
    out
}

/// The table of [`run_failing`].
pub(crate) fn run_table(failing: &[FailingRunPost]) -> Table {
    let mut t = Table::new(
        Some(&format!("Failing posts: {}", failing.len())),
        &[
            ("Retriever", Align::Left),
            ("Post", Align::Left),
            ("Right", Align::Right),
            ("Failed calls", Align::Right),
            ("Missing", Align::Left),
            ("Leaked", Align::Left),
            ("Error", Align::Left),
        ],
    )
    .when_empty("Failing posts: none (every call right)");
    for f in failing {
        t.push(vec![
            f.retriever.clone(),
            f.post.clone(),
            format!("{} of {}", f.right, f.calls),
            f.failed.to_string(),
            f.missing.join(", "),
            f.leaked.join(", "),
            f.error.clone().unwrap_or_default(),
        ]);
    }
    t
}
