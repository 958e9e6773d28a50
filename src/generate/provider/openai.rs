//! OpenAI-compatible chat completions: OpenAI itself, Groq, Ollama, vLLM,
//! llama.cpp server, LM Studio — anything serving `POST /chat/completions`.

use super::endpoint::{named_model, Api, Endpoint, Judge, ReadReply};
use super::{
    base_url, env_key, is_local, Auth, Http, ProviderError, ProviderKind, Request, Settings,
    TokenLimit, Verdict,
};
use crate::generate::reply::{is_empty_answer, Completion, ReplyMeta, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

const NAME: &str = "openai";
const DEFAULT_BASE: &str = "https://api.openai.com/v1";
const DEFAULT_KEY_VAR: &str = "OPENAI_API_KEY";

pub(super) const KIND: ProviderKind = ProviderKind {
    name: NAME,
    summary: "any OpenAI-compatible chat-completions endpoint (OpenAI, Groq, Ollama, vLLM, \
              llama.cpp, LM Studio); key from OPENAI_API_KEY",
    label: "OpenAI",
    key_var: Some(DEFAULT_KEY_VAR),
    // Only `serve` falls back to it: elsewhere --model is required, since
    // the endpoint may be any compatible server.
    default_model: Some("gpt-4o-mini"),
    build: |settings| Ok(Box::new(build(settings)?)),
    parse_reply: Some(chat_reply),
};

/// The chat-completions dialect, with the sampling settings of one provider.
pub(super) struct Chat {
    temperature: Option<f32>,
    seed: Option<u64>,
    max_tokens: Option<(TokenLimit, MaxTokensField)>,
}

impl Api for Chat {
    const NAME: &'static str = NAME;

    fn body(&self, model: &str, req: &Request) -> Vec<u8> {
        let max_tokens = self.max_tokens.map(|(l, f)| (l.tokens(&req.text), f));
        let body = chat_body(model, &req.prompt, self.temperature, self.seed, max_tokens);
        serde_json::to_vec(&body).expect("a request body always serialises")
    }

    fn default_cap(&self, req: &Request) -> Option<u32> {
        match self.max_tokens {
            Some((limit @ TokenLimit::FromText(_), _)) => Some(limit.tokens(&req.text)),
            _ => None,
        }
    }

    const JUDGE: Judge = judge;
    const REPLY: ReadReply = chat_reply;
}

fn build(settings: &Settings) -> Result<Endpoint<Chat>, ProviderError> {
    let model = named_model(settings)
        .ok_or_else(|| ProviderError::MissingModel {
            provider: NAME.to_string(),
        })?
        .to_string();
    let base = base_url(NAME, settings.base_url.as_deref(), DEFAULT_BASE)?;
    let var = settings.api_key_env.as_deref().unwrap_or(DEFAULT_KEY_VAR);
    let key = env_key(var);
    // Only a server on this machine, named explicitly, may go without a
    // key; a variable named explicitly must be set.
    let keyless_ok =
        settings.base_url.is_some() && settings.api_key_env.is_none() && is_local(&base);
    if key.is_none() && !keyless_ok {
        return Err(ProviderError::MissingKey {
            var: var.to_string(),
        });
    }
    let http = Http::new(NAME, Auth::Bearer, key, var.to_string(), settings.timeout)?;
    let max_tokens_field = settings
        .max_tokens_field
        .unwrap_or_else(|| MaxTokensField::for_model(&model));
    let reasons = MaxTokensField::for_model(&model) == MaxTokensField::MaxCompletionTokens;
    let limit = TokenLimit::of(settings.max_tokens, settings.max_tokens_auto, reasons);
    let api = Chat {
        temperature: settings.temperature,
        seed: settings.seed,
        max_tokens: limit.map(|l| (l, max_tokens_field)),
    };
    Ok(Endpoint {
        url: format!("{base}/chat/completions"),
        identity: super::identity(
            NAME,
            &base,
            &model,
            api.temperature,
            api.seed,
            api.max_tokens.map(|(m, field)| (m, field.name())),
        ),
        api,
        http,
        model,
    })
}

/// The chat-completions body for one prompt: what a live call sends, and
/// what each request line of an OpenAI Batch API file carries
/// (`glossa run --batch-out`).
pub fn chat_body<'a>(
    model: &'a str,
    prompt: &'a str,
    temperature: Option<f32>,
    seed: Option<u64>,
    max_tokens: Option<(u32, MaxTokensField)>,
) -> impl Serialize + 'a {
    let limit = |field| max_tokens.filter(|(_, f)| *f == field).map(|(m, _)| m);
    Body {
        model,
        messages: [Message {
            role: "user",
            content: prompt,
        }],
        temperature,
        seed,
        max_tokens: limit(MaxTokensField::MaxTokens),
        max_completion_tokens: limit(MaxTokensField::MaxCompletionTokens),
    }
}

