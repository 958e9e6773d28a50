//! Replies as the APIs send them (issue 12, point 4), against scripted
//! servers on 127.0.0.1: finish reasons, `max_completion_tokens`,
//! `<think>` blocks, content as a list of parts, served model and token
//! usage, stopping after identical errors, the seed warning and the Batch
//! API's file limits. Library calls first, then the real binary.

use crate::support;

use glossa::generate::cache::Cache;
use glossa::generate::provider::{
    build, MaxTokensField, Provider, ProviderError, Request, Settings, Usage,
};
use glossa::generate::retry::{Client, RetryPolicy};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::{run_in as run, Response, Server};
use tempfile::TempDir;

fn request(prompt: &str) -> Request {
    Request {
        prompt: prompt.to_string(),
        text: "source text".to_string(),
        substitutions: Vec::new(),
        repeat: 1,
    }
}

/// An OpenAI-compatible server on 127.0.0.1 needs no key.
fn openai_at(server: &Server, model: &str) -> Settings {
    Settings {
        model: Some(model.into()),
        base_url: Some(server.url("/v1")),
        ..Settings::default()
    }
}

fn gemini_at(server: &Server, var: &str) -> Settings {
    std::env::set_var(var, "AIza-test-replies");
    Settings {
        model: Some("gemini-test".into()),
        base_url: Some(server.url("/v1beta")),
        api_key_env: Some(var.into()),
        ..Settings::default()
    }
}

fn provider(name: &str, settings: &Settings) -> Box<dyn Provider> {
    build(name, settings).expect("provider builds")
}

fn quick() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_millis(5),
    }
}

/// A chat completion whose message content is `content`.
fn chat(content: Value, finish: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    })
    .to_string()
}

fn files_in(dir: &Path) -> usize {
    walk(dir).len()
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| {
            let path = e.path();
            if path.is_dir() {
                walk(&path)
            } else {
                vec![path]
            }
        })
        .collect()
}

// --- finish reasons ----------------------------------------------------------

#[tokio::test]
async fn a_reply_cut_off_by_the_length_limit_is_a_failed_call_and_not_cached() {
    let cache_dir = TempDir::new().unwrap();
    let server = Server::start(vec![Response::json(
        200,
        chat(json!("Prøv vår frosk"), "length"),
    )])
    .await;
    let client = Client::new(
        vec![provider("openai", &openai_at(&server, "gpt-4o-mini"))],
        quick(),
        Some(Cache::new(cache_dir.path())),
    );
    let err = client.generate(&request("hi")).await.unwrap_err();
    assert!(matches!(err, ProviderError::Stopped { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("cut off by the token limit"), "{message}");
    assert!(message.contains("finish reason length"), "{message}");
    // Not retried (the same budget cuts it off again), not cached, and what
    // came back is kept: it was paid for.
    assert_eq!(server.count(), 1);
    assert!(!err.retryable() && !err.stops_run());
    assert_eq!(files_in(cache_dir.path()), 0);
    let reply = err.reply().unwrap();
    assert_eq!(reply.meta.finish_reason.as_deref(), Some("length"));
    assert_eq!(
        reply.meta.usage,
        Some(Usage {
            input_tokens: 120,
            output_tokens: 30
        })
    );
}

#[tokio::test]
async fn a_reasoning_model_out_of_budget_is_a_length_failure_not_an_empty_translation() {
    let server = Server::start(vec![Response::json(200, chat(json!(""), "length"))]).await;
    let err = provider("openai", &openai_at(&server, "o3-mini"))
        .call(&request("hi"))
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::Stopped { .. }), "{err:?}");
    assert!(err.to_string().contains("finish reason length"), "{err}");
}

#[tokio::test]
async fn a_content_filter_stop_is_a_failed_call() {
    let server = Server::start(vec![Response::json(
        200,
        chat(json!("partial"), "content_filter"),
    )])
    .await;
    let err = provider("openai", &openai_at(&server, "gpt-4o-mini"))
        .call(&request("hi"))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("stopped by a content filter (finish reason content_filter)"),
        "{err}"
    );
}

