//! `glossa batch submit|status|fetch` against a stateful 127.0.0.1 mock of
//! the OpenAI Files and Batch APIs (support::batch_service) with a real
//! service's faults: 429 on create, a create that never answers (the
//! process killed meanwhile), a batch that expires half done, failed
//! requests in the error file, output lines out of order. What glossa sent
//! and what the mock answered are checked against the official SDK's types
//! (.ci/openai_types.py). One run goes through a real OpenAI-compatible
//! gateway, LiteLLM's proxy (.ci/litellm.sh), in front of the mock.

use crate::support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use support::batch_files::{check_exchange, json_file, recorded_ids, sdk_python, summary};
use support::batch_service::BatchService;
use support::{jsonl, run_in as run, Response, Server};
use tempfile::TempDir;

const ANSWER: &str = "Prøv frosk mavi og dorpa. Lagre zimbo!";

/// The demo with two retrievers: 48 calls.
const COMMON: [&str; 6] = [
    "--retriever",
    "exact,oracle",
    "--model",
    "m",
    "--format",
    "markdown",
];

/// `glossa run --batch-out` of the demo into `cwd/DIR`.
fn batch_run(cwd: &Path, dir: &str) {
    let mut args = vec!["run", "--batch-out", "requests.jsonl", "--out", dir];
    args.extend(COMMON);
    run(cwd, &args, 0);
}

/// The same calls made live against `chat_base` into `cwd/live`: its
/// table.
fn live_run(cwd: &Path, chat_base: &str) -> String {
    let mut live = vec!["run", "--provider", "openai", "--base-url", chat_base];
    live.extend(["--no-cache", "--out", "live"]);
    live.extend(COMMON);
    run(cwd, &live, 0).0
}

