//! `glossa translate --posts FILE` (issue 29, item 5): a week of
//! unlabelled posts in one command, in the input's order, each checked,
//! `-j` at a time, and finished by running the same command again (the
//! reply cache answers what was answered).

use crate::support;

use serde_json::{json, Value};
use support::{run_in as run, Response, Server};
use tempfile::TempDir;

const WEEK: &str = "Fresh cookies come out of the oven at four.\n\nTry our cold coffee this weekend.\nNothing from the glossary here.\n";

#[test]
fn offline_posts_come_back_line_for_line_as_text_jsonl_or_csv() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("week.txt"), WEEK).unwrap();
    let (text, stderr) = run(cwd, &["translate", "--posts", "week.txt"], 0);
    assert_eq!(
        text,
        "Fresh dorpa come out of the oven at four.\n\nTry our frosk mavi this weekend.\nNothing from the glossary here.\n"
    );
    assert!(
        stderr.contains(
            "3 posts (offline: glossary words substituted, nothing translated): 3 answered"
        ),
        "{stderr}"
    );

    let (jsonl, _) = run(cwd, &["translate", "--posts", "week.txt", "-f", "json"], 0);
    let rows: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["1", "3", "4"], "the ids are line numbers");
    assert_eq!(rows[1]["output"], "Try our frosk mavi this weekend.");
    assert_eq!(rows[1]["ok"], true);
    assert_eq!(rows[1]["missing"], json!([]));

    let (_, _) = run(
        cwd,
        &[
            "translate",
            "--posts",
            "week.txt",
            "-f",
            "csv",
            "-o",
            "w.csv",
        ],
        0,
    );
    let csv = std::fs::read_to_string(cwd.join("w.csv")).unwrap();
    assert!(
        csv.starts_with("id,translation,check,missing,error\n1,Fresh dorpa"),
        "{csv}"
    );
}

#[test]
fn jsonl_posts_keep_their_ids_and_order() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    std::fs::write(
        cwd.join("week.jsonl"),
        "{\"id\": \"tue\", \"text\": \"Try cold coffee.\"}\n{\"id\": \"mon\", \"text\": \"Fresh cookies!\"}\n",
    )
    .unwrap();
    let (text, _) = run(cwd, &["translate", "--posts", "week.jsonl"], 0);
    assert_eq!(text, "Try frosk mavi.\nFresh dorpa!\n");
    let (jsonl, _) = run(
        cwd,
        &["translate", "--posts", "week.jsonl", "-f", "json"],
        0,
    );
    let ids: Vec<String> = jsonl
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids, ["tue", "mon"]);
}

#[test]
fn bad_posts_files_are_refused_naming_the_file() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("blank.txt"), "\n  \n").unwrap();
    let (_, stderr) = run(cwd, &["translate", "--posts", "blank.txt"], 2);
    assert!(stderr.contains("blank.txt: no posts"), "{stderr}");
    std::fs::write(
        cwd.join("l.jsonl"),
        "{\"id\": \"a\", \"text\": \"x\", \"needed\": []}\n",
    )
    .unwrap();
    let (_, stderr) = run(cwd, &["translate", "--posts", "l.jsonl"], 2);
    assert!(stderr.contains("l.jsonl:1"), "{stderr}");
    let (_, stderr) = run(cwd, &["translate", "--out", "o.txt"], 2);
    assert!(stderr.contains("--posts"), "{stderr}");
    let (_, stderr) = run(cwd, &["translate", "x", "--out", "o.txt"], 2);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
    let (_, stderr) = run(cwd, &["translate", "x", "--posts", "blank.txt"], 2);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

fn chat(content: &str) -> Response {
    Response::json(
        200,
        json!({"model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
               "finish_reason": "stop"}]})
        .to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_post_is_a_blank_line_and_the_same_command_again_redoes_only_it() {
    let server = Server::start(vec![
        chat("Frisk dorpa."),
        Response::json(500, r#"{"error": {"message": "busy"}}"#),
        chat("Nada."),
        chat("Prøv frosk mavi."),
    ])
    .await;
    let dir = TempDir::new().unwrap();
    let (cwd, base) = (dir.path().to_path_buf(), server.url("/v1"));
    std::fs::write(cwd.join("week.txt"), WEEK).unwrap();
    let (first, again) = tokio::task::spawn_blocking(move || {
        let args = [
            "translate",
            "--posts",
            "week.txt",
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "m",
            "--temperature",
            "0",
            "--seed",
            "1",
            "--attempts",
            "1",
            "-j",
            "1",
            "-o",
            "out.txt",
        ];
        let (_, stderr) = run(&cwd, &args, 1);
        assert!(
            stderr.contains("line 3: no output: the call failed (500 from openai"),
            "{stderr}"
        );
        assert!(
            stderr.contains("3 posts: 2 answered (0 from the cache), 1 failed"),
            "{stderr}"
        );
        let first = std::fs::read_to_string(cwd.join("out.txt")).unwrap();
        let (_, stderr) = run(&cwd, &args, 0);
        assert!(
            stderr.contains("3 posts: 3 answered (2 from the cache), 0 failed"),
            "{stderr}"
        );
        (first, std::fs::read_to_string(cwd.join("out.txt")).unwrap())
    })
    .await
    .unwrap();
    assert_eq!(first, "Frisk dorpa.\n\n\nNada.\n");
    assert_eq!(again, "Frisk dorpa.\n\nPrøv frosk mavi.\nNada.\n");
    // Three calls, then only the failed one again.
    assert_eq!(server.count(), 4);
    let last = server.requests()[3].json();
    let prompt = last["messages"][0]["content"].as_str().unwrap();
    assert!(
        prompt.contains("Try our cold coffee this weekend."),
        "{prompt}"
    );
}