#[tokio::test]
async fn gemini_max_tokens_safety_and_recitation_are_failed_calls() {
    for (i, reason) in ["MAX_TOKENS", "SAFETY", "RECITATION", "PROHIBITED_CONTENT"]
        .iter()
        .enumerate()
    {
        let reply = json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Bonj"}]}, "finishReason": reason}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "thoughtsTokenCount": 40},
            "modelVersion": "gemini-2.5-flash-001"
        });
        let server = Server::start(vec![Response::json(200, reply.to_string())]).await;
        let settings = gemini_at(&server, &format!("GLOSSA_TEST_KEY_REPLIES_GEMINI_{i}"));
        let err = provider("gemini", &settings)
            .call(&request("hi"))
            .await
            .unwrap_err();
        assert!(matches!(err, ProviderError::Stopped { .. }), "{err:?}");
        assert!(err.to_string().contains(reason), "{err}");
        let came_back = err.reply().unwrap();
        assert_eq!(
            came_back.meta.usage,
            Some(Usage {
                input_tokens: 10,
                output_tokens: 42
            })
        );
        assert_eq!(
            came_back.meta.served_model.as_deref(),
            Some("gemini-2.5-flash-001")
        );
    }
}

// --- max_completion_tokens ---------------------------------------------------

#[test]
fn the_max_tokens_field_follows_the_documented_model_rule() {
    use MaxTokensField::*;
    for (model, field) in [
        ("o1", MaxCompletionTokens),
        ("o3-mini", MaxCompletionTokens),
        ("o4-mini-2025-04-16", MaxCompletionTokens),
        ("gpt-5", MaxCompletionTokens),
        ("gpt-5-mini", MaxCompletionTokens),
        ("openai/o3", MaxCompletionTokens),
        ("gpt-4o-mini", MaxTokens),
        ("gpt-4.1", MaxTokens),
        ("llama3.1:8b", MaxTokens),
        ("olmo-2", MaxTokens),
    ] {
        assert_eq!(MaxTokensField::for_model(model), field, "{model}");
    }
}

async fn sent_body(model: &str, field: Option<MaxTokensField>) -> Value {
    let server = Server::start(vec![Response::json(200, chat(json!("ok"), "stop"))]).await;
    let settings = Settings {
        max_tokens: Some(256),
        max_tokens_field: field,
        ..openai_at(&server, model)
    };
    provider("openai", &settings)
        .call(&request("hi"))
        .await
        .unwrap();
    server.requests()[0].json()
}

#[tokio::test]
async fn reasoning_models_get_max_completion_tokens_others_max_tokens() {
    let body = sent_body("o3-mini", None).await;
    assert_eq!(body["max_completion_tokens"], 256);
    assert!(body.get("max_tokens").is_none(), "{body}");
    let body = sent_body("gpt-4o-mini", None).await;
    assert_eq!(body["max_tokens"], 256);
    assert!(body.get("max_completion_tokens").is_none(), "{body}");
}

#[tokio::test]
async fn the_max_tokens_field_can_be_chosen_explicitly() {
    let body = sent_body("my-proxy-model", Some(MaxTokensField::MaxCompletionTokens)).await;
    assert_eq!(body["max_completion_tokens"], 256);
    assert!(body.get("max_tokens").is_none(), "{body}");
    let body = sent_body("o3-mini", Some(MaxTokensField::MaxTokens)).await;
    assert_eq!(body["max_tokens"], 256);
    assert!(body.get("max_completion_tokens").is_none(), "{body}");
}

// --- think blocks, content parts ---------------------------------------------

#[tokio::test]
async fn think_blocks_are_stripped_and_remembered_also_from_the_cache() {
    let cache_dir = TempDir::new().unwrap();
    let server = Server::start(vec![Response::json(
        200,
        chat(
            json!("<think>The glossary says frosk mavi.</think>\n\nPrøv kald kaffe."),
            "stop",
        ),
    )])
    .await;
    let client = Client::new(
        vec![provider("openai", &openai_at(&server, "qwen3"))],
        quick(),
        Some(Cache::new(cache_dir.path())),
    );
    let first = client.generate(&request("hi")).await.unwrap();
    assert_eq!(first.text, "Prøv kald kaffe.");
    assert!(first.meta.think);
    let again = client.generate(&request("hi")).await.unwrap();
    assert!(again.cached);
    assert_eq!(server.count(), 1);
    assert_eq!(again.text, "Prøv kald kaffe.");
    assert!(again.meta.think);
}

