//! Scale-out for generation through the real binary: `glossa run
//! --batch-out` writes OpenAI Batch API request files, `--batch-in` reads
//! the API's output files (fixtures in its format, or files made here by
//! answering each request), `--shard I/N` splits a run and `glossa merge`
//! joins the shards; each gives the same records and summary as a live run.

use crate::support;

use glossa::batch::api::{custom_id, parse_custom_id};
use serde_json::{json, Value};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use support::{glossa_in as glossa, run_in as run, Response, Server};
use tempfile::TempDir;

type Key = (String, u32, String);

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn key_of(record: &Value) -> Key {
    (
        record["retriever"].as_str().unwrap().to_string(),
        record["repeat"].as_u64().unwrap() as u32,
        record["post"].as_str().unwrap().to_string(),
    )
}

/// A run folder's records by call.
fn calls(dir: &Path) -> HashMap<Key, Value> {
    lines(&dir.join("calls.jsonl"))
        .into_iter()
        .map(|r| (key_of(&r), r))
        .collect()
}

/// `summary.json` without its folder name and token counts (the offline
/// provider reports no usage; the Batch API's answers do).
fn summary(dir: &Path) -> Value {
    let mut s: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    s.as_object_mut().unwrap().remove("run_dir");
    s.as_object_mut().unwrap().remove("tokens");
    s
}

/// A markdown run table without its closing token table.
fn without_tokens(table: &str) -> &str {
    table.split("**Tokens**").next().unwrap().trim_end()
}

/// The fields a check decides: equal between a live and a batch run.
fn checked(record: &Value) -> Value {
    json!({
        "output": record["output"],
        "check": record["check"],
        "group": record["group"],
        "retrieved": record["retrieved"],
        "wrong_sense_retrieved": record["wrong_sense_retrieved"],
        "wrong_sense_used": record["wrong_sense_used"],
        "prompt": record["prompt"],
        "error": record["error"],
    })
}

/// An output-file line of the Batch API answering `custom_id` with `text`.
fn answered(n: usize, custom_id: &str, text: &str) -> Value {
    json!({
        "id": format!("batch_req_{n:08}"),
        "custom_id": custom_id,
        "response": {
            "status_code": 200,
            "request_id": format!("req_{n:08}"),
            "body": {
                "id": format!("chatcmpl-{n}"),
                "object": "chat.completion",
                "created": 1735646400,
                "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
            }
        },
        "error": null
    })
}

/// Answer every request of a `--batch-out` file, last first (the API keeps
/// no order), with `answer(call, line)`; write the output file.
fn answer_requests(requests: &Path, results: &Path, answer: impl Fn(&Key, usize) -> Value) {
    let mut out: Vec<String> = lines(requests)
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let key = parse_custom_id(r["custom_id"].as_str().unwrap()).unwrap();
            answer(&key, i).to_string()
        })
        .collect();
    out.reverse();
    std::fs::write(results, out.join("\n") + "\n").unwrap();
}

/// The custom_ids of a request file, parsed.
fn request_keys(requests: &Path) -> Vec<Key> {
    lines(requests)
        .iter()
        .map(|r| parse_custom_id(r["custom_id"].as_str().unwrap()).unwrap())
        .collect()
}

const DEMO_RUN: [&str; 6] = [
    "--retriever",
    "exact,normalised+fuzzy,exact|sense,oracle",
    "--repeat",
    "2",
    "--format",
    "markdown",
];

/// `run` over the demo with DEMO_RUN's settings, then `extra`.
fn demo_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["run"];
    args.extend(DEMO_RUN);
    args.extend(extra);
    args
}

