//! Providers, retries, failover and the cache, against scripted servers on
//! 127.0.0.1 (never the internet). Keys live in environment variables named
//! uniquely per test, so tests running in parallel cannot see each other's.

use crate::support;

use glossa::generate::cache::Cache;
use glossa::generate::provider::{
    build, Provider, ProviderError, Reply, Request, Settings, Substitution, PROVIDERS,
};
use glossa::generate::retry::{Client, RetryPolicy};
use std::time::{Duration, Instant};
use support::providers::{
    fixture, ProviderFixture, SHAPE_MAX_TOKENS, SHAPE_PROMPT, SHAPE_SEED, SHAPE_TEMPERATURE,
};
use support::{Response, Server};

const OPENAI_OK: &str = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"Bonjour"},"finish_reason":"stop"}]}"#;

/// The fixtures of every provider that calls an API, in `PROVIDERS` order:
/// the shared fault tests loop over them, so a provider gets them all by
/// its line in `PROVIDERS` and its row in tests/it/support/providers.rs.
fn api_providers() -> Vec<&'static ProviderFixture> {
    PROVIDERS
        .iter()
        .filter(|kind| kind.parse_reply.is_some())
        .map(|kind| {
            fixture(kind.name).unwrap_or_else(|| {
                panic!(
                    "provider `{}` has no fixtures in tests/it/support/providers.rs",
                    kind.name
                )
            })
        })
        .collect()
}

/// `f`'s provider at `server`, its key in `{test}_{PROVIDER}` (a name
/// unique to the test and the provider).
fn at(f: &ProviderFixture, server: &Server, test: &str) -> Settings {
    Settings {
        model: Some(f.model.into()),
        base_url: Some(server.url(f.base_path)),
        api_key_env: key(&key_var(f, test), f.key),
        ..Settings::default()
    }
}

fn key_var(f: &ProviderFixture, test: &str) -> String {
    format!("{test}_{}", f.name.to_ascii_uppercase())
}

fn built(f: &ProviderFixture, settings: &Settings) -> Box<dyn Provider> {
    build(f.name, settings).unwrap_or_else(|e| panic!("{} builds: {e}", f.name))
}

fn request(prompt: &str) -> Request {
    Request {
        prompt: prompt.to_string(),
        text: "source text".to_string(),
        substitutions: Vec::new(),
        repeat: 1,
    }
}

/// Set `var` to `key` for this test only (the name is unique to the test).
fn key(var: &str, key: &str) -> Option<String> {
    std::env::set_var(var, key);
    Some(var.to_string())
}

fn openai_at(server: &Server, var: &str) -> Settings {
    Settings {
        model: Some("gpt-test".into()),
        base_url: Some(server.url("/v1")),
        api_key_env: key(var, "sk-test-key-0123456789"),
        ..Settings::default()
    }
}

fn openai(settings: &Settings) -> Box<dyn Provider> {
    build("openai", settings).expect("openai provider builds")
}

/// Tiny delays keep the suite fast.
fn quick(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(10),
    }
}

fn client(provider: Box<dyn Provider>, retry: RetryPolicy) -> Client {
    Client::new(vec![provider], retry, None)
}

/// One request ("hi") through a client of `provider` alone.
async fn ask(provider: Box<dyn Provider>, retry: RetryPolicy) -> Result<Reply, ProviderError> {
    client(provider, retry).generate(&request("hi")).await
}

// --- request shape -------------------------------------------------------

#[test]
fn every_api_provider_has_fixtures_and_its_ok_reply_parses() {
    let providers = api_providers();
    let names: Vec<&str> = providers.iter().map(|f| f.name).collect();
    assert_eq!(names, ["openai", "gemini"]);
    for f in providers {
        let parse = glossa::generate::provider::kind(f.name)
            .and_then(|k| k.parse_reply)
            .unwrap();
        let body: serde_json::Value = serde_json::from_str(f.ok).unwrap();
        let completion = parse(&body).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert_eq!(completion.text, "Bonjour", "{}", f.name);
        assert!(serde_json::from_str::<serde_json::Value>(f.truncated).is_err());
    }
}