#[tokio::test]
async fn an_unclosed_leading_think_block_is_no_translation() {
    let server = Server::start(vec![Response::json(
        200,
        chat(json!("<think>The target is frosk mavi, so"), "stop"),
    )])
    .await;
    let err = provider("openai", &openai_at(&server, "qwen3"))
        .call(&request("hi"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("only a <think> block"), "{err}");
}

#[tokio::test]
async fn content_as_a_list_of_parts_is_joined() {
    let server = Server::start(vec![Response::json(
        200,
        chat(
            json!([
                {"type": "reasoning", "reasoning": "thinking about frosk mavi"},
                {"type": "text", "text": "Prøv "},
                {"type": "text", "text": "kald kaffe."}
            ]),
            "stop",
        ),
    )])
    .await;
    let reply = provider("openai", &openai_at(&server, "m"))
        .call(&request("hi"))
        .await
        .unwrap();
    assert_eq!(reply.text, "Prøv kald kaffe.");
}

#[tokio::test]
async fn parts_without_text_say_what_came_back() {
    let server = Server::start(vec![Response::json(
        200,
        chat(
            json!([{"type": "reasoning", "reasoning": "hmm"}, {"type": "image_url"}]),
            "stop",
        ),
    )])
    .await;
    let err = provider("openai", &openai_at(&server, "m"))
        .call(&request("hi"))
        .await
        .unwrap_err();
    assert!(matches!(err, ProviderError::NoText { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("a list of 2 parts with no text (reasoning, image_url)"),
        "{message}"
    );
    assert!(!message.contains("is missing"), "{message}");
}

// --- served model and usage --------------------------------------------------

#[tokio::test]
async fn served_model_and_usage_come_with_the_reply_and_a_cached_reply_costs_nothing() {
    let cache_dir = TempDir::new().unwrap();
    let server = Server::start(vec![Response::json(200, chat(json!("Hei"), "stop"))]).await;
    let client = Client::new(
        vec![provider("openai", &openai_at(&server, "gpt-4o-mini"))],
        quick(),
        Some(Cache::new(cache_dir.path())),
    );
    let reply = client.generate(&request("hi")).await.unwrap();
    assert_eq!(reply.model, "gpt-4o-mini");
    assert_eq!(
        reply.meta.served_model.as_deref(),
        Some("gpt-4o-mini-2024-07-18")
    );
    assert_eq!(reply.meta.finish_reason.as_deref(), Some("stop"));
    assert_eq!(
        reply.meta.usage,
        Some(Usage {
            input_tokens: 120,
            output_tokens: 30
        })
    );
    let cached = client.generate(&request("hi")).await.unwrap();
    assert!(cached.cached);
    assert_eq!(cached.meta.usage, None);
    assert_eq!(cached.meta.served_model, reply.meta.served_model);
}

#[tokio::test]
async fn gemini_model_version_and_usage_metadata_are_read() {
    let reply = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Bonjour"}]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 3, "thoughtsTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash-preview-05-20"
    });
    let server = Server::start(vec![Response::json(200, reply.to_string())]).await;
    let settings = gemini_at(&server, "GLOSSA_TEST_KEY_REPLIES_GEMINI_USAGE");
    let reply = provider("gemini", &settings)
        .call(&request("hi"))
        .await
        .unwrap();
    assert_eq!(reply.text, "Bonjour");
    assert_eq!(
        reply.meta.served_model.as_deref(),
        Some("gemini-2.5-flash-preview-05-20")
    );
    assert_eq!(
        reply.meta.usage,
        Some(Usage {
            input_tokens: 7,
            output_tokens: 8
        })
    );
}

#[test]
fn old_cache_entries_of_text_alone_still_answer() {
    let dir = TempDir::new().unwrap();
    let cache = Cache::new(dir.path());
    let key = Cache::key("openai x", &request("hi"));
    cache.put(&key, "gammel tekst").unwrap();
    let reply = cache.get_reply(&key).unwrap();
    assert_eq!(reply.text, "gammel tekst");
    assert_eq!(reply.meta.finish_reason, None);
}

// --- through the binary ------------------------------------------------------

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// `run` over the mini set (4 labelled posts) with the exact retriever,
/// one call at a time, then `extra`.
fn mini_run(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--glossary",
        &fixture("mini.json"),
        "--posts",
        &fixture("mini-posts.jsonl"),
        "--labels",
        &fixture("mini-labels.jsonl"),
        "--retriever",
        "exact",
        "-j",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("calls.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Run blocking binary calls off the async test's threads (the mock
/// server runs on them).
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_records_finish_reason_model_and_usage_redoes_cut_off_replies_and_shows_the_cost() {
    let server = Server::start(vec![
        Response::json(200, chat(json!("Prøv vår frosk"), "length")),
        Response::json(
            200,
            chat(
                json!("<think>zimbo or mavi?</think>Prøv frosk mavi."),
                "stop",
            ),
        ),
    ])
    .await;
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().to_path_buf();
    let base = server.url("/v1");
    std::fs::write(
        cwd.join("prices.json"),
        r#"{"gpt-4o-mini": {"input": 1.0, "output": 2.0}}"#,
    )
    .unwrap();
    let (first, retried) = blocking(move || {
        let args = mini_run(&[
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "gpt-4o-mini",
            "--out",
            "r",
        ]);
        let (_, stderr) = run(&cwd, &strs(&args), 1);
        assert!(stderr.contains("1 calls failed"), "{stderr}");
        let first = (records(&cwd.join("r")), summary(&cwd.join("r")));
        let (table, _) = run(
            &cwd,
            &["run", "--retry-errors", "r", "--prices", "prices.json"],
            0,
        );
        assert!(table.contains("Tokens"), "{table}");
        assert!(table.contains("0.0009"), "{table}");
        (first, (records(&cwd.join("r")), summary(&cwd.join("r"))))
    })
    .await;
    assert_eq!(server.count(), 5);

    let (calls, s) = first;
    let cut = &calls[0];
    assert_eq!(cut["finish_reason"], "length");
    assert_eq!(cut["output"], Value::Null);
    assert_eq!(cut["check"]["ok"], false);
    assert!(
        cut["error"]
            .as_str()
            .unwrap()
            .contains("cut off by the token limit"),
        "{cut}"
    );
    assert_eq!(
        cut["usage"],
        json!({"input_tokens": 120, "output_tokens": 30})
    );
    let ok = &calls[1];
    assert_eq!(ok["error"], Value::Null);
    assert_eq!(ok["finish_reason"], "stop");
    assert_eq!(ok["model"], "gpt-4o-mini");
    assert_eq!(ok["served_model"], "gpt-4o-mini-2024-07-18");
    assert_eq!(ok["output"], "Prøv frosk mavi.");
    assert_eq!(ok["think"], true);
    assert_eq!(s["failed"], 1);
    assert_eq!(s["tokens"]["input_tokens"], 480);
    assert_eq!(s["tokens"]["output_tokens"], 120);
    assert_eq!(
        s["tokens"]["by_model"][0]["model"],
        "gpt-4o-mini-2024-07-18"
    );
    assert!(s["tokens"].get("cost").is_none());

    // --retry-errors redid the cut-off call only; every call paid counts.
    let (calls, s) = retried;
    assert_eq!(calls.len(), 5);
    assert_eq!(calls[4]["post"], cut["post"]);
    assert_eq!(calls[4]["finish_reason"], "stop");
    assert_eq!(s["failed"], 0);
    assert_eq!(s["tokens"]["input_tokens"], 600);
    assert_eq!(s["tokens"]["output_tokens"], 150);
    let cost = s["tokens"]["cost"].as_f64().unwrap();
    assert!((cost - 0.0009).abs() < 1e-12, "{cost}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_bad_request_errors_stop_the_run_and_the_rest_is_resumable() {
    let bad = Response::json(
        400,
        r#"{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}"#,
    );
    let ok = Response::json(200, chat(json!("Prøv frosk mavi."), "stop"));
    let server = Server::start(vec![bad.clone(), bad.clone(), bad, ok]).await;
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().to_path_buf();
    let base = server.url("/v1");
    let (stderr, after_stop, done) = blocking(move || {
        let args = mini_run(&[
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "m",
            "--no-cache",
            "--out",
            "r",
        ]);
        let (_, stderr) = run(&cwd, &strs(&args), 1);
        let after_stop = records(&cwd.join("r")).len();
        run(&cwd, &["run", "--retry-errors", "r"], 0);
        run(&cwd, &["run", "--resume", "r"], 0);
        (stderr, after_stop, summary(&cwd.join("r")))
    })
    .await;
    assert!(
        stderr.contains("3 calls in a row failed with the same error"),
        "{stderr}"
    );
    assert!(stderr.contains("Unsupported parameter"), "{stderr}");
    assert!(stderr.contains("--resume r"), "{stderr}");
    // Three calls made, the fourth never sent; then redone and finished.
    assert_eq!(after_stop, 3);
    assert_eq!(server.count(), 3 + 3 + 1);
    assert_eq!(
        (done["calls"].as_u64(), done["failed"].as_u64()),
        (Some(4), Some(0))
    );
}

#[test]
fn seed_with_repeats_is_warned_about() {
    let dir = TempDir::new().unwrap();
    let args = mini_run(&["--seed", "7", "--repeat", "2", "--out", "r"]);
    let (_, stderr) = run(dir.path(), &strs(&args), 0);
    assert!(
        stderr.contains("warning: --seed 7 with --repeat 2"),
        "{stderr}"
    );
    let args = mini_run(&["--seed", "7", "--out", "s"]);
    let (_, stderr) = run(dir.path(), &strs(&args), 0);
    assert!(!stderr.contains("--seed"), "{stderr}");
}

fn request_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn batch_lines_carry_the_max_tokens_field_the_model_needs() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    for (model, field, out, explicit) in [
        ("o3-mini", "max_completion_tokens", "a", None),
        ("gpt-4o-mini", "max_tokens", "b", None),
        ("o3-mini", "max_tokens", "c", Some("max_tokens")),
        (
            "proxy-model",
            "max_completion_tokens",
            "d",
            Some("max_completion_tokens"),
        ),
    ] {
        let file = format!("{out}.jsonl");
        let mut extra = vec![
            "--model",
            model,
            "--max-tokens",
            "300",
            "--batch-out",
            &file,
            "--out",
            out,
        ];
        if let Some(explicit) = explicit {
            extra.extend(["--max-tokens-field", explicit]);
        }
        run(cwd, &strs(&mini_run(&extra)), 0);
        for line in request_lines(&cwd.join(&file)) {
            let body = line["body"].as_object().unwrap();
            assert_eq!(body[field], 300, "{model}: {line}");
            let other = if field == "max_tokens" {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            assert!(!body.contains_key(other), "{model}: {line}");
        }
    }
    let (_, stderr) = run(
        cwd,
        &strs(&mini_run(&["--max-tokens-field", "max_length"])),
        2,
    );
    assert!(stderr.contains("max_completion_tokens"), "{stderr}");
}

/// A Batch API output line answering `custom_id` with a chat completion.
fn result_line(custom_id: &str, content: Value, finish: &str) -> String {
    let body: Value = serde_json::from_str(&chat(content, finish)).unwrap();
    json!({"id": "batch_req_1", "custom_id": custom_id,
           "response": {"status_code": 200, "request_id": "req_1", "body": body}, "error": null})
    .to_string()
}

#[test]
fn batch_results_are_judged_like_live_replies() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    run(
        cwd,
        &strs(&mini_run(&[
            "--model",
            "gpt-4o-mini",
            "--batch-out",
            "requests.jsonl",
            "--out",
            "b",
        ])),
        0,
    );
    let ids: Vec<String> = request_lines(&cwd.join("requests.jsonl"))
        .iter()
        .map(|l| l["custom_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 4);
    let results = [
        result_line(&ids[0], json!("Prøv frosk"), "length"),
        result_line(
            &ids[1],
            json!("<think>frosk mavi</think>Prøv dorpa."),
            "stop",
        ),
        result_line(
            &ids[2],
            json!([{"type": "text", "text": "Lagre "}, {"type": "text", "text": "datoen!"}]),
            "stop",
        ),
        result_line(&ids[3], json!("Ingen."), "content_filter"),
    ];
    std::fs::write(cwd.join("results.jsonl"), results.join("\n") + "\n").unwrap();
    let (_, stderr) = run(
        cwd,
        &["run", "--batch-in", "results.jsonl", "--resume", "b"],
        1,
    );
    assert!(stderr.contains("2 calls failed"), "{stderr}");
    let by_id = |i: usize| {
        let key = glossa::batch::api::parse_custom_id(&ids[i]).unwrap();
        records(&cwd.join("b"))
            .into_iter()
            .find(|r| r["post"] == key.2.as_str())
            .unwrap()
    };
    let cut = by_id(0);
    assert_eq!(cut["finish_reason"], "length");
    assert_eq!(cut["output"], Value::Null);
    assert!(cut["error"].as_str().unwrap().contains("cut off"), "{cut}");
    let thought = by_id(1);
    assert_eq!(thought["output"], "Prøv dorpa.");
    assert_eq!(thought["think"], true);
    assert_eq!(by_id(2)["output"], "Lagre datoen!");
    let filtered = by_id(3);
    assert!(
        filtered["error"]
            .as_str()
            .unwrap()
            .contains("content filter"),
        "{filtered}"
    );
    let s = summary(&cwd.join("b"));
    assert_eq!(s["tokens"]["input_tokens"], 480);

    // The failed ones go into a retry batch.
    run(
        cwd,
        &["run", "--batch-out", "retry.jsonl", "--retry-errors", "b"],
        0,
    );
    assert_eq!(request_lines(&cwd.join("retry.jsonl")).len(), 2);
}

#[test]
fn a_batch_file_over_the_apis_request_limit_is_refused() {
    let dir = TempDir::new().unwrap();
    // 4 posts x 12,501 repeats = 50,004 requests.
    let args = mini_run(&[
        "--model",
        "gpt-4o-mini",
        "--repeat",
        "12501",
        "--batch-out",
        "big.jsonl",
        "--out",
        "b",
    ]);
    let (_, stderr) = run(dir.path(), &strs(&args), 2);
    assert!(
        stderr.contains("50004 requests are more than one OpenAI Batch API file may hold (50000)"),
        "{stderr}"
    );
    assert!(stderr.contains("--shard I/N for N >= 2"), "{stderr}");
    assert!(!dir.path().join("big.jsonl").exists());
    assert!(!dir.path().join("big.jsonl.part").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn translate_shows_the_served_model_tokens_and_a_stripped_think_block() {
    let server = Server::start(vec![Response::json(
        200,
        chat(json!("<think>frosk mavi</think>Prøv kald kaffe."), "stop"),
    )])
    .await;
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().to_path_buf();
    let base = server.url("/v1");
    let (stdout, notes) = blocking(move || {
        run(
            &cwd,
            &[
                "translate",
                "Try our cold coffee.",
                "--provider",
                "openai",
                "--base-url",
                &base,
                "--model",
                "gpt-4o-mini",
            ],
            0,
        )
    })
    .await;
    assert!(stdout.starts_with("Prøv kald kaffe.\n"), "{stdout}");
    // How the output was made is a note: on stderr.
    assert!(
        notes.contains("served by gpt-4o-mini-2024-07-18"),
        "{notes}"
    );
    assert!(notes.contains("120 + 30 tokens"), "{notes}");
    assert!(notes.contains("<think> block stripped"), "{notes}");
    // A model's output is checked for the targets, nothing more; it is
    // not called a substitution.
    assert!(
        notes.contains("Check: not in the output: frosk mavi, mavi (2 of the 2 glossary targets found); not checked: meaning, grammar."),
        "{notes}"
    );
    assert!(!notes.contains("Offline"), "{notes}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merged_shards_total_their_tokens_and_cost() {
    let server = Server::start(vec![Response::json(
        200,
        chat(json!("Prøv frosk mavi."), "stop"),
    )])
    .await;
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().to_path_buf();
    let base = server.url("/v1");
    std::fs::write(
        cwd.join("prices.json"),
        r#"{"gpt-4o-mini": {"input": 1.0, "output": 2.0}}"#,
    )
    .unwrap();
    let merged = blocking(move || {
        for i in 0..2 {
            let shard = format!("{i}/2");
            let out = format!("s{i}");
            let args = mini_run(&[
                "--provider",
                "openai",
                "--base-url",
                &base,
                "--model",
                "gpt-4o-mini",
                "--no-cache",
                "--shard",
                &shard,
                "--out",
                &out,
            ]);
            run(&cwd, &strs(&args), 0);
        }
        run(
            &cwd,
            &["merge", "s0", "s1", "--out", "m", "--prices", "prices.json"],
            0,
        );
        summary(&cwd.join("m"))
    })
    .await;
    assert_eq!(server.count(), 4);
    assert_eq!(merged["tokens"]["input_tokens"], 480);
    assert_eq!(merged["tokens"]["output_tokens"], 120);
    let cost = merged["tokens"]["cost"].as_f64().unwrap();
    assert!((cost - 0.00072).abs() < 1e-12, "{cost}");
}