/// What glossa sent and the mock answered, checked against openai.types.
fn check_against_the_sdk(service: &BatchService, scratch: &Path) {
    let exchange = service.with(|s| {
        json!({
            "uploads": s.uploads.iter().map(|fields| fields.iter().map(|f| json!({
                "name": f.name, "filename": f.filename,
                // The file's content is not a form field value to check.
                "value": if f.filename.is_some() { String::new() } else { f.value.clone() },
            })).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "creates": s.creates,
            "replies": s.replies.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        })
    });
    let setup = "export GLOSSA_OPENAI_PYTHON=$(bash .ci/openai_types.sh)";
    if let Some(python) = sdk_python("GLOSSA_OPENAI_PYTHON", "openai.types", setup) {
        check_exchange(&python, ".ci/openai_types.py", &exchange, scratch);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submit_status_fetch_give_the_run_a_live_run_gives() {
    let chat = Server::start(vec![Response::json(
        200,
        json!({"model": "gpt-4o-mini-2024-07-18",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
        .to_string(),
    )])
    .await;
    let service = BatchService::start(ANSWER).await;
    // The first create is refused with 429 and Retry-After; every batch
    // is in progress when first asked.
    service.with(|s| {
        s.rate_limit_creates = 1;
        s.polls_before_done = 1;
    });
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let (base, chat_base) = (service.base(), chat.url("/v1"));
    let (live_table, submitted, status, batch_table, again) =
        tokio::task::spawn_blocking(move || {
            let live_table = live_run(&cwd, &chat_base);
            batch_run(&cwd, "b");
            let (submitted, err) = run(
                &cwd,
                &[
                    "batch",
                    "submit",
                    "b",
                    "--base-url",
                    &base,
                    "--max-requests",
                    "10",
                ],
                0,
            );
            assert!(
                err.contains("48 of 48 calls to send, in 5 request files"),
                "{err}"
            );
            // status and fetch find the service in batches.json.
            let (status, _) = run(&cwd, &["batch", "status", "b", "--format", "json"], 0);
            let (batch_table, _) = run(&cwd, &["batch", "fetch", "b", "--format", "markdown"], 0);
            let (_, again) = run(&cwd, &["batch", "fetch", "b"], 0);
            let (_, resubmit) = run(&cwd, &["batch", "submit", "b"], 0);
            assert!(resubmit.contains("no call to send"), "{resubmit}");
            (live_table, submitted, status, batch_table, again)
        })
        .await
        .unwrap();
    let dir = tmp.path().join("b");
    // Split at 10 requests: five files, five batches, every call once.
    assert_eq!(
        service.with(|s| (s.uploads.len(), s.batches.len(), s.creates.len())),
        (5, 5, 6)
    );
    let mut all = Vec::new();
    for n in 0..5 {
        let ids = service.uploaded_ids(n);
        assert!(ids.len() <= 10);
        all.extend(ids);
    }
    assert_eq!(all.len(), 48);
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 48);
    assert!(submitted.contains("batch_005"), "{submitted}");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["parts"].as_array().unwrap().len(), 5);
    assert_eq!(status["parts"][0]["status"], "in_progress");
    assert_eq!(status["parts"][0]["request_counts"]["total"], 10);
    assert_eq!(status["base_url"], service.base());
    // The same records and summary as the live run; output lines came
    // last first.
    assert_eq!(
        batch_table.split("**Tokens**").next(),
        live_table.split("**Tokens**").next()
    );
    assert_eq!(summary(&dir), summary(&tmp.path().join("live")));
    let ledger = json_file(&dir.join("batches.json"));
    for part in ledger["parts"].as_array().unwrap() {
        assert_eq!(part["status"], "completed");
        assert_eq!(part["done"], true);
        assert!(dir.join(part["results"][0].as_str().unwrap()).exists());
    }
    assert!(again.contains("nothing new to record"), "{again}");
    assert_eq!(service.with(|s| s.uploads.len()), 5);
    check_against_the_sdk(&service, tmp.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_batch_is_completed_by_a_batch_of_only_the_missing_calls() {
    let service = BatchService::start(ANSWER).await;
    service.with(|s| s.answer_at_most = Some(20));
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let base = service.base();
    let c = cwd.clone();
    tokio::task::spawn_blocking(move || {
        batch_run(&c, "b");
        run(&c, &["batch", "submit", "b", "--base-url", &base], 0);
    })
    .await
    .unwrap();
    let first = service.uploaded_ids(0);
    assert_eq!(first.len(), 48);
    // One request fails: its 500 line is in the error file.
    service.with(|s| s.fail.insert(first[3].clone()));
    let c = cwd.clone();
    let err = tokio::task::spawn_blocking(move || run(&c, &["batch", "fetch", "b"], 1).1)
        .await
        .unwrap();
    let dir = tmp.path().join("b");
    assert!(
        err.contains("28 requests of batch batch_001 were never executed"),
        "{err}"
    );
    let records = jsonl(&dir.join("calls.jsonl"));
    assert_eq!(records.len(), 20);
    assert_eq!(records.iter().filter(|r| !r["error"].is_null()).count(), 1);
    let expected_missing: BTreeSet<String> = first[20..].iter().cloned().collect();

    // submit sends exactly the calls still missing; the second batch completes.
    service.with(|s| s.answer_at_most = None);
    let c = cwd.clone();
    let err = tokio::task::spawn_blocking(move || {
        run(&c, &["batch", "submit", "b"], 0);
        run(&c, &["batch", "fetch", "b"], 1).1
    })
    .await
    .unwrap();
    let second: BTreeSet<String> = service.uploaded_ids(1).into_iter().collect();
    assert_eq!(second, expected_missing);
    assert!(err.contains("1 calls failed"), "{err}");
    assert!(err.contains("glossa batch submit --retry-errors"), "{err}");
    assert_eq!(recorded_ids(&dir).len(), 48);

    // The failed call alone, then the run is complete; fetch --wait asks
    // until the batch is done.
    service.with(|s| {
        s.fail.clear();
        s.polls_before_done = 2;
    });
    let c = cwd.clone();
    let waited = tokio::task::spawn_blocking(move || {
        run(&c, &["batch", "submit", "b", "--retry-errors"], 0);
        run(&c, &["batch", "fetch", "b", "--wait", "--poll", "0.2"], 0).1
    })
    .await
    .unwrap();
    assert_eq!(
        waited.matches("1 batches still running").count(),
        2,
        "{waited}"
    );
    assert_eq!(service.uploaded_ids(2), vec![first[3].clone()]);
    let s = summary(&dir);
    assert_eq!(s["failed"], 0, "{s}");
    assert_eq!(service.with(|s| s.batches.len()), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_between_upload_and_create_resumes_without_a_second_upload() {
    let service = BatchService::start(ANSWER).await;
    service.with(|s| s.hang_creates = true);
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let dir = cwd.join("b");
    let base = service.base();
    let c = cwd.clone();
    tokio::task::spawn_blocking(move || batch_run(&c, "b"))
        .await
        .unwrap();
    // The create never answers: the process is killed while it waits.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("glossa"))
        .current_dir(&cwd)
        .args(["batch", "submit", "b", "--base-url", &base])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while service.with(|s| s.creates.len()) == 0 {
        assert!(start.elapsed().as_secs() < 120, "no create request came");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let ledger = json_file(&dir.join("batches.json"));
    assert_eq!(ledger["parts"][0]["input_file_id"], "file-in001");
    assert_eq!(ledger["parts"][0]["batch_id"], Value::Null);

    // Run again: the recorded upload is used, the batch created once.
    service.with(|s| s.hang_creates = false);
    let c = cwd.clone();
    tokio::task::spawn_blocking(move || run(&c, &["batch", "submit", "b"], 0))
        .await
        .unwrap();
    assert_eq!(service.with(|s| (s.uploads.len(), s.batches.len())), (1, 1));
    let ledger = json_file(&dir.join("batches.json"));
    assert_eq!(ledger["parts"][0]["batch_id"], "batch_001");

    // A create whose answer was lost (sent, not recorded): the batch is
    // found at the service, not created again.
    let mut lost = ledger.clone();
    lost["parts"][0]["batch_id"] = Value::Null;
    lost["parts"][0]["status"] = Value::Null;
    std::fs::write(dir.join("batches.json"), lost.to_string()).unwrap();
    let c = cwd.clone();
    let err = tokio::task::spawn_blocking(move || {
        let (_, err) = run(&c, &["batch", "submit", "b"], 0);
        run(&c, &["batch", "fetch", "b"], 0);
        err
    })
    .await
    .unwrap();
    assert!(err.contains("found batch batch_001"), "{err}");
    assert_eq!(
        service.with(|s| (s.uploads.len(), s.batches.len(), s.creates.len())),
        (1, 1, 2)
    );
    assert_eq!(recorded_ids(&dir).len(), 48);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_that_fails_validation_is_sent_again_by_the_next_submit() {
    let service = BatchService::start(ANSWER).await;
    service.with(|s| s.fail_validation = true);
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let base = service.base();
    let (failed, status) = tokio::task::spawn_blocking(move || {
        batch_run(&cwd, "b");
        run(&cwd, &["batch", "submit", "b", "--base-url", &base], 0);
        let (_, failed) = run(&cwd, &["batch", "fetch", "b"], 1);
        let (status, _) = run(&cwd, &["batch", "status", "b"], 0);
        run(&cwd, &["batch", "submit", "b"], 0);
        run(&cwd, &["batch", "fetch", "b"], 0);
        (failed, status)
    })
    .await
    .unwrap();
    assert!(
        failed.contains("line 1: invalid_request: This model is not available for batch."),
        "{failed}"
    );
    assert!(failed.contains("glossa batch submit"), "{failed}");
    assert!(status.contains("failed, recorded"), "{status}");
    assert_eq!(service.uploaded_ids(1).len(), 48);
    assert_eq!(recorded_ids(&tmp.path().join("b")).len(), 48);
}

#[test]
fn batch_commands_refuse_what_they_cannot_do() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let (_, err) = run(cwd, &["batch", "status", "nowhere"], 2);
    assert!(err.contains("nowhere"), "{err}");
    // A live offline run cannot go through the batch service.
    run(
        cwd,
        &[
            "run",
            "--retriever",
            "exact",
            "--out",
            "off",
            "--format",
            "json",
        ],
        0,
    );
    let (_, err) = run(
        cwd,
        &[
            "batch",
            "submit",
            "off",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
        2,
    );
    assert!(err.contains("--provider offline"), "{err}");
    batch_run(cwd, "b");
    let (_, err) = run(cwd, &["batch", "fetch", "b"], 2);
    assert!(err.contains("no batches.json"), "{err}");
    // No key for OpenAI itself.
    let out = support::glossa_in(cwd)
        .args(["batch", "submit", "b"])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("OPENAI_API_KEY"));
    assert!(
        !cwd.join("b/batches").exists()
            || std::fs::read_dir(cwd.join("b/batches")).unwrap().count() == 0
    );
}

/// The `litellm` executable of .ci/litellm.sh (GLOSSA_LITELLM); under
/// CI=true it must be there.
fn litellm() -> Option<PathBuf> {
    support::required_data(
        std::env::var_os("GLOSSA_LITELLM").map(PathBuf::from),
        |exe| exe.is_file(),
        "GLOSSA_LITELLM is unset or not a file \
         (export GLOSSA_LITELLM=$(bash .ci/litellm.sh))",
    )
}

/// The proxy's master key, which glossa sends as OPENAI_API_KEY.
const LITELLM_KEY: &str = "sk-glossa-litellm-Zq8vN3kP2xW7rT5m";

/// A LiteLLM proxy on 127.0.0.1 whose files and batches go to `upstream`;
/// ended when dropped.
struct Litellm {
    child: std::process::Child,
    port: u16,
    log: PathBuf,
}

impl Litellm {
    fn start(exe: &Path, upstream: &str, dir: &Path) -> Litellm {
        let config = dir.join("litellm.yaml");
        std::fs::write(
            &config,
            format!(
                "model_list:\n  - model_name: m\n    litellm_params:\n      model: openai/m\n      \
                 api_base: {upstream}\n      api_key: sk-mock\n\
                 files_settings:\n  - custom_llm_provider: openai\n    api_base: {upstream}\n    \
                 api_key: sk-mock\n\
                 litellm_settings:\n  telemetry: false\n\
                 general_settings:\n  master_key: {LITELLM_KEY}\n"
            ),
        )
        .unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = dir.join("litellm.log");
        let out = std::fs::File::create(&log).unwrap();
        let child = std::process::Command::new(exe)
            .current_dir(dir)
            .args(["--config", config.to_str().unwrap()])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            .env("LITELLM_TELEMETRY", "False")
            .env("DISABLE_TELEMETRY", "True")
            .env("NO_DOCS", "True")
            .stdin(std::process::Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut proxy = Litellm { child, port, log };
        // uvicorn listens once the app's startup is done.
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            let exited = proxy.child.try_wait().unwrap();
            assert!(
                exited.is_none() && start.elapsed().as_secs() < 180,
                "the LiteLLM proxy did not start ({exited:?}):\n{}",
                proxy.log_text()
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        proxy
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Litellm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `run_in` with the proxy's key as OPENAI_API_KEY.
fn run_keyed(cwd: &Path, args: &[&str], code: i32) -> (String, String) {
    let out = support::glossa_in(cwd)
        .env("OPENAI_API_KEY", LITELLM_KEY)
        .args(args)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "glossa {}\nstdout: {stdout}\nstderr: {stderr}",
        args.join(" ")
    );
    (stdout, stderr)
}

/// A real OpenAI-compatible gateway in between: LiteLLM's proxy passes the
/// upload, the create, the polls and the downloads through to the batch
/// mock (its files_settings), and the run comes out as a live run's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submit_status_fetch_through_a_litellm_proxy_give_a_live_runs_summary() {
    let Some(exe) = litellm() else {
        return;
    };
    let chat = Server::start(vec![Response::json(
        200,
        json!({"model": "gpt-4o-mini-2024-07-18",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
        .to_string(),
    )])
    .await;
    let service = BatchService::start(ANSWER).await;
    service.with(|s| s.polls_before_done = 1);
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let (upstream, chat_base) = (service.base(), chat.url("/v1"));
    let (proxy_base, live_table, submitted, status, batch_table, log) =
        tokio::task::spawn_blocking(move || {
            let proxy = Litellm::start(&exe, &upstream, &cwd);
            let base = proxy.base();
            let live_table = live_run(&cwd, &chat_base);
            batch_run(&cwd, "b");
            let (submitted, _) = run_keyed(&cwd, &["batch", "submit", "b", "--base-url", &base], 0);
            let (status, _) = run_keyed(&cwd, &["batch", "status", "b", "--format", "json"], 0);
            let (batch_table, _) =
                run_keyed(&cwd, &["batch", "fetch", "b", "--format", "markdown"], 0);
            let log = proxy.log_text();
            (base, live_table, submitted, status, batch_table, log)
        })
        .await
        .unwrap();
    // One upload and one batch reached the mock, with the proxy's own key.
    assert_eq!(
        service.with(|s| (s.uploads.len(), s.batches.len())),
        (1, 1),
        "{log}"
    );
    assert_eq!(service.uploaded_ids(0).len(), 48);
    assert!(
        service.with(|s| s
            .auth
            .iter()
            .all(|a| a.as_deref() == Some("Bearer sk-mock"))),
        "{log}"
    );
    assert!(submitted.contains("batch_001"), "{submitted}");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["base_url"], proxy_base);
    assert_eq!(status["parts"][0]["status"], "in_progress");
    assert_eq!(status["parts"][0]["request_counts"]["total"], 48);
    assert_eq!(
        batch_table.split("**Tokens**").next(),
        live_table.split("**Tokens**").next()
    );
    assert_eq!(
        summary(&tmp.path().join("b")),
        summary(&tmp.path().join("live"))
    );
}
