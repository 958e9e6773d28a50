//! The OpenAI Batch API's JSONL files. `glossa run --batch-out` writes one
//! request line per (retriever, repeat, post) call instead of calling a
//! model; `glossa run --batch-in` reads the output file the API returns,
//! checks every output exactly as a live run does, and appends the same
//! records to `calls.jsonl`.
//!
//! # custom_id
//!
//! `RETRIEVER|REPEAT|POST`: the retriever spec and the post id
//! percent-encoded (`%` as `%25`, `|` as `%7C`, and each control character
//! as the `%XX` of its UTF-8 bytes; everything else as it is), the repeat
//! in decimal, counted from 1. So `normalised+fuzzy|2|p07`; the filter
//! retriever `exact|f` on post `a|b` gives `exact%7Cf|1|a%7Cb`. Exactly two
//! `|` separate the three parts, so the id parses back whatever the
//! retriever and post ids contain.
//!
//! # Results
//!
//! A line of the output (or error) file is
//! `{"id": ..., "custom_id": ..., "response": {"status_code": 200, "request_id": ..., "body": {<chat completion>}}, "error": null}`.
//! A call whose line carries an `error` object, no `response`, a status
//! other than 2xx, a completion without text, or one that did not end
//! normally (`finish_reason` `length` or `content_filter`) is recorded as
//! failed (its `error` says why, `attempts` is 1), like a live call that
//! failed; `<think>` blocks are stripped as from a live reply. A line
//! that is not JSON, has no usable `custom_id`, names a call that is not in
//! the run (or not in its shard), or repeats a `custom_id`, is an error
//! naming `FILE:LINE`, and nothing is recorded.

use super::batch::{CallKey, CallRecord, Shard, CALLS_FILE};
use super::pipeline::{Generation, Pipeline, Prepared, Stage};
use super::provider::{chat_body, chat_reply, MaxTokensField};
use super::reply::{accept, Completion};
use super::retry::Answered;
use crate::dataset::LabelledPost;
use crate::fsutil::AtomicFile;
use crate::fsutil::WriteError;
use crate::run_dir::calls::{CallsAppender, CallsError};
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The endpoint every request line names.
pub const ENDPOINT: &str = "/v1/chat/completions";

/// What one OpenAI batch input file may hold (the Batch API's documented
/// limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub requests: usize,
    pub bytes: u64,
}

impl Limits {
    /// 50,000 requests and 200 MB per file.
    pub const OPENAI: Limits = Limits {
        requests: 50_000,
        bytes: 200_000_000,
    };
}

/// The provider name recorded for calls answered through a batch file.
pub const PROVIDER: &str = "openai";

/// Most errors listed when a results file is refused.
const MAX_LISTED_ERRORS: usize = 10;

/// Why a batch file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error(
        "{count} requests are more than one OpenAI batch file may hold ({max}); split the run with \
         --shard I/N for N >= {shards} (one run folder and one batch file per shard; `glossa merge` \
         joins the folders); no batch file was written"
    )]
    TooManyRequests {
        count: usize,
        max: usize,
        shards: u64,
    },
    #[error(
        "the requests come to more than the {megabytes} MB one OpenAI batch file may hold (after \
         {written} of {count} requests); split the run with --shard I/N for N >= {shards} (one \
         batch file per shard); no batch file was written"
    )]
    TooManyBytes {
        megabytes: u64,
        written: usize,
        count: usize,
        shards: u64,
    },
    #[error("a batch file cannot hold a --simplify llm run")]
    SimplifiesWithModel,
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read {}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}: cannot read", path.display())]
    Read {
        path: PathBuf,
        line: usize,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{}:{line}: line longer than {}; a result line holds one reply, and glossa reads replies up to {}",
        path.display(),
        crate::limits::show_bytes(MAX_RESULT_LINE_BYTES),
        crate::limits::show_bytes(crate::limits::MAX_REPLY_BYTES)
    )]
    LongLine { path: PathBuf, line: usize },
    #[error("{}:{line}: not UTF-8 text", path.display())]
    NotUtf8 { path: PathBuf, line: usize },
    /// Lines that do not belong to the run: `listed` (`FILE:LINE: why`),
    /// and how many more there were.
    #[error(
        "{}{}\nnothing was recorded: the results must come from this run's --batch-out file ({})",
        listed.join("\n"),
        if *more > 0 { format!("\n(and {more} more)") } else { String::new() },
        dir.display()
    )]
    Foreign {
        listed: Vec<String>,
        more: usize,
        dir: PathBuf,
    },
    #[error(transparent)]
    AtomicWrite(#[from] WriteError),
    #[error(transparent)]
    Calls(#[from] CallsError),
}

/// A results line glossa cannot use (shown after its `FILE:LINE`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadLine {
    #[error("custom_id {id:?} is not one glossa wrote ({why}; expected RETRIEVER|REPEAT|POST)")]
    CustomId { id: String, why: String },
    #[error("not a Batch API result line: {0}")]
    NotAResult(String),
    #[error("`custom_id` is not a string")]
    IdNotAString,
    #[error("no `custom_id`")]
    NoId,
    #[error("`response` is not an object")]
    ResponseNotAnObject,
    #[error("`response` has no numeric `status_code`")]
    NoStatus,
    /// A well-formed line naming a call this run does not hold.
    #[error("{call}: {why}")]
    NotInRun { call: String, why: String },
    #[error("{call} appears again (first at {first})")]
    Repeated { call: String, first: String },
}

