//! Batch runs: every (retriever, repeat, post) through the pipeline, with
//! bounded concurrency. Each finished call is appended to `calls.jsonl` at
//! once, so an interrupted run loses nothing and `--resume` skips what is
//! done. The summary is computed from `calls.jsonl`, never from memory.

use super::check::Verdict;
use super::pipeline::{Group, Pipeline, Trace};
use super::prompt::PromptId;
use super::reply::Usage;
use crate::dataset::LabelledPost;
use crate::run_dir::calls::{CallsAppender, CallsError};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tokio::task::JoinSet;

pub use crate::run_dir::calls::{for_each_call, CALLS_FILE};
pub use crate::run_dir::summary::{
    summarise_file, GroupRun, ModelTokens, RetrieverSummary, RunFigures, Summariser, Summary,
    Tokens, SUMMARY_FILE,
};

/// One line of `calls.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub retriever: String,
    /// 1-based.
    pub repeat: u32,
    pub post: String,
    pub prompt: PromptId,
    pub provider: String,
    pub model: String,
    pub output: Option<String>,
    pub check: Verdict,
    /// Where retrieval left the post: complete, missed, wrong_sense.
    pub group: Group,
    pub retrieved: Vec<String>,
    pub wrong_sense_retrieved: Vec<String>,
    pub wrong_sense_used: Vec<String>,
    pub attempts: u32,
    pub cached: bool,
    /// `null` on success.
    pub error: Option<String>,
    pub ms: f64,
    // Fields added after the first release: absent in older files.
    /// How the reply ended (`stop`, `length`, `MAX_TOKENS`, ...), when the
    /// API said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The model snapshot that answered, when the API named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_model: Option<String>,
    /// Tokens the call used; absent for cached replies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A `<think>` block was stripped from the reply before the check.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub think: bool,
}

impl CallRecord {
    /// The record of one post's trace (the post must be labelled).
    pub fn from_trace(post: &str, trace: Trace) -> CallRecord {
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
            check: labelled.check,
            group: labelled.group,
            retrieved: trace.retrieve.output.into_iter().map(|u| u.entry).collect(),
            wrong_sense_retrieved: labelled.wrong_sense_retrieved,
            wrong_sense_used: labelled.wrong_sense_used,
            attempts: g.attempts,
            cached: g.cached,
            error: g.error,
            finish_reason: g.finish_reason,
            served_model: g.served_model,
            usage: g.usage,
            think: g.think,
            ms: trace.simplify.ms
                + trace.phrases.ms
                + trace.retrieve.ms
                + trace.prompt.ms
                + trace.generate.ms,
        }
    }

    pub fn key(&self) -> CallKey {
        (self.retriever.clone(), self.repeat, self.post.clone())
    }
}

/// A call's identity: retriever, repeat, post.
pub type CallKey = (String, u32, String);

/// For every call in `calls.jsonl`, whether its latest record succeeded.
pub fn call_status(path: &Path) -> Result<HashMap<CallKey, bool>, CallsError> {
    let mut status = HashMap::new();
    for_each_call(path, |r| {
        status.insert(r.key(), r.error.is_none());
    })?;
    Ok(status)
}

/// Which calls a run still has to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Todo {
    /// Every call not yet in `calls.jsonl`.
    Missing,
    /// Only calls whose latest record failed.
    Failed,
}

/// What a batch run did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub done: usize,
    pub failed: usize,
    pub interrupted: bool,
    /// Why the run stopped early, when a provider said every further call
    /// would fail.
    pub stopped: Option<String>,
}

