//! `--batch-in`: every results line checked against the run, then each
//! wanted call's output checked as a live run does and recorded.

use super::results::{for_each_line, parse_result};
use super::{custom_id, BadLine, BatchError, Dialect};
use crate::dataset::LabelledPost;
use crate::generate::pipeline::{partial, Generation, Pipeline, Stage};
use crate::generate::reply::{accept, Completion};
use crate::generate::retry::Answered;
use crate::run_dir::calls::CALLS_FILE;
use crate::run_dir::calls::{CallsAppender, CallsError};
use crate::run_dir::record::{CallKey, CallRecord};
use crate::run_dir::shard::Shard;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most errors listed when a results file is refused.
const MAX_LISTED_ERRORS: usize = 10;

/// The run a results file is checked against.
pub(crate) struct IngestRun<'a> {
    pub(crate) dir: &'a Path,
    pub(crate) pipelines: &'a [Arc<Pipeline>],
    pub(crate) posts: &'a [LabelledPost],
    pub(crate) repeats: u32,
    pub(crate) shard: Shard,
    /// The calls still to record (the others are skipped as done).
    pub(crate) wanted: &'a [(usize, u32, usize)],
    /// The model recorded for each call; the one the API names otherwise.
    pub(crate) model: Option<&'a str>,
    /// The service the run's requests went to: its result lines only.
    pub(crate) dialect: Dialect,
}

/// What reading results files did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Ingested {
    /// Result lines read.
    pub lines: usize,
    /// Records appended to `calls.jsonl`.
    pub recorded: usize,
    /// Of those, failed calls.
    pub failed: usize,
    /// Lines for calls already recorded in the run folder, skipped.
    pub skipped: usize,
}

/// Check every line of `files` against the run, then check each wanted
/// call's output as a live run does and append its record to
/// `DIR/calls.jsonl`. Any malformed or foreign line refuses the whole
/// input, before anything is written.
pub(crate) fn ingest(files: &[PathBuf], run: &IngestRun) -> Result<Ingested, BatchError> {
    let index = CallIndex::of(run);
    let lines = check_lines(files, run, &index)?;
    let mut ingested = record_results(files, run, &index)?;
    ingested.lines = lines;
    Ok(ingested)
}

/// A call (retriever, repeat, post) as positions in the run.
type Call = (usize, u32, usize);

/// Finds the call of this run a `custom_id` names.
struct CallIndex<'a> {
    run: &'a IngestRun<'a>,
    retrievers: HashMap<&'a str, usize>,
    posts: HashMap<&'a str, usize>,
}

