//! Sane defaults against real servers (issue 29, item 3), against scripted
//! servers on 127.0.0.1: the default `max_tokens` cap from the post's
//! length (and none when lifted), kept by a resumed run; the text of a
//! failed call kept as `partial_output`, never as the output; and
//! `translate` saying "no output" instead of a check table.

use crate::support;

use glossa::generate::provider::{LengthCap, Request};
use serde_json::{json, Value};
use std::path::Path;
use support::{fixture, jsonl, run_in as run, Response, Server};
use tempfile::TempDir;

/// A chat completion of `content` ending with `finish`.
fn chat(content: &str, finish: &str) -> Response {
    Response::json(
        200,
        json!({
            "model": "served-1",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 40}
        })
        .to_string(),
    )
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

/// `glossa translate TEXT` against `base` with `extra` flags.
fn translate(cwd: &Path, base: &str, model: &str, extra: &[&str], code: i32) -> (String, String) {
    let mut args = vec![
        "translate",
        "Try our cold coffee.",
        "--provider",
        "openai",
        "--base-url",
        base,
        "--model",
        model,
        "--no-cache",
    ];
    args.extend(extra);
    run(cwd, &args, code)
}

fn body_of(server: &Server, n: usize) -> Value {
    server.requests()[n].json()
}

/// 128 tokens + one per character of the (simplified) post.
fn cap_for(text: &str) -> u64 {
    u64::from(LengthCap::DEFAULT.tokens(text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn translate_sends_the_cap_from_the_posts_length_unless_given_or_lifted() {
    let server = Server::start(vec![chat("Prøv frosk mavi.", "stop")]).await;
    let dir = TempDir::new().unwrap();
    let (cwd, base) = (dir.path().to_path_buf(), server.url("/v1"));
    blocking(move || {
        translate(&cwd, &base, "llama3", &[], 0);
        translate(&cwd, &base, "llama3", &["--max-tokens", "50"], 0);
        translate(&cwd, &base, "llama3", &["--max-tokens", "none"], 0);
        // A reasoning model's thinking counts against the cap: no default.
        translate(&cwd, &base, "o3-mini", &[], 0);
    })
    .await;
    let bodies: Vec<Value> = (0..4).map(|n| body_of(&server, n)).collect();
    assert_eq!(bodies[0]["max_tokens"], 128 + 20, "{}", bodies[0]);
    assert_eq!(bodies[0]["max_tokens"], cap_for("Try our cold coffee."));
    assert_eq!(bodies[1]["max_tokens"], 50);
    for body in &bodies[2..] {
        assert!(body.get("max_tokens").is_none(), "{body}");
        assert!(body.get("max_completion_tokens").is_none(), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_gets_no_default_cap() {
    let server = Server::start(vec![Response::json(
        200,
        json!({"candidates": [{"content": {"parts": [{"text": "Prøv frosk mavi."}]},
                               "finishReason": "STOP"}]})
        .to_string(),
    )])
    .await;
    let dir = TempDir::new().unwrap();
    let (cwd, base) = (dir.path().to_path_buf(), server.url("/v1beta"));
    blocking(move || {
        support::glossa_in(&cwd)
            .env("GLOSSA_TEST_CAP_GEMINI", "AIza-test")
            .args(["translate", "Try our cold coffee.", "--provider", "gemini"])
            .args([
                "--api-key-env",
                "GLOSSA_TEST_CAP_GEMINI",
                "--base-url",
                &base,
            ])
            .args(["--no-cache"])
            .assert()
            .success();
    })
    .await;
    let body = body_of(&server, 0);
    assert!(
        body["generationConfig"].get("maxOutputTokens").is_none(),
        "{body}"
    );
}

#[test]
fn bad_max_tokens_values_are_refused_with_what_to_give() {
    let dir = TempDir::new().unwrap();
    for (value, says) in [
        ("0", "`none` for no cap"),
        ("lots", "expected a positive whole number or `none`"),
    ] {
        let (_, stderr) = run(dir.path(), &["translate", "x", "--max-tokens", value], 2);
        assert!(stderr.contains(says), "{value}: {stderr}");
    }
    let (help, _) = run(dir.path(), &["translate", "--help"], 0);
    assert!(
        help.contains("128 tokens + one token per character of the post, at most 4096"),
        "{help}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_cut_off_by_the_default_cap_is_no_output_keeps_its_text_and_says_how_to_lift_the_cap(
) {
    let server = Server::start(vec![chat("Prøv vår frosk", "length")]).await;
    let dir = TempDir::new().unwrap();
    let (cwd, base) = (dir.path().to_path_buf(), server.url("/v1"));
    let (table, json) = blocking(move || {
        let (table, stderr) = translate(&cwd, &base, "llama3", &[], 1);
        assert!(!stderr.contains("error:"), "said once, on stdout: {stderr}");
        let (json, stderr) = translate(&cwd, &base, "llama3", &["--format", "json"], 1);
        assert!(stderr.contains("cut off by the token limit"), "{stderr}");
        (table, json)
    })
    .await;
    assert!(
        table.starts_with("no output: the call failed (reply from openai at "),
        "{table}"
    );
    assert!(table.contains("cut off by the token limit"), "{table}");
    assert!(
        table.contains("the default cap for this post is 148 tokens"),
        "{table}"
    );
    assert!(table.contains("--max-tokens none"), "{table}");
    // No check table, no check line: nothing was checked.
    assert!(!table.contains("In output"), "{table}");
    assert!(!table.contains("Check:"), "{table}");
    assert!(!table.contains("Prøv vår frosk"), "{table}");
    let trace: Value = serde_json::from_str(&json).unwrap();
    let g = &trace["generate"]["output"];
    assert_eq!(g["text"], Value::Null);
    assert_eq!(g["partial_output"], "Prøv vår frosk");
    assert_eq!(g["finish_reason"], "length");
    assert_eq!(g["usage"]["output_tokens"], 40);
    assert_eq!(trace["retrieve"]["output"][0]["entry"], "cold-coffee");
}

fn mini_run(extra: &[&str]) -> Vec<String> {
    let (g, p, l) = (
        fixture("mini.json"),
        fixture("mini-posts.jsonl"),
        fixture("mini-labels.jsonl"),
    );
    let mut args: Vec<String> = [
        "run", "-g", "G", "-p", "P", "-l", "L", "-r", "exact", "-j", "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args[2] = g.display().to_string();
    args[4] = p.display().to_string();
    args[6] = l.display().to_string();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The labelled posts of the mini fixture, by their text.
const MINI_POSTS: [&str; 4] = [
    "Try our cold coffee today.",
    "Fresh cookies and cold cofee.",
    "Save the date!",
    "No entries here.",
];

/// The cap a request was sent with, checked against its post's length.
fn assert_capped_by_its_post(body: &Value) {
    let prompt = body["messages"][0]["content"].as_str().unwrap();
    let post = MINI_POSTS
        .iter()
        .find(|p| prompt.contains(*p))
        .unwrap_or_else(|| panic!("no mini post in {prompt}"));
    assert_eq!(body["max_tokens"], cap_for(post), "{post}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_saves_the_cap_keeps_a_cut_off_text_and_redoes_it_with_the_same_cap() {
    let server = Server::start(vec![
        chat("Prøv vår", "length"),
        chat("Prøv frosk mavi.", "stop"),
    ])
    .await;
    let dir = TempDir::new().unwrap();
    let (cwd, base) = (dir.path().to_path_buf(), server.url("/v1"));
    let (calls, config, old_calls) = blocking(move || {
        let live = [
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "llama3",
        ];
        let mut args = mini_run(&live);
        args.extend(["--no-cache", "--out", "r"].map(String::from));
        run(&cwd, &strs(&args), 1);
        run(&cwd, &["run", "--retry-errors", "r"], 0);
        let config: Value =
            serde_json::from_str(&std::fs::read_to_string(cwd.join("r/run.json")).unwrap())
                .unwrap();
        // A run folder from before the default cap: no `max_tokens_auto`,
        // so its calls go out without a cap, as they did.
        std::fs::create_dir(cwd.join("old")).unwrap();
        let mut old = config.clone();
        old["provider"]
            .as_object_mut()
            .unwrap()
            .remove("max_tokens_auto");
        std::fs::write(cwd.join("old/run.json"), old.to_string()).unwrap();
        run(&cwd, &["run", "--resume", "old"], 0);
        (
            jsonl(&cwd.join("r/calls.jsonl")),
            config,
            jsonl(&cwd.join("old/calls.jsonl")),
        )
    })
    .await;
    assert_eq!(
        config["provider"]["max_tokens_auto"],
        json!({"per_char": 1, "floor": 128, "ceiling": 4096})
    );
    assert_eq!(config["provider"]["max_tokens"], Value::Null);
    let requests = server.requests();
    // 4 calls, the cut-off one redone, then the old folder's 4.
    assert_eq!(requests.len(), 9);
    for r in &requests[..5] {
        assert_capped_by_its_post(&r.json());
    }
    assert_eq!(
        requests[0].json()["max_tokens"],
        requests[4].json()["max_tokens"]
    );
    for r in &requests[5..] {
        assert!(r.json().get("max_tokens").is_none(), "{}", r.body);
    }
    let cut = &calls[0];
    assert_eq!(cut["output"], Value::Null);
    assert_eq!(cut["partial_output"], "Prøv vår");
    assert_eq!(cut["finish_reason"], "length");
    assert!(
        cut["error"].as_str().unwrap().contains("default cap"),
        "{cut}"
    );
    let redone = &calls[4];
    assert_eq!(redone["output"], "Prøv frosk mavi.");
    assert!(redone.get("partial_output").is_none(), "{redone}");
    assert_eq!(old_calls.len(), 4);
}

#[test]
fn batch_lines_carry_the_default_cap_as_a_live_call_does() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    for (model, out) in [("gpt-4o-mini", "a"), ("o3-mini", "b")] {
        let file = format!("{out}.jsonl");
        let args = mini_run(&["--model", model, "--batch-out", &file, "--out", out]);
        run(cwd, &strs(&args), 0);
        for line in jsonl(&cwd.join(&file)) {
            let body = &line["body"];
            if model == "o3-mini" {
                assert!(body.get("max_completion_tokens").is_none(), "{line}");
                assert!(body.get("max_tokens").is_none(), "{line}");
            } else {
                assert_capped_by_its_post(body);
            }
        }
    }
}

#[tokio::test]
async fn serve_offers_providers_with_their_sampling_and_the_default_cap_or_none_when_lifted() {
    use glossa::generate::provider::LengthCap;
    let server = Server::start(vec![chat("Prøv frosk mavi.", "stop")]).await;
    let request = Request {
        prompt: "Translate: Fresh cookies!".into(),
        text: "Fresh cookies!".into(),
        substitutions: Vec::new(),
        repeat: 1,
    };
    // What `serve` and `serve --max-tokens none` give the library (the
    // binary's `cli` tests check the flag's side).
    for max_tokens in [(None, Some(LengthCap::DEFAULT)), (None, None)] {
        let settings = glossa::serve::ModelSettings {
            models: [("openai".to_string(), "llama3".to_string())].into(),
            base_urls: [("openai".to_string(), server.url("/v1"))].into(),
            max_tokens,
            temperature: Some(0.0),
            seed: Some(7),
            ..Default::default()
        };
        let (offered, warnings) = glossa::serve::providers_from_env(&settings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let openai = offered.iter().find(|p| p.name == "openai").unwrap();
        openai.client.generate(&request).await.unwrap();
    }
    assert_eq!(body_of(&server, 0)["max_tokens"], 128 + 14);
    assert_eq!(body_of(&server, 0)["temperature"], 0.0);
    assert_eq!(body_of(&server, 0)["seed"], 7);
    assert!(body_of(&server, 1).get("max_tokens").is_none());
}
