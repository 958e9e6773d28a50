//! `glossa batch submit|status|fetch` for `--provider gemini` against a
//! stateful 127.0.0.1 mock of the Gemini API's Files and batch endpoints
//! (support::gemini_service) with a real service's faults: 429 on create,
//! a batch that expires half done, failed requests among the results,
//! result lines out of order, a create whose answer was lost. What glossa
//! sent and read is checked against the official `google-genai` SDK's
//! types and its own request converters (.ci/genai_types.py).

use crate::support;

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::Path;
use support::batch_files::{check_exchange, json_file, recorded_ids, sdk_python, summary};
use support::gemini_service::GeminiService;
use support::{jsonl, Response, Server};
use tempfile::TempDir;

const ANSWER: &str = "Prøv frosk mavi og dorpa. Lagre zimbo!";
const KEY: &str = "gm-test-key-36-9f8e7d6c5b4a";

/// The demo with two retrievers (48 calls), Gemini, and sampling settings
/// every request must carry.
const COMMON: [&str; 14] = [
    "--provider",
    "gemini",
    "--retriever",
    "exact,oracle",
    "--model",
    "m",
    "--temperature",
    "0.2",
    "--seed",
    "7",
    "--max-tokens",
    "300",
    "--format",
    "markdown",
];

/// glossa in `cwd` with the Gemini key set; stdout, stderr.
fn run(cwd: &Path, args: &[&str], code: i32) -> (String, String) {
    let out = support::glossa_in(cwd)
        .args(args)
        .env("GEMINI_API_KEY", KEY)
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

/// `glossa run --batch-out` of the demo into `cwd/DIR`.
fn batch_run(cwd: &Path, dir: &str) {
    let mut args = vec!["run", "--batch-out", "requests.jsonl", "--out", dir];
    args.extend(COMMON);
    run(cwd, &args, 0);
}

/// The key appears in no file below `dir`.
fn no_key_below(dir: &Path) {
    for file in support::files_below(dir) {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).to_string();
        assert!(!text.contains(KEY), "{} holds the key", file.display());
    }
}

/// What glossa sent and the mock answered, checked against google-genai.
fn check_against_the_sdk(service: &GeminiService, scratch: &Path) {
    let exchange = service.with(|s| {
        let lines: Vec<Value> = s
            .uploaded
            .iter()
            .flat_map(|f| s.files[f].lines().map(|l| serde_json::from_str(l).unwrap()))
            .collect();
        json!({
            "upload_starts": s.upload_starts,
            "request_lines": lines,
            "creates": s.creates.iter().map(|(m, b)| json!({"model": m, "body": b})).collect::<Vec<_>>(),
            "replies": s.replies.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
            "result_lines": s.result_lines,
        })
    });
    let setup = "export GLOSSA_GENAI_PYTHON=$(bash .ci/genai_types.sh)";
    if let Some(python) = sdk_python("GLOSSA_GENAI_PYTHON", "google.genai.types", setup) {
        check_exchange(&python, ".ci/genai_types.py", &exchange, scratch);
    }
}