/// One of N deterministic parts of a run's calls, for N machines (a job
/// array) sharing one experiment: `--shard I/N`, I counted from 0.
///
/// A call belongs to shard `I` of `N` when the first 8 bytes of the SHA-256
/// of its `custom_id` (see [`super::batch_api::custom_id`]), read as a
/// big-endian integer, leave the remainder `I` when divided by `N`. That
/// depends only on the call's retriever, repeat and post: not on the order
/// of the posts file, on concurrency, on the machine or on the other
/// retrievers in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole run: shard 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The shard a call belongs to, among `count`.
    pub fn of(retriever: &str, repeat: u32, post: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        if count <= 1 {
            return 0;
        }
        let id = super::batch_api::custom_id(retriever, repeat, post);
        let digest = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(count)) as u32
    }

    pub fn contains(&self, retriever: &str, repeat: u32, post: &str) -> bool {
        self.count <= 1 || Shard::of(retriever, repeat, post, self.count) == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Text that is not `I/N` with `0 <= I < N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a shard: expected I/N with 0 <= I < N, e.g. 0/4")]
pub struct NotAShard(String);

impl std::str::FromStr for Shard {
    type Err = NotAShard;

    fn from_str(s: &str) -> Result<Shard, NotAShard> {
        let bad = || NotAShard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The calls to make, in order: retriever, repeat, post; and how many calls
/// the shard holds in all, done or not.
pub fn plan(
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    repeats: u32,
    shard: Shard,
    status: &HashMap<CallKey, bool>,
    todo: Todo,
) -> (Vec<(usize, u32, usize)>, usize) {
    let mut out = Vec::new();
    let mut total = 0;
    for (ri, p) in pipelines.iter().enumerate() {
        for repeat in 1..=repeats {
            for (pi, post) in posts.iter().enumerate() {
                if !shard.contains(&p.retriever_name, repeat, &post.post.id) {
                    continue;
                }
                total += 1;
                let key = (p.retriever_name.clone(), repeat, post.post.id.clone());
                let wanted = matches!(
                    (todo, status.get(&key)),
                    (Todo::Missing, None) | (Todo::Failed, Some(false))
                );
                if wanted {
                    out.push((ri, repeat, pi));
                }
            }
        }
    }
    (out, total)
}

/// Calls in a row that must fail with one identical 400/404 error before a
/// run stops, unless told otherwise.
pub const DEFAULT_STOP_AFTER: u32 = 3;

/// Counts consecutive finished calls that failed with the same error that
/// every call would get (a bad parameter, an unknown model).
#[derive(Debug, Default)]
struct SameErrors {
    last: Option<String>,
    count: u32,
}

impl SameErrors {
    /// Note one finished call; how many in a row failed with its error.
    fn note(&mut self, error: Option<&str>, same_for_every_call: bool) -> u32 {
        match error.filter(|_| same_for_every_call) {
            Some(e) if self.last.as_deref() == Some(e) => self.count += 1,
            Some(e) => {
                self.last = Some(e.to_string());
                self.count = 1;
            }
            None => *self = SameErrors::default(),
        }
        self.count
    }
}

/// Why a batch run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ExecuteError {
    #[error(transparent)]
    Calls(#[from] CallsError),
    #[error("a call panicked")]
    Panicked(#[source] tokio::task::JoinError),
}

/// Run `calls` with at most `concurrency` in flight, appending each record
/// to `dir/calls.jsonl` as it finishes. Ctrl-C stops starting new calls and
/// waits for those in flight (a second Ctrl-C abandons them). After
/// `stop_after` calls in a row fail with one identical 400/404 error
/// (0: never), no new call starts.
pub async fn execute(
    dir: &Path,
    pipelines: Vec<Arc<Pipeline>>,
    posts: Arc<Vec<LabelledPost>>,
    calls: Vec<(usize, u32, usize)>,
    concurrency: usize,
    stop_after: u32,
    progress: &indicatif::ProgressBar,
) -> Result<Outcome, ExecuteError> {
    let mut out = CallsAppender::open(&dir.join(CALLS_FILE))?;
    let mut outcome = Outcome::default();
    let mut queue = calls.into_iter();
    let mut running: JoinSet<(usize, Trace)> = JoinSet::new();
    let mut stopping = false;
    let mut same = SameErrors::default();
    let mut ctrl_c = Box::pin(tokio::signal::ctrl_c());
    loop {
        while !stopping && running.len() < concurrency.max(1) {
            let Some((ri, repeat, pi)) = queue.next() else {
                break;
            };
            let pipeline = Arc::clone(&pipelines[ri]);
            let posts = Arc::clone(&posts);
            running.spawn(async move {
                let post = &posts[pi];
                let trace = pipeline
                    .run(&post.post.text, Some(&post.label), repeat)
                    .await;
                (pi, trace)
            });
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let Some(joined) = joined else { break };
                let (pi, trace) = joined.map_err(ExecuteError::Panicked)?;
                let stops = trace.generate.output.stops_run;
                let everywhere = trace.generate.output.same_for_every_call;
                let record = CallRecord::from_trace(&posts[pi].post.id, trace);
                out.append(&record)?;
                outcome.done += 1;
                let in_a_row = same.note(record.error.as_deref(), everywhere);
                if stop_after > 0 && in_a_row == stop_after && outcome.stopped.is_none() {
                    outcome.stopped = Some(format!(
                        "{in_a_row} calls in a row failed with the same error, which every call would get: {}",
                        record.error.as_deref().unwrap_or_default()
                    ));
                    stopping = true;
                }
                if let Some(err) = &record.error {
                    outcome.failed += 1;
                    progress.println(format!("call failed: {} repeat {} post {}: {err}", record.retriever, record.repeat, record.post));
                    if stops && outcome.stopped.is_none() {
                        outcome.stopped = Some(err.clone());
                        stopping = true;
                    }
                }
                progress.set_message(format!("{} failed", outcome.failed));
                progress.inc(1);
            }
            _ = &mut ctrl_c => {
                if outcome.interrupted {
                    running.abort_all();
                    break;
                }
                outcome.interrupted = true;
                stopping = true;
                progress.println(format!("stopping: waiting for {} calls in flight (Ctrl-C again to abandon them)", running.len()));
                ctrl_c = Box::pin(tokio::signal::ctrl_c());
            }
        }
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::prices::Prices;

    fn record(
        retriever: &str,
        repeat: u32,
        post: &str,
        group: Group,
        ok: bool,
        error: bool,
    ) -> CallRecord {
        CallRecord {
            retriever: retriever.into(),
            repeat,
            post: post.into(),
            prompt: PromptId {
                name: "translate".into(),
                version: "v1".into(),
            },
            provider: "offline".into(),
            model: String::new(),
            output: (!error).then(|| "x".into()),
            check: Verdict {
                ok,
                ..Verdict::default()
            },
            group,
            retrieved: vec![],
            wrong_sense_retrieved: if group == Group::WrongSense {
                vec!["date".into()]
            } else {
                vec![]
            },
            wrong_sense_used: if group == Group::WrongSense && !ok {
                vec!["date".into()]
            } else {
                vec![]
            },
            attempts: 1,
            cached: false,
            error: error.then(|| "boom".into()),
            ms: 1.0,
            finish_reason: None,
            served_model: None,
            usage: None,
            think: false,
        }
    }

    #[test]
    fn summary_counts_right_posts_per_group_and_run() {
        let records = [
            record("exact", 1, "a", Group::Complete, true, false),
            record("exact", 1, "b", Group::Missed, false, false),
            record("exact", 2, "a", Group::Complete, false, true),
            record("exact", 2, "b", Group::Missed, true, false),
            record("exact", 1, "c", Group::WrongSense, false, false),
        ];
        let mut s = Summariser::default();
        records.iter().for_each(|r| s.add(r));
        let s = s.finish(Path::new("d"), &["exact".into(), "absent".into()]);
        assert_eq!(s.calls, 5);
        assert_eq!(s.failed, 1);
        assert_eq!(s.retrievers.len(), 1);
        let r = &s.retrievers[0];
        assert_eq!(r.runs[0].repeat, 1);
        assert_eq!((r.runs[0].posts, r.runs[0].right), (3, 1));
        assert_eq!(
            r.runs[1].by_group[&Group::Complete],
            GroupRun { posts: 1, right: 0 }
        );
        assert_eq!(r.runs[1].failed, 1);
        assert_eq!((r.wrong_sense_retrieved, r.wrong_sense_used), (1, 1));
    }

    #[test]
    fn a_later_record_replaces_an_earlier_one_and_a_torn_tail_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        let first = record("exact", 1, "a", Group::Complete, false, true);
        let second = record("exact", 1, "a", Group::Complete, true, false);
        let other = record("exact", 1, "b", Group::Missed, false, false);
        let text = [&first, &second, &other]
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect::<String>()
            + "{\"retriever\":\"ex";
        std::fs::write(&path, text).unwrap();
        let status = call_status(&path).unwrap();
        assert_eq!(status.len(), 2);
        assert!(status[&("exact".to_string(), 1, "a".to_string())]);
        let s = summarise_file(dir.path(), &["exact".into()]).unwrap();
        assert_eq!((s.calls, s.failed), (2, 0));
        let run = &s.retrievers[0].runs[0];
        assert_eq!((run.posts, run.right, run.failed), (2, 1, 0));
        assert_eq!(
            run.by_group[&Group::Complete],
            GroupRun { posts: 1, right: 1 }
        );
    }

    #[test]
    fn shards_parse_and_are_pinned_to_the_documented_hash() {
        assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "0/0", "1", "a/2", "-1/2", "1/2/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        // SHA-256 of the custom_id, first 8 bytes big-endian, mod N: these
        // values must never change, or shards of one run made by two
        // versions would overlap.
        assert_eq!(Shard::of("exact", 1, "p01", 4), 0);
        assert_eq!(Shard::of("exact", 1, "p01", 7), 1);
        assert_eq!(Shard::of("normalised+fuzzy", 2, "p07", 4), 2);
        assert_eq!(Shard::of("normalised+fuzzy", 2, "p07", 7), 5);
        assert_eq!(Shard::of("exact|sense", 3, "a|b", 4), 1);
        assert_eq!(Shard::of("exact|sense", 3, "a|b", 7), 0);
        assert!(Shard::WHOLE.contains("exact", 1, "p01"));
        assert!(Shard { index: 2, count: 4 }.contains("normalised+fuzzy", 2, "p07"));
    }

    #[test]
    fn records_written_before_replies_carried_usage_still_load() {
        let old = r#"{"retriever":"exact","repeat":1,"post":"p01","prompt":{"name":"translate","version":"v1"},"provider":"openai","model":"m","output":"x","check":{"ok":true,"missing":[],"leaked":[]},"group":"complete","retrieved":[],"wrong_sense_retrieved":[],"wrong_sense_used":[],"attempts":1,"cached":false,"error":null,"ms":1.0}"#;
        let record: CallRecord = serde_json::from_str(old).unwrap();
        assert_eq!(record.finish_reason, None);
        assert_eq!(record.usage, None);
        assert!(!record.think);
        // And a record without them is written as before.
        assert!(!serde_json::to_string(&record).unwrap().contains("usage"));
    }

    #[test]
    fn tokens_are_totalled_per_served_model_over_every_record_and_priced() {
        let mut paid = record("exact", 1, "a", Group::Complete, false, true);
        paid.usage = Some(Usage {
            input_tokens: 1000,
            output_tokens: 100,
        });
        paid.served_model = Some("gpt-x-2025".into());
        let mut redone = record("exact", 1, "a", Group::Complete, true, false);
        redone.usage = paid.usage;
        redone.model = "gpt-x".into();
        let mut s = Summariser::default();
        s.add(&paid);
        s.add(&redone);
        let mut summary = s.finish(Path::new("d"), &["exact".into()]);
        let tokens = summary.tokens.clone().unwrap();
        assert_eq!((tokens.input_tokens, tokens.output_tokens), (2000, 200));
        let models: Vec<&str> = tokens.by_model.iter().map(|m| m.model.as_str()).collect();
        assert_eq!(models, ["gpt-x", "gpt-x-2025"]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(&path, r#"{"gpt-x-2025": {"input": 1, "output": 10}}"#).unwrap();
        summary.price(&Prices::load(&path).unwrap());
        let tokens = summary.tokens.unwrap();
        assert_eq!(tokens.unpriced, ["gpt-x"]);
        assert!((tokens.cost.unwrap() - 0.002).abs() < 1e-12);
    }

    #[test]
    fn only_identical_errors_every_call_would_get_count_in_a_row() {
        let mut same = SameErrors::default();
        assert_eq!(same.note(Some("400 x"), true), 1);
        assert_eq!(same.note(Some("400 x"), true), 2);
        assert_eq!(same.note(Some("500 y"), false), 0);
        assert_eq!(same.note(Some("400 x"), true), 1);
        assert_eq!(same.note(Some("404 z"), true), 1);
        assert_eq!(same.note(None, false), 0);
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        let good =
            serde_json::to_string(&record("exact", 1, "a", Group::Complete, true, false)).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        let err = call_status(&path).unwrap_err().to_string();
        assert!(err.contains("calls.jsonl:2"), "{err}");
    }
}
