//! Model providers: one attempt at turning a [`Request`] into text.
//!
//! A provider makes exactly one call; retries with backoff, failover and
//! caching live in [`Client`]. Providers are listed in [`PROVIDERS`] and
//! built by name from [`Settings`] with [`build`]. Adding a provider is one
//! file (declaring its [`ProviderKind`]) and one line in `PROVIDERS`.
//!
//! The HTTP providers need a tokio runtime with IO and time enabled.

mod cap;
mod endpoint;
pub(crate) mod gemini;
mod offline;
mod openai;

pub use crate::generate::reply::{Completion, ReplyMeta, Usage};
pub use cap::{LengthCap, TokenLimit};
pub(crate) use gemini::gemini_reply;
pub use openai::{chat_body, chat_reply, MaxTokensField};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

/// One registered provider: what the CLI's help, `translate`, `run` and
/// `serve` need to know about it. Each provider file declares its own row
/// (`KIND`); adding a provider is that file and one line in [`PROVIDERS`].
#[derive(Debug, Clone, Copy)]
pub struct ProviderKind {
    /// The name `--provider` takes.
    pub name: &'static str,
    /// One line for help texts.
    pub summary: &'static str,
    /// What the web page's picker shows before the model name.
    pub(crate) label: &'static str,
    /// The environment variable the key is read from by default; `None`
    /// for a provider that needs no key (always offered by `serve`).
    pub key_var: Option<&'static str>,
    /// The model `serve` offers when none is named (and the one `build`
    /// uses, for providers that have a default).
    pub default_model: Option<&'static str>,
    /// Builds the provider; configuration problems are reported here.
    pub(crate) build: fn(&Settings) -> Result<Box<dyn Provider>, ProviderError>,
    /// Reads a successful reply body (`None`: the provider calls no API).
    /// The fuzz target and the shared provider tests go through it.
    pub parse_reply: Option<ReplyParser>,
}

/// Reads a provider's successful reply body: the answer and its metadata,
/// or why the body holds none.
pub(crate) type ReplyParser = fn(&Value) -> Result<Completion, String>;

/// Registered providers, in the order help texts and the page list them.
pub const PROVIDERS: &[ProviderKind] = &[offline::KIND, openai::KIND, gemini::KIND];

/// The registered provider called `name`.
pub fn kind(name: &str) -> Option<&'static ProviderKind> {
    PROVIDERS.iter().find(|kind| kind.name == name)
}

/// Whether `name` is the offline provider, whose output is the post with
/// glossary words put in: nothing is translated, it takes no instructions,
/// so its output is never an echo and never repaired.
pub(crate) fn is_offline(name: &str) -> bool {
    name == offline::KIND.name
}

/// The registered names, comma-separated, for help texts and messages.
pub fn names() -> String {
    listed(|kind| Some(kind.name), ", ")
}

/// The default key variables, for help texts: `A / B`.
pub fn key_vars() -> String {
    listed(|kind| kind.key_var, " / ")
}

/// One field of every provider that has it, joined by `separator`.
fn listed(field: fn(&ProviderKind) -> Option<&'static str>, separator: &str) -> String {
    let values: Vec<&str> = PROVIDERS.iter().filter_map(field).collect();
    values.join(separator)
}

/// Per-attempt timeout when [`Settings::timeout`] is not set.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// A retrieved entry's target and where it goes in [`Request::text`], for
/// the offline provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Substitution {
    /// The matched words as written.
    pub phrase: String,
    pub target: String,
    /// Byte ranges of [`Request::text`] where retrieval kept a match of
    /// the entry (never where a filter dropped one: "save the date").
    /// `None` for an entry matched from no phrase (the oracle): the target
    /// then goes wherever `phrase` stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub places: Option<Vec<Range<usize>>>,
    /// The entry's `case_sensitive`: the target is written exactly, no
    /// capital carried (absent when false, so cache keys stay as they were).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub case_sensitive: bool,
    /// The entry's `keep`: the words stay as the post writes them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep: bool,
}

/// One generation request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Request {
    /// The full rendered prompt sent to a model.
    pub prompt: String,
    /// The text the offline provider writes into: the post as given (its
    /// line breaks kept) when the simplified text is slices of it, the
    /// simplified text otherwise.
    pub text: String,
    /// Retrieved targets and their places in `text`, for the offline
    /// provider.
    pub substitutions: Vec<Substitution>,
    /// 1-based repeat number: repeats are distinct samples, so it is part of
    /// the cache key.
    pub repeat: u32,
}

