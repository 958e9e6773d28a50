//! `eval`, `run` and `serve` through a compiled glossary (docs/formats.md,
//! "Compiled glossaries"): the same results as with the whole glossary
//! parsed, on the café demo, on the retrieval fixture (with wrong-sense
//! labels) and on a workload of bench/gen_workload.rs; the same error for
//! a label naming an entry the glossary lacks; `--index FILE`.
//!
//! tests/fixtures/workload/ is
//! `cargo run --example gen_workload -- tests/fixtures/workload 1500 100 7`.

use crate::support::{fixture, repo_file, run_in};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The three files of a labelled set, copied into `dir` (the compiled
/// file's cache is kept there too).
fn copy_set(dir: &Path, glossary: &Path, posts: &Path, labels: &Path) {
    std::fs::copy(glossary, dir.join("g.json")).unwrap();
    std::fs::copy(posts, dir.join("posts.jsonl")).unwrap();
    std::fs::copy(labels, dir.join("labels.jsonl")).unwrap();
}

fn sets() -> Vec<(&'static str, [PathBuf; 3])> {
    vec![
        (
            "demo",
            [
                repo_file("glossaries/cafe.json"),
                repo_file("posts/cafe.jsonl"),
                repo_file("labels/cafe.jsonl"),
            ],
        ),
        (
            "retrieval fixture",
            [
                fixture("retrieval.json"),
                fixture("retrieval-posts.jsonl"),
                fixture("retrieval-labels.jsonl"),
            ],
        ),
        (
            "gen_workload",
            [
                fixture("workload/glossary.json"),
                fixture("workload/posts.jsonl"),
                fixture("workload/labels.jsonl"),
            ],
        ),
    ]
}

/// `glossa eval` on the set in `dir` with `extra` flags: stdout, stderr.
fn eval(dir: &Path, spec: &str, extra: &[&str], code: i32) -> (String, String) {
    let mut args = vec![
        "eval",
        "-g",
        "g.json",
        "-p",
        "posts.jsonl",
        "-l",
        "labels.jsonl",
        "-r",
        spec,
        "--no-save",
        "--threads",
        "1",
    ];
    args.extend_from_slice(extra);
    run_in(dir, &args, code)
}

/// An eval JSON result without its timings.
fn untimed(json: &str) -> Value {
    let mut v: Value = serde_json::from_str(json).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("timing");
    for r in o["retrievers"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("seconds");
    }
    v
}

const EVAL_SPECS: &str = "exact,normalised,glossa,edit|closest,oracle";

#[test]
fn eval_scores_alike_compiled_and_in_memory() {
    for (name, [g, p, l]) in sets() {
        let dir = tempfile::tempdir().unwrap();
        copy_set(dir.path(), &g, &p, &l);
        let json = ["--format", "json", "--per-post", "on"];
        let (memory, _) = eval(
            dir.path(),
            EVAL_SPECS,
            &[&json[..], &["--compiled", "never"]].concat(),
            0,
        );
        let (compiled, err) = eval(
            dir.path(),
            EVAL_SPECS,
            &[&json[..], &["--compiled", "always"]].concat(),
            0,
        );
        assert!(
            err.contains("note: compiled g.json into runs/cache/compiled/g-")
                && !err.contains("reads the whole glossary"),
            "{name}: {err}"
        );
        let memory = untimed(&memory);
        assert_eq!(untimed(&compiled), memory, "{name}");
        // Something was found and scored, wrong senses included where labelled.
        let glossa = &memory["retrievers"][2];
        assert!(glossa["found"].as_u64().unwrap() > 0, "{name}: {glossa}");
        // The table too, word for word.
        let (memory, _) = eval(dir.path(), EVAL_SPECS, &["--compiled", "never"], 0);
        let (compiled, _) = eval(dir.path(), EVAL_SPECS, &["--compiled", "always"], 0);
        assert_eq!(compiled, memory, "{name}");
    }
}

#[test]
fn eval_of_the_fixture_scores_wrong_senses_alike() {
    // The retrieval fixture labels wrong senses: `exact` retrieves two of
    // them, which only the entries the labels name can tell.
    let dir = tempfile::tempdir().unwrap();
    copy_set(
        dir.path(),
        &fixture("retrieval.json"),
        &fixture("retrieval-posts.jsonl"),
        &fixture("retrieval-labels.jsonl"),
    );
    let (out, _) = eval(
        dir.path(),
        "exact",
        &["--format", "json", "--compiled", "always"],
        0,
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["retrievers"][0]["wrong_sense"], 2, "{v}");
}

#[test]
fn a_label_naming_a_missing_entry_is_the_same_error_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    copy_set(
        dir.path(),
        &fixture("workload/glossary.json"),
        &fixture("workload/posts.jsonl"),
        &fixture("workload/labels.jsonl"),
    );
    let labels = std::fs::read_to_string(dir.path().join("labels.jsonl")).unwrap();
    // Line 3 names an entry the glossary lacks, first of its `needed`.
    let bad: Vec<String> = labels
        .lines()
        .enumerate()
        .map(|(i, l)| match i {
            2 => l.replacen("\"needed\": [", "\"needed\": [\"no-such-entry\", ", 1),
            _ => l.to_string(),
        })
        .collect();
    let bad = bad.join("\n");
    assert!(bad.contains("no-such-entry"));
    std::fs::write(dir.path().join("labels.jsonl"), bad).unwrap();
    let (_, memory) = eval(dir.path(), "glossa", &["--compiled", "never"], 2);
    let (_, compiled) = eval(dir.path(), "glossa", &["--compiled", "always"], 2);
    let want = "labels.jsonl:3: `needed` names entry `no-such-entry`, which is not in g.json";
    assert!(memory.contains(want), "{memory}");
    let last = |s: &str| s.trim_end().lines().last().unwrap_or_default().to_string();
    assert_eq!(last(&compiled), last(&memory));
    // `glossa run` reads labels the same way.
    let run = |mode: &str| {
        let args = [
            "run",
            "-g",
            "g.json",
            "-p",
            "posts.jsonl",
            "-l",
            "labels.jsonl",
            "--compiled",
            mode,
            "--out",
            mode,
        ];
        last(&run_in(dir.path(), &args, 2).1)
    };
    let memory = run("never");
    assert!(memory.contains(want), "{memory}");
    assert_eq!(run("always"), memory);
}

