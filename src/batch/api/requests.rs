//! `--batch-out`: the request lines of a run's calls, within the limits
//! of one batch input file of the run's service.

use super::{custom_id, BatchError, Dialect, ENDPOINT};
use crate::dataset::LabelledPost;
use crate::fsutil::AtomicFile;
use crate::generate::pipeline::{Pipeline, Prepared};
use crate::generate::provider::gemini::generate_body;
use crate::generate::provider::{chat_body, LengthCap, MaxTokensField, Settings, TokenLimit};
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// What one OpenAI batch input file may hold (the Batch API's documented
/// limits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub requests: usize,
    pub bytes: u64,
}

impl Limits {
    /// 50,000 requests and 200 MB per file.
    pub(crate) const OPENAI: Limits = Limits {
        requests: 50_000,
        bytes: 200_000_000,
    };

    /// Gemini's batch mode takes an input file of up to 2 GB (its Files
    /// API's limit per file) and documents no count: 1 GB, for a margin
    /// and an upload that is not all lost when it stops, and 100,000
    /// requests, so that one expired batch does not hold a whole run.
    pub(crate) const GEMINI: Limits = Limits {
        requests: 100_000,
        bytes: 1_000_000_000,
    };
}

/// The model and sampling parameters of the request bodies.
#[derive(Debug, Clone, Default)]
pub struct Sampling {
    pub(crate) model: String,
    pub(crate) temperature: Option<f32>,
    pub(crate) seed: Option<u64>,
    pub(crate) max_tokens: Option<u32>,
    /// The cap from the post's length when `max_tokens` is unset, as a
    /// live call sends it.
    pub(crate) max_tokens_auto: Option<LengthCap>,
    /// The field that carries `max_tokens`; by default from the model name.
    pub(crate) max_tokens_field: Option<MaxTokensField>,
    /// Whose request lines.
    pub(crate) dialect: Dialect,
}

impl Sampling {
    /// What a run's provider settings send in each request body.
    pub fn of(settings: &Settings) -> Sampling {
        Sampling {
            model: settings.model.clone().unwrap_or_default(),
            temperature: settings.temperature,
            seed: settings.seed,
            max_tokens: settings.max_tokens,
            max_tokens_auto: settings.max_tokens_auto,
            max_tokens_field: settings.max_tokens_field,
            dialect: Dialect::OpenAi,
        }
    }

    /// The same, in `dialect`'s request lines.
    pub fn in_dialect(self, dialect: Dialect) -> Sampling {
        Sampling { dialect, ..self }
    }
}

#[derive(Serialize)]
struct RequestLine<'a, B: Serialize> {
    custom_id: &'a str,
    method: &'a str,
    url: &'a str,
    body: B,
}

/// One request line (with its newline) for a prepared post, in the
/// sampling's dialect.
pub fn request_line(custom_id: &str, prepared: &Prepared, sampling: &Sampling) -> String {
    if sampling.dialect == Dialect::Gemini {
        return gemini_request_line(custom_id, &prepared.trace.prompt.output.text, sampling);
    }
    let line = RequestLine {
        custom_id,
        method: "POST",
        url: ENDPOINT,
        body: chat_body(
            &sampling.model,
            &prepared.trace.prompt.output.text,
            sampling.temperature,
            sampling.seed,
            token_limit(sampling).map(|(limit, field)| (limit.tokens(&prepared.text), field)),
        ),
    };
    serde_json::to_string(&line).expect("a request line always serialises") + "\n"
}

/// One line (with its newline) of a Gemini batch input file: the
/// `generateContent` body a live call sends for `prompt` (Gemini's live
/// calls set no cap from the post's length, and neither does this).
pub fn gemini_request_line(key: &str, prompt: &str, sampling: &Sampling) -> String {
    let request = generate_body(
        prompt,
        sampling.temperature,
        sampling.seed,
        sampling.max_tokens,
    );
    let key = serde_json::to_string(key).expect("a string always serialises");
    format!("{{\"key\":{key},\"request\":{request}}}\n")
}

/// The limit and its field, by the rules of a live call.
fn token_limit(sampling: &Sampling) -> Option<(TokenLimit, MaxTokensField)> {
    let by_name = MaxTokensField::for_model(&sampling.model);
    let reasons = by_name == MaxTokensField::MaxCompletionTokens;
    let limit = TokenLimit::of(sampling.max_tokens, sampling.max_tokens_auto, reasons)?;
    Some((limit, sampling.max_tokens_field.unwrap_or(by_name)))
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
            service: sampling.dialect.label(),
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
                service: sampling.dialect.label(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Label, Post, Split};
    use crate::generate::prompt::Template;
    use crate::generate::provider::{self, Settings};
    use crate::generate::retry::{Client, RetryPolicy};
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
            repair: 0,
            invariants: Default::default(),
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
    fn a_gemini_line_is_the_key_and_the_live_body() {
        let sampling = Sampling {
            model: "m".into(),
            temperature: Some(0.2),
            seed: Some(7),
            max_tokens: Some(300),
            ..Sampling::default()
        }
        .in_dialect(Dialect::Gemini);
        let key = custom_id("exact", 1, "say \"hi\" é");
        let line = gemini_request_line(&key, "Translate \"x\"\n", &sampling);
        assert!(
            line.ends_with("}\n") && line.matches('\n').count() == 1,
            "{line}"
        );
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["key"], key.as_str());
        assert_eq!(
            v["request"],
            serde_json::json!({
                "contents": [{"role": "user", "parts": [{"text": "Translate \"x\"\n"}]}],
                "generationConfig": {"temperature": 0.2, "seed": 7, "maxOutputTokens": 300}
            })
        );
        // f32 sampling values as written, not widened (0.2, not 0.20000000298…).
        assert!(line.contains("\"temperature\":0.2,"), "{line}");
        // The same body a live call sends, with the limits of Gemini's files.
        assert_eq!(Dialect::Gemini.limits(), Limits::GEMINI);
        assert_eq!(Dialect::of_provider(" gemini "), Some(Dialect::Gemini));
        assert_eq!(Dialect::of_provider("offline"), None);
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
            err.starts_with("10 requests are more than one OpenAI Batch API file may hold (4)"),
            "{err}"
        );
        assert!(err.contains("N >= 3"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
