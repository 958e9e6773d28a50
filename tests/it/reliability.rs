//! What holds when the world misbehaves. Run folders: a torn last line in
//! `calls.jsonl` (a kill or a full disk mid-write), a byte-order mark;
//! every file glossa writes is whole or absent; inputs too large for
//! memory are refused with a message.

use crate::support;

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use support::run_in as run;
use tempfile::TempDir;

const RUN: [&str; 6] = [
    "run",
    "--retriever",
    "exact,oracle",
    "--repeat",
    "2",
    "--out",
];

/// Every record of `DIR/calls.jsonl` by call, asserting each call once.
fn calls_once(dir: &Path) -> HashMap<(String, u64, String), Value> {
    let text = std::fs::read_to_string(dir.join("calls.jsonl")).unwrap();
    let mut calls = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let key = (
            r["retriever"].as_str().unwrap().to_string(),
            r["repeat"].as_u64().unwrap(),
            r["post"].as_str().unwrap().to_string(),
        );
        assert!(calls.insert(key.clone(), r).is_none(), "{key:?} twice");
    }
    calls
}

/// Cut `calls.jsonl` in the middle of its last record.
fn tear_last_line(dir: &Path) {
    let path = dir.join("calls.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let last = text.trim_end().rfind('\n').unwrap() + 1;
    let cut = last + (text.len() - last) / 2;
    std::fs::write(&path, &text.as_bytes()[..cut]).unwrap();
}

#[test]
fn a_torn_last_line_is_cut_away_on_resume_and_its_call_made_again() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = RUN.to_vec();
    args.push("whole");
    run(cwd, &args, 0);
    let whole = calls_once(&cwd.join("whole"));
    std::fs::create_dir(cwd.join("cut")).unwrap();
    for file in ["run.json", "calls.jsonl"] {
        std::fs::copy(cwd.join("whole").join(file), cwd.join("cut").join(file)).unwrap();
    }
    tear_last_line(&cwd.join("cut"));

    // Read-only paths skip the torn line with a warning.
    let (_, stderr) = run(cwd, &["diff", "whole", "cut"], 0);
    assert!(stderr.contains("ignoring a torn last line"), "{stderr}");

    let (_, stderr) = run(cwd, &["run", "--resume", "cut"], 0);
    assert!(stderr.contains("removed a torn last line"), "{stderr}");
    assert!(stderr.contains("1 calls to make"), "{stderr}");
    let (_, stderr) = run(cwd, &["run", "--resume", "cut"], 0);
    assert!(stderr.contains("0 calls to make"), "{stderr}");
    assert!(!stderr.contains("torn"), "{stderr}");
    let resumed = calls_once(&cwd.join("cut"));
    assert_eq!(
        resumed.keys().collect::<std::collections::BTreeSet<_>>(),
        whole.keys().collect()
    );

    // Diff and merge read the repaired folder without complaint.
    let (_, stderr) = run(cwd, &["diff", "whole", "cut"], 0);
    assert!(!stderr.contains("torn"), "{stderr}");
    run(cwd, &["merge", "cut", "--out", "merged"], 0);
    assert_eq!(calls_once(&cwd.join("merged")).len(), whole.len());
}

#[test]
fn a_torn_line_in_a_shard_is_skipped_by_merge_and_made_by_resume() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = RUN.to_vec();
    args.push("a");
    run(cwd, &args, 0);
    let all = calls_once(&cwd.join("a")).len();
    tear_last_line(&cwd.join("a"));
    let (_, stderr) = run(cwd, &["merge", "a", "--out", "m"], 1);
    assert_eq!(
        stderr.matches("ignoring a torn last line").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("1 calls are in no folder"), "{stderr}");
    run(cwd, &["run", "--resume", "m"], 0);
    assert_eq!(calls_once(&cwd.join("m")).len(), all);
}