impl<'a> CallIndex<'a> {
    fn of(run: &'a IngestRun<'a>) -> CallIndex<'a> {
        CallIndex {
            run,
            retrievers: run
                .pipelines
                .iter()
                .enumerate()
                .map(|(i, p)| (p.retriever_name.as_str(), i))
                .collect(),
            posts: run
                .posts
                .iter()
                .enumerate()
                .map(|(i, p)| (p.post.id.as_str(), i))
                .collect(),
        }
    }

    /// The call `key` names, or why it is not one of this run's.
    fn resolve(&self, key: &CallKey) -> Result<Call, BadLine> {
        let run = self.run;
        let not_in_run = |why: String| BadLine::NotInRun {
            call: show_id(key),
            why,
        };
        let (retriever, repeat, post) = key;
        let ri = *self.retrievers.get(retriever.as_str()).ok_or_else(|| {
            not_in_run(format!(
                "retriever `{retriever}` is not in this run (it has {})",
                run.pipelines
                    .iter()
                    .map(|p| p.retriever_name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let pi = *self.posts.get(post.as_str()).ok_or_else(|| {
            not_in_run(format!(
                "post `{post}` is not among this run's labelled posts"
            ))
        })?;
        if *repeat > run.repeats {
            return Err(not_in_run(format!(
                "repeat {repeat} is beyond this run's {} repeats",
                run.repeats
            )));
        }
        if !run.shard.contains(retriever, *repeat, post) {
            return Err(not_in_run(format!(
                "the call belongs to shard {}/{}, and this run folder holds shard {}",
                Shard::of(retriever, *repeat, post, run.shard.count),
                run.shard.count,
                run.shard
            )));
        }
        Ok((ri, *repeat, pi))
    }
}

/// Pass 1: every line must be readable and name a call of this run, once;
/// otherwise nothing is recorded. Returns how many lines there are.
fn check_lines(files: &[PathBuf], run: &IngestRun, index: &CallIndex) -> Result<usize, BatchError> {
    let mut errors: Vec<String> = Vec::new();
    let mut error_count = 0usize;
    let mut seen: HashMap<Call, (usize, usize)> = HashMap::new();
    let mut lines = 0usize;
    for (fi, file) in files.iter().enumerate() {
        for_each_line(file, |n, line| {
            lines += 1;
            let found = parse_result(line).and_then(|r| {
                if r.dialect != run.dialect {
                    return Err(BadLine::OtherService {
                        found: r.dialect.label(),
                        run: run.dialect.label(),
                    });
                }
                let call = index.resolve(&r.key)?;
                match seen.insert(call, (fi, n)) {
                    Some((f0, n0)) => Err(BadLine::Repeated {
                        call: show_id(&r.key),
                        first: format!("{}:{n0}", files[f0].display()),
                    }),
                    None => Ok(()),
                }
            });
            if let Err(e) = found {
                error_count += 1;
                if errors.len() < MAX_LISTED_ERRORS {
                    errors.push(format!("{}:{n}: {e}", file.display()));
                }
            }
        })?;
    }
    if error_count > 0 {
        return Err(BatchError::Foreign {
            more: error_count - errors.len(),
            listed: errors,
            dir: run.dir.to_path_buf(),
        });
    }
    Ok(lines)
}

/// Pass 2: check each wanted call's output and append its record.
fn record_results(
    files: &[PathBuf],
    run: &IngestRun,
    index: &CallIndex,
) -> Result<Ingested, BatchError> {
    let wanted: HashSet<Call> = run.wanted.iter().copied().collect();
    let mut out = CallsAppender::open(&run.dir.join(CALLS_FILE))?;
    let mut ingested = Ingested::default();
    let mut write_error: Option<CallsError> = None;
    for file in files {
        for_each_line(file, |_, line| {
            if write_error.is_some() {
                return;
            }
            // Pass 1 found every line well-formed and of this run.
            let Some((call, result)) = parse_result(line)
                .ok()
                .and_then(|r| Some((index.resolve(&r.key).ok()?, r)))
            else {
                return;
            };
            if !wanted.contains(&call) {
                ingested.skipped += 1;
                return;
            }
            let record = check_result(run, call, result.answer);
            ingested.recorded += 1;
            if record.error.is_some() {
                ingested.failed += 1;
            }
            if let Err(e) = out.append(&record) {
                write_error = Some(e);
            }
        })?;
    }
    match write_error {
        Some(e) => Err(e.into()),
        None => Ok(ingested),
    }
}

/// The record of one call answered through a batch file.
fn check_result(
    run: &IngestRun,
    (ri, repeat, pi): (usize, u32, usize),
    answer: Result<Completion, String>,
) -> CallRecord {
    let pipeline = &run.pipelines[ri];
    let post = &run.posts[pi];
    let prepared = pipeline
        .prepare_local(&post.post.text, Some(&post.label), repeat)
        .expect("batch runs simplify without a model");
    let (reply, error) = match answer {
        Ok(raw) => match accept(raw.clone()) {
            Ok(accepted) => (accepted, None),
            Err(refusal) => (
                raw,
                Some(format!(
                    "reply from the {} is not a translation: {refusal}",
                    run.dialect.label()
                )),
            ),
        },
        Err(e) => (Completion::default(), Some(e)),
    };
    let answered = Answered {
        provider: run.dialect.provider().to_string(),
        model: run
            .model
            .map(str::to_string)
            .or_else(|| reply.meta.served_model.clone())
            .unwrap_or_default(),
        attempts: 1,
        cached: false,
    };
    let mut generation = Generation::from(answered.reply(reply));
    if error.is_some() {
        // A refused reply is kept for its metadata and text, not as an output.
        generation.partial_output = generation.text.take().as_deref().and_then(partial);
        generation.error = error;
    }
    let trace = pipeline.finish(
        prepared,
        Some(&post.label),
        Stage {
            ms: 0.0,
            output: generation,
        },
    );
    CallRecord::from_trace(&post.post.id, trace)
}

fn show_id(key: &CallKey) -> String {
    format!("custom_id {:?}", custom_id(&key.0, key.1, &key.2))
}
