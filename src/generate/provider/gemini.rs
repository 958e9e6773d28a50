//! Google Gemini: `POST {base}/models/{model}:generateContent`.

use super::endpoint::{named_model, Api, Endpoint, Judge, ReadReply};
use super::{
    base_url, env_key, Auth, Http, ProviderError, ProviderKind, Request, Settings, TokenLimit,
    Verdict,
};
use crate::generate::reply::{is_empty_answer, Completion, ReplyMeta, Usage};
use serde::Serialize;
use serde_json::Value;

const NAME: &str = "gemini";
const DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com/v1beta";
const DEFAULT_KEY_VAR: &str = "GEMINI_API_KEY";
const DEFAULT_MODEL: &str = "gemini-2.5-flash";

pub(super) const KIND: ProviderKind = ProviderKind {
    name: NAME,
    summary:
        "Google Gemini generateContent API; key from GEMINI_API_KEY; default model gemini-2.5-flash",
    label: "Gemini",
    key_var: Some(DEFAULT_KEY_VAR),
    default_model: Some(DEFAULT_MODEL),
    build: |settings| Ok(Box::new(build(settings)?)),
    parse_reply: Some(gemini_reply),
};

/// The generateContent dialect, with the sampling settings of one provider.
pub(super) struct Generate {
    config: GenerationConfig,
}

impl Api for Generate {
    const NAME: &'static str = NAME;

    fn body(&self, _model: &str, req: &Request) -> Vec<u8> {
        serde_json::to_vec(&body(&req.prompt, &self.config))
            .expect("a request body always serialises")
    }

    const JUDGE: Judge = judge;
    const REPLY: ReadReply = gemini_reply;
}

fn build(settings: &Settings) -> Result<Endpoint<Generate>, ProviderError> {
    let model = named_model(settings).unwrap_or(DEFAULT_MODEL);
    // Google's own docs name models "models/gemini-…"; accept both.
    let model = model.strip_prefix("models/").unwrap_or(model).to_string();
    let base = base_url(NAME, settings.base_url.as_deref(), DEFAULT_BASE)?;
    let var = settings.api_key_env.as_deref().unwrap_or(DEFAULT_KEY_VAR);
    let key = env_key(var).ok_or_else(|| ProviderError::MissingKey {
        var: var.to_string(),
    })?;
    let http = Http::new(
        NAME,
        Auth::GoogHeader,
        Some(key),
        var.to_string(),
        settings.timeout,
    )?;
    // Gemini 2.5 models think, and their thinking counts against the
    // cap: no default cap from the post's length.
    let config = GenerationConfig {
        temperature: settings.temperature,
        seed: settings.seed,
        max_output_tokens: settings.max_tokens,
    };
    Ok(Endpoint {
        url: format!("{base}/models/{model}:generateContent"),
        identity: super::identity(
            NAME,
            &base,
            &model,
            config.temperature,
            config.seed,
            config
                .max_output_tokens
                .map(|m| (TokenLimit::Fixed(m), "max_tokens")),
        ),
        api: Generate { config },
        http,
        model,
    })
}

/// A `generateContent` reply body as parsed, not yet judged by
/// [`crate::generate::reply::accept`]; or, when it holds no text, what came
/// back instead. Public so the fuzz targets reach it.
pub(crate) fn gemini_reply(reply: &Value) -> Result<Completion, String> {
    let completion = candidate(reply);
    if is_empty_answer(&completion) {
        return Err(why_no_text(reply));
    }
    Ok(completion)
}

/// The first candidate as parsed: its text parts joined (thought summaries
/// of thinking models are not the answer), finish reason, model version
/// and usage.
fn candidate(reply: &Value) -> Completion {
    let parts = reply
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array);
    let text: String = parts
        .into_iter()
        .flatten()
        .filter(|part| part.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    let string = |pointer: &str| {
        reply
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Completion {
        text,
        meta: ReplyMeta {
            finish_reason: string("/candidates/0/finishReason"),
            served_model: string("/modelVersion"),
            usage: usage(reply),
            think: false,
            redacted: false,
        },
    }
}

/// `usageMetadata`: thinking tokens are billed as output.
fn usage(reply: &Value) -> Option<Usage> {
    let meta = reply.get("usageMetadata")?;
    let count = |name: &str| meta.get(name).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: meta.get("promptTokenCount").and_then(Value::as_u64)?,
        output_tokens: count("candidatesTokenCount") + count("thoughtsTokenCount"),
    })
}

fn body<'a>(prompt: &'a str, config: &'a GenerationConfig) -> Body<'a> {
    Body {
        contents: [Content {
            role: "user",
            parts: [Part { text: prompt }],
        }],
        generation_config: config,
    }
}

/// The `generateContent` body (a `GenerateContentRequest` without its
/// model), as JSON text, that a live call sends for `prompt` with these sampling settings; a
/// Gemini batch file holds one per line.
pub(crate) fn generate_body(
    prompt: &str,
    temperature: Option<f32>,
    seed: Option<u64>,
    max_output_tokens: Option<u32>,
) -> String {
    let config = GenerationConfig {
        temperature,
        seed,
        max_output_tokens,
    };
    serde_json::to_string(&body(prompt, &config)).expect("a request body always serialises")
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    contents: [Content<'a>; 1],
    generation_config: &'a GenerationConfig,
}

#[derive(Serialize)]
struct Content<'a> {
    role: &'a str,
    parts: [Part<'a>; 1],
}

#[derive(Serialize)]
struct Part<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
}

/// Gemini says RESOURCE_EXHAUSTED both for per-minute limits (wait and
/// retry) and for per-day quotas (stop: nothing will work until tomorrow);
/// the quota id or message tells them apart. A bad key is a 400.
fn judge(status: u16, _json: &Value, text: &str) -> Verdict {
    let lower = text.to_lowercase();
    if status == 429
        && ["perday", "per day", "per_day", "daily"]
            .iter()
            .any(|m| lower.contains(m))
    {
        Verdict::Quota
    } else if ["api_key_invalid", "api key not valid", "api key expired"]
        .iter()
        .any(|m| lower.contains(m))
    {
        Verdict::BadKey
    } else {
        Verdict::Plain
    }
}

fn why_no_text(reply: &Value) -> String {
    if let Some(reason) = reply
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return format!("the prompt was blocked ({reason})");
    }
    match reply
        .pointer("/candidates/0/finishReason")
        .and_then(Value::as_str)
    {
        Some(reason) => format!("candidates[0] has no text (finishReason {reason})"),
        None => "no candidates[0].content.parts[].text in the reply".to_string(),
    }
}
