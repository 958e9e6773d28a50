//! OpenAI-compatible chat completions: OpenAI itself, Groq, Ollama, vLLM,
//! llama.cpp server, LM Studio — anything serving `POST /chat/completions`.

use super::{
    base_url, display_url, env_key, is_local, Auth, CallFuture, Http, Provider, ProviderError,
    Request, Settings, Verdict,
};
use serde::Serialize;
use serde_json::Value;

const NAME: &str = "openai";
const DEFAULT_BASE: &str = "https://api.openai.com/v1";
const DEFAULT_KEY_VAR: &str = "OPENAI_API_KEY";

pub(super) struct OpenAi {
    http: Http,
    base: String,
    url: String,
    model: String,
    temperature: Option<f32>,
    seed: Option<u64>,
    max_tokens: Option<u32>,
}

impl OpenAi {
    pub(super) fn new(settings: &Settings) -> Result<OpenAi, ProviderError> {
        let model = settings
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
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
        Ok(OpenAi {
            url: format!("{base}/chat/completions"),
            base,
            http,
            model,
            temperature: settings.temperature,
            seed: settings.seed,
            max_tokens: settings.max_tokens,
        })
    }

    async fn complete(&self, req: &Request) -> Result<String, ProviderError> {
        let body = chat_body(
            &self.model,
            &req.prompt,
            self.temperature,
            self.seed,
            self.max_tokens,
        );
        let body = serde_json::to_vec(&body).expect("a request body always serialises");
        let reply = self.http.post(&self.url, &self.model, body, judge).await?;
        chat_text(&reply)
            .map(str::to_string)
            .map_err(|detail| ProviderError::NoText {
                provider: NAME.to_string(),
                url: display_url(&self.url),
                detail,
            })
    }
}

impl Provider for OpenAi {
    fn name(&self) -> &str {
        NAME
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn identity(&self) -> String {
        super::identity(
            NAME,
            &self.base,
            &self.model,
            self.temperature,
            self.seed,
            self.max_tokens,
        )
    }

    fn call<'a>(&'a self, req: &'a Request) -> CallFuture<'a> {
        Box::pin(self.complete(req))
    }
}

/// The chat-completions body for one prompt: what a live call sends, and
/// what each request line of an OpenAI Batch API file carries
/// (`glossa run --batch-out`).
pub fn chat_body<'a>(
    model: &'a str,
    prompt: &'a str,
    temperature: Option<f32>,
    seed: Option<u64>,
    max_tokens: Option<u32>,
) -> impl Serialize + 'a {
    Body {
        model,
        messages: [Message {
            role: "user",
            content: prompt,
        }],
        temperature,
        seed,
        max_tokens,
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

/// The text of a chat-completions reply (a live call's, or a line of a
/// Batch API results file), or why there is none.
pub fn chat_text(reply: &Value) -> Result<&str, String> {
    let choice = reply.pointer("/choices/0");
    choice
        .and_then(|c| c.pointer("/message/content"))
        .and_then(Value::as_str)
        .ok_or_else(|| why_no_text(choice))
}

fn why_no_text(choice: Option<&Value>) -> String {
    let Some(choice) = choice else {
        return "no choices in the reply".to_string();
    };
    if let Some(refusal) = choice.pointer("/message/refusal").and_then(Value::as_str) {
        return format!("the model refused: {refusal}");
    }
    match choice.get("finish_reason").and_then(Value::as_str) {
        Some(reason) => format!("choices[0].message.content is missing (finish_reason {reason})"),
        None => "choices[0].message.content is missing".to_string(),
    }
}