/// How to reach a provider; everything is optional and has a default.
/// A run saves these fields in `run.json`'s `provider` object (see
/// `run_dir::config::ProviderConfig`), all but the timeout, which it keeps
/// as seconds beside them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// Name of the environment variable holding the key (the key itself is
    /// only ever read from the environment, so it never reaches argv or logs).
    pub api_key_env: Option<String>,
    pub temperature: Option<f32>,
    pub seed: Option<u64>,
    pub max_tokens: Option<u32>,
    /// The cap from the text's length when `max_tokens` is unset (the
    /// CLI's default; `None`: no cap, as in run folders from before it).
    /// Not sent to models that reason before answering (see
    /// [`TokenLimit::of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_auto: Option<LengthCap>,
    /// Which field carries `max_tokens` to an OpenAI-compatible API; by
    /// default decided from the model name ([`MaxTokensField::for_model`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens_field: Option<MaxTokensField>,
    /// Per attempt; [`DEFAULT_TIMEOUT`] when unset. Not serialised: a
    /// run's `timeout` is its own field of `ProviderConfig`.
    #[serde(skip)]
    pub timeout: Option<Duration>,
}

/// A model's answer and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reply {
    pub text: String,
    pub provider: String,
    pub model: String,
    /// Calls made for this reply, failed ones and those to providers failed
    /// over from included; 0 when the first provider's answer was cached.
    pub attempts: u32,
    pub cached: bool,
    /// Finish reason, served model, `<think>`; usage `None` for a cached
    /// reply (it cost nothing this time) or when the API does not say.
    #[serde(flatten)]
    pub meta: ReplyMeta,
}

/// The future returned by [`Provider::call`].
pub(crate) type CallFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Completion, ProviderError>> + Send + 'a>>;

/// A way to turn a request into text.
pub trait Provider: Send + Sync {
    /// The registered name: "openai", "gemini" or "offline".
    fn name(&self) -> &str;
    /// The model asked, empty for providers without one.
    fn model(&self) -> &str {
        ""
    }
    /// Everything that decides the answer besides the request: provider,
    /// base URL, model and sampling parameters (never the key). Part of the
    /// cache key.
    fn identity(&self) -> String;
    /// One attempt, no retries. The reply has passed
    /// [`crate::generate::reply::accept`]: it ended normally and any
    /// `<think>` block is gone.
    fn call<'a>(&'a self, req: &'a Request) -> CallFuture<'a>;
    /// The secrets this provider holds (its key), scrubbed from every reply
    /// by the [`crate::generate::retry::Client`].
    fn secrets(&self) -> Vec<crate::generate::secrets::Secret> {
        Vec::new()
    }
}

/// Build the provider registered as `name`. Configuration problems (no
/// model, no key, bad base URL) are reported here, before any request.
pub fn build(name: &str, settings: &Settings) -> Result<Box<dyn Provider>, ProviderError> {
    let kind = kind(name).ok_or_else(|| ProviderError::UnknownProvider {
        name: name.to_string(),
        known: names(),
    })?;
    (kind.build)(settings)
}