#[tokio::test]
async fn request_shape() {
    for f in api_providers() {
        let server = Server::start(vec![Response::json(200, f.ok)]).await;
        let settings = Settings {
            temperature: Some(SHAPE_TEMPERATURE),
            seed: Some(SHAPE_SEED),
            max_tokens: Some(SHAPE_MAX_TOKENS),
            ..at(f, &server, "GLOSSA_TEST_KEY_SHAPE")
        };
        let provider = built(f, &settings);
        assert_eq!(provider.name(), f.name);
        assert_eq!(provider.model(), f.model);
        let text = provider.call(&request(SHAPE_PROMPT)).await.unwrap();
        assert_eq!(text.text, "Bonjour", "{}", f.name);
        let requests = server.requests();
        assert_eq!(requests.len(), 1, "{}", f.name);
        (f.request_shape)(&requests[0], f.key);
    }
}

#[tokio::test]
async fn openai_tolerates_a_trailing_slash_in_the_base_url() {
    let server = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
    let settings = Settings {
        base_url: Some(server.url("/v1/")),
        ..openai_at(&server, "GLOSSA_TEST_KEY_OPENAI_SLASH")
    };
    openai(&settings).call(&request("hi")).await.unwrap();
    assert_eq!(server.requests()[0].path, "/v1/chat/completions");
}

#[tokio::test]
async fn openai_leaves_unset_parameters_out() {
    let server = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_OPENAI_UNSET"));
    provider.call(&request("hi")).await.unwrap();
    let body = server.requests()[0].json();
    let fields: Vec<&String> = body.as_object().unwrap().keys().collect();
    assert_eq!(fields, ["messages", "model"]);
}

#[test]
fn gemini_defaults_to_flash() {
    let settings = Settings {
        api_key_env: key("GLOSSA_TEST_KEY_GEMINI_DEFAULT", "AIza-default"),
        ..Settings::default()
    };
    let provider = build("gemini", &settings).unwrap();
    assert_eq!(provider.model(), "gemini-2.5-flash");
    assert!(provider
        .identity()
        .contains("https://generativelanguage.googleapis.com/v1beta"));
}

// --- configuration errors, before any request ------------------------------

#[test]
fn openai_needs_a_model() {
    let settings = Settings {
        api_key_env: key("GLOSSA_TEST_KEY_NO_MODEL", "sk-x"),
        ..Settings::default()
    };
    let err = build("openai", &settings).err().unwrap();
    assert_eq!(err.to_string(), "--model is required for openai");
}

#[test]
fn missing_key_is_an_error_for_remote_servers() {
    let settings = Settings {
        model: Some("gpt-test".into()),
        base_url: Some("https://api.example.invalid/v1".into()),
        api_key_env: Some("GLOSSA_TEST_KEY_NEVER_SET".into()),
        ..Settings::default()
    };
    let err = build("openai", &settings).err().unwrap();
    assert_eq!(
        err.to_string(),
        "GLOSSA_TEST_KEY_NEVER_SET is not set (export it, or choose another variable with --api-key-env)"
    );
    assert!(!err.retryable());
}

#[test]
fn gemini_always_needs_a_key() {
    let settings = Settings {
        base_url: Some("http://127.0.0.1:9/v1beta".into()),
        api_key_env: Some("GLOSSA_TEST_KEY_GEMINI_NEVER_SET".into()),
        ..Settings::default()
    };
    let err = build("gemini", &settings).err().unwrap();
    assert!(err
        .to_string()
        .starts_with("GLOSSA_TEST_KEY_GEMINI_NEVER_SET is not set"));
}

#[tokio::test]
async fn local_servers_need_no_key() {
    let server = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
    // No api_key_env: OPENAI_API_KEY may or may not be set where tests run;
    // either way a local server named explicitly must be usable.
    let settings = Settings {
        model: Some("llama3".into()),
        base_url: Some(server.url("/v1")),
        ..Settings::default()
    };
    let provider = openai(&settings);
    assert_eq!(provider.call(&request("hi")).await.unwrap().text, "Bonjour");
}

#[test]
fn unknown_provider_lists_the_known_ones() {
    let err = build("claude", &Settings::default()).err().unwrap();
    let message = err.to_string();
    assert!(message.contains("unknown provider `claude`"), "{message}");
    for kind in PROVIDERS {
        assert!(message.contains(kind.name), "{message}");
    }
    assert_eq!(
        PROVIDERS.iter().map(|kind| kind.name).collect::<Vec<_>>(),
        ["offline", "openai", "gemini"]
    );
}

