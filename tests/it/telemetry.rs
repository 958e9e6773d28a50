//! OpenTelemetry export (docs/telemetry.md): spans over OTLP/HTTP to a
//! collector on 127.0.0.1 — a scripted one here, and Arize Phoenix, a real
//! trace viewer (.ci/phoenix.sh; .ci/run starts it and exports
//! GLOSSA_PHOENIX_URL), whose own API reads the spans back.

use crate::support::{self, chat_reply_with_usage, glossa_in, Response, Server};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use tempfile::TempDir;

const POST: &str = "Cold coffee and fresh cookies at the market stall today";

/// `glossa ARGS` in `cwd` with no OTLP variable of the machine's own.
fn glossa(cwd: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut command = glossa_in(cwd);
    for var in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_SDK_DISABLED",
        "TRACEPARENT",
        "TRACESTATE",
    ] {
        command.env_remove(var);
    }
    let out = command.args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn collector_ok() -> Response {
    Response::Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "application/x-protobuf".into())],
        body: String::new(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn spans_go_to_the_collector_without_texts_or_keys_unless_asked() {
    let collector = Server::start(vec![collector_ok()]).await;
    let model = Server::start(vec![chat_reply_with_usage("Kofi baridi na keki leo")]).await;
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let otlp = collector.url("");
    let mut args = vec!["--otlp", &otlp, "translate", POST];
    let provider = model.provider_args("tiny-model");
    args.extend(provider.iter().map(String::as_str));
    let secret = "sk-test-0123456789abcdefSECRET";
    let mut command = glossa_in(cwd);
    let out = command
        .args(&args)
        .env("OPENAI_API_KEY", secret)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent = collector.requests();
    assert!(!sent.is_empty(), "no export request");
    for request in &sent {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/v1/traces");
        assert_eq!(
            request.header("content-type"),
            Some("application/x-protobuf")
        );
    }
    let body: String = sent.iter().map(|r| r.body.as_str()).collect();
    for name in [
        "glossa translate",
        "post",
        "simplify",
        "retrieve",
        "prompt",
        "generate",
        "check",
        "gen_ai.request.model",
        "tiny-model",
        "gen_ai.usage.input_tokens",
        "glossa.kinds",
        "glossa.check.missing",
    ] {
        assert!(body.contains(name), "no `{name}` in the exported spans");
    }
    assert!(
        !body.contains("market stall"),
        "the post was exported without --otlp-text"
    );
    assert!(
        !body.contains("Kofi baridi"),
        "the reply was exported without --otlp-text"
    );
    assert!(!body.contains(secret), "the API key was exported");

    // With --otlp-text the texts go too; the key still never does.
    let collector = Server::start(vec![collector_ok()]).await;
    let otlp = collector.url("");
    args[1] = &otlp;
    let mut with_text = vec!["--otlp-text"];
    with_text.extend(&args);
    let out = glossa_in(cwd)
        .args(&with_text)
        .env("OPENAI_API_KEY", secret)
        .output()
        .unwrap();
    assert!(out.status.success());
    let body: String = collector
        .requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert!(body.contains("market stall") && body.contains("Kofi baridi"));
    assert!(!body.contains(secret), "the API key was exported");
}

/// Ctrl-C ends a run early but normally: the spans of the calls made reach
/// the collector before the process exits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_of_a_run_stopped_by_ctrl_c_are_sent() {
    let collector = Server::start(vec![collector_ok()]).await;
    let model = Server::start(vec![Response::Delayed(
        std::time::Duration::from_millis(150),
        Box::new(support::chat_reply("ok")),
    )])
    .await;
    let dir = TempDir::new().unwrap();
    let (root, base, otlp) = (
        dir.path().to_path_buf(),
        model.url("/v1"),
        collector.url(""),
    );
    let out = tokio::task::spawn_blocking(move || {
        crate::generate::start_and_stop(&root, &base, "-INT", 2, &["--otlp", &otlp])
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("OTLP export"), "{stderr}");
    let body: String = collector
        .requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert!(
        body.contains("glossa run"),
        "the run's root span was not sent"
    );
    let calls = support::jsonl(&dir.path().join("run/calls.jsonl"));
    for call in &calls {
        let post = call["post"].as_str().unwrap();
        assert!(body.contains(post), "no span of the call for {post}");
    }
}

/// Ctrl-C during a one-post `translate` (its model call still out) ends
/// the process at once, but the invocation's span and an interrupted
/// `post` span reach the collector first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_of_a_translate_stopped_by_ctrl_c_are_sent() {
    let collector = Server::start(vec![collector_ok()]).await;
    let model = Server::start(vec![Response::Delayed(
        std::time::Duration::from_secs(60),
        Box::new(support::chat_reply("ok")),
    )])
    .await;
    let dir = TempDir::new().unwrap();
    let (base, otlp) = (model.url("/v1"), collector.url(""));
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("glossa"))
        .current_dir(dir.path())
        .args([
            "--otlp",
            &otlp,
            "translate",
            "--provider",
            "openai",
            "--model",
            "m",
        ])
        .args(["--no-cache", "--base-url", &base, POST])
        .env("OPENAI_API_KEY", "k")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while model.requests().is_empty() {
        assert!(started.elapsed().as_secs() < 30, "the call never went out");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted (Ctrl-C)"), "{stderr}");
    assert!(
        started.elapsed().as_secs() < 30,
        "it waited for the model's answer"
    );
    let body: String = collector
        .requests()
        .iter()
        .map(|r| r.body.clone())
        .collect();
    assert!(body.contains("glossa translate"), "no invocation span");
    assert!(
        body.contains("glossa.interrupted"),
        "no interrupted post span"
    );
    assert!(body.contains("interrupted (Ctrl-C) before it finished"));
}