/// Why a call failed. Messages name the provider and endpoint and say what
/// to do; they never contain the key (server messages are scrubbed of it).
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("unknown provider `{name}` (known: {known})")]
    UnknownProvider { name: String, known: String },
    #[error("--model is required for {provider}")]
    MissingModel { provider: String },
    #[error("{var} is not set (export it, or choose another variable with --api-key-env)")]
    MissingKey { var: String },
    #[error("invalid base URL `{url}` for {provider}: {reason}")]
    InvalidBaseUrl {
        provider: String,
        url: String,
        reason: String,
    },
    #[error("cannot set up the HTTP client for {provider}: {detail}")]
    Setup { provider: String, detail: String },
    #[error("{status} from {provider} at {url}: the API key was refused (check {var}){}", suffix(.detail))]
    KeyRefused {
        provider: String,
        url: String,
        status: u16,
        var: String,
        detail: String,
    },
    #[error("403 from {provider} at {url}: access denied{}", suffix(.detail))]
    Forbidden {
        provider: String,
        url: String,
        detail: String,
    },
    #[error(
        "model `{model}` not found (404 from {provider} at {url}); check --model and the base URL{}",
        suffix(.detail)
    )]
    ModelNotFound {
        provider: String,
        model: String,
        url: String,
        detail: String,
    },
    #[error(
        "quota exhausted at {provider} ({url}){}; wait for it to reset, or use another key or provider",
        suffix(.detail)
    )]
    QuotaExhausted {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("429 from {provider} at {url}: rate limited{}", suffix(.detail))]
    RateLimited {
        provider: String,
        url: String,
        retry_after: Option<Duration>,
        detail: String,
    },
    #[error("{status} from {provider} at {url}: server error{}", suffix(.detail))]
    Server {
        provider: String,
        url: String,
        status: u16,
        retry_after: Option<Duration>,
        detail: String,
    },
    #[error(
        "{status} from {provider} at {url}: the server redirected to {location}; \
         glossa follows no redirects, so the key and the prompt go only to the base URL \
         (if you trust the new address, give it as --base-url)"
    )]
    Redirected {
        provider: String,
        url: String,
        status: u16,
        /// The `Location` asked for, without credentials ("nowhere" if none).
        location: String,
    },
    #[error("{status} from {provider} at {url}: request rejected{}", suffix(.detail))]
    Rejected {
        provider: String,
        url: String,
        status: u16,
        detail: String,
    },
    #[error("no reply from {provider} at {url}: timeout after {} s", .after.as_secs_f64())]
    Timeout {
        provider: String,
        url: String,
        after: Duration,
    },
    #[error("cannot reach {provider} at {url}: {detail}")]
    Connect {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("reply from {provider} at {url} was truncated: {detail}")]
    Truncated {
        provider: String,
        url: String,
        detail: String,
    },
    #[error(
        "reply from {provider} at {url} is larger than {}; refused (glossa reads replies up to that size)",
        crate::limits::show_bytes(*.limit)
    )]
    TooLarge {
        provider: String,
        url: String,
        limit: usize,
    },
    #[error("reply from {provider} at {url} is not JSON: {detail}")]
    NotJson {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("reply from {provider} at {url} has no text: {detail}")]
    NoText {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("reply from {provider} at {url} is not a translation: {refusal}")]
    Stopped {
        provider: String,
        url: String,
        refusal: String,
        /// What came back: finish reason, served model, usage (paid for
        /// even though it is no translation).
        reply: Box<Completion>,
    },
    #[error("cannot write the reply cache in {dir}: {detail}")]
    Cache { dir: String, detail: String },
    #[error("no provider configured")]
    NoProviders,
    #[error("every provider failed: {}", list(.0))]
    AllFailed(Vec<ProviderError>),
}

impl ProviderError {
    /// Worth another attempt at the same provider: the failure is likely
    /// transient (rate limit, server error, timeout, dropped connection).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. }
                | ProviderError::Server { .. }
                | ProviderError::Timeout { .. }
                | ProviderError::Connect { .. }
                | ProviderError::Truncated { .. }
        )
    }

    /// Every further request would fail the same way (quota gone for the
    /// day, key refused, cache unwritable): a batch should stop cleanly.
    pub fn stops_run(&self) -> bool {
        matches!(
            self,
            ProviderError::QuotaExhausted { .. }
                | ProviderError::KeyRefused { .. }
                | ProviderError::Cache { .. }
        )
    }

    /// Every further call of a run will fail the same way (a bad
    /// parameter, an unknown model): a run stops after a few in a row.
    pub(crate) fn same_for_every_call(&self) -> bool {
        match self {
            ProviderError::Rejected { status: 400, .. }
            | ProviderError::ModelNotFound { .. }
            | ProviderError::Redirected { .. } => true,
            ProviderError::AllFailed(errors) => errors.iter().all(Self::same_for_every_call),
            _ => false,
        }
    }

    /// The reply that came back, for a call that failed on its content.
    pub fn reply(&self) -> Option<&Completion> {
        match self {
            ProviderError::Stopped { reply, .. } => Some(reply),
            _ => None,
        }
    }

    /// How long the server asked us to wait (Retry-After, or Gemini's
    /// `retryDelay`).
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::RateLimited { retry_after, .. }
            | ProviderError::Server { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

fn suffix(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}

fn list(errors: &[ProviderError]) -> String {
    errors
        .iter()
        .enumerate()
        .map(|(i, e)| format!("({}) {e}", i + 1))
        .collect::<Vec<_>>()
        .join("; ")
}

// ---------------------------------------------------------------------------
// What the HTTP providers share: settings checks, one POST, and turning a
// failed reply into a ProviderError.

/// Longest server message quoted in an error.
const DETAIL_CHARS: usize = 300;

/// A provider's result for a parsed reply (`Err`: no text, and what came
/// back instead): judged by [`crate::generate::reply::accept`].
fn judged(
    provider: &str,
    url: &str,
    parsed: Result<Completion, String>,
) -> Result<Completion, ProviderError> {
    let completion = parsed.map_err(|detail| ProviderError::NoText {
        provider: provider.to_string(),
        url: display_url(url),
        detail,
    })?;
    crate::generate::reply::accept(completion.clone()).map_err(|refusal| ProviderError::Stopped {
        provider: provider.to_string(),
        url: display_url(url),
        refusal: refusal.to_string(),
        reply: Box::new(completion),
    })
}

/// The base URL, validated, without trailing slashes.
pub(crate) fn base_url(
    provider: &str,
    given: Option<&str>,
    default: &str,
) -> Result<String, ProviderError> {
    let raw = given.unwrap_or(default).trim();
    let invalid = |reason: String| ProviderError::InvalidBaseUrl {
        provider: provider.to_string(),
        url: raw.to_string(),
        reason,
    };
    let url = reqwest::Url::parse(raw).map_err(|e| invalid(e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("expected an http:// or https:// URL".into()));
    }
    if url.query().is_some() {
        // Query strings are where keys hide; ours go in headers.
        return Err(invalid(
            "no query string allowed (keys come from the environment)".into(),
        ));
    }
    Ok(raw.trim_end_matches('/').to_string())
}

/// Local servers (Ollama, llama.cpp, vLLM on this machine) need no key.
pub(crate) fn is_local(base: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base) else {
        return false;
    };
    matches!(
        url.host_str(),
        Some("localhost" | "127.0.0.1" | "[::1]" | "::1" | "0.0.0.0")
    )
}

