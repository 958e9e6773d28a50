//! A reply that echoes the API key: the key is replaced by a marker where
//! the reply enters glossa, so no file under the run folder or the cache,
//! and nothing printed, ever holds it; the record says it was redacted.

use crate::support;

use proptest::prelude::*;
use serde_json::{json, Value};
use std::path::Path;
use support::{glossa, Response, Server};
use tempfile::TempDir;

const VAR: &str = "GLOSSA_TEST_SECRET_KEY";

fn chat(content: &str, model: &str, finish: &str) -> Response {
    Response::json(
        200,
        json!({
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5}
        })
        .to_string(),
    )
}

/// Every file under `dir`, as (path, text).
fn files(dir: &Path) -> Vec<(String, String)> {
    crate::support::files_below(dir)
        .into_iter()
        .map(|p| {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            (p.display().to_string(), text)
        })
        .collect()
}

/// `glossa <args>` against the mock with the key set, in `cwd`.
fn glossa_openai(cwd: &Path, base: &str, key: &str, args: &[&str]) -> std::process::Output {
    glossa()
        .current_dir(cwd)
        .env(VAR, key)
        .args(args)
        .args(["--provider", "openai", "--model", "m", "--api-key-env", VAR])
        .args(["--base-url", base])
        .output()
        .unwrap()
}

fn assert_nowhere(key: &str, cwd: &Path, out: &std::process::Output) {
    for (path, text) in files(cwd) {
        assert!(!text.contains(key), "the key is in {path}");
    }
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains(key),
        "the key is on stdout"
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains(key),
        "the key is on stderr"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_echoing_the_key_leaves_it_in_no_file_and_on_no_screen() {
    let key = "sk-echoed-9f8e7d6c5b4a";
    // The first call is cut off (a partial output holding the key), every
    // later one echoes it in the text and in the served model name.
    let server = Server::start(vec![
        chat(&format!("half of {key}"), "m", "length"),
        chat(
            &format!("Tan frosk mavi. Your key is {key}."),
            &format!("m-{key}"),
            "stop",
        ),
    ])
    .await;
    let base = server.url("/v1");
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().to_path_buf();
    let b = base.clone();
    let out = tokio::task::spawn_blocking(move || {
        glossa_openai(
            &cwd,
            &b,
            key,
            &["run", "--retriever", "exact", "-j", "1", "--out", "run"],
        )
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(server.count() >= 24, "{stderr}");
    let calls: Vec<Value> = std::fs::read_to_string(dir.path().join("run/calls.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls.len(), 24, "{stderr}");
    let marker = format!("[REDACTED:{VAR}]");
    let partial = calls
        .iter()
        .find(|c| c["partial_output"].is_string())
        .expect("a cut-off call");
    assert_eq!(partial["partial_output"], format!("half of {marker}"));
    assert_eq!(partial["redacted"], true);
    let answered = calls.iter().find(|c| c["output"].is_string()).unwrap();
    assert_eq!(
        answered["output"],
        format!("Tan frosk mavi. Your key is {marker}.")
    );
    assert_eq!(answered["served_model"], format!("m-{marker}"));
    assert_eq!(answered["redacted"], true);
    assert!(
        dir.path().join("runs/cache").exists(),
        "replies were cached"
    );
    assert_nowhere(key, dir.path(), &out);

    // translate prints the reply (from the cache now) and its JSON trace.
    for format in ["table", "json"] {
        let cwd = dir.path().to_path_buf();
        let b = base.clone();
        let out = tokio::task::spawn_blocking(move || {
            glossa_openai(
                &cwd,
                &b,
                key,
                &["translate", "--format", format, "Try our cold coffee."],
            )
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(&marker), "{stdout}");
        if format == "json" {
            assert!(
                stdout.contains("\"redacted\": true") || stdout.contains("\"redacted\":true"),
                "{stdout}"
            );
        }
        assert_nowhere(key, dir.path(), &out);
    }
}

fn key_strategy() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_-]{8,40}".prop_map(|k| format!("sk-{k}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// For random keys and replies that embed them (once or more, in the
    /// text or the served model), no file under the run folder or the
    /// cache ever holds the key.
    #[test]
    fn no_file_under_a_run_or_the_cache_holds_a_key_from_the_environment(
        key in key_strategy(),
        before in "[a-zA-Z .,]{0,20}",
        after in "[a-zA-Z .,]{0,20}",
        times in 1usize..3,
        in_model in any::<bool>(),
    ) {
        let text = format!("{before}{}{after}", key.repeat(times));
        let model = if in_model { format!("m/{key}") } else { "m".to_string() };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = rt.block_on(Server::start(vec![chat(&text, &model, "stop")]));
        let dir = TempDir::new().unwrap();
        let out = glossa_openai(
            dir.path(),
            &server.url("/v1"),
            &key,
            &["run", "--retriever", "exact", "-j", "4", "--out", "run"],
        );
        prop_assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        prop_assert!(dir.path().join("run/calls.jsonl").exists());
        for (path, content) in files(dir.path()) {
            prop_assert!(!content.contains(&key), "the key is in {}", path);
        }
        prop_assert!(!String::from_utf8_lossy(&out.stdout).contains(&key));
        prop_assert!(!String::from_utf8_lossy(&out.stderr).contains(&key));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_submit_status_fetch_leave_the_key_in_no_file_and_on_no_screen() {
    let key = "sk-batch-7f3a9c2e1d";
    let service =
        support::batch_service::BatchService::start(&format!("Prøv frosk {key} mavi.")).await;
    // The service's refusal quotes the key too.
    service.with(|s| s.refuse_create = Some(format!("invalid key {key} for this project")));
    let dir = TempDir::new().unwrap();
    let cwd = dir.path().to_path_buf();
    let base = service.base();
    let outputs = tokio::task::spawn_blocking(move || {
        let step = |args: &[&str]| {
            glossa()
                .current_dir(&cwd)
                .env(VAR, key)
                .args(args)
                .output()
                .unwrap()
        };
        let made = glossa()
            .current_dir(&cwd)
            .args([
                "run",
                "--retriever",
                "exact",
                "--provider",
                "openai",
                "--model",
                "m",
            ])
            .args(["--api-key-env", VAR, "--base-url", &base])
            .args(["--batch-out", "requests.jsonl", "--out", "b"])
            .output()
            .unwrap();
        assert!(made.status.success());
        let refused = step(&["batch", "submit", "b"]);
        assert_eq!(refused.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("[REDACTED:GLOSSA_TEST_SECRET_KEY]")
        );
        let outs = vec![
            refused,
            step(&["batch", "submit", "b"]),
            step(&["batch", "status", "b", "--format", "json"]),
            step(&["batch", "fetch", "b"]),
        ];
        (outs, cwd)
    })
    .await
    .unwrap();
    let (outs, cwd) = outputs;
    assert_eq!(
        outs[3].status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&outs[3].stderr)
    );
    for out in &outs {
        assert_nowhere(key, &cwd, out);
    }
    // The key did travel, in the header.
    let bearer = format!("Bearer {key}");
    assert!(service.with(
        |s| !s.auth.is_empty() && s.auth.iter().all(|a| a.as_deref() == Some(bearer.as_str()))
    ));
    // The downloaded output held the answer, with the key replaced.
    let output = std::fs::read_to_string(cwd.join("b/batches/part-001.output.jsonl")).unwrap();
    assert!(
        output.contains("[REDACTED:GLOSSA_TEST_SECRET_KEY]"),
        "{output}"
    );
}