#[test]
fn bad_base_url_is_refused() {
    let settings = Settings {
        model: Some("m".into()),
        base_url: Some("localhost:11434/v1".into()),
        api_key_env: key("GLOSSA_TEST_KEY_BAD_URL", "sk-x"),
        ..Settings::default()
    };
    let err = build("openai", &settings).err().unwrap();
    assert!(err.to_string().contains("invalid base URL"), "{err}");
}

#[test]
fn identity_has_what_decides_the_answer_but_not_the_key() {
    let settings = Settings {
        model: Some("gpt-test".into()),
        base_url: Some("http://127.0.0.1:1/v1/".into()),
        api_key_env: key("GLOSSA_TEST_KEY_IDENTITY", "sk-identity-secret"),
        temperature: Some(0.7),
        seed: Some(42),
        max_tokens: Some(100),
        max_tokens_auto: None,
        max_tokens_field: None,
        timeout: Some(Duration::from_secs(5)),
    };
    let identity = openai(&settings).identity();
    for part in [
        "openai",
        "http://127.0.0.1:1/v1",
        "gpt-test",
        "0.7",
        "42",
        "100",
    ] {
        assert!(identity.contains(part), "{identity} lacks {part}");
    }
    assert!(!identity.contains("sk-identity-secret"));
    let cooler = Settings {
        temperature: Some(0.0),
        ..settings
    };
    assert_ne!(openai(&cooler).identity(), identity);
}

// --- retries -----------------------------------------------------------------

/// A 429 with `Retry-After: value`, then a success, from `f`'s provider
/// through a client that waits up to 5 s: the reply, how long it took, and
/// the requests served.
async fn after_rate_limit(
    f: &ProviderFixture,
    value: &str,
    test: &str,
) -> (Reply, Duration, usize) {
    let server = Server::start(vec![
        Response::json(429, f.rate_limited).header("Retry-After", value),
        Response::json(200, f.ok),
    ])
    .await;
    let provider = built(f, &at(f, &server, test));
    let retry = RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_secs(5),
    };
    let started = Instant::now();
    let reply = ask(provider, retry).await.unwrap();
    (reply, started.elapsed(), server.count())
}

#[tokio::test]
async fn rate_limit_honours_retry_after() {
    for f in api_providers() {
        let (reply, waited, served) = after_rate_limit(f, "1", "GLOSSA_TEST_KEY_RETRY_AFTER").await;
        assert_eq!(reply.text, "Bonjour");
        assert_eq!(reply.attempts, 2);
        assert!(!reply.cached);
        assert_eq!(served, 2);
        assert!(
            waited >= Duration::from_millis(950),
            "{}: waited only {waited:?}",
            f.name
        );
    }
}

#[tokio::test]
async fn rate_limit_honours_retry_after_as_an_http_date() {
    for f in api_providers() {
        // Dates have whole seconds: two ahead is a wait of one to two.
        let at = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(2));
        let (reply, waited, _) = after_rate_limit(f, &at, "GLOSSA_TEST_KEY_RETRY_DATE").await;
        assert_eq!(reply.attempts, 2);
        assert!(
            waited >= Duration::from_millis(900),
            "{}: waited only {waited:?} for {at}",
            f.name
        );
    }
}

#[tokio::test]
async fn retry_after_is_capped_by_max_delay() {
    for f in api_providers() {
        let server = Server::start(vec![
            Response::json(503, "{}").header("Retry-After", "120"),
            Response::json(200, f.ok),
        ])
        .await;
        let provider = built(f, &at(f, &server, "GLOSSA_TEST_KEY_RETRY_CAP"));
        let started = Instant::now();
        let reply = ask(provider, quick(3)).await.unwrap();
        assert_eq!(reply.attempts, 2);
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}

#[tokio::test]
async fn server_error_then_success() {
    for f in api_providers() {
        let server = Server::start(vec![
            Response::json(500, f.server_error),
            Response::json(200, f.ok),
        ])
        .await;
        let provider = built(f, &at(f, &server, "GLOSSA_TEST_KEY_500"));
        let reply = ask(provider, quick(5)).await.unwrap();
        assert_eq!(reply.text, "Bonjour");
        assert_eq!(reply.attempts, 2);
        assert_eq!(reply.provider, f.name);
        assert_eq!(reply.model, f.model);
        assert_eq!(server.count(), 2);
    }
}

#[tokio::test]
async fn retries_stop_at_max_attempts() {
    for f in api_providers() {
        let server = Server::start(vec![Response::json(502, "bad gateway")]).await;
        let provider = built(f, &at(f, &server, "GLOSSA_TEST_KEY_502"));
        let err = ask(provider, quick(3)).await.unwrap_err();
        assert!(
            matches!(err, ProviderError::Server { status: 502, .. }),
            "{err:?}"
        );
        let start = format!("502 from {} at http://127.0.0.1:", f.name);
        assert!(err.to_string().starts_with(&start), "{err}");
        assert_eq!(server.count(), 3);
    }
}

#[tokio::test]
async fn a_hang_times_out_and_is_retried() {
    for f in api_providers() {
        let server = Server::start(vec![Response::Hang, Response::json(200, f.ok)]).await;
        let settings = Settings {
            timeout: Some(Duration::from_millis(300)),
            ..at(f, &server, "GLOSSA_TEST_KEY_HANG")
        };
        let started = Instant::now();
        let reply = ask(built(f, &settings), quick(3)).await.unwrap();
        assert_eq!(reply.attempts, 2);
        assert_eq!(server.count(), 2);
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(300), "{}: {took:?}", f.name);
        assert!(took < Duration::from_secs(10), "{}: {took:?}", f.name);
    }
}

