//! The batch services' JSONL files: OpenAI's Batch API and Gemini's batch
//! mode ([`Dialect`]). `glossa run --batch-out` writes one request line per
//! (retriever, repeat, post) call instead of calling a model; `glossa run
//! --batch-in` reads the output file the service returns, checks every
//! output exactly as a live run does, and appends the same records to
//! `calls.jsonl`. A Gemini line is `{"key": CUSTOM_ID, "request": <the
//! generateContent body a live call sends>}`, and its result
//! `{"key": ..., "response": <GenerateContentResponse>}` or `{"key": ...,
//! "error": <google.rpc.Status>}` (`status` is read as `error`).
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

mod ingest;
mod requests;
mod results;

pub(crate) use ingest::{ingest, IngestRun, Ingested};
pub use requests::{gemini_request_line, request_line, write_requests, Limits, Sampling};
pub use results::{parse_result, BatchResult};

use crate::fsutil::WriteError;
use crate::run_dir::calls::CallsError;
pub use crate::run_dir::record::custom_id;
use crate::run_dir::record::CallKey;
use results::MAX_RESULT_LINE_BYTES;
use std::path::PathBuf;

/// The endpoint every request line names.
pub const ENDPOINT: &str = "/v1/chat/completions";

/// The provider name recorded for calls answered through an OpenAI batch
/// file.
pub(crate) const PROVIDER: &str = "openai";

/// Whose batch files a run writes and reads: OpenAI's Batch API (and the
/// services compatible with it), or Gemini's batch mode of
/// `generateContent`. See README, "Millions of calls", and docs/formats.md,
/// "Batches at the provider".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dialect {
    #[default]
    OpenAi,
    Gemini,
}

impl Dialect {
    /// The dialect of a run's provider (`--provider`), if it has one.
    pub(crate) fn of_provider(provider: &str) -> Option<Dialect> {
        match provider.trim() {
            "openai" => Some(Dialect::OpenAi),
            "gemini" => Some(Dialect::Gemini),
            _ => None,
        }
    }

    /// The provider recorded for calls answered through its batch files.
    pub fn provider(self) -> &'static str {
        match self {
            Dialect::OpenAi => PROVIDER,
            Dialect::Gemini => "gemini",
        }
    }

    /// The service, as messages name it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Dialect::OpenAi => "OpenAI Batch API",
            Dialect::Gemini => "Gemini Batch API",
        }
    }

    /// What one of its input files may hold.
    pub fn limits(self) -> Limits {
        match self {
            Dialect::OpenAi => Limits::OPENAI,
            Dialect::Gemini => Limits::GEMINI,
        }
    }
}

/// Why a batch file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error(
        "{count} requests are more than one {service} file may hold ({max}); split the run with \
         --shard I/N for N >= {shards} (one run folder and one batch file per shard; `glossa merge` \
         joins the folders), or let `glossa batch submit DIR` split the calls into several batches; \
         no batch file was written"
    )]
    TooManyRequests {
        service: &'static str,
        count: usize,
        max: usize,
        shards: u64,
    },
    #[error(
        "the requests come to more than the {megabytes} MB one {service} file may hold (after \
         {written} of {count} requests); split the run with --shard I/N for N >= {shards} (one \
         batch file per shard), or let `glossa batch submit DIR` split the calls into several \
         batches; no batch file was written"
    )]
    TooManyBytes {
        service: &'static str,
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
    #[error("`{0}` is not a string")]
    IdNotAString(&'static str),
    #[error("no `custom_id` (an OpenAI result line) or `key` (a Gemini one)")]
    NoId,
    /// A result line of one service in a run that went through another.
    #[error("a result line of the {found}, in a run whose requests went to the {run}")]
    OtherService {
        found: &'static str,
        run: &'static str,
    },
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
