//! Scoring retrievers on labelled posts: the engine behind `glossa eval`,
//! producing the JSON result of docs/formats.md ("`glossa eval --format json`").

use crate::dataset::{LabelledPost, Split};
use crate::error::InputError;
use crate::fsutil::{AtomicFile, WriteError};
use crate::glossary::Glossary;
use crate::retrieve::{
    self, best_per_entry, BuildError, Match, MatchKind, Params, PostView, RetrieveError, Retriever,
};
use crate::score::{Counts, Figures, PostScore, Tally};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// A match as written in results: the entry by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct MatchOut {
    pub(crate) entry: String,
    pub(crate) kind: MatchKind,
    pub(crate) phrase: String,
    pub(crate) score: f64,
}

/// One post's result for one retriever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostResult {
    pub post: String,
    pub retrieved: Vec<String>,
    pub found: usize,
    pub missed: Vec<String>,
    pub extra: Vec<String>,
    pub wrong_sense: Vec<String>,
    pub complete: bool,
    #[serde(default)]
    pub(crate) matches: Vec<MatchOut>,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    #[serde(default)]
    pub(crate) split: Split,
}

/// One retriever's result over the evaluated posts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RetrieverResult {
    pub name: String,
    #[serde(flatten)]
    pub(crate) figures: Figures,
    #[serde(default)]
    pub by_tag: BTreeMap<String, Figures>,
    #[serde(default)]
    pub by_split: BTreeMap<Split, Figures>,
    /// Wall time spent retrieving and scoring, in seconds.
    #[serde(default)]
    pub(crate) seconds: f64,
    pub per_post: Vec<PostResult>,
}

impl RetrieverResult {
    pub fn counts(&self) -> &Counts {
        &self.figures.0
    }
}

/// The whole result of `glossa eval`. Reads back what it writes; fields
/// beyond the stable ones of docs/formats.md default when absent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalResult {
    pub(crate) glossary: String,
    pub posts_file: String,
    pub(crate) labels_file: String,
    /// `all`, `dev` or `test`: which posts were scored.
    #[serde(default)]
    pub(crate) split: String,
    #[serde(default)]
    pub(crate) params: Params,
    #[serde(default)]
    pub(crate) glossa_version: String,
    pub retrievers: Vec<RetrieverResult>,
    /// How long the whole evaluation took (not part of the stable output of docs/formats.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
    /// SHA-256 of the files read, so that `glossa diff` can tell results
    /// about different data apart (absent in older results, and for input
    /// read from standard input).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<InputHashes>,
}

/// SHA-256 (hex) of an evaluation's three input files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputHashes {
    pub(crate) glossary: String,
    pub(crate) posts: String,
    pub(crate) labels: String,
}

impl InputHashes {
    /// The hashes of the files at these paths; `None` when one cannot be
    /// read again (standard input).
    pub fn of(
        glossary: &std::path::Path,
        posts: &std::path::Path,
        labels: &std::path::Path,
    ) -> Option<InputHashes> {
        let hash = |p: &std::path::Path| crate::fsutil::sha256_file(p).ok();
        Some(InputHashes {
            glossary: hash(glossary)?,
            posts: hash(posts)?,
            labels: hash(labels)?,
        })
    }
}

/// Throughput of one `glossa eval`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub posts: usize,
    /// Building the retrievers' indexes.
    pub index_seconds: f64,
    /// Loading the glossary excluded; indexing, reading and scoring included.
    pub seconds: f64,
    pub posts_per_second: f64,
}

/// Names of the files a result came from.
pub struct Sources<'a> {
    pub posts_file: &'a str,
    pub labels_file: &'a str,
    pub split: &'a str,
}

/// Whether per-post details go into the result (they grow with the posts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PerPost {
    /// Keep them up to 10,000 posts, then leave them out
    #[default]
    Auto,
    /// Always keep them
    On,
    /// Leave them out
    Off,
}

/// Above this many posts, `--per-post auto` drops per-post details from
/// the JSON result (use `--per-post-jsonl FILE` to stream them instead).
pub const PER_POST_AUTO_LIMIT: usize = 10_000;