#[tokio::test]
async fn a_hang_is_a_timeout_error() {
    for f in api_providers() {
        let server = Server::start(vec![Response::Hang]).await;
        let settings = Settings {
            timeout: Some(Duration::from_millis(300)),
            ..at(f, &server, "GLOSSA_TEST_KEY_HANG_ONCE")
        };
        let started = Instant::now();
        let err = built(f, &settings).call(&request("hi")).await.unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert!(matches!(err, ProviderError::Timeout { .. }), "{err:?}");
        assert!(err.retryable());
        assert!(err.to_string().contains("timeout after 0.3 s"), "{err}");
    }
}

#[tokio::test]
async fn connection_refused_is_retryable() {
    // Bind and drop to get a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let settings = Settings {
        model: Some("m".into()),
        base_url: Some(format!("http://127.0.0.1:{port}/v1")),
        ..Settings::default()
    };
    let err = openai(&settings).call(&request("hi")).await.unwrap_err();
    assert!(matches!(err, ProviderError::Connect { .. }), "{err:?}");
    assert!(err.retryable());
    assert!(
        err.to_string().starts_with("cannot reach openai at"),
        "{err}"
    );
}

// --- broken replies ----------------------------------------------------------

#[tokio::test]
async fn truncated_body_is_a_clear_retryable_error() {
    for f in api_providers() {
        let server = Server::start(vec![Response::Truncated {
            declared: 500,
            body: f.truncated.into(),
        }])
        .await;
        let provider = built(f, &at(f, &server, "GLOSSA_TEST_KEY_TRUNCATED"));
        let err = provider.call(&request("hi")).await.unwrap_err();
        assert!(matches!(err, ProviderError::Truncated { .. }), "{err:?}");
        assert!(err.retryable());
        assert!(err.to_string().contains("was truncated"), "{err}");
    }
}

#[tokio::test]
async fn non_json_body_is_a_clear_error() {
    let server = Server::start(vec![Response::text(200, "<html>Welcome to nginx</html>")]).await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_NOT_JSON"));
    let err = provider.call(&request("hi")).await.unwrap_err();
    let message = err.to_string();
    assert!(matches!(err, ProviderError::NotJson { .. }), "{err:?}");
    assert!(message.contains("is not JSON"), "{message}");
    assert!(message.contains("<html>Welcome"), "{message}");
}