#[test]
fn batch_out_writes_one_valid_request_per_call_with_parseable_ids() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    // Post ids holding the separator, the escape character and a space.
    std::fs::write(
        cwd.join("posts.jsonl"),
        "{\"id\": \"a|b\", \"text\": \"Try our cold coffee today.\"}\n\
         {\"id\": \"100% sure\", \"text\": \"Fresh cookies!\"}\n\
         {\"id\": \"m3\", \"text\": \"Save the date!\"}\n",
    )
    .unwrap();
    std::fs::write(
        cwd.join("labels.jsonl"),
        "{\"post\": \"a|b\", \"needed\": [\"cold-coffee\"]}\n\
         {\"post\": \"100% sure\", \"needed\": [\"cookie\"]}\n\
         {\"post\": \"m3\", \"needed\": [], \"wrong_sense\": [\"date\"]}\n",
    )
    .unwrap();
    let glossary = fixture("mini.json");
    let mut args = vec!["run", "--glossary", glossary.to_str().unwrap()];
    args.extend([
        "--posts",
        "posts.jsonl",
        "--labels",
        "labels.jsonl",
        "--retriever",
        "exact,exact|sense",
        "--repeat",
        "3",
        "--model",
        "gpt-4o-mini",
        "--temperature",
        "0.2",
        "--seed",
        "7",
        "--max-tokens",
        "300",
        "--batch-out",
        "requests.jsonl",
        "--out",
        "b",
    ]);
    // No key anywhere: batch-out makes no call.
    let out = glossa(cwd)
        .args(&args)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("wrote 18 requests"), "{stderr}");
    assert!(
        stderr.contains("glossa run --batch-in RESULTS.jsonl --resume b"),
        "{stderr}"
    );
    assert!(cwd.join("b/run.json").exists());
    assert!(!cwd.join("b/calls.jsonl").exists(), "no call was made");

    let requests = lines(&cwd.join("requests.jsonl"));
    assert_eq!(requests.len(), 2 * 3 * 3);
    let mut expected = BTreeSet::new();
    for r in ["exact", "exact|sense"] {
        for n in 1..=3 {
            for p in ["a|b", "100% sure", "m3"] {
                expected.insert((r.to_string(), n, p.to_string()));
            }
        }
    }
    let keys: BTreeSet<Key> = request_keys(&cwd.join("requests.jsonl"))
        .into_iter()
        .collect();
    assert_eq!(keys, expected, "every call exactly once, ids parse back");
    for line in &requests {
        assert_eq!(
            line.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["body", "custom_id", "method", "url"],
            "exactly the four fields of a request line"
        );
        assert_eq!(line["method"], "POST");
        assert_eq!(line["url"], "/v1/chat/completions");
        let body = &line["body"];
        assert_eq!(body["model"], "gpt-4o-mini");
        assert_eq!(body["temperature"], 0.2);
        assert_eq!(body["seed"], 7);
        assert_eq!(body["max_tokens"], 300);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0]["role"], "user");
        let prompt = messages[0]["content"].as_str().unwrap();
        assert!(prompt.contains("x-mini"), "{prompt}");
    }
    let first = requests
        .iter()
        .find(|r| r["custom_id"] == "exact|1|a%7Cb")
        .expect("the separator in a post id is escaped");
    let prompt = first["body"]["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("Try our cold coffee today."), "{prompt}");
    assert!(prompt.contains("cold coffee → frosk mavi"), "{prompt}");
    assert!(requests
        .iter()
        .any(|r| r["custom_id"] == "exact%7Csense|3|100%25 sure"));
    assert_eq!(
        custom_id("exact|sense", 3, "100% sure"),
        "exact%7Csense|3|100%25 sure"
    );

    // --model is required; a provider chain (no one batch service) and
    // --simplify llm are refused.
    let (_, err) = run(cwd, &["run", "--batch-out", "x.jsonl", "--out", "c"], 2);
    assert!(err.contains("--batch-out needs --model"), "{err}");
    let (_, err) = run(
        cwd,
        &[
            "run",
            "--batch-out",
            "x.jsonl",
            "--model",
            "m",
            "--provider",
            "openai,gemini",
            "--out",
            "c",
        ],
        2,
    );
    assert!(
        err.contains("--provider openai,gemini cannot be used"),
        "{err}"
    );
    let (_, err) = run(
        cwd,
        &[
            "run",
            "--batch-out",
            "x.jsonl",
            "--model",
            "m",
            "--simplify",
            "llm",
            "--out",
            "c",
        ],
        2,
    );
    assert!(err.contains("--simplify llm"), "{err}");
}

