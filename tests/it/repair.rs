//! Echoes and check-and-repair through the real binary: the recorded
//! outputs of a real model (SmolLM2-135M on llama.cpp) replayed from a
//! 127.0.0.1 server and checked against labels written by hand; repair
//! turns against a server that answers wrongly first and right to the
//! repair prompt.

use crate::support;

use serde_json::Value;
use std::collections::HashMap;
use support::{
    chat_reply_with_usage, glossa_at, glossa_in, jsonl, repo_file, strings, Response, Server,
};
use tempfile::TempDir;

const REAL: &str = "tests/fixtures/real-model/smollm2-135m-cafe";
const RETRIEVERS: [&str; 3] = ["exact", "normalised+fuzzy", "oracle"];

fn by_call(records: &[Value]) -> HashMap<(String, String), &Value> {
    records
        .iter()
        .map(|r| {
            let key = (
                r["retriever"].as_str().unwrap().to_string(),
                r["post"].as_str().unwrap().to_string(),
            );
            (key, r)
        })
        .collect()
}

/// The café posts' ids, in file order (the order `run` calls them).
fn cafe_posts() -> Vec<String> {
    jsonl(&repo_file("posts/cafe.jsonl"))
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_string())
        .collect()
}

/// A reply cut off by the token limit, as llama.cpp's server sends it.
fn cut_off() -> Response {
    Response::json(
        200,
        serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Cut"}, "finish_reason": "length"}]})
            .to_string(),
    )
}

