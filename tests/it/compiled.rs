//! Compiled glossaries (docs/formats.md, "Compiled glossaries"): the
//! matches through the compiled file are those of the whole glossary
//! parsed in memory, on the café demo and on a real dictionary with real
//! prose; the file is built, reused, rebuilt when stale or damaged.

use crate::support::{glossa_in, repo_file, required_data, run_in};
use std::path::Path;

/// `glossa retrieve` of `post` with `spec`, compiled or not: stdout.
fn retrieve(dir: &Path, glossary: &str, spec: &str, post: &str, compiled: &str) -> String {
    let args = [
        "retrieve",
        post,
        "-g",
        glossary,
        "-r",
        spec,
        "--format",
        "json",
        "--compiled",
        compiled,
    ];
    run_in(dir, &args, 0).0
}

const SPECS: &[&str] = &[
    "glossa",
    "normalised",
    "irregular",
    "edit",
    "split",
    "alias",
];

/// Every spec gives the same JSON both ways on every post; how many posts
/// matched something.
fn same_both_ways(dir: &Path, glossary: &str, posts: &[String], specs: &[&str]) -> usize {
    let mut matched = 0;
    for post in posts {
        for spec in specs {
            let memory = retrieve(dir, glossary, spec, post, "never");
            let compiled = retrieve(dir, glossary, spec, post, "always");
            assert_eq!(compiled, memory, "spec {spec}, post {post:?}");
            if *spec == "glossa" && memory.contains("\"entry\"") {
                matched += 1;
            }
        }
    }
    matched
}

#[test]
fn the_demo_matches_alike_compiled_and_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo_file("glossaries/cafe.json"),
        dir.path().join("cafe.json"),
    )
    .unwrap();
    let posts: Vec<String> = std::fs::read_to_string(repo_file("posts/cafe.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .take(8)
        .collect();
    assert_eq!(posts.len(), 8);
    let matched = same_both_ways(dir.path(), "cafe.json", &posts, SPECS);
    assert!(matched >= 6, "{matched}");
    // Built once, in the cache folder under the working folder.
    let built: Vec<_> = std::fs::read_dir(dir.path().join("runs/cache/compiled"))
        .unwrap()
        .collect();
    assert_eq!(built.len(), 1);
}

/// FreeDict English-German (Debian dict-freedict-eng-deu) as a glossary,
/// and paragraphs of the GPL (real English prose, written by others).
#[test]
fn a_real_dictionary_matches_alike_compiled_and_in_memory() {
    let Some(dictd) = required_data(
        Some("/usr/share/dictd".into()),
        |d| d.join("freedict-eng-deu.index").exists(),
        "dict-freedict-eng-deu is not installed (apt-get install dict-freedict-eng-deu)",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("python3")
        .arg(repo_file("bench/real_data.py"))
        .arg("glossary")
        .arg(dictd.join("freedict-eng-deu.index"))
        .arg(dictd.join("freedict-eng-deu.dict.dz"))
        .arg(dir.path().join("deu.json"))
        .status()
        .unwrap();
    assert!(status.success());
    let prose = std::fs::read_to_string("/usr/share/common-licenses/GPL-3")
        .unwrap_or_else(|_| "The licenses for most software and other practical works are designed to take away your freedom to share and change the works.".to_string());
    let mut posts: Vec<String> = prose
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| p.len() > 80)
        .step_by(9)
        .take(3)
        .collect();
    // Typos, inflections, joined words and irregular plurals.
    posts.push("The childrens' softwear licences were writen by two wimen and three mice.".into());
    // Each in-memory run parses all 463k entries: the default and the
    // typo tiers only (the property test of src/compiled covers the rest).
    let matched = same_both_ways(dir.path(), "deu.json", &posts, &["glossa", "edit", "alias"]);
    assert_eq!(matched, posts.len());
}

#[test]
fn compile_says_where_translate_reuses_the_file_and_rebuilds_a_stale_or_damaged_one() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.json");
    std::fs::write(
        &g,
        r#"{"entries":[{"source":"cold coffee","target":"frosk mavi"},{"source":"tea","target":"tesh"}]}"#,
    )
    .unwrap();
    let (out, _) = run_in(dir.path(), &["compile", "-g", "g.json"], 0);
    assert!(
        out.contains("2 entries compiled into runs/cache/compiled/g-"),
        "{out}"
    );
    let translate = [
        "translate",
        "-q",
        "Cold cofee and tea",
        "-g",
        "g.json",
        "--compiled",
        "always",
    ];
    let (text, err) = run_in(dir.path(), &translate, 0);
    assert_eq!(text.trim(), "Frosk mavi and tesh");
    assert!(
        !err.contains("compiled"),
        "a fresh file is used as it is: {err}"
    );
    // The glossary changes: rebuilt, with a note, and the new entry found.
    std::fs::write(
        &g,
        r#"{"entries":[{"source":"cold coffee","target":"frosk mavi"},{"source":"tea","target":"chai"}]}"#,
    )
    .unwrap();
    let (text, err) = run_in(dir.path(), &translate, 0);
    assert_eq!(text.trim(), "Frosk mavi and chai");
    assert!(
        err.contains("note: compiled g.json into runs/cache/compiled/g-"),
        "{err}"
    );
    // A damaged file: rebuilt, the note says what was wrong.
    let file = std::fs::read_dir(dir.path().join("runs/cache/compiled"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut bytes = std::fs::read(&file).unwrap();
    let at = 20; // inside the header
    bytes[at] ^= 0xff;
    std::fs::write(&file, &bytes).unwrap();
    let (text, err) = run_in(dir.path(), &translate, 0);
    assert_eq!(text.trim(), "Frosk mavi and chai");
    assert!(
        err.contains("rebuilt the compiled glossary") && err.contains("damaged"),
        "{err}"
    );
    // A spec that compares the post with every entry: all are loaded, said.
    let fuzzy = [
        "retrieve",
        "Cold cofee",
        "-g",
        "g.json",
        "-r",
        "fuzzy",
        "--compiled",
        "always",
    ];
    let out = glossa_in(dir.path()).args(fuzzy).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`fuzzy` reads the whole glossary"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("cold coffee"));
}