#[test]
fn batch_in_checks_outputs_exactly_as_a_live_run_does() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    // The live baseline: the offline provider.
    let live = demo_args(&["--out", "live"]);
    let (live_table, _) = run(cwd, &live, 0);
    let live_calls = calls(&cwd.join("live"));
    assert_eq!(live_calls.len(), 4 * 2 * 24);

    // The same run through a batch whose answers are the offline outputs.
    let out = demo_args(&[
        "--model",
        "gpt-4o-mini",
        "--batch-out",
        "requests.jsonl",
        "--out",
        "b",
    ]);
    run(cwd, &out, 0);
    assert_eq!(request_keys(&cwd.join("requests.jsonl")).len(), 4 * 2 * 24);
    answer_requests(
        &cwd.join("requests.jsonl"),
        &cwd.join("results.jsonl"),
        |key, i| {
            answered(
                i,
                &custom_id(&key.0, key.1, &key.2),
                live_calls[key]["output"].as_str().unwrap(),
            )
        },
    );
    let (batch_table, stderr) = run(
        cwd,
        &[
            "run",
            "--batch-in",
            "results.jsonl",
            "--resume",
            "b",
            "--format",
            "markdown",
        ],
        0,
    );
    assert!(
        stderr.contains("192 calls checked and recorded (0 failed)"),
        "{stderr}"
    );
    assert_eq!(
        without_tokens(&batch_table),
        live_table.trim_end(),
        "the same table as the live run"
    );
    assert_eq!(summary(&cwd.join("b")), summary(&cwd.join("live")));
    let batch_calls = calls(&cwd.join("b"));
    assert_eq!(batch_calls.len(), live_calls.len());
    for (key, record) in &batch_calls {
        assert_eq!(checked(record), checked(&live_calls[key]), "{key:?}");
        assert_eq!(record["provider"], "openai");
        assert_eq!(record["model"], "gpt-4o-mini");
        assert_eq!(record["attempts"], 1);
        assert_eq!(record["cached"], false);
    }

    // Reading the same file again records nothing twice.
    let (_, stderr) = run(
        cwd,
        &["run", "--batch-in", "results.jsonl", "--resume", "b"],
        0,
    );
    assert!(stderr.contains("0 calls checked"), "{stderr}");
    assert!(stderr.contains("192 skipped (already recorded"), "{stderr}");
    assert_eq!(lines(&cwd.join("b/calls.jsonl")).len(), 192);
}