#[test]
fn a_byte_order_mark_at_the_start_of_calls_jsonl_is_accepted() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = RUN.to_vec();
    args.push("r");
    run(cwd, &args, 0);
    let path = cwd.join("r/calls.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("\u{feff}{text}")).unwrap();
    let (_, stderr) = run(cwd, &["run", "--resume", "r"], 0);
    assert!(stderr.contains("0 calls to make"), "{stderr}");
    run(cwd, &["diff", "r", "r"], 0);
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// A batch run of the mini fixture into `out`, its requests written.
fn mini_batch_out(cwd: &Path, out: &str) {
    let (g, p, l) = (
        fixture("mini.json"),
        fixture("mini-posts.jsonl"),
        fixture("mini-labels.jsonl"),
    );
    let args = [
        "run",
        "--glossary",
        &g,
        "--posts",
        &p,
        "--labels",
        &l,
        "--retriever",
        "exact,exact|sense",
        "--model",
        "gpt-4o-mini",
        "--out",
        out,
        "--batch-out",
        "requests.jsonl",
    ];
    run(cwd, &args, 0);
}

#[test]
fn batch_results_with_a_byte_order_mark_and_a_torn_run_folder_are_read_in() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    mini_batch_out(cwd, "b");
    let results = std::fs::read_to_string(fixture("batch-mini-results.jsonl")).unwrap();
    std::fs::write(cwd.join("bom.jsonl"), format!("\u{feff}{results}")).unwrap();
    let (_, stderr) = run(cwd, &["run", "--batch-in", "bom.jsonl", "--resume", "b"], 1);
    assert!(stderr.contains("8 calls checked and recorded"), "{stderr}");
    assert_eq!(calls_once(&cwd.join("b")).len(), 8);

    // Torn: the call it held is read in again from the results, once.
    tear_last_line(&cwd.join("b"));
    let (_, stderr) = run(cwd, &["run", "--batch-in", "bom.jsonl", "--resume", "b"], 1);
    assert!(stderr.contains("removed a torn last line"), "{stderr}");
    assert!(stderr.contains("1 calls checked and recorded"), "{stderr}");
    assert!(stderr.contains("7 skipped"), "{stderr}");
    assert_eq!(calls_once(&cwd.join("b")).len(), 8);
}