/// The key in `var`, if set and not blank.
pub(crate) fn env_key(var: &str) -> Option<String> {
    std::env::var(var)
        .ok()
        .map(|key| key.trim().to_string())
        .filter(|key| !key.is_empty())
}

/// What a provider's replies depend on, for the cache key: provider, URL
/// (as quoted), model and the sampling settings that are set.
fn identity(
    name: &str,
    base: &str,
    model: &str,
    temperature: Option<f32>,
    seed: Option<u64>,
    max_tokens: Option<(TokenLimit, &str)>,
) -> String {
    let mut identity = format!("{name} {} model={model}", display_url(base));
    if let Some(t) = temperature {
        identity.push_str(&format!(" temperature={t}"));
    }
    if let Some(s) = seed {
        identity.push_str(&format!(" seed={s}"));
    }
    if let Some((m, field)) = max_tokens {
        identity.push_str(&format!(" {field}={m}"));
    }
    identity
}

/// The URL as quoted in messages: without any user:password part.
pub(crate) fn display_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// How the key travels.
#[derive(Debug, Clone, Copy)]
enum Auth {
    /// `Authorization: Bearer KEY` (OpenAI and compatibles).
    Bearer,
    /// `x-goog-api-key: KEY` (Gemini; never in the URL, which ends up in
    /// error messages).
    GoogHeader,
}

/// What a provider recognises in an error reply beyond its status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Nothing special: classify by status.
    Plain,
    /// The quota is gone for good (or for the day).
    Quota,
    /// The key was refused, whatever the status says.
    BadKey,
}

/// One HTTP endpoint with its client, key and per-attempt timeout.
struct Http {
    client: reqwest::Client,
    provider: &'static str,
    auth: Auth,
    key: Option<String>,
    key_var: String,
    timeout: Duration,
}

impl Http {
    fn new(
        provider: &'static str,
        auth: Auth,
        key: Option<String>,
        key_var: String,
        timeout: Option<Duration>,
    ) -> Result<Http, ProviderError> {
        // A 3xx comes back as a reply and becomes `ProviderError::Redirected`.
        let client = client_builder().build().map_err(|e| ProviderError::Setup {
            provider: provider.to_string(),
            detail: error_chain(&e),
        })?;
        Ok(Http {
            client,
            provider,
            auth,
            key,
            key_var,
            timeout: timeout.unwrap_or(DEFAULT_TIMEOUT),
        })
    }