/// The spans in the OTLP/HTTP (protobuf) bodies a collector received.
fn decoded_spans(collector: &Server) -> Vec<opentelemetry_proto::tonic::trace::v1::Span> {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message as _;
    collector
        .requests()
        .iter()
        .flat_map(|r| {
            ExportTraceServiceRequest::decode(r.raw.as_slice())
                .unwrap()
                .resource_spans
        })
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .collect()
}

/// With TRACEPARENT set (how a caller such as promptfoo passes its trace),
/// the invocation's root span is the caller's span's child: same trace,
/// parent span id from it; the posts' spans follow. A value that is no
/// traceparent costs one warning, and the trace is glossa's own.
#[tokio::test(flavor = "multi_thread")]
async fn traceparent_makes_the_invocation_a_child_of_the_callers_span() {
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent = "00f067aa0ba902b7";
    let collector = Server::start(vec![collector_ok()]).await;
    let dir = TempDir::new().unwrap();
    let otlp = collector.url("");
    let out = glossa_in(dir.path())
        .args(["--otlp", &otlp, "translate", "-q", POST])
        .env("TRACEPARENT", format!("00-{trace}-{parent}-01"))
        .env("TRACESTATE", "caller=1")
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let spans = decoded_spans(&collector);
    let hex = |id: &[u8]| id.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let root = spans
        .iter()
        .find(|s| s.name == "glossa translate")
        .expect("no root span");
    assert_eq!(hex(&root.trace_id), trace);
    assert_eq!(hex(&root.parent_span_id), parent);
    assert_eq!(root.trace_state, "caller=1");
    let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    for name in ["post", "retrieve", "generate", "check"] {
        assert!(names.contains(&name), "no {name} span in {names:?}");
    }
    assert!(
        spans.iter().all(|s| hex(&s.trace_id) == trace),
        "a span outside the caller's trace"
    );

    // Not a traceparent (here something longer, that may be a secret): one
    // warning that does not repeat it, and a trace of glossa's own.
    let collector = Server::start(vec![collector_ok()]).await;
    let otlp = collector.url("");
    let bad = format!("00-{trace}-{parent}-01-sk-secret-0123456789");
    let out = glossa_in(dir.path())
        .args(["--otlp", &otlp, "translate", "-q", POST])
        .env("TRACEPARENT", &bad)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("warning: TRACEPARENT").count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("sk-secret"), "{stderr}");
    let spans = decoded_spans(&collector);
    let root = spans
        .iter()
        .find(|s| s.name == "glossa translate")
        .expect("no root span");
    assert!(root.parent_span_id.is_empty());
    assert_ne!(hex(&root.trace_id), trace);
}