/// Run glossa in `cwd` on a "disk" that fills after `blocks` blocks of 512
/// bytes (`ulimit -f` in sh, with SIGXFSZ ignored so writes fail with
/// EFBIG as on a full disk); returns the exit code and stderr.
#[cfg(unix)]
fn run_on_small_disk(cwd: &Path, blocks: u32, args: &[&str]) -> (i32, String) {
    let script = format!("trap '' XFSZ; ulimit -f {blocks}; exec \"$0\" \"$@\"");
    let out = std::process::Command::new("sh")
        .current_dir(cwd)
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_glossa"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[cfg(unix)]
#[test]
fn export_out_on_a_full_disk_keeps_the_old_file_and_leaves_no_temporary() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    std::fs::write(cwd.join("cafe.tsv"), "old contents\n").unwrap();
    let (code, stderr) = run_on_small_disk(cwd, 1, &["export", "--out", "cafe.tsv"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write cafe.tsv"), "{stderr}");
    assert!(!stderr.contains(".tmp"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(cwd.join("cafe.tsv")).unwrap(),
        "old contents\n"
    );
    assert_eq!(files_under(cwd), ["cafe.tsv"]);
}

#[cfg(unix)]
#[test]
fn batch_out_on_a_full_disk_leaves_no_half_file() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let (code, stderr) = run_on_small_disk(
        cwd,
        1,
        &[
            "run",
            "--model",
            "m",
            "--out",
            "b",
            "--batch-out",
            "requests.jsonl",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    // run.json is whole or absent; nothing else is left behind.
    for file in files_under(cwd) {
        assert_eq!(file, "b/run.json");
        let text = std::fs::read_to_string(cwd.join(&file)).unwrap();
        serde_json::from_str::<Value>(&text).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn a_disk_filling_up_mid_run_leaves_whole_lines_and_resume_finishes_each_call_once() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = RUN.to_vec();
    args.push("r");
    let (code, stderr) = run_on_small_disk(cwd, 16, &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    let text = std::fs::read_to_string(cwd.join("r/calls.jsonl")).unwrap();
    assert!(!text.is_empty() && text.ends_with('\n'), "{text}");
    let before = calls_once(&cwd.join("r")).len();
    assert!(before > 0 && before < 96, "{before}");

    let (_, stderr) = run(cwd, &["run", "--resume", "r"], 0);
    assert!(!stderr.contains("torn"), "{stderr}");
    assert_eq!(calls_once(&cwd.join("r")).len(), 96);
    assert_eq!(
        files_under(&cwd.join("r")),
        ["calls.jsonl", "run.json", "summary.json"]
    );
}

#[test]
fn a_batch_result_line_past_the_reply_cap_is_refused_naming_it() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    mini_batch_out(cwd, "b");
    let results = std::fs::read_to_string(fixture("batch-mini-results.jsonl")).unwrap();
    let huge = results.lines().next().unwrap().replacen(
        "\"content\":\"",
        &format!("\"content\":\"{}", "a".repeat(5 << 20)),
        1,
    );
    std::fs::write(cwd.join("huge.jsonl"), format!("{results}{huge}\n")).unwrap();
    let lines = results.lines().count() + 1;
    let (_, stderr) = run(
        cwd,
        &["run", "--batch-in", "huge.jsonl", "--resume", "b"],
        2,
    );
    assert!(
        stderr.contains(&format!("huge.jsonl:{lines}: line longer than")),
        "{stderr}"
    );
    assert!(!cwd.join("b/calls.jsonl").exists());
}

#[test]
fn a_post_past_the_cap_is_refused_at_once_naming_file_and_line() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let big = "Try our cold coffee this weekend. ".repeat(5 << 20 >> 5);
    let posts = format!(
        "{}\n{}\n",
        serde_json::json!({"id": "p1", "text": "Short."}),
        serde_json::json!({"id": "big", "text": big})
    );
    std::fs::write(cwd.join("posts.jsonl"), posts).unwrap();
    std::fs::write(
        cwd.join("labels.jsonl"),
        "{\"post\":\"p1\"}\n{\"post\":\"big\",\"needed\":[\"cold-coffee\"]}\n",
    )
    .unwrap();
    let args = ["eval", "--posts", "posts.jsonl", "--labels", "labels.jsonl"];
    let (_, stderr) = run(cwd, &args, 2);
    assert!(
        stderr.contains("posts.jsonl:2: post `big` is")
            && stderr.contains("glossa reads posts up to 1 MiB"),
        "{stderr}"
    );
    let mut args = RUN.to_vec();
    args.extend(["r", "--posts", "posts.jsonl", "--labels", "labels.jsonl"]);
    let (_, stderr) = run(cwd, &args, 2);
    assert!(stderr.contains("posts.jsonl:2: post `big` is"), "{stderr}");
}

#[test]
fn a_run_past_the_call_bound_is_refused_fresh_and_resumed_unless_raised() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = RUN.to_vec();
    args[4] = "100000000";
    args.push("r");
    let (_, stderr) = run(cwd, &args, 2);
    assert!(
        stderr.contains("2 retrievers x 100000000 repeats x 24 posts = 4800000000 calls")
            && stderr.contains("--max-calls 1000000"),
        "{stderr}"
    );
    assert!(!cwd.join("r").exists());

    // A run.json edited by hand is held to the same bound on --resume.
    let mut args = RUN.to_vec();
    args.push("r");
    run(cwd, &args, 0);
    let config = cwd.join("r/run.json");
    let text = std::fs::read_to_string(&config).unwrap();
    let edited = text.replace("\"repeat\": 2", "\"repeat\": 100000000");
    assert_ne!(text, edited);
    std::fs::write(&config, edited.replace("100000000", "3")).unwrap();
    let (_, stderr) = run(cwd, &["run", "--resume", "r", "--max-calls", "100"], 2);
    assert!(
        stderr.contains("r/run.json: 2 retrievers x 3 repeats"),
        "{stderr}"
    );
    run(cwd, &["run", "--resume", "r", "--max-calls", "144"], 0);
    assert_eq!(calls_once(&cwd.join("r")).len(), 144);
    std::fs::write(&config, edited).unwrap();
    let (_, stderr) = run(cwd, &["run", "--resume", "r"], 2);
    assert!(stderr.contains("= 4800000000 calls"), "{stderr}");
}

/// A run folder made by glossa 0.1.0 (its run.json has no `version`): the
/// fixture, with the input files it names laid out beside it.
fn old_run_folder(name: &str) -> TempDir {
    let tmp = TempDir::new().unwrap();
    let fixtures = support::repo_file("tests/fixtures");
    std::fs::create_dir_all(tmp.path().join("fixtures")).unwrap();
    for file in ["mini.json", "mini-posts.jsonl", "mini-labels.jsonl"] {
        std::fs::copy(fixtures.join(file), tmp.path().join("fixtures").join(file)).unwrap();
    }
    std::fs::create_dir_all(tmp.path().join("old")).unwrap();
    std::fs::copy(
        fixtures.join("run-v1").join(name).join("run.json"),
        tmp.path().join("old/run.json"),
    )
    .unwrap();
    tmp
}

#[test]
fn a_run_folder_from_before_run_json_versions_resumes_with_its_settings() {
    for name in ["demo", "shard"] {
        let tmp = old_run_folder(name);
        let (_, stderr) = run(tmp.path(), &["run", "--resume", "old"], 0);
        assert!(!stderr.contains("changed since"), "{name}: {stderr}");
        let calls = calls_once(&tmp.path().join("old"));
        assert!(!calls.is_empty(), "{name}");
        if name == "shard" {
            // Its settings: exact and fuzzy, two repeats, dev posts,
            // strict check, shard 0 of 2 only.
            assert!(stderr.contains("output check: strict"), "{stderr}");
            assert!(stderr.contains("shard 0/2"), "{stderr}");
            for r in calls.values() {
                assert!(["exact", "fuzzy"].contains(&r["retriever"].as_str().unwrap()));
            }
            assert!(calls.keys().any(|(_, repeat, _)| *repeat == 2));
        }
    }
}

#[test]
fn a_run_json_of_a_newer_version_is_refused_naming_the_file() {
    let tmp = old_run_folder("demo");
    let path = tmp.path().join("old/run.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen('{', "{\n  \"version\": 7,", 1)).unwrap();
    let (_, stderr) = run(tmp.path(), &["run", "--resume", "old"], 2);
    assert!(
        stderr.contains("old/run.json: run.json version 7 is newer than this glossa reads"),
        "{stderr}"
    );
    assert!(!tmp.path().join("old/calls.jsonl").exists());
}

#[test]
fn merge_of_a_run_json_past_the_call_bound_is_refused_naming_it() {
    let dir = TempDir::new().unwrap();
    let cwd = dir.path();
    let mut args = RUN.to_vec();
    args.push("r");
    run(cwd, &args, 0);
    let config = cwd.join("r/run.json");
    let text = std::fs::read_to_string(&config).unwrap();
    let edited = text.replace("\"repeat\": 2", "\"repeat\": 100000000");
    assert_ne!(text, edited);
    std::fs::write(&config, edited).unwrap();
    let started = std::time::Instant::now();
    let (_, stderr) = run(cwd, &["merge", "r", "--out", "m"], 2);
    assert!(
        stderr
            .contains("r/run.json: 2 retrievers x 100000000 repeats x 24 posts = 4800000000 calls")
            && stderr.contains("--max-calls 1000000"),
        "{stderr}"
    );
    assert!(!cwd.join("m").exists(), "nothing written");
    // Refused before any counting: far below the minute it spun before.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    // The bound can be raised as for `glossa run`: 2 x 3 x 24 = 144 calls.
    std::fs::write(&config, text.replace("\"repeat\": 2", "\"repeat\": 3")).unwrap();
    let (_, stderr) = run(cwd, &["merge", "r", "--out", "m", "--max-calls", "100"], 2);
    assert!(stderr.contains("= 144 calls"), "{stderr}");
    run(cwd, &["merge", "r", "--out", "m", "--max-calls", "144"], 1);
}

#[cfg(unix)]
#[test]
fn eval_and_sweep_on_a_full_disk_leave_no_empty_result() {
    for args in [
        &["eval", "--retriever", "exact"][..],
        &[
            "sweep",
            "--retriever",
            "fuzzy",
            "--param",
            "threshold",
            "--values",
            "0.8,0.9",
        ][..],
    ] {
        let dir = TempDir::new().unwrap();
        let cwd = dir.path();
        std::fs::create_dir(cwd.join("runs")).unwrap();
        let (code, stderr) = run_on_small_disk(cwd, 1, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("cannot write runs/"), "{stderr}");
        assert_eq!(files_under(cwd), Vec::<String>::new(), "{args:?}");
        // With room, the same command saves a whole result.
        let (_, stderr) = run(cwd, args, 0);
        let saved = files_under(cwd);
        assert!(!saved.is_empty(), "{stderr}");
        for name in saved {
            assert!(
                std::fs::metadata(cwd.join(&name)).unwrap().len() > 0,
                "{name}"
            );
        }
    }
}