/// A bad `%` escape in a `custom_id` part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum BadEscape {
    #[error("a `%` at byte {0} without two hex digits")]
    NoHexDigits(usize),
    #[error("percent-escapes that are not UTF-8")]
    NotUtf8,
}

/// The `custom_id` of a call (see the module documentation).
pub fn custom_id(retriever: &str, repeat: u32, post: &str) -> String {
    format!("{}|{repeat}|{}", encode(retriever), encode(post))
}

/// The call a `custom_id` names: retriever, repeat, post.
pub fn parse_custom_id(id: &str) -> Result<CallKey, BadLine> {
    let bad = |why: &str| BadLine::CustomId {
        id: id.to_string(),
        why: why.to_string(),
    };
    let parts: Vec<&str> = id.split('|').collect();
    let [retriever, repeat, post] = parts[..] else {
        return Err(bad(&format!("{} parts", parts.len())));
    };
    let retriever = decode(retriever).map_err(|e| bad(&e.to_string()))?;
    let post = decode(post).map_err(|e| bad(&e.to_string()))?;
    let repeat: u32 = repeat
        .parse()
        .ok()
        .filter(|&r| r >= 1 && !repeat.starts_with('+'))
        .ok_or_else(|| bad(&format!("repeat `{repeat}` is not a number from 1")))?;
    if retriever.is_empty() || post.is_empty() {
        return Err(bad("an empty part"));
    }
    Ok((retriever, repeat, post))
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

fn decode(part: &str) -> Result<String, BadEscape> {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or(BadEscape::NoHexDigits(i))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| BadEscape::NotUtf8)
}

/// The model and sampling parameters of the request bodies.
#[derive(Debug, Clone, Default)]
pub struct Sampling {
    pub model: String,
    pub temperature: Option<f32>,
    pub seed: Option<u64>,
    pub max_tokens: Option<u32>,
    /// The field that carries `max_tokens`; by default from the model name.
    pub max_tokens_field: Option<MaxTokensField>,
}

#[derive(Serialize)]
struct RequestLine<'a, B: Serialize> {
    custom_id: &'a str,
    method: &'a str,
    url: &'a str,
    body: B,
}

/// One request line (with its newline) for a prepared post.
pub fn request_line(custom_id: &str, prepared: &Prepared, sampling: &Sampling) -> String {
    let line = RequestLine {
        custom_id,
        method: "POST",
        url: ENDPOINT,
        body: chat_body(
            &sampling.model,
            &prepared.trace.prompt.output.text,
            sampling.temperature,
            sampling.seed,
            sampling.max_tokens.map(|m| {
                let field = sampling
                    .max_tokens_field
                    .unwrap_or_else(|| MaxTokensField::for_model(&sampling.model));
                (m, field)
            }),
        ),
    };
    serde_json::to_string(&line).expect("a request line always serialises") + "\n"
}

