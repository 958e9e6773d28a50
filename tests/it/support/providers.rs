//! Per-provider fixtures for the shared provider tests (tests/it/providers.rs):
//! how to address a provider at a mock server, what it answers, and the
//! shape of the request it sends. Every provider in `PROVIDERS` that calls
//! an API needs a row here (a test says so), and then gets every shared
//! fault test: 429 with Retry-After, 500, 502 until the attempts run out,
//! a hang, a truncated body, a refused key, an exhausted quota.

use super::Recorded;

/// The prompt, sampling settings and key of the request-shape test.
pub const SHAPE_PROMPT: &str = "Translate: hello";
pub const SHAPE_TEMPERATURE: f32 = 0.2;
pub const SHAPE_SEED: u64 = 7;
pub const SHAPE_MAX_TOKENS: u32 = 64;

/// One provider's fixtures.
pub struct ProviderFixture {
    /// Its name in `PROVIDERS`.
    pub name: &'static str,
    /// The path of `--base-url` on the mock server.
    pub base_path: &'static str,
    pub model: &'static str,
    /// A key of the provider's form.
    pub key: &'static str,
    /// A successful reply whose text is "Bonjour".
    pub ok: &'static str,
    /// The start of `ok`, cut off by the connection.
    pub truncated: &'static str,
    /// A 429 that asks to wait and try again.
    pub rate_limited: &'static str,
    /// A 500's body.
    pub server_error: &'static str,
    /// A 429 that means the quota is gone: the run stops.
    pub quota: &'static str,
    /// How the provider refuses a key: status and body (`{KEY}` stands for
    /// the key, where the server echoes it).
    pub refused_key: (u16, &'static str),
    /// Asserts the request sent for [`SHAPE_PROMPT`] with the SHAPE_
    /// sampling settings, the model and `key`.
    pub request_shape: fn(&Recorded, &str),
}

pub const FIXTURES: &[ProviderFixture] = &[OPENAI, GEMINI];

/// The fixtures of provider `name`.
pub fn fixture(name: &str) -> Option<&'static ProviderFixture> {
    FIXTURES.iter().find(|f| f.name == name)
}

const OPENAI: ProviderFixture = ProviderFixture {
    name: "openai",
    base_path: "/v1",
    model: "gpt-test",
    key: "sk-test-key-0123456789",
    ok: r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Bonjour"},"finish_reason":"stop"}]}"#,
    truncated: r#"{"choices":[{"message":{"content":"Bon"#,
    rate_limited: r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
    server_error: r#"{"error":{"message":"The server had an error"}}"#,
    quota: r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}"#,
    refused_key: (
        401,
        r#"{"error":{"message":"Incorrect API key provided: {KEY}.","code":"invalid_api_key"}}"#,
    ),
    request_shape: openai_shape,
};

fn openai_shape(sent: &Recorded, key: &str) {
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/chat/completions");
    let bearer = format!("Bearer {key}");
    assert_eq!(sent.header("authorization"), Some(bearer.as_str()));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    let body = sent.json();
    assert_eq!(body["model"], "gpt-test");
    assert_eq!(body["messages"][0]["role"], "user");
    assert_eq!(body["messages"][0]["content"], SHAPE_PROMPT);
    assert_eq!(
        body["temperature"].as_f64().map(|t| t as f32),
        Some(SHAPE_TEMPERATURE)
    );
    assert_eq!(body["seed"], SHAPE_SEED);
    assert_eq!(body["max_tokens"], SHAPE_MAX_TOKENS);
}

const GEMINI: ProviderFixture = ProviderFixture {
    name: "gemini",
    base_path: "/v1beta",
    model: "gemini-test",
    key: "AIza-test-gemini-key",
    // Thought parts are not the answer.
    ok: r#"{"candidates":[{"content":{"role":"model","parts":[
        {"text":"thinking…","thought":true},{"text":"Bon"},{"text":"jour"}]},"finishReason":"STOP"}]}"#,
    truncated: r#"{"candidates":[{"content":{"parts":[{"text":"Bon"#,
    rate_limited: r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED",
  "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]}]}}"#,
    server_error: r#"{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}"#,
    quota: r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED",
  "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},
             {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0s"}]}}"#,
    refused_key: (
        400,
        r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",
            "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}"#,
    ),
    request_shape: gemini_shape,
};

fn gemini_shape(sent: &Recorded, key: &str) {
    assert_eq!(sent.method, "POST");
    // The key travels in a header, never in the URL.
    assert_eq!(sent.path, "/v1beta/models/gemini-test:generateContent");
    assert_eq!(sent.header("x-goog-api-key"), Some(key));
    assert_eq!(sent.header("authorization"), None);
    assert!(!sent.path.contains(key));
    let body = sent.json();
    assert_eq!(body["contents"][0]["role"], "user");
    assert_eq!(body["contents"][0]["parts"][0]["text"], SHAPE_PROMPT);
    let config = &body["generationConfig"];
    assert_eq!(
        config["temperature"].as_f64().map(|t| t as f32),
        Some(SHAPE_TEMPERATURE)
    );
    assert_eq!(config["seed"], SHAPE_SEED);
    assert_eq!(config["maxOutputTokens"], SHAPE_MAX_TOKENS);
}