#[test]
fn failed_batch_lines_are_failed_calls_and_a_retry_batch_completes_the_run() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let live = demo_args(&["--out", "live"]);
    run(cwd, &live, 0);
    let live_calls = calls(&cwd.join("live"));

    let out = demo_args(&[
        "--model",
        "m",
        "--batch-out",
        "requests.jsonl",
        "--out",
        "b",
    ]);
    run(cwd, &out, 0);
    let server_error: Key = ("normalised+fuzzy".into(), 2, "p05".into());
    let expired: Key = ("exact|sense".into(), 1, "p17".into());
    answer_requests(
        &cwd.join("requests.jsonl"),
        &cwd.join("results.jsonl"),
        |key, i| {
            let id = custom_id(&key.0, key.1, &key.2);
            if *key == server_error {
                json!({"id": "batch_req_x", "custom_id": id, "response": {"status_code": 500, "request_id": "req_x",
                   "body": {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}},
                   "error": null})
            } else if *key == expired {
                json!({"id": "batch_req_y", "custom_id": id, "response": null,
                   "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
            } else {
                answered(i, &id, live_calls[key]["output"].as_str().unwrap())
            }
        },
    );
    let (_, stderr) = run(
        cwd,
        &[
            "run",
            "--batch-in",
            "results.jsonl",
            "--resume",
            "b",
            "--format",
            "json",
        ],
        1,
    );
    assert!(stderr.contains("2 calls failed"), "{stderr}");
    assert!(
        stderr.contains("--batch-out FILE --retry-errors b"),
        "{stderr}"
    );
    let batch_calls = calls(&cwd.join("b"));
    assert_eq!(batch_calls.len(), 192);
    let failed = &batch_calls[&server_error];
    assert_eq!(
        failed["error"],
        "500 from the OpenAI Batch API (request req_x): The server had an error while processing your request."
    );
    assert_eq!(failed["output"], Value::Null);
    assert_eq!(failed["attempts"], 1);
    assert_eq!(failed["check"]["ok"], false);
    // The group is retrieval's, whatever happened to the call.
    assert_eq!(failed["group"], live_calls[&server_error]["group"]);
    let error = batch_calls[&expired]["error"].as_str().unwrap();
    assert!(
        error.contains("batch_expired: This request could not be executed"),
        "{error}"
    );
    let s = summary(&cwd.join("b"));
    assert_eq!(
        (s["calls"].as_u64(), s["failed"].as_u64()),
        (Some(192), Some(2))
    );

    // A batch of only the failed calls, then its results: the run is whole.
    run(
        cwd,
        &["run", "--batch-out", "retry.jsonl", "--retry-errors", "b"],
        0,
    );
    let retry: BTreeSet<Key> = request_keys(&cwd.join("retry.jsonl")).into_iter().collect();
    assert_eq!(
        retry,
        BTreeSet::from([server_error.clone(), expired.clone()])
    );
    answer_requests(
        &cwd.join("retry.jsonl"),
        &cwd.join("retry-results.jsonl"),
        |key, i| {
            answered(
                i,
                &custom_id(&key.0, key.1, &key.2),
                live_calls[key]["output"].as_str().unwrap(),
            )
        },
    );
    run(
        cwd,
        &[
            "run",
            "--batch-in",
            "retry-results.jsonl",
            "--retry-errors",
            "b",
        ],
        0,
    );
    assert_eq!(summary(&cwd.join("b")), summary(&cwd.join("live")));
}

fn mini_args(cwd_out: &str) -> Vec<String> {
    [
        "run",
        "--glossary",
        fixture("mini.json").to_str().unwrap(),
        "--posts",
        fixture("mini-posts.jsonl").to_str().unwrap(),
        "--labels",
        fixture("mini-labels.jsonl").to_str().unwrap(),
        "--retriever",
        "exact,exact|sense",
        "--model",
        "gpt-4o-mini",
        "--out",
        cwd_out,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn a_sample_output_file_in_the_apis_format_is_checked_and_summarised() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = mini_args("b");
    args.extend(["--batch-out".into(), "requests.jsonl".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(cwd, &args, 0);
    // The fixture answers exactly the requests glossa wrote.
    let fixture_path = fixture("batch-mini-results.jsonl");
    let written: BTreeSet<Key> = request_keys(&cwd.join("requests.jsonl"))
        .into_iter()
        .collect();
    let answered_keys: BTreeSet<Key> = lines(&fixture_path)
        .iter()
        .map(|l| parse_custom_id(l["custom_id"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(written, answered_keys);

    let (stdout, stderr) = run(
        cwd,
        &[
            "run",
            "--batch-in",
            fixture_path.to_str().unwrap(),
            "--resume",
            "b",
            "--format",
            "json",
        ],
        1,
    );
    assert!(
        stderr.contains("8 calls checked and recorded (2 failed)"),
        "{stderr}"
    );
    let records = calls(&cwd.join("b"));
    assert_eq!(records.len(), 8);
    let get = |r: &str, p: &str| &records[&(r.to_string(), 1, p.to_string())];
    let m1 = get("exact", "m1");
    assert_eq!(m1["output"], "Prøv vår frosk mavi i dag.");
    assert_eq!(m1["check"]["ok"], true);
    assert_eq!(m1["model"], "gpt-4o-mini");
    let m2 = get("exact", "m2");
    assert!(m2["error"]
        .as_str()
        .unwrap()
        .starts_with("500 from the OpenAI Batch API"));
    assert_eq!(m2["check"]["missing"], json!(["cookie", "cold-coffee"]));
    let m3 = get("exact", "m3");
    assert_eq!(m3["check"]["leaked"], json!(["date"]));
    assert_eq!(m3["wrong_sense_used"], json!(["date"]));
    assert!(get("exact", "m4")["error"]
        .as_str()
        .unwrap()
        .contains("batch_expired"));
    // Right output, but retrieval missed: the group says so.
    let sense_m2 = get("exact|sense", "m2");
    assert_eq!(sense_m2["check"]["ok"], true);
    assert_eq!(sense_m2["group"], "missed");
    let s: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (s["calls"].as_u64(), s["failed"].as_u64()),
        (Some(8), Some(2))
    );
    let exact = &s["retrievers"][0];
    assert_eq!(exact["name"], "exact");
    assert_eq!(
        (
            exact["runs"][0]["right"].as_u64(),
            exact["runs"][0]["failed"].as_u64()
        ),
        (Some(1), Some(2))
    );
    assert_eq!(s["retrievers"][1]["name"], "exact|sense");
}

#[test]
fn a_results_file_from_elsewhere_is_refused_naming_each_line() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = mini_args("b");
    args.extend(["--batch-out".into(), "requests.jsonl".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(cwd, &args, 0);
    let foreign = fixture("batch-mini-foreign.jsonl");
    let shown = foreign.display().to_string();
    let (_, err) = run(cwd, &["run", "--batch-in", &shown, "--resume", "b"], 2);
    assert!(
        err.contains(&format!(
            "{shown}:2: custom_id \"request-2\" is not one glossa wrote"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{shown}:3: custom_id \"exact|1|m9\": post `m9` is not among"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("{shown}:4: not a Batch API result line")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "{shown}:5: custom_id \"exact|1|m1\" appears again (first at {shown}:1)"
        )),
        "{err}"
    );
    assert!(!err.contains(&format!("{shown}:1:")), "{err}");
    assert!(err.contains("nothing was recorded"), "{err}");
    assert!(!cwd.join("b/calls.jsonl").exists() || lines(&cwd.join("b/calls.jsonl")).is_empty());

    // A live offline run folder cannot take a batch's results.
    run(cwd, &["run", "--retriever", "exact", "--out", "offline"], 0);
    let fixture_path = fixture("batch-mini-results.jsonl");
    let (_, err) = run(
        cwd,
        &[
            "run",
            "--batch-in",
            fixture_path.to_str().unwrap(),
            "--resume",
            "offline",
        ],
        2,
    );
    assert!(err.contains("uses --provider offline"), "{err}");
}

#[test]
fn shards_cover_every_call_once_and_merge_gives_the_unsharded_run() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let whole = demo_args(&["--out", "whole"]);
    let (whole_table, _) = run(cwd, &whole, 0);
    let whole_calls = calls(&cwd.join("whole"));

    // Two shards, at different concurrency.
    for (shard, jobs) in [("0/2", "1"), ("1/2", "8")] {
        let out = format!("s{}", &shard[..1]);
        let args = demo_args(&["--shard", shard, "-j", jobs, "--out", &out]);
        let (_, stderr) = run(cwd, &args, 0);
        assert!(stderr.contains(&format!("shard {shard}:")), "{stderr}");
    }
    let s0 = calls(&cwd.join("s0"));
    let s1 = calls(&cwd.join("s1"));
    assert!(!s0.is_empty() && !s1.is_empty());
    assert!(
        s0.keys().all(|k| !s1.contains_key(k)),
        "no call in both shards"
    );
    let union: BTreeSet<&Key> = s0.keys().chain(s1.keys()).collect();
    assert_eq!(union, whole_calls.keys().collect::<BTreeSet<_>>());

    // The split does not depend on the machine or the run: again, the same.
    let again = demo_args(&[
        "--shard",
        "0/2",
        "--model",
        "m",
        "--batch-out",
        "s0.jsonl",
        "--out",
        "b0",
    ]);
    run(cwd, &again, 0);
    let batch0: BTreeSet<Key> = request_keys(&cwd.join("s0.jsonl")).into_iter().collect();
    assert_eq!(batch0, s0.keys().cloned().collect::<BTreeSet<_>>());

    let (merged_table, stderr) = run(
        cwd,
        &[
            "merge", "s0", "s1", "--out", "merged", "--format", "markdown",
        ],
        0,
    );
    assert!(
        stderr.contains(&format!("{} calls from 2 run folders", whole_calls.len())),
        "{stderr}"
    );
    assert_eq!(merged_table, whole_table);
    assert_eq!(summary(&cwd.join("merged")), summary(&cwd.join("whole")));
    let merged = calls(&cwd.join("merged"));
    assert_eq!(
        lines(&cwd.join("merged/calls.jsonl")).len(),
        whole_calls.len()
    );
    for (key, record) in &merged {
        assert_eq!(checked(record), checked(&whole_calls[key]));
    }
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.join("merged/run.json")).unwrap())
            .unwrap();
    assert!(config.get("shard").is_none());
    assert_eq!(config["merged_from"], json!(["s0", "s1"]));

    // A missing shard is reported, and the merged folder can be finished.
    let (_, stderr) = run(cwd, &["merge", "s0", "--out", "half"], 1);
    assert!(stderr.contains("no folder holds shard 1/2"), "{stderr}");
    assert!(
        stderr.contains("calls are in no folder; make them with: glossa run --resume half"),
        "{stderr}"
    );
    run(cwd, &["run", "--resume", "half"], 0);
    assert_eq!(summary(&cwd.join("half")), summary(&cwd.join("whole")));

    // Overlapping folders: each call once, the later folder's record wins.
    run(cwd, &["merge", "s0", "whole", "--out", "overlap"], 0);
    assert_eq!(
        lines(&cwd.join("overlap/calls.jsonl")).len(),
        whole_calls.len()
    );
}

#[test]
fn batch_shards_round_trip_through_merge() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let whole = demo_args(&["--out", "whole"]);
    let (whole_table, _) = run(cwd, &whole, 0);
    let whole_calls = calls(&cwd.join("whole"));

    let mut all: Vec<Key> = Vec::new();
    for i in 0..3 {
        let shard = format!("{i}/3");
        let (req, res, out) = (
            format!("req{i}.jsonl"),
            format!("res{i}.jsonl"),
            format!("b{i}"),
        );
        let args = demo_args(&[
            "--shard",
            &shard,
            "--model",
            "m",
            "--batch-out",
            &req,
            "--out",
            &out,
        ]);
        run(cwd, &args, 0);
        all.extend(request_keys(&cwd.join(&req)));
        answer_requests(&cwd.join(&req), &cwd.join(&res), |key, n| {
            answered(
                n,
                &custom_id(&key.0, key.1, &key.2),
                whole_calls[key]["output"].as_str().unwrap(),
            )
        });
        run(cwd, &["run", "--batch-in", &res, "--resume", &out], 0);
    }
    let distinct: BTreeSet<&Key> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "no request in two shards");
    assert_eq!(distinct, whole_calls.keys().collect::<BTreeSet<_>>());

    // One shard's results read into another shard's folder are refused.
    let (_, err) = run(
        cwd,
        &["run", "--batch-in", "res0.jsonl", "--resume", "b1"],
        2,
    );
    assert!(
        err.contains("belongs to shard 0/3, and this run folder holds shard 1/3"),
        "{err}"
    );

    let (table, _) = run(
        cwd,
        &[
            "merge", "b0", "b1", "b2", "--out", "merged", "--format", "markdown",
        ],
        0,
    );
    assert_eq!(without_tokens(&table), whole_table.trim_end());
    assert_eq!(summary(&cwd.join("merged")), summary(&cwd.join("whole")));
}

#[test]
fn merge_refuses_runs_of_different_experiments() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    run(
        cwd,
        &[
            "run",
            "--retriever",
            "exact",
            "--shard",
            "0/2",
            "--out",
            "a",
        ],
        0,
    );
    run(
        cwd,
        &[
            "run",
            "--retriever",
            "exact",
            "--repeat",
            "2",
            "--shard",
            "1/2",
            "--out",
            "b",
        ],
        0,
    );
    let (_, err) = run(cwd, &["merge", "a", "b", "--out", "m"], 2);
    assert!(
        err.contains("cannot merge a with b: they differ in repeat (1 vs 2)"),
        "{err}"
    );
    run(
        cwd,
        &[
            "run",
            "--retriever",
            "oracle",
            "--shard",
            "1/2",
            "--out",
            "c",
        ],
        0,
    );
    let (_, err) = run(cwd, &["merge", "a", "c", "--out", "m"], 2);
    assert!(err.contains("retrievers (exact vs oracle)"), "{err}");
    // A changed glossary is a different experiment, whatever its path.
    let glossary =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("glossaries/cafe.json"))
            .unwrap();
    std::fs::create_dir_all(cwd.join("glossaries")).unwrap();
    std::fs::write(
        cwd.join("glossaries/cafe.json"),
        glossary.replacen("frosk mavi", "frosk blå", 1),
    )
    .unwrap();
    // The demo's posts and labels, named: an own glossary never falls back
    // to them (issue 34).
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let posts = manifest.join("posts/cafe.jsonl");
    let labels = manifest.join("labels/cafe.jsonl");
    run(
        cwd,
        &[
            "run",
            "--glossary",
            "glossaries/cafe.json",
            "--posts",
            posts.to_str().unwrap(),
            "--labels",
            labels.to_str().unwrap(),
            "--retriever",
            "exact",
            "--shard",
            "1/2",
            "--out",
            "d",
        ],
        0,
    );
    let (_, err) = run(cwd, &["merge", "a", "d", "--out", "m"], 2);
    assert!(err.contains("glossary (different contents)"), "{err}");
    let (_, err) = run(cwd, &["merge", "a", "--out", "a"], 2);
    assert!(err.contains("is one of the folders to merge"), "{err}");
    assert!(!cwd.join("m").join("calls.jsonl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_in_matches_a_live_run_against_an_openai_compatible_server() {
    // Every request gets the same answer, live or in the batch's output.
    const ANSWER: &str = "Prøv frosk mavi og dorpa. Lagre zimbo!";
    let server = Server::start(vec![Response::json(
        200,
        json!({"model": "gpt-4o-mini-2024-07-18",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
        .to_string(),
    )])
    .await;
    let dir = TempDir::new().unwrap();
    let root = dir.path().to_path_buf();
    let base = server.url("/v1");
    let (live_table, batch_table) = tokio::task::spawn_blocking(move || {
        let common = [
            "--retriever",
            "exact,oracle",
            "--model",
            "m",
            "--format",
            "markdown",
        ];
        let mut live = vec![
            "run",
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--no-cache",
            "--out",
            "live",
        ];
        live.extend(common);
        let (live_table, _) = run(&root, &live, 0);
        let mut out = vec!["run", "--batch-out", "requests.jsonl", "--out", "b"];
        out.extend(common);
        run(&root, &out, 0);
        answer_requests(
            &root.join("requests.jsonl"),
            &root.join("results.jsonl"),
            |key, i| answered(i, &custom_id(&key.0, key.1, &key.2), ANSWER),
        );
        let (batch_table, _) = run(
            &root,
            &[
                "run",
                "--batch-in",
                "results.jsonl",
                "--resume",
                "b",
                "--format",
                "markdown",
            ],
            0,
        );
        // The request lines carry what the live calls sent.
        (live_table, batch_table)
    })
    .await
    .unwrap();
    assert_eq!(server.count(), 48);
    assert_eq!(batch_table, live_table);
    assert_eq!(
        summary(&dir.path().join("b")),
        summary(&dir.path().join("live"))
    );
    // The same token counts too, read from either.
    let tokens = |d: &str| {
        let text = std::fs::read_to_string(dir.path().join(d).join("summary.json")).unwrap();
        serde_json::from_str::<Value>(&text).unwrap()["tokens"].clone()
    };
    assert_eq!(tokens("b"), tokens("live"));
    assert_eq!(tokens("b")["input_tokens"], 4800);
    let live_calls = calls(&dir.path().join("live"));
    for (key, record) in calls(&dir.path().join("b")) {
        let live = &live_calls[&key];
        assert_eq!(checked(&record), checked(live), "{key:?}");
        assert_eq!(record["provider"], live["provider"]);
        assert_eq!(record["model"], live["model"]);
        assert_eq!(record["served_model"], live["served_model"]);
        assert_eq!(record["usage"], live["usage"]);
        assert_eq!(record["finish_reason"], live["finish_reason"]);
    }
    // Each batch request body is the body a live call sent.
    let sent: BTreeSet<String> = server
        .requests()
        .iter()
        .map(|r| r.json().to_string())
        .collect();
    let written: BTreeSet<String> = lines(&dir.path().join("requests.jsonl"))
        .iter()
        .map(|l| l["body"].to_string())
        .collect();
    assert_eq!(written, sent);
}

/// Every variable `--shard auto` reads, so that the machine's own cannot
/// leak into a test.
const SCHEDULER_VARS: [&str; 12] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
    "AWS_BATCH_JOB_ARRAY_INDEX",
    "AWS_BATCH_JOB_ARRAY_SIZE",
    "CLOUD_RUN_TASK_INDEX",
    "CLOUD_RUN_TASK_COUNT",
    "GLOSSA_SHARD_COUNT",
    "SLURM_JOB_ID",
];

/// `glossa` in `cwd` as task `vars` of a job array; exit code and stderr.
fn as_task(cwd: &Path, args: &[&str], vars: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut command = glossa(cwd);
    for var in SCHEDULER_VARS {
        command.env_remove(var);
    }
    let out = command
        .args(args)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn shard_auto_takes_the_task_from_the_environment_and_a_rerun_resumes_it() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    run(cwd, &demo_args(&["--out", "whole"]), 0);

    let auto = demo_args(&["--shard", "auto", "--out", "exp"]);
    let (code, stderr) = as_task(cwd, &auto, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no job array in the environment")
            && stderr.contains("SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX"),
        "{stderr}"
    );
    let task = |i: &'static str| [("SLURM_ARRAY_TASK_ID", i), ("SLURM_ARRAY_TASK_COUNT", "2")];
    let (code, stderr) = as_task(cwd, &demo_args(&["--shard", "auto"]), &task("0"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--shard auto needs --out DIR"), "{stderr}");
    // Kubernetes gives no count: it comes from auto/N.
    let (code, stderr) = as_task(cwd, &auto, &[("JOB_COMPLETION_INDEX", "1")]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("auto/N"), "{stderr}");

    for i in ["0", "1"] {
        let (code, stderr) = as_task(cwd, &auto, &task(i));
        assert_eq!(code, Some(0), "{stderr}");
        assert!(
            stderr.contains(&format!(
                "shard {i}/2 from Slurm (SLURM_ARRAY_TASK_ID={i}, SLURM_ARRAY_TASK_COUNT=2)"
            )),
            "{stderr}"
        );
    }
    // Task 1 stopped halfway, as a killed task leaves it: its rerun (here
    // as Kubernetes would start it) makes only the calls still missing.
    let folder = cwd.join("exp/shard-1of2");
    let records = lines(&folder.join("calls.jsonl"));
    let kept = records.len() / 2;
    let text: String = std::fs::read_to_string(folder.join("calls.jsonl"))
        .unwrap()
        .lines()
        .take(kept)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(folder.join("calls.jsonl"), text).unwrap();
    let k8s = demo_args(&["--shard", "auto/2", "--out", "exp"]);
    let (code, stderr) = as_task(cwd, &k8s, &[("JOB_COMPLETION_INDEX", "1")]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("this task ran before"), "{stderr}");
    assert!(
        stderr.contains(&format!("{} already done", kept)),
        "{stderr}"
    );
    assert_eq!(lines(&folder.join("calls.jsonl")).len(), records.len());
    // The other shard's folder is not this task's.
    let (code, stderr) = as_task(cwd, &k8s, &[("JOB_COMPLETION_INDEX", "2")]);
    assert_eq!(code, Some(2), "{stderr}");

    run(
        cwd,
        &[
            "merge",
            "exp/shard-0of2",
            "exp/shard-1of2",
            "--out",
            "merged",
        ],
        0,
    );
    assert_eq!(summary(&cwd.join("merged")), summary(&cwd.join("whole")));
}

/// The Slurm cluster of .ci/slurm.sh (`.ci/run` starts it and exports
/// SLURM_CONF); required under CI=true.
fn slurm() -> Option<PathBuf> {
    support::required_data(
        std::env::var_os("SLURM_CONF").map(PathBuf::from),
        |conf| {
            conf.exists()
                && std::process::Command::new("sinfo")
                    .arg("-h")
                    .output()
                    .is_ok_and(|o| o.status.success())
        },
        "no Slurm cluster: SLURM_CONF is unset or sinfo fails (eval \"$(bash .ci/slurm.sh up)\")",
    )
}

/// `program args`, which must succeed; its stdout.
fn command(program: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Wait up to `seconds` for `done`.
fn wait_for(seconds: u64, what: &str, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// A job array on a real one-node Slurm cluster: four tasks of `glossa run
/// --shard auto` against a slow model, one cancelled mid-run and sent
/// again, merged: the same calls and summary as one unsharded run.
#[tokio::test(flavor = "multi_thread")]
async fn a_slurm_job_array_with_a_cancelled_task_merges_to_the_unsharded_run() {
    let Some(_conf) = slurm() else { return };
    let reply = support::chat_reply("Try our frosk mavi this weekend.");
    let delay = std::time::Duration::from_millis(150);
    let server = Server::start(vec![Response::Delayed(delay, Box::new(reply))]).await;
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let provider = server.provider_args("m");
    let provider: Vec<&str> = provider.iter().map(String::as_str).collect();
    let mut args = demo_args(&["-j", "1"]);
    args.extend(&provider);

    // The unsharded run, in a folder of its own (so its reply cache is its own).
    let alone = cwd.join("alone");
    std::fs::create_dir(&alone).unwrap();
    run(&alone, &[&args[..], &["--out", "whole"]].concat(), 0);

    let bin = assert_cmd::cargo::cargo_bin("glossa");
    let script = |shard: &str| {
        let words: Vec<String> = [&args[..], &["--shard", shard, "--out", "exp"]]
            .concat()
            .iter()
            .map(|a| format!("'{a}'"))
            .collect();
        format!("#!/bin/sh\nexec '{}' {}\n", bin.display(), words.join(" "))
    };
    std::fs::write(cwd.join("task.sh"), script("auto")).unwrap();
    std::fs::write(cwd.join("again.sh"), script("auto/4")).unwrap();
    let cwd_arg = format!("--chdir={}", cwd.display());
    let log = format!("--output={}/task-%A-%a.log", cwd.display());
    let submit = |array: &str, file: &str| {
        let job = command(
            "sbatch",
            &[
                "--parsable",
                array,
                &cwd_arg,
                &log,
                &cwd.join(file).to_string_lossy(),
            ],
        );
        job.split(';').next().unwrap().to_string()
    };
    let finished = |job: &str| command("squeue", &["-h", "-j", job]).is_empty();

    let job = submit("--array=0-3", "task.sh");
    let cut = cwd.join("exp/shard-1of4/calls.jsonl");
    wait_for(120, "task 1 starts calling", || {
        std::fs::read_to_string(&cut).is_ok_and(|t| t.lines().count() >= 2)
    });
    command("scancel", &[&format!("{job}_1")]);
    wait_for(180, "the array ends", || finished(&job));

    // Task 1 was cut short: a merge now misses calls.
    let shards: Vec<String> = (0..4).map(|i| format!("exp/shard-{i}of4")).collect();
    let merge = |out: &str| -> Vec<String> {
        let mut a: Vec<String> = vec!["merge".into()];
        a.extend(shards.iter().cloned());
        a.extend(["--out".into(), out.into()]);
        a
    };
    let early = merge("early");
    let early: Vec<&str> = early.iter().map(String::as_str).collect();
    let (_, stderr) = run(cwd, &early, 1);
    assert!(stderr.contains("glossa run --resume early"), "{stderr}");

    // Sent again alone, task 1 resumes its folder.
    let again = submit("--array=1", "again.sh");
    wait_for(180, "task 1 ends again", || finished(&again));
    let log = std::fs::read_to_string(cwd.join(format!("task-{again}-1.log"))).unwrap();
    assert!(log.contains("this task ran before"), "{log}");

    let all = merge("all");
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    run(cwd, &all, 0);
    assert_eq!(summary(&cwd.join("all")), summary(&alone.join("whole")));
    let whole = calls(&alone.join("whole"));
    let merged = calls(&cwd.join("all"));
    assert_eq!(merged.len(), whole.len());
    for (key, record) in &merged {
        assert_eq!(checked(record), checked(&whole[key]), "{key:?}");
    }
}