/// The request field that carries `--max-tokens`. OpenAI's reasoning models
/// refuse `max_tokens` with a 400 and take `max_completion_tokens`; most
/// other OpenAI-compatible servers know only `max_tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxTokensField {
    MaxTokens,
    MaxCompletionTokens,
}

impl MaxTokensField {
    /// The documented rule: `max_completion_tokens` for OpenAI's reasoning
    /// models, whose names start `o1`, `o3`, `o4` (any `o` and a digit) or
    /// `gpt-5`, also behind a routing prefix (`openai/o3-mini`);
    /// `max_tokens` for every other model.
    pub fn for_model(model: &str) -> MaxTokensField {
        let name = model
            .rsplit('/')
            .next()
            .unwrap_or(model)
            .to_ascii_lowercase();
        let mut chars = name.chars();
        let o_series =
            chars.next() == Some('o') && chars.next().is_some_and(|c| c.is_ascii_digit());
        if o_series || name.starts_with("gpt-5") {
            MaxTokensField::MaxCompletionTokens
        } else {
            MaxTokensField::MaxTokens
        }
    }

    /// The field's name in the request body.
    pub(crate) fn name(self) -> &'static str {
        match self {
            MaxTokensField::MaxTokens => "max_tokens",
            MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        }
    }
}

impl std::str::FromStr for MaxTokensField {
    type Err = String;

    fn from_str(s: &str) -> Result<MaxTokensField, String> {
        match s.trim() {
            "max_tokens" => Ok(MaxTokensField::MaxTokens),
            "max_completion_tokens" => Ok(MaxTokensField::MaxCompletionTokens),
            other => Err(format!(
                "`{other}` is not a max-tokens field: expected max_tokens or max_completion_tokens"
            )),
        }
    }
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: [Message<'a>; 1],
    // Unset parameters are left out so that the server's defaults apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'a str,
    content: &'a str,
}

/// `insufficient_quota` is billing, not rate: waiting will not help.
fn judge(status: u16, json: &Value, _text: &str) -> Verdict {
    let field = |name: &str| {
        json.pointer(&format!("/error/{name}"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    if status == 429
        && (field("code") == "insufficient_quota" || field("type") == "insufficient_quota")
    {
        Verdict::Quota
    } else {
        Verdict::Plain
    }
}

/// A chat-completions reply (a live call's, or the body of a line of a
/// Batch API results file) as parsed, not yet judged by
/// [`crate::generate::reply::accept`]; or, when it holds no text, what came
/// back instead. `content` may be a string or a list of parts
/// (`[{"type": "text", "text": "..."}, ...]`), whose text parts are joined.
pub fn chat_reply(reply: &Value) -> Result<Completion, String> {
    let choice = reply.pointer("/choices/0");
    let finish_reason = choice
        .and_then(|c| c.get("finish_reason"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let text = choice
        .and_then(|c| c.pointer("/message/content"))
        .and_then(content_text);
    let completion = Completion {
        text: text.unwrap_or_default(),
        meta: ReplyMeta {
            finish_reason,
            served_model: reply
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_string),
            usage: usage(reply),
            think: false,
            redacted: false,
        },
    };
    if is_empty_answer(&completion) {
        return Err(why_no_text(choice));
    }
    Ok(completion)
}

/// The text of `content`: a string, or the joined text parts of a list.
fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| {
                    matches!(
                        p.get("type").and_then(Value::as_str),
                        None | Some("text" | "output_text")
                    )
                })
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.concat())
        }
        _ => None,
    }
}

fn usage(reply: &Value) -> Option<Usage> {
    let usage = reply.get("usage")?;
    let count = |name: &str| usage.get(name).and_then(Value::as_u64);
    Some(Usage {
        input_tokens: count("prompt_tokens")?,
        output_tokens: count("completion_tokens").unwrap_or(0),
    })
}

/// What came back instead of text, in words.
fn why_no_text(choice: Option<&Value>) -> String {
    let Some(choice) = choice else {
        return "no choices in the reply".to_string();
    };
    if let Some(refusal) = choice.pointer("/message/refusal").and_then(Value::as_str) {
        return format!("the model refused: {refusal}");
    }
    let content = match choice.pointer("/message/content") {
        None => "choices[0].message.content is missing".to_string(),
        Some(Value::Null) => "choices[0].message.content is null".to_string(),
        Some(Value::String(_)) => "choices[0].message.content is empty".to_string(),
        Some(Value::Array(parts)) => {
            let kinds: Vec<&str> = parts
                .iter()
                .map(|p| p.get("type").and_then(Value::as_str).unwrap_or("untyped"))
                .collect();
            format!(
                "choices[0].message.content is a list of {} parts with no text ({})",
                parts.len(),
                if kinds.is_empty() {
                    "empty list".to_string()
                } else {
                    kinds.join(", ")
                }
            )
        }
        Some(other) => format!(
            "choices[0].message.content is {}, not text",
            match other {
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                _ => "an object",
            }
        ),
    };
    match choice.get("finish_reason").and_then(Value::as_str) {
        Some(reason) => format!("{content} (finish_reason {reason})"),
        None => content,
    }
}