    /// POST `body` (JSON) to `url` once and return the parsed JSON of a
    /// successful reply; `judge` spots provider-specific failures.
    async fn post(
        &self,
        url: &str,
        model: &str,
        body: Vec<u8>,
        judge: fn(u16, &Value, &str) -> Verdict,
    ) -> Result<Value, ProviderError> {
        let shown = display_url(url);
        let mut request = self
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(key) = &self.key {
            request = match self.auth {
                Auth::Bearer => request.bearer_auth(key),
                Auth::GoogHeader => request.header("x-goog-api-key", key),
            };
        }
        // The timeout covers connecting, sending and reading the whole body.
        let exchange = async {
            let response = request
                .send()
                .await
                .map_err(|e| self.transport(&shown, e))?;
            let status = response.status().as_u16();
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            if (300..400).contains(&status) {
                return Err(self.redirected(&shown, status, &response));
            }
            let bytes = self
                .read_capped(response, &shown, crate::limits::MAX_REPLY_BYTES)
                .await?;
            Ok((status, retry_after, bytes))
        };
        let (status, retry_after, bytes) = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| self.timed_out(&shown))??;
        let text = String::from_utf8_lossy(&bytes);
        let parsed = serde_json::from_str::<Value>(&text);
        if !(200..300).contains(&status) {
            let json = parsed.unwrap_or(Value::Null);
            return Err(self.status_error(&shown, model, status, retry_after, &json, &text, judge));
        }
        parsed.map_err(|e| {
            if e.is_eof() {
                ProviderError::Truncated {
                    provider: self.provider.to_string(),
                    url: shown.clone(),
                    detail: format!("the JSON stops after {} bytes", bytes.len()),
                }
            } else {
                ProviderError::NotJson {
                    provider: self.provider.to_string(),
                    url: shown.clone(),
                    detail: format!("{e}; it starts with {:?}", self.snippet(&text, 80)),
                }
            }
        })
    }

    /// The reply's body, refused once it passes `limit` bytes (announced
    /// or read), so a runaway reply never sits whole in memory.
    async fn read_capped(
        &self,
        mut response: reqwest::Response,
        url: &str,
        limit: usize,
    ) -> Result<Vec<u8>, ProviderError> {
        let too_large = || ProviderError::TooLarge {
            provider: self.provider.to_string(),
            url: url.to_string(),
            limit,
        };
        if response.content_length().is_some_and(|n| n > limit as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        loop {
            let chunk = response
                .chunk()
                .await
                .map_err(|e| ProviderError::Truncated {
                    provider: self.provider.to_string(),
                    url: url.to_string(),
                    detail: self.scrub(&error_chain(&e.without_url())),
                })?;
            let Some(chunk) = chunk else {
                return Ok(body);
            };
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
    }

    /// A 3xx reply: where it pointed, shown without credentials or key.
    fn redirected(&self, url: &str, status: u16, response: &reqwest::Response) -> ProviderError {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .map(|v| self.snippet(&display_url(&v), DETAIL_CHARS))
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "nowhere (no Location header)".to_string());
        ProviderError::Redirected {
            provider: self.provider.to_string(),
            url: url.to_string(),
            status,
            location,
        }
    }

    fn timed_out(&self, url: &str) -> ProviderError {
        ProviderError::Timeout {
            provider: self.provider.to_string(),
            url: url.to_string(),
            after: self.timeout,
        }
    }

    fn transport(&self, url: &str, err: reqwest::Error) -> ProviderError {
        if err.is_timeout() {
            return self.timed_out(url);
        }
        ProviderError::Connect {
            provider: self.provider.to_string(),
            url: url.to_string(),
            detail: self.scrub(&error_chain(&err.without_url())),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn status_error(
        &self,
        url: &str,
        model: &str,
        status: u16,
        retry_after: Option<Duration>,
        json: &Value,
        text: &str,
        judge: fn(u16, &Value, &str) -> Verdict,
    ) -> ProviderError {
        let provider = self.provider.to_string();
        let url = url.to_string();
        let detail = match json.pointer("/error/message").and_then(Value::as_str) {
            Some(message) => self.snippet(message, DETAIL_CHARS),
            None => self.snippet(text, DETAIL_CHARS),
        };
        let retry_after = retry_after.or_else(|| retry_delay(json));
        match (judge(status, json, text), status) {
            (Verdict::Quota, _) => ProviderError::QuotaExhausted {
                provider,
                url,
                detail,
            },
            (Verdict::BadKey, _) | (_, 401) => ProviderError::KeyRefused {
                provider,
                url,
                status,
                var: self.key_var.clone(),
                detail,
            },
            (_, 403) => ProviderError::Forbidden {
                provider,
                url,
                detail,
            },
            (_, 404) => ProviderError::ModelNotFound {
                provider,
                model: model.to_string(),
                url,
                detail,
            },
            (_, 429) => ProviderError::RateLimited {
                provider,
                url,
                retry_after,
                detail,
            },
            (_, 408) | (_, 500..=599) => ProviderError::Server {
                provider,
                url,
                status,
                retry_after,
                detail,
            },
            _ => ProviderError::Rejected {
                provider,
                url,
                status,
                detail,
            },
        }
    }

    /// `text` without the key, on one line, at most `max` chars.
    fn snippet(&self, text: &str, max: usize) -> String {
        let text = self.scrub(text);
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        match line.char_indices().nth(max) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line,
        }
    }

    /// Servers sometimes echo the key back; never pass it on.
    fn scrub(&self, text: &str) -> String {
        match &self.key {
            Some(key) if key.len() >= 4 => text.replace(key.as_str(), "[key]"),
            _ => text.to_string(),
        }
    }
}

/// The longest wait a server can ask for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(86_400);

/// Retry-After: a number of seconds, or an HTTP date (RFC 9110 §10.2.3)
/// counted from `now`; a date already past asks for no wait.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    parse_seconds(value).or_else(|| {
        let at = httpdate::parse_http_date(value).ok()?;
        let wait = at.duration_since(now).unwrap_or(Duration::ZERO);
        Some(wait.min(MAX_RETRY_AFTER))
    })
}