#[tokio::test]
async fn json_without_text_says_why() {
    let server = Server::start(vec![Response::json(
        200,
        r#"{"choices":[{"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}"#,
    )])
    .await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_NO_TEXT"));
    let err = provider.call(&request("hi")).await.unwrap_err();
    assert!(matches!(err, ProviderError::NoText { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("content is null (finish_reason stop)"),
        "{err}"
    );
}

// --- errors that must not be retried -----------------------------------------

#[tokio::test]
async fn refused_key_is_not_retried_and_not_revealed() {
    for f in api_providers() {
        let secret = format!("{}-secret-do-not-print", f.key);
        // Servers do echo keys back; the error must not.
        let (status, body) = f.refused_key;
        let server =
            Server::start(vec![Response::json(status, body.replace("{KEY}", &secret))]).await;
        let var = key_var(f, "GLOSSA_TEST_KEY_REFUSED");
        let settings = Settings {
            api_key_env: key(&var, &secret),
            ..at(f, &server, "GLOSSA_TEST_KEY_REFUSED")
        };
        let err = ask(built(f, &settings), quick(5)).await.unwrap_err();
        assert_eq!(server.count(), 1);
        assert!(
            matches!(err, ProviderError::KeyRefused { status: s, .. } if s == status),
            "{err:?}"
        );
        let message = err.to_string();
        let start = format!("{status} from {} at http://127.0.0.1:", f.name);
        assert!(message.starts_with(&start), "{message}");
        assert!(message.contains("the API key was refused"), "{message}");
        assert!(message.contains(&var), "{message}");
        assert!(!message.contains(&secret), "{message}");
        assert!(!format!("{err:?}").contains(&secret));
        assert!(!err.retryable());
        assert!(err.stops_run());
    }
}

#[tokio::test]
async fn unknown_model_is_named() {
    let server = Server::start(vec![Response::json(
        404,
        r#"{"error":{"message":"The model `gpt-nope` does not exist or you do not have access to it.","code":"model_not_found"}}"#,
    )])
    .await;
    let settings = Settings {
        model: Some("gpt-nope".into()),
        ..openai_at(&server, "GLOSSA_TEST_KEY_404")
    };
    let err = ask(openai(&settings), quick(5)).await.unwrap_err();
    assert_eq!(server.count(), 1);
    let message = err.to_string();
    assert!(
        message.starts_with("model `gpt-nope` not found (404"),
        "{message}"
    );
    assert!(message.contains("does not exist"), "{message}");
    assert!(!err.retryable());
    assert!(!err.stops_run());
}

#[tokio::test]
async fn bad_request_is_not_retried() {
    let server = Server::start(vec![Response::json(
        400,
        r#"{"error":{"message":"'messages' must contain the word 'json'"}}"#,
    )])
    .await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_400"));
    let err = ask(provider, quick(5)).await.unwrap_err();
    assert_eq!(server.count(), 1);
    assert!(
        matches!(err, ProviderError::Rejected { status: 400, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("must contain the word"), "{err}");
}

#[tokio::test]
async fn quota_exhausted_stops_the_run() {
    for f in api_providers() {
        let server = Server::start(vec![Response::json(429, f.quota)]).await;
        let provider = built(f, &at(f, &server, "GLOSSA_TEST_KEY_QUOTA"));
        let err = ask(provider, quick(5)).await.unwrap_err();
        assert_eq!(server.count(), 1);
        assert!(
            matches!(err, ProviderError::QuotaExhausted { .. }),
            "{err:?}"
        );
        assert!(err.stops_run());
        assert!(!err.retryable());
        let start = format!("quota exhausted at {}", f.name);
        assert!(err.to_string().starts_with(&start), "{err}");
    }
}

const GEMINI_429: &str = r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED",
  "details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"QUOTA_ID"}]},
             {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0s"}]}}"#;

fn gemini_at(server: &Server, var: &str) -> Box<dyn Provider> {
    let settings = Settings {
        model: Some("gemini-test".into()),
        base_url: Some(server.url("/v1beta")),
        api_key_env: key(var, "AIza-quota"),
        ..Settings::default()
    };
    build("gemini", &settings).unwrap()
}

#[tokio::test]
async fn gemini_per_minute_limit_is_retried() {
    let body = GEMINI_429.replace(
        "QUOTA_ID",
        "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
    );
    let ok = r#"{"candidates":[{"content":{"parts":[{"text":"ok"}]}}]}"#;
    let server = Server::start(vec![Response::json(429, body), Response::json(200, ok)]).await;
    let provider = gemini_at(&server, "GLOSSA_TEST_KEY_GEMINI_MINUTE");
    let reply = ask(provider, quick(3)).await.unwrap();
    assert_eq!(reply.text, "ok");
    assert_eq!(reply.attempts, 2);
}

// --- failover ----------------------------------------------------------------

#[tokio::test]
async fn failover_to_the_next_provider() {
    let failing = Server::start(vec![Response::json(500, "{}")]).await;
    let working = Server::start(vec![Response::json(
        200,
        r#"{"choices":[{"message":{"content":"from the second"}}]}"#,
    )])
    .await;
    let first = Settings {
        model: Some("model-a".into()),
        ..openai_at(&failing, "GLOSSA_TEST_KEY_FAILOVER_A")
    };
    let second = Settings {
        model: Some("model-b".into()),
        ..openai_at(&working, "GLOSSA_TEST_KEY_FAILOVER_B")
    };
    let client = Client::new(vec![openai(&first), openai(&second)], quick(2), None);
    let reply = client.generate(&request("hi")).await.unwrap();
    assert_eq!(reply.text, "from the second");
    assert_eq!(reply.model, "model-b");
    assert_eq!(failing.count(), 2);
    assert_eq!(working.count(), 1);
    assert_eq!(reply.attempts, 3);
}

#[tokio::test]
async fn all_providers_failing_reports_each() {
    let a = Server::start(vec![Response::json(
        400,
        r#"{"error":{"message":"first broke"}}"#,
    )])
    .await;
    let b = Server::start(vec![Response::json(
        400,
        r#"{"error":{"message":"second broke"}}"#,
    )])
    .await;
    let client = Client::new(
        vec![
            openai(&openai_at(&a, "GLOSSA_TEST_KEY_ALL_A")),
            openai(&openai_at(&b, "GLOSSA_TEST_KEY_ALL_B")),
        ],
        quick(2),
        None,
    );
    let err = client.generate(&request("hi")).await.unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("every provider failed"), "{message}");
    assert!(
        message.contains("first broke") && message.contains("second broke"),
        "{message}"
    );
}

#[tokio::test]
async fn stopping_errors_skip_failover() {
    let refusing = Server::start(vec![Response::json(401, "{}")]).await;
    let working = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
    let client = Client::new(
        vec![
            openai(&openai_at(&refusing, "GLOSSA_TEST_KEY_STOP_A")),
            openai(&openai_at(&working, "GLOSSA_TEST_KEY_STOP_B")),
        ],
        quick(2),
        None,
    );
    let err = client.generate(&request("hi")).await.unwrap_err();
    assert!(err.stops_run());
    assert_eq!(working.count(), 0);
}

// --- cache -------------------------------------------------------------------

#[tokio::test]
async fn second_identical_request_comes_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_CACHE"));
    let client = Client::new(vec![provider], quick(2), Some(Cache::new(dir.path())));

    let first = client.generate(&request("hi")).await.unwrap();
    assert!(!first.cached);
    assert_eq!(first.attempts, 1);
    let second = client.generate(&request("hi")).await.unwrap();
    assert_eq!(
        server.count(),
        1,
        "the second answer must not cost a request"
    );
    assert!(second.cached);
    assert_eq!(second.attempts, 0);
    assert_eq!(second.text, first.text);
    assert_eq!(second.model, "gpt-test");

    // A second repeat is a real second sample.
    let repeat = Request {
        repeat: 2,
        ..request("hi")
    };
    let third = client.generate(&repeat).await.unwrap();
    assert!(!third.cached);
    assert_eq!(server.count(), 2);

    // A different prompt too.
    client.generate(&request("hello")).await.unwrap();
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn failures_are_not_cached() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(vec![
        Response::json(400, r#"{"error":{"message":"try again later"}}"#),
        Response::json(200, OPENAI_OK),
    ])
    .await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_CACHE_FAIL"));
    let client = Client::new(vec![provider], quick(2), Some(Cache::new(dir.path())));
    assert!(client.generate(&request("hi")).await.is_err());
    let reply = client.generate(&request("hi")).await.unwrap();
    assert!(!reply.cached);
    assert_eq!(reply.text, "Bonjour");
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn the_cache_is_per_provider_identity() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
    let warm = Settings {
        temperature: Some(1.0),
        ..openai_at(&server, "GLOSSA_TEST_KEY_CACHE_ID")
    };
    let cold = Settings {
        temperature: Some(0.0),
        ..warm.clone()
    };
    let cache = Cache::new(dir.path());
    let a = Client::new(vec![openai(&warm)], quick(1), Some(cache.clone()));
    let b = Client::new(vec![openai(&cold)], quick(1), Some(cache));
    a.generate(&request("hi")).await.unwrap();
    assert!(!b.generate(&request("hi")).await.unwrap().cached);
    assert!(a.generate(&request("hi")).await.unwrap().cached);
    assert_eq!(server.count(), 2);
}

#[test]
fn cache_keys_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    let key = Cache::key("openai x", &request("hi"));
    assert_eq!(key.len(), 64);
    assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(key, Cache::key("openai x", &request("hi")));
    assert_ne!(key, Cache::key("openai y", &request("hi")));
    assert_ne!(key, Cache::key("openai x", &request("hi!")));
    let repeat = Request {
        repeat: 2,
        ..request("hi")
    };
    assert_ne!(key, Cache::key("openai x", &repeat));
    let substituted = Request {
        substitutions: vec![Substitution {
            phrase: "a".into(),
            target: "b".into(),
            places: None,
            case_sensitive: false,
            keep: false,
        }],
        ..request("hi")
    };
    assert_ne!(key, Cache::key("offline", &substituted));
    assert_ne!(
        Cache::key("offline", &request("hi")),
        Cache::key("offline", &substituted)
    );

    assert_eq!(cache.get(&key), None);
    cache.put(&key, "réponse\nsur deux lignes").unwrap();
    assert_eq!(cache.get(&key).as_deref(), Some("réponse\nsur deux lignes"));
    cache.put(&key, "overwritten").unwrap();
    assert_eq!(cache.get(&key).as_deref(), Some("overwritten"));
    // Nothing but the entry is left behind (no temp files).
    let shard = dir.path().join(&key[..2]);
    let files: Vec<_> = std::fs::read_dir(shard)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(files, [std::ffi::OsString::from(format!("{key}.txt"))]);
}

#[tokio::test]
async fn an_unwritable_cache_keeps_the_paid_reply() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the cache directory should be.
    let blocked = dir.path().join("cache");
    std::fs::write(&blocked, "not a directory").unwrap();
    let server = Server::start(vec![
        Response::json(200, OPENAI_OK),
        Response::json(200, OPENAI_OK),
    ])
    .await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_CACHE_BLOCKED"));
    let client = Client::new(vec![provider], quick(1), Some(Cache::new(&blocked)));
    let reply = client.generate(&request("hi")).await.unwrap();
    assert!(!reply.cached);
    assert_eq!(server.count(), 1);
    // Nothing was cached: the same request is paid again, and answered.
    client.generate(&request("hi")).await.unwrap();
    assert_eq!(server.count(), 2);
}

#[test]
fn default_retry_policy() {
    let policy = RetryPolicy::default();
    assert_eq!(policy.max_attempts, 5);
    assert_eq!(policy.base_delay, Duration::from_millis(500));
    assert_eq!(policy.max_delay, Duration::from_secs(30));
}

// --- offline -----------------------------------------------------------------

fn offline_request(text: &str, substitutions: &[(&str, &str)]) -> Request {
    Request {
        prompt: "ignored by the offline provider".into(),
        text: text.into(),
        substitutions: substitutions
            .iter()
            .map(|(phrase, target)| Substitution {
                phrase: phrase.to_string(),
                target: target.to_string(),
                places: None,
                case_sensitive: false,
                keep: false,
            })
            .collect(),
        repeat: 1,
    }
}

async fn offline(text: &str, substitutions: &[(&str, &str)]) -> String {
    let provider = build("offline", &Settings::default()).unwrap();
    provider
        .call(&offline_request(text, substitutions))
        .await
        .unwrap()
        .text
}

#[tokio::test]
async fn offline_longest_phrase_first() {
    let subs = [("coffee", "café"), ("cold coffee", "café froid")];
    assert_eq!(
        offline("Cold coffee, then coffee.", &subs).await,
        "Café froid, then café."
    );
}

#[tokio::test]
async fn offline_on_word_boundaries_only() {
    let subs = [("cat", "chat"), ("coffee", "café")];
    assert_eq!(
        offline("cat, concat, cats, coffeehouse, coffee", &subs).await,
        "chat, concat, cats, coffeehouse, café"
    );
}

#[tokio::test]
async fn offline_ignores_case() {
    let subs = [("cold brew", "infusion à froid")];
    assert_eq!(
        offline("COLD BREW or Cold Brew", &subs).await,
        "Infusion à froid or Infusion à froid"
    );
}

#[tokio::test]
async fn offline_never_substitutes_a_target_again() {
    let subs = [("cat", "dog"), ("dog", "wolf")];
    assert_eq!(offline("cat and dog", &subs).await, "dog and wolf");
}

#[tokio::test]
async fn offline_through_the_client() {
    let provider = build("offline", &Settings::default()).unwrap();
    assert_eq!(provider.name(), "offline");
    assert_eq!(provider.identity(), "offline");
    let client = Client::new(vec![provider], RetryPolicy::default(), None);
    let reply = client
        .generate(&offline_request("black tea", &[("black tea", "thé noir")]))
        .await
        .unwrap();
    assert_eq!(reply.text, "thé noir");
    assert_eq!(reply.provider, "offline");
    assert_eq!(reply.attempts, 1);
}

#[tokio::test]
async fn a_reply_larger_than_the_cap_fails_the_call_without_being_read_or_retried() {
    let huge = format!(
        r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","content":"{}"}},"finish_reason":"stop"}}]}}"#,
        "a".repeat(glossa::limits::MAX_REPLY_BYTES)
    );
    let server = Server::start(vec![Response::json(200, huge)]).await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_HUGE"));
    let err = client(provider, quick(3))
        .generate(&request("hi"))
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::TooLarge { .. }), "{err:?}");
    assert!(err.to_string().contains("larger than 4 MiB"), "{err}");
    assert!(!err.retryable());
    assert_eq!(server.count(), 1);

    // Just under the cap is read.
    let fits = OPENAI_OK.replace(
        "Bonjour",
        &"b".repeat(glossa::limits::MAX_REPLY_BYTES - 200),
    );
    let server = Server::start(vec![Response::json(200, fits)]).await;
    let provider = openai(&openai_at(&server, "GLOSSA_TEST_KEY_HUGE"));
    let reply = client(provider, quick(1))
        .generate(&request("hi"))
        .await
        .unwrap();
    assert_eq!(reply.text.len(), glossa::limits::MAX_REPLY_BYTES - 200);
}