/// Posts scored together: read in order, scored in parallel, summed in
/// order, so memory is bounded by a chunk, not by the file.
const CHUNK: usize = 2_048;

/// How to run an evaluation.
#[derive(Default)]
pub struct EvalOptions {
    pub per_post: PerPost,
    /// Where to stream one JSON line per (retriever, post), if anywhere;
    /// the file appears, whole, only when the evaluation succeeds.
    pub per_post_out: Option<AtomicFile>,
    /// Leave the indexes unfreed, for a process that exits next (as the
    /// `eval` command does): freeing a 100k-entry index costs tens of
    /// milliseconds that the exit does for nothing.
    pub exit_follows: bool,
}

/// What the streaming evaluation saw besides the result.
#[derive(Debug, Clone, Copy, Default)]
pub struct EvalStats {
    pub posts: usize,
    /// Seconds spent building retrievers (indexes).
    pub index_seconds: f64,
    /// Whether `--per-post auto` dropped per-post details.
    pub per_post_dropped: bool,
}

/// Score each retriever spec on `posts` (in memory, on the current rayon
/// pool), keeping per-post details as `per_post` says.
pub fn evaluate(
    glossary: &Arc<Glossary>,
    posts: &[LabelledPost],
    specs: &[String],
    params: &Params,
    sources: &Sources,
    per_post: PerPost,
) -> Result<EvalResult, EvalError> {
    let options = EvalOptions {
        per_post,
        ..EvalOptions::default()
    };
    let stream = posts.iter().cloned().map(Ok::<_, InputError>);
    match evaluate_stream(glossary, stream, specs, params, sources, options) {
        Ok((result, _)) => Ok(result),
        Err(e @ (EvalError::Retriever(_) | EvalError::Retrieve { .. })) => Err(e),
        Err(e) => unreachable!("in-memory posts: {e}"),
    }
}