fn parse_seconds(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs).min(MAX_RETRY_AFTER))
}

/// Gemini's `RetryInfo` detail: `"retryDelay": "37s"`.
fn retry_delay(json: &Value) -> Option<Duration> {
    json.pointer("/error/details")?
        .as_array()?
        .iter()
        .filter_map(|d| d.get("retryDelay")?.as_str())
        .find_map(|d| parse_seconds(d.strip_suffix('s')?))
}

/// The HTTP client every API call of glossa starts from (model calls and
/// the batch services): its user agent, and no redirect followed, not even
/// to the same origin: reqwest strips only Authorization and cookies on a
/// cross-origin hop, so Gemini's `x-goog-api-key` and every prompt would
/// follow a 307 anywhere; and an API never redirects a POST (301/302 would
/// turn it into a GET without a body).
pub(crate) fn client_builder() -> reqwest::ClientBuilder {
    // reqwest is built without a default TLS backend (fast to compile);
    // install ring once per process. An error only means it is already
    // installed.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("glossa/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
}

/// An error and its causes on one line: reqwest's own message is terse
/// ("error sending request"); the cause says what happened. (Callers strip
/// reqwest's URL first: messages already name the endpoint.)
pub(crate) fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:27:57 GMT").unwrap();
        let parse = |v| parse_retry_after(v, now);
        assert_eq!(parse("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(
            parse("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::from_secs(3))
        );
        // A date already past: retry now.
        assert_eq!(parse("Wed, 21 Oct 2015 07:20:00 GMT"), Some(Duration::ZERO));
        assert_eq!(parse("-1"), None);
        assert_eq!(parse("soon"), None);
        assert_eq!(parse("1e9"), Some(MAX_RETRY_AFTER));
    }

    #[test]
    fn gemini_retry_delay() {
        let json: Value = serde_json::from_str(
            r#"{"error":{"details":[{"@type":"x.QuotaFailure"},{"retryDelay":"37s"}]}}"#,
        )
        .unwrap();
        assert_eq!(retry_delay(&json), Some(Duration::from_secs(37)));
    }

    #[test]
    fn base_urls_are_checked_and_trimmed() {
        assert_eq!(
            base_url("openai", Some("http://localhost:11434/v1/"), "x").unwrap(),
            "http://localhost:11434/v1"
        );
        assert!(base_url("openai", Some("localhost:11434"), "x").is_err());
        assert!(base_url("openai", Some("http://h/v1?key=k"), "x").is_err());
        assert!(is_local("http://127.0.0.1:8080/v1"));
        assert!(is_local("http://localhost/v1"));
        assert!(!is_local("https://api.openai.com/v1"));
        assert!(!is_local("http://localhost.example.com/v1"));
    }

    #[test]
    fn urls_lose_credentials_in_messages() {
        assert_eq!(
            display_url("http://user:secret@proxy.local/v1/chat/completions"),
            "http://proxy.local/v1/chat/completions"
        );
    }
}