#[test]
fn an_unreachable_collector_costs_a_warning_not_the_run() {
    let dir = TempDir::new().unwrap();
    // Port 1 on 127.0.0.1: nothing listens there.
    let (code, stderr) = glossa(
        dir.path(),
        &["--otlp", "http://127.0.0.1:1", "run", "--out", "r"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: OTLP export to http://127.0.0.1:1/v1/traces failed"),
        "{stderr}"
    );
    assert!(dir.path().join("r/summary.json").exists());
}

#[test]
fn otlp_settings_that_cannot_work_are_refused() {
    let dir = TempDir::new().unwrap();
    let (code, stderr) = glossa(dir.path(), &["--otlp", "127.0.0.1:4318", "translate", POST]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("not an http:// or https:// URL"),
        "{stderr}"
    );
    let out = glossa_in(dir.path())
        .args(["translate", POST])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not grpc"));
}

/// Phoenix's URL (.ci/phoenix.sh); required under CI=true.
fn phoenix() -> Option<String> {
    // reqwest is built without a default TLS backend.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let url = std::env::var("GLOSSA_PHOENIX_URL").ok();
    let up = url.as_ref().is_some_and(|url| {
        reqwest::blocking::get(format!("{url}/healthz")).is_ok_and(|r| r.status().is_success())
    });
    let missing = "Arize Phoenix is not running (GLOSSA_PHOENIX_URL=$(bash .ci/phoenix.sh start))";
    if up {
        url
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("required under CI=true: {missing}");
    } else {
        eprintln!("note: {missing}; skipping");
        None
    }
}

/// Every span of a Phoenix project, through its REST API.
fn spans_of(phoenix: &str, project: &str) -> Vec<Value> {
    let mut spans = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{phoenix}/v1/projects/{project}/spans?limit=1000");
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let response = reqwest::blocking::get(&url).unwrap();
        // The project is made a moment after its first spans arrive.
        if response.status() == reqwest::StatusCode::NOT_FOUND {
            return spans;
        }
        let text = response.text().unwrap();
        let page: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: {e}: {text}"));
        spans.extend(page["data"].as_array().cloned().unwrap_or_default());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return spans,
        }
    }
}

/// The spans of the trace whose root is named `root`, by span id, and
/// each one's children by name.
struct Tree {
    spans: HashMap<String, Value>,
    root: String,
}

impl Tree {
    fn of(spans: &[Value], root: &str) -> Tree {
        let root_span = spans
            .iter()
            .find(|s| s["name"] == root && s["parent_id"].is_null())
            .unwrap_or_else(|| panic!("no root span `{root}` in {} spans", spans.len()));
        let trace = root_span["context"]["trace_id"].clone();
        Tree {
            spans: spans
                .iter()
                .filter(|s| s["context"]["trace_id"] == trace)
                .map(|s| {
                    (
                        s["context"]["span_id"].as_str().unwrap().to_string(),
                        s.clone(),
                    )
                })
                .collect(),
            root: root_span["context"]["span_id"]
                .as_str()
                .unwrap()
                .to_string(),
        }
    }

    fn children(&self, id: &str) -> Vec<&Value> {
        let mut children: Vec<&Value> = self
            .spans
            .values()
            .filter(|s| s["parent_id"] == id)
            .collect();
        children.sort_by_key(|s| s["start_time"].as_str().unwrap_or_default().to_string());
        children
    }
}