/// Why a streaming evaluation stopped.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A retriever or filter could not be built.
    #[error(transparent)]
    Retriever(#[from] BuildError),
    /// A retriever failed on a post: no score without its matches.
    #[error("post `{post}`: {source}")]
    Retrieve { post: String, source: RetrieveError },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("cannot write per-post results: {0}")]
    Write(#[from] std::io::Error),
    #[error(transparent)]
    Save(#[from] WriteError),
}

/// One post scored by every retriever.
struct Scored {
    post: LabelledPost,
    /// Per retriever: its matches (one per entry) and the score.
    by_retriever: Vec<(Vec<Match>, PostScore)>,
}

/// Score each retriever spec on a stream of posts, in parallel on the
/// current rayon pool (`glossa eval` installs one of `--threads`), with
/// memory bounded by `CHUNK` posts (plus per-post details when kept).
pub fn evaluate_stream(
    glossary: &Arc<Glossary>,
    posts: impl Iterator<Item = Result<LabelledPost, InputError>> + Send,
    specs: &[String],
    params: &Params,
    sources: &Sources,
    mut options: EvalOptions,
) -> Result<(EvalResult, EvalStats), EvalError> {
    use rayon::prelude::*;
    let started = Instant::now();
    let retrievers = specs
        .par_iter()
        .map(|spec| retrieve::build(spec, glossary, params))
        .collect::<Result<Vec<_>, _>>()?;
    let mut stats = EvalStats {
        index_seconds: started.elapsed().as_secs_f64(),
        ..EvalStats::default()
    };

    let mut tallies: Vec<Tally> = vec![Tally::default(); retrievers.len()];
    let mut per_post: Vec<Vec<PostResult>> = vec![Vec::new(); retrievers.len()];
    let mut seconds = vec![0.0; retrievers.len()];
    let mut keep = options.per_post != PerPost::Off;
    let mut posts = posts;
    let mut read_chunk =
        move || -> Result<Vec<LabelledPost>, InputError> { posts.by_ref().take(CHUNK).collect() };
    let mut chunk = read_chunk()?;
    while !chunk.is_empty() {
        let timed_start = Instant::now();
        // The next chunk is read while this one is scored, on a spare
        // thread when there is one.
        let posts = std::mem::take(&mut chunk);
        let (scored, next) = rayon::join(|| score_chunk(posts, &retrievers), &mut read_chunk);
        let scored = scored?;
        // Parallel work cannot be split by retriever: share the time evenly.
        let share = timed_start.elapsed().as_secs_f64() / retrievers.len() as f64;
        seconds.iter_mut().for_each(|s| *s += share);
        stats.posts += scored.len();
        if keep && options.per_post == PerPost::Auto && stats.posts > PER_POST_AUTO_LIMIT {
            keep = false;
            stats.per_post_dropped = true;
            per_post.iter_mut().for_each(Vec::clear);
        }
        for s in scored {
            for (r, (matches, score)) in s.by_retriever.into_iter().enumerate() {
                tallies[r].add(&score, &s.post.label);
                let spans = crate::otel::enabled();
                if !keep && options.per_post_out.is_none() && !spans {
                    continue;
                }
                let result = post_result(glossary, &s.post, matches, &score);
                if spans {
                    record_spans(&specs[r], &result);
                }
                if let Some(out) = options.per_post_out.as_mut() {
                    let line = serde_json::json!({ "retriever": specs[r], "result": result });
                    writeln!(out, "{line}")?;
                }
                if keep {
                    per_post[r].push(result);
                }
            }
        }
        chunk = next?;
    }
    if let Some(out) = options.per_post_out.take() {
        out.commit()?;
    }
    let results = specs
        .iter()
        .zip(tallies)
        .zip(per_post)
        .zip(seconds)
        .map(|(((spec, tally), per_post), seconds)| {
            retriever_result(spec, tally, per_post, seconds)
        })
        .collect();
    let result = EvalResult {
        glossary: glossary.name.clone(),
        posts_file: sources.posts_file.to_string(),
        labels_file: sources.labels_file.to_string(),
        split: sources.split.to_string(),
        params: params.clone(),
        glossa_version: env!("CARGO_PKG_VERSION").to_string(),
        retrievers: results,
        timing: None,
        inputs: None,
    };
    if options.exit_follows {
        std::mem::forget(retrievers);
    } else {
        // Freeing a 100k-entry index takes tens of milliseconds; a thread
        // of its own does it while the caller goes on.
        std::thread::spawn(move || drop(retrievers));
    }
    Ok((result, stats))
}

/// Every retriever on each post of a chunk, in parallel.
fn score_chunk(
    chunk: Vec<LabelledPost>,
    retrievers: &[Box<dyn Retriever>],
) -> Result<Vec<Scored>, EvalError> {
    use rayon::prelude::*;
    chunk
        .into_par_iter()
        .map(|post| {
            let view = PostView::new(&post.post.text, Some(&post.label.needed));
            let by_retriever = retrievers
                .iter()
                .map(|r| {
                    let matches = best_per_entry(r.retrieve(&view)?);
                    let entries = matches.iter().map(|m| m.entry).collect();
                    let score = PostScore::new(entries, &post.label);
                    Ok((matches, score))
                })
                .collect::<Result<_, RetrieveError>>()
                .map_err(|source| EvalError::Retrieve {
                    post: post.post.id.clone(),
                    source,
                })?;
            Ok(Scored { post, by_retriever })
        })
        .collect()
}

/// One post's result for one retriever, entries by id.
/// A scored post as spans under the invocation's root (docs/telemetry.md):
/// `post` with one `retrieve` child. Posts are timed by the chunk, not one
/// by one, so both spans have no length.
fn record_spans(spec: &str, result: &PostResult) {
    use crate::otel::{count, strings};
    use opentelemetry::trace::{Span as _, TraceContextExt as _, Tracer as _};
    use opentelemetry::KeyValue;
    let tracer = opentelemetry::global::tracer(crate::otel::SCOPE);
    let root = crate::otel::root();
    let now = std::time::SystemTime::now();
    let post = tracer
        .span_builder("post")
        .with_start_time(now)
        .with_attributes(vec![
            KeyValue::new("openinference.span.kind", "CHAIN"),
            KeyValue::new("glossa.post.id", result.post.clone()),
            KeyValue::new("glossa.retriever", spec.to_string()),
            KeyValue::new("glossa.complete", result.complete),
        ])
        .start_with_context(&tracer, &root);
    let cx = root.with_span(post);
    let mut kinds: Vec<String> = result.matches.iter().map(|m| m.kind.to_string()).collect();
    kinds.sort();
    kinds.dedup();
    let mut retrieve = tracer
        .span_builder("retrieve")
        .with_start_time(now)
        .with_attributes(vec![
            KeyValue::new("openinference.span.kind", "RETRIEVER"),
            KeyValue::new("glossa.retriever", spec.to_string()),
            KeyValue::new("glossa.entries", count(result.retrieved.len())),
            KeyValue::new(
                "glossa.entry_ids",
                strings(result.retrieved.iter().map(String::as_str)),
            ),
            KeyValue::new("glossa.kinds", strings(kinds.iter().map(String::as_str))),
            KeyValue::new("glossa.needed", count(result.found + result.missed.len())),
            KeyValue::new("glossa.found", count(result.found)),
            KeyValue::new("glossa.extra", count(result.extra.len())),
            KeyValue::new("glossa.wrong_sense", count(result.wrong_sense.len())),
        ])
        .start_with_context(&tracer, &cx);
    retrieve.end_with_timestamp(now);
    cx.span().end_with_timestamp(now);
}

fn post_result(
    glossary: &Glossary,
    post: &LabelledPost,
    matches: Vec<Match>,
    score: &PostScore,
) -> PostResult {
    let id = |e: &usize| glossary.entries[*e].id.clone();
    let ids = |v: &[usize]| v.iter().map(id).collect::<Vec<_>>();
    PostResult {
        post: post.post.id.clone(),
        retrieved: ids(&score.retrieved),
        found: score.found.len(),
        missed: ids(&score.missed),
        extra: ids(&score.extra),
        wrong_sense: ids(&score.wrong_sense),
        complete: score.complete,
        matches: matches
            .into_iter()
            .map(|m| MatchOut {
                entry: id(&m.entry),
                kind: m.kind,
                phrase: m.phrase,
                score: m.score,
            })
            .collect(),
        tags: post.label.tags.clone(),
        split: post.label.split,
    }
}

/// Counts as figures, by the same keys.
fn figures<K: Ord>(counts: BTreeMap<K, Counts>) -> BTreeMap<K, Figures> {
    counts.into_iter().map(|(k, v)| (k, Figures(v))).collect()
}

/// One retriever's figures: in all, by tag, by split.
fn retriever_result(
    spec: &str,
    tally: Tally,
    per_post: Vec<PostResult>,
    seconds: f64,
) -> RetrieverResult {
    RetrieverResult {
        name: spec.to_string(),
        figures: Figures(tally.total),
        by_tag: figures(tally.by_tag),
        by_split: figures(tally.by_split),
        seconds,
        per_post,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Label, Post, Split};

    /// A retriever whose service is down.
    struct Failing;

    impl Retriever for Failing {
        fn retrieve(&self, _: &PostView) -> Result<Vec<Match>, RetrieveError> {
            Err(RetrieveError {
                retriever: "failing".into(),
                message: "the service is down".into(),
            })
        }
    }

    #[test]
    fn a_retriever_failing_on_a_post_stops_the_evaluation_naming_the_post() {
        let post = |id: &str| LabelledPost {
            post: Post {
                id: id.into(),
                text: "tea".into(),
            },
            label: Label {
                needed: Vec::new(),
                wrong_sense: Vec::new(),
                tags: Vec::new(),
                split: Split::Dev,
            },
        };
        let retrievers: Vec<Box<dyn Retriever>> = vec![Box::new(Failing)];
        let err = score_chunk(vec![post("p7")], &retrievers).err().unwrap();
        assert_eq!(
            err.to_string(),
            "post `p7`: retriever `failing` failed: the service is down"
        );
    }
}