/// A run folder's calls, by (retriever, repeat, post), without timings.
fn calls(dir: &Path) -> Vec<Value> {
    let mut calls: Vec<Value> = crate::support::jsonl(&dir.join("calls.jsonl"))
        .into_iter()
        .map(|mut c| {
            c.as_object_mut().unwrap().remove("ms");
            c
        })
        .collect();
    calls.sort_by_key(|c| {
        (
            c["retriever"].as_str().unwrap().to_string(),
            c["repeat"].as_u64(),
            c["post"].as_str().unwrap().to_string(),
        )
    });
    calls
}

#[test]
fn run_makes_the_same_calls_compiled_and_in_memory() {
    for (name, [g, p, l]) in sets() {
        let dir = tempfile::tempdir().unwrap();
        copy_set(dir.path(), &g, &p, &l);
        let run = |mode: &str| {
            let args = [
                "run",
                "-g",
                "g.json",
                "-p",
                "posts.jsonl",
                "-l",
                "labels.jsonl",
                "-r",
                "exact,glossa,oracle",
                "--compiled",
                mode,
                "--out",
                mode,
                "--format",
                "json",
            ];
            run_in(dir.path(), &args, 0).1
        };
        run("never");
        let err = run("always");
        assert!(
            err.contains("note: compiled g.json") && !err.contains("reads the whole glossary"),
            "{name}: {err}"
        );
        let (memory, compiled) = (dir.path().join("never"), dir.path().join("always"));
        let memory_calls = calls(&memory);
        assert!(memory_calls.len() >= 3, "{name}");
        assert_eq!(calls(&compiled), memory_calls, "{name}");
        let summary = |d: &Path| {
            let mut v: Value =
                serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap())
                    .unwrap();
            v.as_object_mut().unwrap().remove("run_dir");
            v
        };
        assert_eq!(summary(&compiled), summary(&memory), "{name}");
        // The recorded settings, the glossary's SHA-256 among them, alike.
        let config = |d: &Path| std::fs::read_to_string(d.join("run.json")).unwrap();
        assert_eq!(config(&compiled), config(&memory), "{name}");
    }
}

#[test]
fn an_index_given_by_name_is_read_and_refused_when_stale_or_of_another_glossary() {
    let dir = tempfile::tempdir().unwrap();
    copy_set(
        dir.path(),
        &fixture("retrieval.json"),
        &fixture("retrieval-posts.jsonl"),
        &fixture("retrieval-labels.jsonl"),
    );
    let (out, _) = run_in(
        dir.path(),
        &["compile", "-g", "g.json", "-o", "mine.glossa-index"],
        0,
    );
    assert!(out.contains("compiled into mine.glossa-index"), "{out}");
    let json = ["--format", "json"];
    let (memory, _) = eval(
        dir.path(),
        "glossa",
        &[&json[..], &["--compiled", "never"]].concat(),
        0,
    );
    let (indexed, err) = eval(
        dir.path(),
        "glossa",
        &[&json[..], &["--index", "mine.glossa-index"]].concat(),
        0,
    );
    assert_eq!(untimed(&indexed), untimed(&memory));
    assert!(
        !dir.path().join("runs/cache/compiled").exists(),
        "the cache folder is not used: {err}"
    );
    // translate reads it too.
    let translate = |code| {
        run_in(
            dir.path(),
            &[
                "translate",
                "-q",
                "A cold brew please",
                "-g",
                "g.json",
                "--index",
                "mine.glossa-index",
            ],
            code,
        )
    };
    translate(0);
    // The glossary changes: the file is refused, saying how to rebuild it.
    let text = std::fs::read_to_string(dir.path().join("g.json")).unwrap();
    std::fs::write(dir.path().join("g.json"), text + "\n").unwrap();
    let (_, err) = translate(2);
    assert!(
        err.contains(
            "mine.glossa-index: compiled from another glossary or an earlier version of it"
        ) && err.contains("glossa compile -g g.json -o mine.glossa-index"),
        "{err}"
    );
    // Another glossary's file: refused, naming it.
    std::fs::copy(
        repo_file("glossaries/cafe.json"),
        dir.path().join("cafe.json"),
    )
    .unwrap();
    run_in(
        dir.path(),
        &["compile", "-g", "cafe.json", "-o", "cafe.glossa-index"],
        0,
    );
    let (_, err) = eval(dir.path(), "glossa", &["--index", "cafe.glossa-index"], 2);
    assert!(
        err.contains("cafe.glossa-index: compiled from another glossary or an earlier version of it (glossary `cafe`")
            && err.contains("not from g.json as it is now"),
        "{err}"
    );
    // --index always reads the file: --compiled never with it is refused.
    let (_, err) = eval(
        dir.path(),
        "glossa",
        &["--index", "cafe.glossa-index", "--compiled", "never"],
        2,
    );
    assert!(err.contains("cannot be used with"), "{err}");
}

