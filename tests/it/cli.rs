//! The real binary on small fixtures: outputs, saved results and every kind
//! of bad input (exit code 2, a message naming the file and the line).

use crate::support;
use serde_json::Value;
use std::fs;
use support::{fixture, glossa, retriever_figures};
use tempfile::TempDir;

/// `glossa eval` on the mini fixture with extra args, as parsed JSON.
fn eval_json(extra: &[&str]) -> Value {
    let out = glossa()
        .args(["eval", "--no-save", "--format", "json", "--glossary"])
        .arg(fixture("mini.json"))
        .arg("--posts")
        .arg(fixture("mini-posts.jsonl"))
        .arg("--labels")
        .arg(fixture("mini-labels.jsonl"))
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn eval_json_has_the_spec_fields_and_hand_counted_figures() {
    let v = eval_json(&["--retriever", "all"]);
    assert_eq!(v["glossary"], "mini");
    let names: Vec<&str> = v["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["exact", "normalised", "fuzzy", "normalised+fuzzy", "oracle"]
    );

    // Hand-counted on the fixture (see tests/fixtures/mini-labels.jsonl):
    // m1 "Try our cold coffee today." needs cold-coffee; exact also finds coffee (extra).
    // m2 "Fresh cookies and cold cofee." needs cookie, cold-coffee: exact finds neither.
    // m3 "Save the date!" needs nothing; date is a wrong sense.
    // m4 "No entries here." needs nothing and gets nothing.
    let exact = retriever_figures(&v, "exact");
    for (field, want) in [
        ("posts", 4),
        ("complete", 2),
        ("needed", 3),
        ("found", 1),
        ("retrieved", 3),
        ("extra", 2),
        ("wrong_sense", 1),
    ] {
        assert_eq!(exact[field], want, "exact {field}");
    }
    assert!((exact["recall"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!(exact["by_tag"]["typo"]["posts"], 1);
    assert_eq!(exact["by_tag"]["typo"]["found"], 0);
    assert_eq!(exact["by_split"]["test"]["posts"], 2);

    let m1 = &exact["per_post"][0];
    assert_eq!(m1["post"], "m1");
    assert_eq!(
        m1["retrieved"],
        serde_json::json!(["cold-coffee", "coffee"])
    );
    assert_eq!(m1["extra"], serde_json::json!(["coffee"]));
    assert_eq!(m1["complete"], true);
    assert_eq!(m1["matches"][0]["kind"], "exact");
    assert_eq!(m1["matches"][0]["phrase"], "cold coffee");
    assert_eq!(m1["matches"][0]["score"], 1.0);

    let nf = retriever_figures(&v, "normalised+fuzzy");
    assert_eq!(nf["found"], 3);
    assert_eq!(nf["complete"], 3);
    let oracle = retriever_figures(&v, "oracle");
    assert_eq!(
        (oracle["found"].as_u64(), oracle["extra"].as_u64()),
        (Some(3), Some(0))
    );
    assert_eq!(oracle["complete"], 4);
}

#[test]
fn split_and_threshold_change_what_is_scored() {
    let dev = eval_json(&["--retriever", "fuzzy", "--split", "dev"]);
    assert_eq!(dev["split"], "dev");
    assert_eq!(retriever_figures(&dev, "fuzzy")["posts"], 2);
    let strict = eval_json(&["--retriever", "fuzzy", "--threshold", "1"]);
    let loose = eval_json(&["--retriever", "fuzzy", "--threshold", "0.75"]);
    assert!(
        retriever_figures(&strict, "fuzzy")["found"].as_u64()
            < retriever_figures(&loose, "fuzzy")["found"].as_u64()
    );
}

#[test]
fn table_markdown_and_csv_formats() {
    let run = |format: &str| {
        let out = glossa()
            .args([
                "eval",
                "--no-save",
                "--by-tag",
                "--retriever",
                "exact",
                "--format",
                format,
                "--glossary",
            ])
            .arg(fixture("mini.json"))
            .arg("--posts")
            .arg(fixture("mini-posts.jsonl"))
            .arg("--labels")
            .arg(fixture("mini-labels.jsonl"))
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let table = run("table");
    assert!(table.contains("2 of 4"), "{table}");
    assert!(table.contains("1 of 3"), "{table}");
    assert!(table.contains("By tag"));
    let md = run("markdown");
    assert!(md.starts_with(
        "| Retriever | Posts complete | Needed found (recall) | Extra | Precision | Wrong sense |"
    ));
    assert!(
        md.contains("| exact | 2 of 4 (50.0%) | 1 of 3 (33.3%) | 2 | 1 of 3 (33.3%) | 1 |"),
        "{md}"
    );
    let csv = run("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("retriever,scope,posts,complete,needed,found,retrieved,extra,wrong_sense,recall,precision")
    );
    assert_eq!(lines.next(), Some("exact,all,4,2,3,1,3,2,1,0.3333,0.3333"));
}

#[test]
fn eval_saves_its_json_under_runs() {
    let dir = TempDir::new().unwrap();
    glossa()
        .args(["eval", "--retriever", "exact", "--glossary"])
        .arg(fixture("mini.json"))
        .arg("--posts")
        .arg(fixture("mini-posts.jsonl"))
        .arg("--labels")
        .arg(fixture("mini-labels.jsonl"))
        .arg("--runs-dir")
        .arg(dir.path())
        .assert()
        .success();
    let saved: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1);
    let name = saved[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.ends_with("_mini-posts_eval.json"), "{name}");
    assert_eq!(
        name.len(),
        "20261129T203018.123Z_mini-posts_eval.json".len()
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(&saved[0]).unwrap()).unwrap();
    assert_eq!(retriever_figures(&v, "exact")["found"], 1);
}

#[test]
fn two_evals_in_one_second_keep_both_results() {
    let dir = TempDir::new().unwrap();
    for _ in 0..3 {
        glossa()
            .args(["eval", "--retriever", "exact", "--runs-dir"])
            .arg(dir.path())
            .assert()
            .success();
    }
    let saved = fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(saved, 3, "a result was overwritten");
}

#[test]
fn eval_with_no_arguments_runs_the_builtin_demo_anywhere() {
    let dir = TempDir::new().unwrap();
    let out = glossa()
        .current_dir(dir.path())
        .args(["eval", "--no-save", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["glossary"], "cafe");
    assert_eq!(v["retrievers"].as_array().unwrap().len(), 5);
    assert_eq!(retriever_figures(&v, "oracle")["posts"], 24);
    // and saving goes to ./runs by default
    glossa()
        .current_dir(dir.path())
        .args(["eval", "--retriever", "exact"])
        .assert()
        .success();
    assert_eq!(fs::read_dir(dir.path().join("runs")).unwrap().count(), 1);
}

#[test]
fn phrases_json_is_every_key_in_order() {
    let out = glossa()
        .args([
            "phrases",
            "Free home delivry on week-ends!",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let keys: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys.len(), 18);
    assert_eq!(
        &keys[..5],
        [
            "free",
            "free home",
            "free home delivry",
            "free home delivry on",
            "home"
        ]
    );
    assert_eq!(keys.last().unwrap(), "ends");
    let table = glossa().args(["phrases", "on week-ends"]).output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("skipped: stop word"), "{table}");
}

#[test]
fn phrases_reads_stdin() {
    let out = glossa()
        .args(["phrases", "--format", "json"])
        .write_stdin("Cold coffee.\nNow")
        .output()
        .unwrap();
    let keys: Vec<String> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(keys, ["cold", "cold coffee", "coffee", "now"]);
}

#[test]
fn retrieve_shows_entry_target_kind_phrase_score() {
    let out = glossa()
        .args([
            "retrieve",
            "Two cold cofees please",
            "--retriever",
            "fuzzy",
            "--format",
            "json",
            "--glossary",
        ])
        .arg(fixture("mini.json"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["matches"][0];
    assert_eq!(m["entry"], "cold-coffee");
    assert_eq!(m["target"], "frosk mavi");
    assert_eq!(m["kind"], "fuzzy");
    assert_eq!(m["phrase"], "cold cofees");
    assert_eq!(
        &"Two cold cofees please"
            [m["start"].as_u64().unwrap() as usize..m["end"].as_u64().unwrap() as usize],
        "cold cofees"
    );
}

#[test]
fn retrieve_refuses_the_oracle_and_unknown_retrievers() {
    glossa()
        .args(["retrieve", "tea", "--retriever", "oracle"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("needs labelled posts"));
    glossa()
        .args(["retrieve", "tea", "--retriever", "exact+fuzy"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown retriever `fuzy`"));
}

/// Run eval with one file replaced by `content`; expect exit 2 and a
/// message containing the file name and each of `wants`.
fn bad_input(which: &str, content: &[u8], wants: &[&str]) {
    let dir = TempDir::new().unwrap();
    let mut paths = [
        fixture("mini.json"),
        fixture("mini-posts.jsonl"),
        fixture("mini-labels.jsonl"),
    ];
    let slot = ["glossary", "posts", "labels"]
        .iter()
        .position(|w| *w == which)
        .unwrap();
    let bad = dir.path().join(format!("bad-{which}"));
    fs::write(&bad, content).unwrap();
    paths[slot] = bad.clone();
    let out = glossa()
        .args(["eval", "--no-save", "--glossary"])
        .arg(&paths[0])
        .arg("--posts")
        .arg(&paths[1])
        .arg("--labels")
        .arg(&paths[2])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{which}: {err}");
    assert!(
        err.contains(&bad.display().to_string()),
        "names the file: {err}"
    );
    for want in wants {
        assert!(err.contains(want), "{which}: want {want:?} in {err}");
    }
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
}

#[test]
fn malformed_json_names_line_and_column() {
    bad_input(
        "glossary",
        b"{\"entries\": [\n  {\"source\": \"tea\",, \"target\": \"x\"}\n]}",
        &[":2:", "invalid JSON"],
    );
    bad_input(
        "posts",
        b"{\"id\":\"m1\",\"text\":\"a\"}\n{\"id\":\"m2\",\"text\":\"b\"\n",
        &[":2:", "invalid JSON"],
    );
}

#[test]
fn missing_source_or_target_names_the_field() {
    bad_input("glossary", b"{\"entries\": [\n {\"source\": \"tea\", \"target\": \"x\"},\n {\"id\": \"b\", \"source\": \"bun\"}\n]}", &[":3", "missing field `target`"]);
    bad_input(
        "glossary",
        b"{\"entries\": [\n {\"id\": \"b\", \"target\": \"x\"}\n]}",
        &[":2", "missing field `source`"],
    );
    bad_input(
        "glossary",
        b"{\"entries\": [\n {\"id\": \"b\", \"source\": \"\", \"target\": \"x\"}\n]}",
        &[":2", "`source` is empty"],
    );
}

#[test]
fn duplicate_ids_are_named() {
    bad_input(
        "glossary",
        b"{\"entries\": [\n {\"source\": \"tea\", \"target\": \"x\"},\n {\"source\": \"tea\", \"target\": \"y\"}\n]}",
        &[":3", "duplicate entry id `tea`"],
    );
    bad_input(
        "posts",
        b"{\"id\":\"m1\",\"text\":\"a\"}\n\n{\"id\":\"m1\",\"text\":\"b\"}\n",
        &[":3", "duplicate post id `m1`"],
    );
}

#[test]
fn unknown_fields_are_errors() {
    bad_input(
        "glossary",
        b"{\"entries\": [\n {\"source\": \"tea\", \"targte\": \"x\"}\n]}",
        &[":2", "unknown field `targte`"],
    );
    bad_input(
        "glossary",
        b"{\"entris\": []}",
        &[":1", "unknown field `entris`"],
    );
    bad_input(
        "labels",
        b"{\"post\":\"m1\",\"neded\":[]}\n",
        &[":1", "unknown field `neded`"],
    );
    bad_input(
        "posts",
        b"{\"id\":\"m1\",\"txt\":\"a\"}\n",
        &[":1", "unknown field `txt`"],
    );
}

#[test]
fn labels_naming_unknown_entries_or_posts() {
    bad_input(
        "labels",
        b"{\"post\":\"m1\",\"needed\":[\"cold-coffee\"]}\n{\"post\":\"m2\",\"needed\":[\"cofee\"]}\n",
        &[":2:", "`cofee`", "mini.json"],
    );
    bad_input(
        "labels",
        b"{\"post\":\"m1\"}\n{\"post\":\"m9\"}\n",
        &[":2:", "`m9`", "mini-posts.jsonl"],
    );
    bad_input(
        "labels",
        b"{\"post\":\"m1\",\"wrong_sense\":[\"nope\"]}\n",
        &[":1:", "`nope`"],
    );
}

#[test]
fn empty_files_are_errors() {
    bad_input("glossary", b"", &["empty file"]);
    bad_input("posts", b"\n\n", &["empty file"]);
    bad_input("labels", b"", &["empty file"]);
}

#[test]
fn files_that_are_not_utf8_name_the_line() {
    bad_input(
        "posts",
        b"{\"id\":\"m1\",\"text\":\"a\"}\n{\"id\":\"m2\",\"text\":\"caf\xe9\"}\n",
        &[":2:", "not UTF-8"],
    );
    bad_input("glossary", b"\xff\xfe{}", &[":1:", "not UTF-8"]);
}

#[test]
fn a_missing_file_is_named() {
    glossa()
        .args(["eval", "--no-save", "--glossary", "no/such/glossary.json"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no/such/glossary.json: cannot read",
        ));
}

#[test]
fn usage_errors_exit_2_with_help() {
    glossa()
        .args(["eval", "--threshold", "1.5"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("outside [0, 1]"));
    glossa().args(["eval", "--split", "train"]).assert().code(2);
}

#[test]
fn an_own_glossary_without_labels_never_falls_back_to_the_demo_labels() {
    // Issue 34: `-g` and `-p` without `-l` used to score the café demo's
    // labels against the owner's glossary and fail on a demo entry id.
    for command in [
        &["eval", "--no-save"][..],
        &["sweep", "--no-save"][..],
        &["run"][..],
    ] {
        let out = glossa()
            .args(command)
            .arg("--glossary")
            .arg(fixture("mini.json"))
            .arg("--posts")
            .arg(fixture("mini-posts.jsonl"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {err}");
        assert!(err.contains("without --labels"), "{command:?}: {err}");
        assert!(err.contains("--labels FILE"), "{command:?}: {err}");
        assert!(!err.contains("--posts and"), "{command:?}: {err}");
    }
    // Only the glossary: both flags are named.
    let out = glossa()
        .args(["eval", "--no-save", "--glossary"])
        .arg(fixture("mini.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("without --posts and --labels"), "{err}");
    // One's own posts and labels against the built-in glossary stay allowed.
    glossa()
        .args(["eval", "--no-save", "--posts"])
        .arg(fixture("mini-posts.jsonl"))
        .arg("--labels")
        .arg(fixture("mini-labels.jsonl"))
        .assert()
        .success();
}

/// Mistakes a non-developer makes, each answered with what to do rather
/// than with the parser's words ("key must be a string", "invalid JSON",
/// "empty target", "cannot read", "unknown field").
#[test]
fn common_mistakes_are_explained_with_what_to_do() {
    let dir = TempDir::new().unwrap();
    let write = |name: &str, text: &str| fs::write(dir.path().join(name), text).unwrap();
    write(
        "comma.json",
        "{\n  \"entries\": [\n    {\"source\": \"tea\", \"target\": \"Tee\"},\n  ]\n}\n",
    );
    write(
        "comma-in-entry.json",
        "{\"entries\": [{\"source\": \"tea\", \"target\": \"Tee\",}]}",
    );
    write("sheet.csv", "source,target\ntea,Tee\n");
    write(
        "quote.csv",
        "source,target\n\"tea,Tee\ncup,Tasse\nmug,Becher\n",
    );
    let posts = support::repo_file("posts/cafe.jsonl");
    let labels = support::repo_file("labels/cafe.jsonl");
    let cafe = support::repo_file("glossaries/cafe.json");
    let (posts, labels, cafe) = (
        posts.to_str().unwrap(),
        labels.to_str().unwrap(),
        cafe.to_str().unwrap(),
    );
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["lint", "comma.json"],
            "comma.json:3:39: a comma after the last item".into(),
        ),
        (
            vec!["lint", "comma-in-entry.json"],
            "comma-in-entry.json:1:47: a comma after the last item".into(),
        ),
        (
            vec!["translate", "-g", "sheet.csv", "tea"],
            "sheet.csv:1: not a glossary JSON file (it starts with `source,target`): a sheet \
             (CSV, TSV, XLSX, ODS) or a TBX file becomes one with `glossa import sheet.csv"
                .into(),
        ),
        (
            vec!["import", "quote.csv", "-o", "out.json"],
            "quote.csv:2: a quote opened on this row is never closed, so the rest of the file \
             (3 lines)"
                .into(),
        ),
        (
            vec!["import", "https://example.com/terms.csv", "-o", "out.json"],
            "glossa reads files on this computer, not addresses; download it first".into(),
        ),
        (
            vec!["eval", "--no-save", "-g", cafe, "-p", labels, "-l", posts],
            "this line is a label (it has `post` and `needed`), not a post: are --posts and \
             --labels swapped?"
                .into(),
        ),
        (
            vec!["eval", "--no-save", "-g", cafe, "-p", posts, "-l", posts],
            "this line is a post (it has `id` and `text`), not a label: are --posts and \
             --labels swapped?"
                .into(),
        ),
    ];
    for (args, message) in cases {
        let out = support::glossa_in(dir.path()).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&message), "{args:?}: {stderr}");
    }
    assert!(!dir.path().join("out.json").exists());
}

/// One refusal, one message, wherever a retriever that needs labels meets
/// posts without them (it was written five times, five ways).
#[test]
fn a_retriever_needing_labels_is_refused_the_same_way_everywhere() {
    for args in [
        vec!["retrieve", "tea", "-r", "oracle"],
        vec!["translate", "tea", "-r", "exact+oracle"],
        vec!["serve", "--retriever", "oracle", "--addr", "127.0.0.1:0"],
    ] {
        let out = glossa().args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("needs labelled posts (it returns the labelled answer)"),
            "{args:?}: {stderr}"
        );
    }
}
