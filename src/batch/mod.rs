//! Batch runs: every (retriever, repeat, post) through the pipeline, with
//! bounded concurrency. Each finished call is appended to `calls.jsonl` at
//! once, so an interrupted run loses nothing and `--resume` skips what is
//! done. The summary is computed from `calls.jsonl`, never from memory.

use crate::dataset::LabelledPost;
use crate::generate::pipeline::{Pipeline, Trace};
use crate::run_dir::calls::{CallsAppender, CallsError, CALLS_FILE};
use crate::run_dir::latest::Latest;
use crate::run_dir::record::CallRecord;
use crate::run_dir::shard::Shard;
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use tokio::task::{JoinError, JoinSet};

pub mod api;
pub mod orchestrate;
pub mod remote;

/// Where a live run's progress goes (a bar on a terminal; nowhere).
pub trait CallProgress {
    /// A line to show above the progress (a failed call, a stop).
    fn message(&self, line: String);
    /// One more call finished; `failed` of this run's calls so far failed.
    fn call_finished(&self, failed: usize);
    /// Every call finished, or the run stopped.
    fn finish(&self);
}

/// No progress shown.
impl CallProgress for () {
    fn message(&self, _: String) {}
    fn call_finished(&self, _: usize) {}
    fn finish(&self) {}
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

/// The calls to make, in order: retriever, repeat, post; and how many calls
/// the shard holds in all, done or not.
pub fn plan(
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    repeats: u32,
    shard: Shard,
    status: &Latest<bool>,
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
pub struct SameErrors {
    last: Option<String>,
    count: u32,
}

impl SameErrors {
    /// Note one finished call; how many in a row failed with its error.
    pub fn note(&mut self, error: Option<&str>, same_for_every_call: bool) -> u32 {
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
    Panicked(#[from] JoinError),
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
    progress: &dyn CallProgress,
) -> Result<Outcome, ExecuteError> {
    let mut tracker = Tracker {
        out: CallsAppender::open(&dir.join(CALLS_FILE))?,
        outcome: Outcome::default(),
        same: SameErrors::default(),
        stop_after,
        stopping: false,
    };
    // The invocation's span, if any: calls finish on other threads.
    let parent = opentelemetry::Context::current();
    let jobs = calls.into_iter().map(|(ri, repeat, pi)| {
        let pipeline = Arc::clone(&pipelines[ri]);
        let posts = Arc::clone(&posts);
        let parent = parent.clone();
        async move {
            let post = &posts[pi];
            let trace = pipeline
                .run(&post.post.text, Some(&post.label), repeat)
                .await;
            let ended = std::time::SystemTime::now();
            pipeline.record_spans(&parent, &trace, &post.post.id, Some(&post.label), ended);
            (pi, trace)
        }
    });
    let interrupted = run_concurrently(
        jobs,
        concurrency,
        |(pi, trace)| {
            tracker.finished(&posts[pi].post.id, trace, progress)?;
            Ok::<_, ExecuteError>(tracker.stopping)
        },
        |in_flight| {
            progress.message(format!(
                "stopping: waiting for {in_flight} calls in flight (Ctrl-C again to abandon them)"
            ))
        },
    )
    .await?;
    tracker.outcome.interrupted = interrupted;
    Ok(tracker.outcome)
}

/// The one loop behind every batch (`glossa run`, `glossa translate
/// --posts`): `jobs` with at most `concurrency` in flight, each result
/// handed to `finished` as it completes, which says whether to stop
/// starting new ones. Ctrl-C stops starting new jobs and waits for those
/// in flight (`interrupting` is told how many); a second Ctrl-C abandons
/// them. Returns whether Ctrl-C was pressed.
pub async fn run_concurrently<J, T, E>(
    jobs: impl IntoIterator<Item = J>,
    concurrency: usize,
    mut finished: impl FnMut(T) -> Result<bool, E>,
    mut interrupting: impl FnMut(usize),
) -> Result<bool, E>
where
    J: Future<Output = T> + Send + 'static,
    T: Send + 'static,
    E: From<JoinError>,
{
    let mut queue = jobs.into_iter();
    let mut running: JoinSet<T> = JoinSet::new();
    let mut ctrl_c = Box::pin(tokio::signal::ctrl_c());
    let (mut stopping, mut interrupted) = (false, false);
    loop {
        while !stopping && running.len() < concurrency.max(1) {
            let Some(job) = queue.next() else {
                break;
            };
            running.spawn(job);
        }
        if running.is_empty() {
            break;
        }
        tokio::select! {
            joined = running.join_next() => {
                let Some(joined) = joined else { break };
                if finished(joined?)? {
                    stopping = true;
                }
            }
            _ = &mut ctrl_c => {
                if interrupted {
                    running.abort_all();
                    break;
                }
                interrupted = true;
                stopping = true;
                interrupting(running.len());
                ctrl_c = Box::pin(tokio::signal::ctrl_c());
            }
        }
    }
    Ok(interrupted)
}

/// Records finished calls and decides when a run stops starting new ones.
struct Tracker {
    out: CallsAppender,
    outcome: Outcome,
    same: SameErrors,
    stop_after: u32,
    /// No new call starts (the run stopped early or was interrupted).
    stopping: bool,
}

impl Tracker {
    /// Append a finished call's record and count it; stop the run after
    /// `stop_after` identical errors in a row, or an error that stops runs.
    fn finished(
        &mut self,
        post: &str,
        trace: Trace,
        progress: &dyn CallProgress,
    ) -> Result<(), CallsError> {
        let stops = trace.generate.output.stops_run;
        let everywhere = trace.generate.output.same_for_every_call;
        let record = CallRecord::from_trace(post, trace);
        self.out.append(&record)?;
        let outcome = &mut self.outcome;
        outcome.done += 1;
        let in_a_row = self.same.note(record.error.as_deref(), everywhere);
        if self.stop_after > 0 && in_a_row == self.stop_after && outcome.stopped.is_none() {
            outcome.stopped = Some(format!(
                "{in_a_row} calls in a row failed with the same error, which every call would get: {}",
                record.error.as_deref().unwrap_or_default()
            ));
            self.stopping = true;
        }
        if let Some(err) = &record.error {
            outcome.failed += 1;
            progress.message(format!(
                "call failed: {} repeat {} post {}: {err}",
                record.retriever, record.repeat, record.post
            ));
            if stops && outcome.stopped.is_none() {
                outcome.stopped = Some(err.clone());
                self.stopping = true;
            }
        }
        progress.call_finished(outcome.failed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn only_identical_errors_every_call_would_get_count_in_a_row() {
        let mut same = SameErrors::default();
        assert_eq!(same.note(Some("400 x"), true), 1);
        assert_eq!(same.note(Some("400 x"), true), 2);
        assert_eq!(same.note(Some("500 y"), false), 0);
        assert_eq!(same.note(Some("400 x"), true), 1);
        assert_eq!(same.note(Some("404 z"), true), 1);
        assert_eq!(same.note(None, false), 0);
    }
}