#[test]
fn serve_settings_name_a_registered_provider() {
    // A usage error: exit 2 and the reason on stderr.
    let refused = |args: &[&str]| {
        let out = support::glossa().arg("serve").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let stderr = refused(&["--model", "claude=opus"]);
    assert!(
        stderr.contains("unknown provider `claude` (known: offline, openai, gemini)"),
        "{stderr}"
    );
    let stderr = refused(&["--base-url", "openai"]);
    assert!(
        stderr.contains("expected PROVIDER=VALUE, got `openai`"),
        "{stderr}"
    );
}

// --- redirects ---------------------------------------------------------------

/// A redirect from the configured endpoint to another origin (here another
/// port of 127.0.0.1) is never followed, for every HTTP provider and every
/// redirect status: the target never sees the key, Authorization or the
/// prompt, the call fails once (no retry) and says the server redirected.
#[tokio::test]
async fn redirects_are_not_followed_and_the_key_stays_home() {
    const KEY: &str = "sk-redirect-secret-4242";
    const PROMPT: &str = "Translate: the secret prompt 9931";
    for kind in PROVIDERS.iter().filter(|kind| kind.key_var.is_some()) {
        for status in [301u16, 302, 303, 307, 308] {
            let target = Server::start(vec![Response::json(200, OPENAI_OK)]).await;
            let redirect = Server::start(vec![
                Response::json(status, "{}").header("Location", &target.url("/v1/elsewhere"))
            ])
            .await;
            let var = format!(
                "GLOSSA_TEST_KEY_REDIRECT_{}_{status}",
                kind.name.to_uppercase()
            );
            let settings = Settings {
                model: Some("m".into()),
                base_url: Some(redirect.url("/v1")),
                api_key_env: key(&var, KEY),
                ..Settings::default()
            };
            let provider = build(kind.name, &settings).expect("provider builds");
            let err = client(provider, quick(3))
                .generate(&request(PROMPT))
                .await
                .expect_err("a redirect is an error");
            let case = format!("{} {status}", kind.name);
            for seen in target.requests() {
                let all = format!("{seen:?}");
                assert!(!all.contains(KEY), "{case}: the target saw the key");
                assert!(
                    !all.contains("secret prompt"),
                    "{case}: the target saw the prompt"
                );
                assert!(seen.header("authorization").is_none(), "{case}");
                assert!(seen.header("x-goog-api-key").is_none(), "{case}");
            }
            assert_eq!(target.count(), 0, "{case}: the redirect was followed");
            assert_eq!(redirect.count(), 1, "{case}: a redirect is not retried");
            let message = err.to_string();
            assert!(message.contains("redirect"), "{case}: {message}");
            assert!(message.contains(&status.to_string()), "{case}: {message}");
            assert!(!message.contains(KEY), "{case}: {message}");
            assert!(!err.retryable(), "{case}");
        }
    }
}