/// Replay the first pass recorded in `set` (a folder of the real-model
/// fixture) from a 127.0.0.1 server, call by call in the order `run -j 1`
/// makes them; compare each echo verdict with the hand labels. Per
/// retriever: (echoes, echoes whose targets were all there and nothing
/// leaked, failed calls).
async fn replay(set: &str) -> HashMap<String, (u64, u64, u64)> {
    let recorded = jsonl(&repo_file(&format!("{REAL}/{set}/first-pass/calls.jsonl")));
    let recorded = by_call(&recorded);
    let posts = cafe_posts();
    let mut script = Vec::new();
    for r in RETRIEVERS {
        for p in &posts {
            let call = recorded[&(r.to_string(), p.clone())];
            script.push(match call["output"].as_str() {
                Some(output) => chat_reply_with_usage(output),
                None => cut_off(),
            });
        }
    }
    let server = Server::start(script).await;
    let dir = TempDir::new().unwrap();
    let mut run = strings(&[
        "run",
        "--retriever",
        "exact,normalised+fuzzy,oracle",
        "-j",
        "1",
        "--no-cache",
        "--out",
        "replay",
        "--format",
        "json",
    ]);
    run.extend(server.provider_args("smollm2-135m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), run).await;
    let failed = recorded.values().filter(|c| !c["error"].is_null()).count();
    assert_eq!(code, if failed > 0 { 1 } else { 0 }, "{stderr}");
    assert_eq!(server.count(), 72);

    let replayed = jsonl(&dir.path().join("replay/calls.jsonl"));
    let replayed = by_call(&replayed);
    let hand = jsonl(&repo_file(&format!("{REAL}/{set}/hand-labels.jsonl")));
    assert_eq!(hand.len(), 72);
    let mut out: HashMap<String, (u64, u64, u64)> = HashMap::new();
    for label in &hand {
        let (r, p) = (
            label["retriever"].as_str().unwrap(),
            label["post"].as_str().unwrap(),
        );
        let key = (r.to_string(), p.to_string());
        let call = replayed[&key];
        let counts = out.entry(r.to_string()).or_default();
        // The replay is aligned: each call got its own recorded output.
        assert_eq!(call["output"], recorded[&key]["output"], "{set} {r} {p}");
        if label["echo"].is_null() {
            assert!(call["error"].as_str().unwrap().contains("length"), "{call}");
            counts.2 += 1;
            continue;
        }
        let echo = call["check"]["echo"].as_bool().unwrap_or(false);
        assert_eq!(
            echo, label["echo"],
            "{set} {r} {p}: detector {echo}, by hand {} ({}): {}",
            label["echo"], label["why"], call["output"]
        );
        if echo {
            counts.0 += 1;
            assert_eq!(call["check"]["ok"], false, "an echo is never right");
            let targets_there = call["check"]["missing"].as_array().unwrap().is_empty()
                && call["check"]["leaked"].as_array().unwrap().is_empty();
            counts.1 += u64::from(targets_there);
        }
    }
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    for (r, (echoes, _, _)) in &out {
        let figures = &support::retriever_figures(&summary, r)["runs"][0];
        assert_eq!(figures["echo"].as_u64(), Some(*echoes), "{r}");
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_real_model_outputs_are_echoes_exactly_where_labelled_by_hand() {
    let t0 = replay("temperature-0").await;
    let counts = |r: &str| t0[r];
    // 58 of 72 replies copy the prompt; what the target check alone called
    // right (the issue's 6 < 12 < 18) was every time such a copy.
    assert_eq!(counts("exact"), (15, 6, 0));
    assert_eq!(counts("normalised+fuzzy"), (22, 12, 0));
    assert_eq!(counts("oracle"), (21, 18, 0));
    // Sampled at 0.8: other replies, made-up glossary lines among them.
    let t08 = replay("temperature-0.8").await;
    let echoes: Vec<(u64, u64)> = RETRIEVERS.iter().map(|r| (t08[*r].0, t08[*r].2)).collect();
    assert_eq!(echoes, [(8, 4), (7, 2), (7, 0)]);
}

/// The café demo's translate prompt for "Fresh cookies!" holds the
/// cookie line; an answer that copies it is repaired.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn translate_repairs_an_echo_once_and_caches_each_turn_by_its_own_prompt() {
    let echo = "- cookie → dorpa (meaning: a sweet baked biscuit)";
    let server = Server::start(vec![
        chat_reply_with_usage(echo),
        chat_reply_with_usage("Frisha dorpa!"),
    ])
    .await;
    let dir = TempDir::new().unwrap();
    let mut translate = strings(&["translate", "Fresh cookies!", "--format", "json"]);
    translate.extend(server.provider_args("smollm2-135m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), translate.clone()).await;
    assert_eq!(code, 0, "{stderr}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    let repair = requests[1].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    // The repair prompt: the first prompt, the reply, the exact problem.
    assert!(repair.starts_with(&first), "{repair}");
    assert!(
        repair.contains(&format!("Your reply was:\n\n{echo}\n")),
        "{repair}"
    );
    assert!(
        repair.contains(&format!(
            "- your reply copied the glossary (\"{echo}\") instead of translating; reply with the translation only"
        )),
        "{repair}"
    );
    assert!(
        repair.contains("whole translation into x-cafe only"),
        "{repair}"
    );

    let trace: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(trace["generate"]["output"]["text"], "Frisha dorpa!");
    assert!(trace["review"].get("echo").is_none(), "{trace}");
    let turns = trace["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["output"], echo);
    assert_eq!(turns[0]["problems"].as_array().unwrap().len(), 1);
    assert_eq!(turns[1]["template"]["name"], "repair");
    assert_eq!(turns[1]["prompt"], repair.as_str());
    assert!(turns[1]["problems"].as_array().unwrap().is_empty());

    // Again: both turns come from the cache, each under its own prompt.
    let (code, stdout, _) = glossa_at(dir.path(), translate).await;
    assert_eq!(code, 0);
    assert_eq!(server.count(), 2, "both turns were cached");
    let again: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(again["generate"]["output"]["text"], "Frisha dorpa!");
    assert_eq!(again["turns"][1]["cached"], true);

    // With no repair the first reply stands, called an echo.
    let mut plain = strings(&["translate", "Fresh cookies!", "--repair", "0"]);
    plain.extend(server.provider_args("smollm2-135m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), plain).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(server.count(), 2, "the first turn was cached");
    let all = format!("{stdout}{stderr}");
    assert!(
        all.contains("echo: the reply copies the prompt/glossary, not a translation"),
        "{all}"
    );
    assert!(!all.contains("Repair:"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_target_and_an_excluded_sense_are_named_in_the_repair_prompt() {
    // "save the date" is in the date entry's `context.not`: zimbo does not
    // fit there; brunka is missing.
    let server = Server::start(vec![
        chat_reply_with_usage("Zimbo tan: birzo brunch 12!"),
        chat_reply_with_usage("Retena tan: birzo brunka 12!"),
    ])
    .await;
    let dir = TempDir::new().unwrap();
    let mut translate = strings(&[
        "translate",
        "Save the date: our first birthday brunch is on the 12th!",
        "--retriever",
        "exact",
    ]);
    translate.extend(server.provider_args("smollm2-135m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), translate).await;
    assert_eq!(code, 0, "{stderr}");
    let repair = server.prompt(1);
    let problems = repair
        .split("That reply has these problems:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    assert_eq!(
        problems,
        "- 'zimbo' is the sweet brown fruit of the date palm and does not fit 'save the date' here\n\
         - the glossary requires 'brunka' for 'brunch'"
    );
    let all = format!("{stdout}{stderr}");
    assert!(all.starts_with("Retena tan: birzo brunka 12!"), "{all}");
    assert!(
        all.contains("Repair: 1 follow-up turn after the first reply, which had these problems:"),
        "{all}"
    );
    assert!(all.contains("the repaired reply has none of them"), "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_reports_first_pass_and_after_repair_side_by_side() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("g.json"),
        r#"{"target_lang": "x", "entries": [{"id": "cookie", "source": "cookie", "target": "dorpa"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("posts.jsonl"),
        "{\"id\": \"a\", \"text\": \"Fresh cookies!\"}\n{\"id\": \"b\", \"text\": \"Cookies today.\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("labels.jsonl"),
        "{\"post\": \"a\", \"needed\": [\"cookie\"]}\n{\"post\": \"b\", \"needed\": [\"cookie\"]}\n",
    )
    .unwrap();
    // Post a: wrong, then right after repair. Post b: right at once.
    let server = Server::start(vec![
        chat_reply_with_usage("Frisha biskit!"),
        chat_reply_with_usage("Frisha dorpa!"),
        chat_reply_with_usage("Dorpa tuday."),
    ])
    .await;
    let mut run = strings(&[
        "run",
        "-g",
        "g.json",
        "-p",
        "posts.jsonl",
        "-l",
        "labels.jsonl",
        "-r",
        "normalised",
        "-j",
        "1",
        "--repair",
        "1",
        "--out",
        "r",
    ]);
    run.extend(server.provider_args("smollm2-135m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), run).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(server.count(), 3);
    assert!(server.requests()[1].json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("- the glossary requires 'dorpa' for 'cookies'\n"),);
    let calls = jsonl(&dir.path().join("r/calls.jsonl"));
    let a = calls.iter().find(|c| c["post"] == "a").unwrap();
    assert_eq!(a["output"], "Frisha dorpa!");
    assert_eq!(a["check"]["ok"], true);
    let turns = a["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0]["check"]["ok"], false);
    assert_eq!(turns[0]["check"]["missing"][0], "cookie");
    assert!(
        turns[1].get("prompt").is_none(),
        "records leave the prompt out"
    );
    let b = calls.iter().find(|c| c["post"] == "b").unwrap();
    assert!(b.get("turns").is_none(), "{b}");

    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/summary.json")).unwrap())
            .unwrap();
    let run1 = &support::retriever_figures(&summary, "normalised")["runs"][0];
    assert_eq!(
        (
            run1["right_first_pass"].as_u64(),
            run1["right"].as_u64(),
            run1["repaired"].as_u64()
        ),
        (Some(1), Some(2), Some(1))
    );
    // Tokens of every turn: three calls with usage.
    assert_eq!(summary["tokens"]["by_model"][0]["calls"], 3);
    assert!(stdout.contains("Posts right first pass"), "{stdout}");
    assert!(stdout.contains("Posts right after repair"), "{stdout}");

    // A merged copy keeps the turns and the figures.
    let (code, merged, stderr) = glossa_at(
        dir.path(),
        strings(&["merge", "r", "--out", "m", "--format", "json"]),
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    let merged: Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(
        support::retriever_figures(&merged, "normalised")["runs"][0]["right_first_pass"],
        1
    );
    let merged_calls = jsonl(&dir.path().join("m/calls.jsonl"));
    let a = merged_calls.iter().find(|c| c["post"] == "a").unwrap();
    assert_eq!(a["turns"].as_array().unwrap().len(), 2);
}

#[test]
fn the_recorded_repair_run_reads_with_both_figures() {
    // Written by glossa with --repair 1 against the real model: its
    // summary's figures are what the records give (first pass 0, after
    // repair 0 of 24 for every retriever at temperature 0).
    let dir = repo_file(&format!("{REAL}/temperature-0/repair-1"));
    let calls = jsonl(&dir.join("calls.jsonl"));
    assert_eq!(calls.len(), 72);
    let repaired = calls.iter().filter(|c| c.get("turns").is_some()).count();
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let total: u64 = RETRIEVERS
        .iter()
        .map(|r| {
            support::retriever_figures(&summary, r)["runs"][0]["repaired"]
                .as_u64()
                .unwrap()
        })
        .sum();
    assert_eq!(total as usize, repaired);
    for c in &calls {
        if let Some(turns) = c["turns"].as_array() {
            assert_eq!(turns.len(), 2, "one repair turn at most");
            assert!(!turns[0]["problems"].as_array().unwrap().is_empty());
        }
    }
}

/// POST `body` as JSON to `path` at `addr`; the reply's status and JSON.
fn post_json(addr: &str, path: &str, body: &Value) -> (u16, Value) {
    use std::io::{Read, Write};
    let body = body.to_string();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_repairs_once_and_says_what_the_first_reply_did() {
    let echo = "- cookie → dorpa (meaning: a sweet baked biscuit)";
    let model = Server::start(vec![
        chat_reply_with_usage(echo),
        chat_reply_with_usage("Frisha dorpa!"),
    ])
    .await;
    let base = model.url("/v1");
    let (status, v) = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let dir = TempDir::new().unwrap();
        std::fs::create_dir(dir.path().join("glossaries")).unwrap();
        std::fs::copy(
            repo_file("glossaries/cafe.json"),
            dir.path().join("glossaries/cafe.json"),
        )
        .unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_glossa"))
            .current_dir(dir.path())
            .args(["serve", "--addr", "127.0.0.1:0", "--glossaries", "glossaries"])
            .args(["--model", "openai=smollm2-135m", "--base-url"])
            .arg(format!("openai={base}"))
            .env_remove("OPENAI_API_KEY")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address printed: {line:?}"))
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        let reply = post_json(
            &addr,
            "/api/translate",
            &serde_json::json!({"text": "Fresh cookies!", "glossary": "cafe", "provider": "openai"}),
        );
        let _ = child.kill();
        let _ = child.wait();
        reply
    })
    .await
    .unwrap();
    assert_eq!(status, 200, "{v}");
    assert_eq!(model.count(), 2, "the page repairs once");
    assert_eq!(v["translation"], "Frisha dorpa!");
    let warnings = v["warnings"].as_array().unwrap();
    let repaired = warnings
        .iter()
        .find(|w| w["kind"] == "repaired")
        .unwrap_or_else(|| panic!("{warnings:?}"));
    let message = repaired["message"].as_str().unwrap();
    assert!(
        message.starts_with("The first reply had problems (your reply copied the glossary"),
        "{message}"
    );
    assert!(message.ends_with("a second turn fixed them"), "{message}");
    assert!(warnings.iter().all(|w| w["kind"] != "echo"), "{warnings:?}");
}

#[test]
fn a_batch_file_cannot_repair() {
    let dir = TempDir::new().unwrap();
    let out = glossa_in(dir.path())
        .args([
            "run",
            "--batch-out",
            "b.jsonl",
            "--model",
            "m",
            "--repair",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--repair needs a model call after each checked reply"),
        "{stderr}"
    );
    assert!(!dir.path().join("b.jsonl").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_repair_keeps_the_last_reply_and_says_why() {
    let echo = "- cookie → dorpa (meaning: a sweet baked biscuit)";
    let server = Server::start(vec![
        chat_reply_with_usage(echo),
        Response::json(400, r#"{"error": {"message": "context too long"}}"#),
    ])
    .await;
    let dir = TempDir::new().unwrap();
    let mut translate = strings(&["translate", "Fresh cookies!", "--format", "json"]);
    translate.extend(server.provider_args("smollm2-135m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), translate).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(server.count(), 2);
    let trace: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(trace["generate"]["output"]["text"], echo);
    assert_eq!(trace["review"]["echo"]["kind"], "glossary_line");
    let turns = trace["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    assert!(turns[1]["output"].is_null());
    assert!(
        turns[1]["error"]
            .as_str()
            .unwrap()
            .contains("context too long"),
        "{}",
        turns[1]
    );
}