fn names(spans: &[&Value]) -> Vec<String> {
    spans
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

/// `glossa run` and `translate` against a real trace viewer: the spans it
/// stores, read back through its API, have the names, the parent/child
/// structure and the attributes docs/telemetry.md promises.
#[test]
fn phoenix_stores_a_trace_per_invocation_with_a_span_per_post_and_stage() {
    let Some(phoenix) = phoenix() else { return };
    let dir = TempDir::new().unwrap();
    let project = format!("glossa-test-{}", std::process::id());
    let resource = format!("openinference.project.name={project}");
    let run = |args: &[&str]| {
        let out = glossa_in(dir.path())
            .args(["--otlp", &phoenix])
            .args(args)
            .env("OTEL_RESOURCE_ATTRIBUTES", &resource)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["run", "--retriever", "exact,glossa", "--out", "r"]);
    run(&["translate", POST]);
    let eval = run(&[
        "eval",
        "--retriever",
        "exact,glossa",
        "--format",
        "json",
        "--no-save",
    ]);
    let eval: Value = serde_json::from_str(&eval).unwrap();
    let scored: Vec<&Value> = eval["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["per_post"].as_array().unwrap())
        .collect();

    let calls = support::jsonl(&dir.path().join("r/calls.jsonl"));
    // Phoenix stores spans a moment after it answers the export.
    let mut spans = Vec::new();
    for _ in 0..150 {
        spans = spans_of(&phoenix, &project);
        if spans.len() >= 3 + 6 * (calls.len() + 1) + 2 * scored.len() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let run_tree = Tree::of(&spans, "glossa run");
    let posts = run_tree.children(&run_tree.root);
    assert_eq!(posts.len(), calls.len(), "one post span per call");
    let stages = ["simplify", "retrieve", "prompt", "generate", "check"];
    for post in &posts {
        assert_eq!(post["name"], "post");
        let id = post["context"]["span_id"].as_str().unwrap();
        assert_eq!(names(&run_tree.children(id)), stages);
        let a = &post["attributes"];
        let call = calls
            .iter()
            .find(|c| c["post"] == a["glossa.post.id"] && c["retriever"] == a["glossa.retriever"])
            .unwrap_or_else(|| panic!("no call for {a}"));
        assert_eq!(a["glossa.check.ok"], call["check"]["ok"]);
        let children = run_tree.children(id);
        let retrieve = &children[1]["attributes"];
        // Phoenix files OpenInference's kind apart from the attributes.
        assert_eq!(children[1]["span_kind"], "RETRIEVER");
        assert_eq!(children[3]["span_kind"], "LLM");
        assert_eq!(
            retrieve["glossa.entries"].as_u64().unwrap() as usize,
            call["retrieved"].as_array().unwrap().len()
        );
        assert!(retrieve["glossa.needed"].is_u64() && retrieve["glossa.found"].is_u64());
        let generate = &children[3]["attributes"];
        assert_eq!(generate["gen_ai.system"], "offline");
        assert_eq!(generate["glossa.cache_hit"], false);
        assert_eq!(
            children[4]["attributes"]["glossa.check.leaked"],
            call["check"]["leaked"]
        );
    }

    let translate = Tree::of(&spans, "glossa translate");
    let posts = translate.children(&translate.root);
    assert_eq!(names(&posts), ["post"]);
    let stages_of = translate.children(posts[0]["context"]["span_id"].as_str().unwrap());
    assert_eq!(names(&stages_of), stages);
    assert_eq!(
        stages_of[2]["attributes"]["glossa.prompt.template"],
        "translate"
    );
    // No text without --otlp-text.
    assert!(posts[0]["attributes"].get("input.value").is_none());

    // eval: a post span per retriever and post, each with its retrieval.
    let eval = Tree::of(&spans, "glossa eval");
    let posts = eval.children(&eval.root);
    assert_eq!(
        posts.len(),
        scored.len(),
        "one post span per retriever and post"
    );
    for post in &posts {
        let id = post["context"]["span_id"].as_str().unwrap();
        let children = eval.children(id);
        assert_eq!(names(&children), ["retrieve"]);
        let a = &children[0]["attributes"];
        let result = scored
            .iter()
            .find(|r| {
                r["post"] == post["attributes"]["glossa.post.id"]
                    && a["glossa.entries"].as_u64()
                        == r["retrieved"].as_array().map(|v| v.len() as u64)
            })
            .unwrap_or_else(|| panic!("no scored post like {a}"));
        assert_eq!(a["glossa.found"], result["found"]);
        assert_eq!(post["attributes"]["glossa.complete"], result["complete"]);
    }
}