/// The reply the mock's batches give each request, as a live call gets it.
fn live_reply() -> Value {
    json!({
        "candidates": [{"content": {"parts": [{"text": ANSWER}], "role": "model"},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
        "modelVersion": "gemini-2.5-flash", "responseId": "live"
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_submit_status_fetch_give_the_run_a_live_run_gives() {
    let live = Server::start(vec![Response::json(200, live_reply().to_string())]).await;
    let service = GeminiService::start(ANSWER).await;
    // The first create is refused with 429 and Retry-After; every batch
    // is running when first asked.
    service.with(|s| {
        s.rate_limit_creates = 1;
        s.polls_before_done = 1;
    });
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let (base, live_base) = (service.base(), live.url("/v1beta"));
    let (live_table, submitted, status, batch_table, again) =
        tokio::task::spawn_blocking(move || {
            let mut args = vec![
                "run",
                "--base-url",
                &live_base,
                "--no-cache",
                "--out",
                "live",
            ];
            args.extend(COMMON);
            let (live_table, _) = run(&cwd, &args, 0);
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

    // Each request line holds the body a live call sent, byte for byte.
    let live_bodies: BTreeSet<String> = live.requests().iter().map(|r| r.body.clone()).collect();
    assert_eq!(live.count(), 48);
    let text = std::fs::read_to_string(tmp.path().join("requests.jsonl")).unwrap();
    let batch_bodies: BTreeSet<String> = text
        .lines()
        .map(|l| {
            let start = l.find(",\"request\":").unwrap() + ",\"request\":".len();
            l[start..l.len() - 1].to_string()
        })
        .collect();
    assert_eq!(batch_bodies, live_bodies);
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["request"]["generationConfig"],
        json!({"temperature": 0.2, "seed": 7, "maxOutputTokens": 300})
    );
    assert!(live.requests()[0]
        .path
        .ends_with("/v1beta/models/m:generateContent"));

    // Split at 10 requests: five files, five batches, every call once;
    // one create refused with 429, then made.
    assert_eq!(
        service.with(|s| (s.uploaded.len(), s.batches.len(), s.creates.len())),
        (5, 5, 6)
    );
    let mut all = Vec::new();
    for n in 0..5 {
        let keys = service.uploaded_keys(n);
        assert!(keys.len() <= 10);
        all.extend(keys);
    }
    assert_eq!(all.len(), 48);
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 48);
    assert!(service.with(|s| s.creates.iter().all(|(model, _)| model == "m")));
    assert!(submitted.contains("batches/b005"), "{submitted}");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["service"], "gemini");
    assert_eq!(status["base_url"], service.base());
    assert_eq!(status["parts"].as_array().unwrap().len(), 5);
    assert_eq!(status["parts"][0]["service"], "gemini");
    assert_eq!(status["parts"][0]["input_file_id"], "files/in001");
    assert_eq!(status["parts"][0]["status"], "in_progress");
    assert_eq!(status["parts"][0]["request_counts"]["total"], 10);

    // The same records and summary as the live run; result lines came
    // last first.
    assert_eq!(
        batch_table.split("**Tokens**").next(),
        live_table.split("**Tokens**").next()
    );
    assert_eq!(summary(&dir), summary(&tmp.path().join("live")));
    let records = jsonl(&dir.join("calls.jsonl"));
    assert!(
        records.iter().all(|r| r["provider"] == "gemini"),
        "{:?}",
        records[0]
    );
    let ledger = json_file(&dir.join("batches.json"));
    for part in ledger["parts"].as_array().unwrap() {
        assert_eq!(part["status"], "completed");
        assert_eq!(part["done"], true);
        assert!(part["output_file_id"]
            .as_str()
            .unwrap()
            .starts_with("files/batch-b"));
        assert!(dir.join(part["results"][0].as_str().unwrap()).exists());
    }
    assert!(again.contains("nothing new to record"), "{again}");
    assert_eq!(service.with(|s| s.uploaded.len()), 5);

    // The key went in x-goog-api-key to every request, and nowhere else.
    let keys = service.with(|s| s.keys.clone());
    assert!(!keys.is_empty());
    assert!(keys.iter().all(|k| k.as_deref() == Some(KEY)), "{keys:?}");
    no_key_below(tmp.path());
    check_against_the_sdk(&service, tmp.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_gemini_batch_is_completed_by_a_batch_of_only_the_missing_calls() {
    let service = GeminiService::start(ANSWER).await;
    service.with(|s| s.answer_at_most = Some(20));
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path().to_path_buf();
    let dir = cwd.join("b");
    let base = service.base();
    let c = cwd.clone();
    tokio::task::spawn_blocking(move || {
        batch_run(&c, "b");
        run(&c, &["batch", "submit", "b", "--base-url", &base], 0);
    })
    .await
    .unwrap();
    let first = service.uploaded_keys(0);
    assert_eq!(first.len(), 48);

    // A create whose answer was lost (sent, not recorded): the batch is
    // found at the service, not created again.
    let mut lost = json_file(&dir.join("batches.json"));
    assert_eq!(lost["parts"][0]["batch_id"], "batches/b001");
    lost["parts"][0]["batch_id"] = Value::Null;
    lost["parts"][0]["status"] = Value::Null;
    std::fs::write(dir.join("batches.json"), lost.to_string()).unwrap();
    // One request fails: an error line among the results.
    service.with(|s| s.fail.insert(first[3].clone()));
    let c = cwd.clone();
    let (found, err) = tokio::task::spawn_blocking(move || {
        let (_, found) = run(&c, &["batch", "submit", "b"], 0);
        (found, run(&c, &["batch", "fetch", "b"], 1).1)
    })
    .await
    .unwrap();
    assert!(found.contains("found batch batches/b001"), "{found}");
    assert_eq!(service.with(|s| (s.batches.len(), s.creates.len())), (1, 1));
    assert!(err.contains("28 of 48 calls have no result yet"), "{err}");
    assert!(
        err.contains("28 requests of batch batches/b001 have no result (the batch expired first)"),
        "{err}"
    );
    assert!(err.contains("glossa batch submit"), "{err}");
    let records = jsonl(&dir.join("calls.jsonl"));
    assert_eq!(records.len(), 20);
    let failed: Vec<&Value> = records.iter().filter(|r| !r["error"].is_null()).collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(
        failed[0]["error"],
        "the Gemini Batch API failed this request: code 500: Internal error encountered."
    );
    let ledger = json_file(&dir.join("batches.json"));
    assert_eq!(ledger["parts"][0]["status"], "expired");
    assert_eq!(ledger["parts"][0]["request_counts"]["completed"], 19);
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
    let second: BTreeSet<String> = service.uploaded_keys(1).into_iter().collect();
    assert_eq!(second, expected_missing);
    assert!(err.contains("1 calls failed"), "{err}");
    assert!(err.contains("glossa batch submit --retry-errors"), "{err}");
    assert_eq!(recorded_ids(&dir).len(), 48);

    // The failed call alone, then the run is complete.
    service.with(|s| {
        s.fail.clear();
        s.polls_before_done = 1;
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
        1,
        "{waited}"
    );
    assert_eq!(service.uploaded_keys(2), vec![first[3].clone()]);
    let s = summary(&dir);
    assert_eq!(s["failed"], 0, "{s}");
    assert_eq!(service.with(|s| s.batches.len()), 3);
    no_key_below(tmp.path());
    check_against_the_sdk(&service, tmp.path());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gemini_upload_goes_in_chunks_to_the_base_it_was_given() {
    let service = GeminiService::start(ANSWER).await;
    // The first chunk arrives, but its answer is a 503: the client asks
    // how far the upload got and goes on from there.
    service.with(|s| s.lose_chunk_answers = 1);
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("part-001.jsonl");
    let content: String = (0..40)
        .map(|i| format!("{{\"key\":\"exact|1|p{i}\",\"request\":{{}}}}\n"))
        .collect();
    std::fs::write(&file, &content).unwrap();
    let mut api =
        glossa::batch::remote::gemini::GeminiBatches::new(Some(&service.base()), None).unwrap();
    api.chunk_bytes = 256;
    let name = api.upload(&file).await.unwrap();
    assert_eq!(name, "files/in001");
    let chunks = service.with(|s| s.chunks.clone());
    let expected = content.len().div_ceil(256);
    // Chunk 1 (its answer lost), the query, then chunks 2, 3... once each.
    assert_eq!(chunks[0], ("upload".to_string(), 0, 256));
    assert_eq!(chunks[1].0, "query");
    let sent: Vec<_> = chunks.iter().filter(|c| c.0 != "query").collect();
    assert_eq!(sent.len(), expected);
    assert!(sent[..expected - 1]
        .iter()
        .all(|(command, _, n)| command == "upload" && *n == 256));
    assert_eq!(sent.last().unwrap().0, "upload, finalize");
    assert_eq!(sent[2].1, 512);
    assert_eq!(service.with(|s| s.files[&name].clone()), content);
    let start = service.with(|s| s.upload_starts[0].clone());
    assert_eq!(start["content_type"], "application/jsonl");
    assert_eq!(start["size"], content.len());
    assert_eq!(
        start["body"],
        json!({"file": {"displayName": "part-001.jsonl"}})
    );
}

#[test]
fn a_gemini_batch_needs_its_key_and_refuses_openai_results() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    batch_run(cwd, "b");
    // No key for Google's own API.
    let out = support::glossa_in(cwd)
        .args(["batch", "submit", "b"])
        .env_remove("GEMINI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GEMINI_API_KEY"));
    // An OpenAI result line cannot answer a Gemini run.
    let line = json!({"custom_id": "exact|1|p01", "response": {"status_code": 200, "body": {}}, "error": null});
    std::fs::write(cwd.join("openai.jsonl"), format!("{line}\n")).unwrap();
    let (_, err) = run(
        cwd,
        &["run", "--batch-in", "openai.jsonl", "--resume", "b"],
        2,
    );
    assert!(
        err.contains("openai.jsonl:1: a result line of the OpenAI Batch API, in a run whose requests went to the Gemini Batch API"),
        "{err}"
    );
    assert!(!cwd.join("b/calls.jsonl").exists() || jsonl(&cwd.join("b/calls.jsonl")).is_empty());
}