/// Write the request lines of `calls` to `path` (atomically: a failure
/// leaves any old file as it was). Returns how many lines were written. A
/// file that would break `limits` is refused, and nothing is left behind.
pub fn write_requests(
    path: &Path,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    calls: &[(usize, u32, usize)],
    sampling: &Sampling,
    limits: Limits,
) -> Result<usize, BatchError> {
    if calls.len() > limits.requests {
        return Err(BatchError::TooManyRequests {
            count: calls.len(),
            max: limits.requests,
            shards: shards_needed(calls.len() as u64, limits.requests as u64),
        });
    }
    // Dropped unfinished (a refusal, an error), the temporary goes with it.
    let mut out = AtomicFile::create(path)?;
    let mut bytes: u64 = 0;
    for (n, &(ri, repeat, pi)) in calls.iter().enumerate() {
        let pipeline = &pipelines[ri];
        let post = &posts[pi];
        let prepared = pipeline
            .prepare_local(&post.post.text, Some(&post.label), repeat)
            .ok_or(BatchError::SimplifiesWithModel)?;
        let id = custom_id(&pipeline.retriever_name, repeat, &post.post.id);
        let line = request_line(&id, &prepared, sampling);
        bytes += line.len() as u64;
        if bytes > limits.bytes {
            // Estimate the shards needed from the lines written so far.
            let per_line = bytes / (n as u64 + 1);
            let total = per_line * calls.len() as u64;
            return Err(BatchError::TooManyBytes {
                megabytes: limits.bytes / 1_000_000,
                written: n + 1,
                count: calls.len(),
                shards: shards_needed(total, limits.bytes).max(2),
            });
        }
        out.write_all(line.as_bytes())
            .map_err(|source| BatchError::Write {
                path: path.to_path_buf(),
                source,
            })?;
    }
    out.commit()?;
    Ok(calls.len())
}

/// Shards for `total` when one file holds `per_file`: shards by hash are
/// only about even, so with a tenth to spare.
fn shards_needed(total: u64, per_file: u64) -> u64 {
    (total + total / 10).div_ceil(per_file.max(1))
}

/// What the API answered for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchResult {
    pub key: CallKey,
    /// The reply as the API sent it (not yet judged by
    /// [`crate::generate::reply::accept`]), or why the call failed.
    pub answer: Result<Completion, String>,
}

/// Read one line of a Batch API output or error file. `Err` means the line
/// is malformed; a call that failed is `Ok` with an `Err` answer.
pub fn parse_result(line: &str) -> Result<BatchResult, BadLine> {
    let v: Value = serde_json::from_str(line).map_err(|e| BadLine::NotAResult(e.to_string()))?;
    let Some(obj) = v.as_object() else {
        return Err(BadLine::NotAResult("not a JSON object".to_string()));
    };
    let id = match obj.get("custom_id") {
        Some(Value::String(id)) => id,
        Some(_) => return Err(BadLine::IdNotAString),
        None => return Err(BadLine::NoId),
    };
    let key = parse_custom_id(id)?;
    let answer = answer(obj)?;
    Ok(BatchResult { key, answer })
}

/// The answer a well-formed line carries: a completion, or why the call
/// failed (recorded as the call's error).
fn answer(obj: &serde_json::Map<String, Value>) -> Result<Result<Completion, String>, BadLine> {
    if let Some(error) = obj.get("error").filter(|e| !e.is_null()) {
        let text = |name: &str| {
            error
                .get(name)
                .and_then(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Null => None,
                    other => Some(other.to_string()),
                })
                .filter(|s| !s.is_empty())
        };
        let message = match error {
            Value::String(s) => s.clone(),
            _ => match (text("code"), text("message")) {
                (Some(code), Some(message)) => format!("{code}: {message}"),
                (None, Some(message)) => message,
                (Some(code), None) => code,
                (None, None) => error.to_string(),
            },
        };
        return Ok(Err(format!(
            "the OpenAI Batch API failed this request: {message}"
        )));
    }
    let response = match obj.get("response") {
        None | Some(Value::Null) => {
            return Ok(Err(
                "the OpenAI Batch API returned no response for this request".to_string(),
            ))
        }
        Some(Value::Object(r)) => r,
        Some(_) => return Err(BadLine::ResponseNotAnObject),
    };
    let status = response
        .get("status_code")
        .and_then(Value::as_u64)
        .ok_or(BadLine::NoStatus)?;
    let body = response.get("body").unwrap_or(&Value::Null);
    let request = response
        .get("request_id")
        .and_then(Value::as_str)
        .map(|r| format!(" (request {r})"))
        .unwrap_or_default();
    if !(200..300).contains(&status) {
        let detail = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| match body {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            });
        let detail = one_line(&detail, 300);
        return Ok(Err(if detail.is_empty() {
            format!("{status} from the OpenAI Batch API{request}")
        } else {
            format!("{status} from the OpenAI Batch API{request}: {detail}")
        }));
    }
    Ok(chat_reply(body)
        .map_err(|why| format!("reply from the OpenAI Batch API{request} has no text: {why}")))
}

fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// The run a results file is checked against.
pub struct IngestRun<'a> {
    pub dir: &'a Path,
    pub pipelines: &'a [Arc<Pipeline>],
    pub posts: &'a [LabelledPost],
    pub repeats: u32,
    pub shard: Shard,
    /// The calls still to record (the others are skipped as done).
    pub wanted: &'a [(usize, u32, usize)],
    /// The model recorded for each call; the one the API names otherwise.
    pub model: Option<&'a str>,
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
pub fn ingest(files: &[PathBuf], run: &IngestRun) -> Result<Ingested, BatchError> {
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
                    "reply from the OpenAI Batch API is not a translation: {refusal}"
                )),
            ),
        },
        Err(e) => (Completion::default(), Some(e)),
    };
    let answered = Answered {
        provider: PROVIDER.to_string(),
        model: run
            .model
            .map(str::to_string)
            .or_else(|| reply.served_model.clone())
            .unwrap_or_default(),
        attempts: 1,
        cached: false,
    };
    let mut generation = Generation::from(answered.reply(reply));
    if error.is_some() {
        // A refused reply is kept for its metadata, not as an output.
        generation.text = None;
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

/// Longest result line read: a reply at glossa's reply cap, plus room for
/// the line's envelope.
const MAX_RESULT_LINE_BYTES: usize = crate::limits::MAX_REPLY_BYTES + (64 << 10);

/// Call `f(line number, line)` for each non-blank line of `path` (a
/// byte-order mark at its start is dropped, as everywhere). A line longer
/// than [`MAX_RESULT_LINE_BYTES`] is an error naming it, found without
/// reading it whole.
fn for_each_line(path: &Path, mut f: impl FnMut(usize, &str)) -> Result<(), BatchError> {
    let file = File::open(path).map_err(|source| BatchError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    for number in 1.. {
        bytes.clear();
        let cap = MAX_RESULT_LINE_BYTES as u64 + 1;
        let n = (&mut reader)
            .take(cap)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| BatchError::Read {
                path: path.to_path_buf(),
                line: number,
                source,
            })?;
        if n == 0 {
            break;
        }
        if bytes.len() > MAX_RESULT_LINE_BYTES {
            return Err(BatchError::LongLine {
                path: path.to_path_buf(),
                line: number,
            });
        }
        let line = std::str::from_utf8(&bytes).map_err(|_| BatchError::NotUtf8 {
            path: path.to_path_buf(),
            line: number,
        })?;
        let line = if number == 1 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        if !line.trim().is_empty() {
            f(number, line.trim_end_matches(['\n', '\r']));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Label, Post, Split};
    use crate::generate::prompt::Template;
    use crate::generate::provider::{self, Client, RetryPolicy, Settings};
    use crate::generate::simplify::Simplify;
    use crate::glossary::Glossary;
    use crate::retrieve::Params;

    /// One exact-retriever pipeline over a one-entry glossary, and `n`
    /// posts.
    fn ten_calls(n: usize) -> (Arc<Pipeline>, Vec<LabelledPost>) {
        let glossary = Arc::new(
            Glossary::parse(
                "g.json",
                "g",
                r#"{"name":"g","source_lang":"en","target_lang":"x","entries":[{"source":"coffee","target":"mavi"}]}"#,
            )
            .unwrap(),
        );
        let offline = provider::build("offline", &Settings::default()).unwrap();
        let pipeline = Arc::new(Pipeline {
            retriever_name: "exact".into(),
            retriever: Arc::from(
                crate::retrieve::build("exact", &glossary, &Params::default()).unwrap(),
            ),
            glossary,
            template: Template::builtin("translate.v1"),
            simplify: Simplify::Rules,
            simplify_template: Template::builtin("simplify.v1"),
            client: Arc::new(Client::new(vec![offline], RetryPolicy::default(), None)),
            check: Default::default(),
        });
        let posts = (0..n)
            .map(|i| LabelledPost {
                post: Post {
                    id: format!("p{i}"),
                    text: "Cold coffee, please.".into(),
                },
                label: Label {
                    needed: vec![0],
                    wrong_sense: vec![],
                    tags: vec![],
                    split: Split::Dev,
                },
            })
            .collect();
        (pipeline, posts)
    }

    #[test]
    fn batch_files_over_the_limits_are_refused_and_nothing_is_left() {
        let (pipeline, posts) = ten_calls(10);
        let pipelines = [pipeline];
        let calls: Vec<(usize, u32, usize)> = (0..10).map(|i| (0, 1, i)).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("requests.jsonl");
        let sampling = Sampling {
            model: "m".into(),
            ..Sampling::default()
        };
        let write = |limits| write_requests(&path, &pipelines, &posts, &calls, &sampling, limits);
        let roomy = Limits {
            requests: 10,
            bytes: u64::MAX,
        };
        assert_eq!(write(roomy).unwrap(), 10);
        let size = std::fs::metadata(&path).unwrap().len();
        std::fs::remove_file(&path).unwrap();

        let err = write(Limits {
            bytes: size / 3,
            ..roomy
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("--shard I/N for N >= "), "{err}");
        assert!(err.contains("no batch file was written"), "{err}");
        let err = write(Limits {
            requests: 4,
            ..roomy
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("10 requests are more than one OpenAI batch file may hold (4)"),
            "{err}"
        );
        assert!(err.contains("N >= 3"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn custom_ids_round_trip_whatever_the_ids_hold() {
        for (r, n, p) in [
            ("normalised+fuzzy", 2, "p07"),
            ("exact|f", 1, "a|b"),
            ("fuzzy", 3, "100%|%7C|x"),
            ("glossa", 1, "line\nbreak\ttab é"),
        ] {
            let id = custom_id(r, n, p);
            assert_eq!(id.matches('|').count(), 2, "{id}");
            assert!(!id.chars().any(char::is_control), "{id:?}");
            assert_eq!(
                parse_custom_id(&id).unwrap(),
                (r.to_string(), n, p.to_string())
            );
        }
        assert_eq!(custom_id("exact|f", 1, "a|b"), "exact%7Cf|1|a%7Cb");
        assert_eq!(
            custom_id("normalised+fuzzy", 2, "p07"),
            "normalised+fuzzy|2|p07"
        );
    }

    #[test]
    fn foreign_custom_ids_are_refused() {
        for id in [
            "request-1",
            "a|b",
            "a|0|p",
            "a|x|p",
            "a|1|p|q",
            "a|1|",
            "a%zz|1|p",
            "a%FF|1|p",
        ] {
            assert!(parse_custom_id(id).is_err(), "{id}");
        }
    }

    #[test]
    fn result_lines_success_failure_and_malformed() {
        let ok = r#"{"id":"batch_req_1","custom_id":"exact|1|p1","response":{"status_code":200,"request_id":"r1","body":{"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"hei"},"finish_reason":"stop"}]}},"error":null}"#;
        let r = parse_result(ok).unwrap();
        assert_eq!(r.key, ("exact".to_string(), 1, "p1".to_string()));
        assert_eq!(
            r.answer,
            Ok(Completion {
                text: "hei".into(),
                finish_reason: Some("stop".into()),
                served_model: Some("gpt-x".into()),
                ..Completion::default()
            })
        );
        let status = r#"{"id":"b","custom_id":"exact|1|p1","response":{"status_code":500,"request_id":"r2","body":{"error":{"message":"The server had an error","type":"server_error"}}},"error":null}"#;
        let e = parse_result(status).unwrap().answer.unwrap_err();
        assert_eq!(
            e,
            "500 from the OpenAI Batch API (request r2): The server had an error"
        );
        let error = r#"{"id":"b","custom_id":"exact|1|p1","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#;
        let e = parse_result(error).unwrap().answer.unwrap_err();
        assert!(e.contains("batch_expired: This request could not"), "{e}");
        let empty = r#"{"custom_id":"exact|1|p1","response":{"status_code":200,"body":{"choices":[{"message":{"content":null},"finish_reason":"stop"}]}}}"#;
        let e = parse_result(empty).unwrap().answer.unwrap_err();
        assert!(e.contains("content is null (finish_reason stop)"), "{e}");
        assert!(parse_result("not json").is_err());
        assert!(parse_result(r#"{"response":null}"#).is_err());
        assert!(parse_result(r#"{"custom_id":"exact|1|p1","response":{"body":{}}}"#).is_err());
    }
}
