//! One line of `calls.jsonl`: what one call (retriever, repeat, post) of
//! a run did, as saved. Fields added after the first release are optional,
//! so older run folders still read.

use crate::generate::check::Verdict;
use crate::generate::pipeline::{Group, Trace, Turn};
use crate::generate::prompt::PromptId;
use crate::generate::reply::ReplyMeta;
use crate::invariants::Issue;
use serde::{Deserialize, Serialize};

/// One line of `calls.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub(crate) retriever: String,
    /// 1-based.
    pub(crate) repeat: u32,
    pub(crate) post: String,
    pub(crate) prompt: PromptId,
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) output: Option<String>,
    /// A failed call's reply text (cut off, say), never scored; absent in
    /// older files and when nothing came back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) partial_output: Option<String>,
    pub(crate) check: Verdict,
    /// Where retrieval left the post: complete, missed, wrong_sense.
    pub(crate) group: Group,
    pub(crate) retrieved: Vec<String>,
    pub(crate) wrong_sense_retrieved: Vec<String>,
    pub(crate) wrong_sense_used: Vec<String>,
    pub(crate) attempts: u32,
    pub(crate) cached: bool,
    /// `null` on success.
    pub(crate) error: Option<String>,
    pub(crate) ms: f64,
    /// Every turn when the check asked for repairs (`--repair`): the first
    /// pass, then each repair (their prompts left out); `output` and
    /// `check` above are the last answered turn's. Absent: the first pass
    /// was the only turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) turns: Vec<Turn>,
    /// Added after the first release, each field absent in older files:
    /// finish reason, served model, usage (absent for cached replies), and
    /// whether a `<think>` block was stripped before the check.
    #[serde(flatten)]
    pub(crate) meta: ReplyMeta,
    /// The post's invariants missing or changed in the output
    /// (docs/formats.md, "Invariants"); absent when none (and in older
    /// files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) invariants: Vec<Issue>,
    /// Present (`true`) under `--invariants fail` when `invariants` is not
    /// empty: the call is not right, whatever its `check`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) invariants_failed: bool,
}

impl CallRecord {
    /// The record of one post's trace (the post must be labelled).
    pub(crate) fn from_trace(post: &str, trace: Trace) -> CallRecord {
        let labelled = trace.labelled.expect("batch posts are labelled");
        let g = trace.generate.output;
        CallRecord {
            retriever: trace.retriever,
            repeat: trace.repeat,
            post: post.to_string(),
            prompt: trace.prompt.output.template,
            provider: g.provider,
            model: g.model,
            output: g.text,
            partial_output: g.partial_output,
            check: labelled.check,
            group: labelled.group,
            retrieved: trace.retrieve.output.into_iter().map(|u| u.entry).collect(),
            wrong_sense_retrieved: labelled.wrong_sense_retrieved,
            wrong_sense_used: labelled.wrong_sense_used,
            invariants: trace.invariants,
            invariants_failed: labelled.invariants_failed,
            attempts: g.attempts,
            cached: g.cached,
            error: g.error,
            meta: g.meta,
            turns: trace
                .turns
                .into_iter()
                .map(|t| Turn { prompt: None, ..t })
                .collect(),
            ms: trace.simplify.ms
                + trace.phrases.ms
                + trace.retrieve.ms
                + trace.prompt.ms
                + trace.generate.ms,
        }
    }

    /// The call gave an output the check passed (echoes never pass, nor
    /// outputs failed on their invariants under `--invariants fail`).
    pub(crate) fn right(&self) -> bool {
        self.error.is_none() && self.check.ok && !self.invariants_failed
    }

    /// The first pass was right, before any repair.
    pub(crate) fn right_first_pass(&self) -> bool {
        match self.turns.first() {
            Some(t) => t.error.is_none() && t.check.as_ref().is_some_and(|c| c.ok),
            None => self.right(),
        }
    }

    /// The first pass copied the prompt back.
    pub(crate) fn echo_first_pass(&self) -> bool {
        match self.turns.first() {
            Some(t) => t.check.as_ref().is_some_and(|c| c.echo),
            None => self.check.echo,
        }
    }

    pub fn key(&self) -> CallKey {
        (self.retriever.clone(), self.repeat, self.post.clone())
    }
}

/// A call's identity: retriever, repeat, post.
pub(crate) type CallKey = (String, u32, String);

/// The `custom_id` of a call (`RETRIEVER|REPEAT|POST`, parts percent-encoded: see `batch::api`).
pub fn custom_id(retriever: &str, repeat: u32, post: &str) -> String {
    format!("{}|{repeat}|{}", encode(retriever), encode(post))
}

fn encode(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for c in part.chars() {
        if c == '%' || c == '|' || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}