/// A server on `dir`'s glossaries, in this process, compiling as `mode`
/// into `cache`; its address.
fn serve_compiled(dir: &Path, mode: glossa::compiled::Use, cache: &Path) -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut options = glossa::serve::Options::new(dir);
    options.compiled = mode;
    options.compiled_cache = cache.to_path_buf();
    let state = glossa::serve::AppState::new(options);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            glossa::serve::serve(listener, state).await.unwrap();
        });
    });
    crate::serve::wait_for_port(addr, std::time::Duration::from_secs(10));
    addr
}

/// `POST path` with `body`: status and JSON reply, without its timings
/// (`ms`, at every depth).
fn post(addr: std::net::SocketAddr, path: &str, body: &Value) -> (u16, Value) {
    fn untime(v: &mut Value) {
        match v {
            Value::Object(o) => {
                o.remove("ms");
                o.values_mut().for_each(untime);
            }
            Value::Array(a) => a.iter_mut().for_each(untime),
            _ => {}
        }
    }
    let r = crate::serve::http(
        addr,
        "POST",
        path,
        &[("Content-Type", "application/json")],
        Some(body.to_string().as_bytes()),
    );
    let mut v = r.json();
    untime(&mut v);
    (r.status, v)
}

#[test]
fn serve_answers_alike_compiled_and_in_memory_and_follows_a_changed_glossary() {
    use glossa::compiled::Use;
    let folder = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let mut posts: Vec<(&str, String)> = Vec::new();
    for (name, [g, p, _]) in sets() {
        let file = name.replace(' ', "-");
        std::fs::copy(&g, folder.path().join(format!("{file}.json"))).unwrap();
        let texts = crate::support::jsonl(&p);
        for post in texts.iter().take(25) {
            let file: &'static str = Box::leak(file.clone().into_boxed_str());
            posts.push((file, post["text"].as_str().unwrap().to_string()));
        }
    }
    let memory = serve_compiled(folder.path(), Use::Never, cache.path());
    let compiled = serve_compiled(folder.path(), Use::Always, cache.path());
    let mut found = 0;
    for (glossary, text) in &posts {
        for (path, retriever) in [
            ("/api/retrieve", "glossa"),
            ("/api/retrieve", "edit"),
            ("/api/translate", "glossa"),
        ] {
            let body = json!({"text": text, "glossary": glossary, "retriever": retriever});
            let want = post(memory, path, &body);
            assert_eq!(want.0, 200, "{}", want.1);
            assert_eq!(
                post(compiled, path, &body),
                want,
                "{path} {glossary}: {text}"
            );
            found += usize::from(want.1.to_string().contains("\"id\""));
        }
    }
    assert!(found > posts.len(), "entries were found: {found}");
    // Each glossary was compiled once, in the cache folder given.
    let built = std::fs::read_dir(cache.path().join("compiled"))
        .unwrap()
        .count();
    assert_eq!(built, 3);
    // The glossary changes on disk: the next request reads the new entry.
    let g = folder.path().join("demo.json");
    let text = std::fs::read_to_string(&g).unwrap();
    let at = text.find("\"entries\"").unwrap();
    let at = at + text[at..].find('[').unwrap() + 1;
    let changed = format!(
        "{}{{\"id\": \"zq\", \"source\": \"zanzibar quokka\", \"target\": \"quokka de Zanzibar\"}},{}",
        &text[..at],
        &text[at..]
    );
    std::fs::write(&g, changed).unwrap();
    let body = json!({"text": "A zanzibar quokka latte", "glossary": "demo"});
    let want = post(memory, "/api/retrieve", &body);
    assert!(want.1.to_string().contains("\"zq\""), "{}", want.1);
    assert_eq!(post(compiled, "/api/retrieve", &body), want);
    // A glossary that no longer reads: the same 400 both ways.
    std::fs::write(&g, "{\"entries\": [").unwrap();
    let want = post(memory, "/api/retrieve", &body);
    assert_eq!(want.0, 400, "{}", want.1);
    assert_eq!(post(compiled, "/api/retrieve", &body), want);
}
