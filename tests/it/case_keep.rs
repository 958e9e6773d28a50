//! Per-entry `case_sensitive` and `keep` through the real binary
//! (docs/formats.md, "Case and keep"): retrieval, the prompt, the offline
//! provider's output and the check, on a glossary where "US" the country
//! and "us" the pronoun are two entries and "Glossa Café" is a brand.

use crate::support;

use serde_json::Value;
use std::path::Path;
use support::{glossa_in, jsonl, repo_file, run_in, Response, Server};
use tempfile::TempDir;

const GLOSSARY: &str = r#"{"source_lang": "en", "target_lang": "es", "entries": [
  {"id": "US", "source": "US", "target": "EE. UU.", "case_sensitive": true, "sense": "the country"},
  {"id": "us", "source": "us", "target": "nosotros"},
  {"id": "cafe", "source": "Glossa Café", "keep": true, "case_sensitive": true},
  {"id": "cookie", "source": "cookie", "target": "galleta"}
]}"#;

fn glossary_dir() -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("g.json"), GLOSSARY).unwrap();
    dir
}

/// The trace of `glossa translate -g g.json TEXT --format json`.
fn trace(dir: &Path, text: &str) -> Value {
    let (stdout, _) = run_in(dir, &["translate", "-g", "g.json", text, "-f", "json"], 0);
    serde_json::from_str(&stdout).unwrap()
}

/// (entry, phrase) of each retrieved entry.
fn retrieved(trace: &Value) -> Vec<(String, String)> {
    trace["retrieve"]["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["entry"].as_str().unwrap().to_string(),
                u["phrase"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_country_the_pronoun_and_the_brand_each_find_their_own_words() {
    let dir = glossary_dir();
    let t = trace(dir.path(), "Glossa Café cookies, made in the US for us.");
    assert_eq!(
        retrieved(&t),
        pairs(&[
            ("US", "US"),
            ("us", "us"),
            ("cafe", "Glossa Café"),
            ("cookie", "cookies")
        ])
    );
    // The prompt says which entries are which; other lines are as ever.
    let prompt = t["prompt"]["output"]["text"].as_str().unwrap();
    assert!(
        prompt.contains(
            "- US → EE. UU. (exact case; meaning: the country)\n\
             - us → nosotros\n\
             - keep as written: Glossa Café (exact case)\n\
             - cookie → galleta\n"
        ),
        "{prompt}"
    );
    // Offline: the brand stays, the country and the pronoun each get theirs.
    assert_eq!(
        t["generate"]["output"]["text"],
        "Glossa Café galleta, made in the EE. UU. for nosotros."
    );
    let in_output: Vec<bool> = t["review"]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["in_output"].as_bool().unwrap())
        .collect();
    assert_eq!(in_output, [true; 4]);
    // The flags are in the trace only for the entries that have them.
    let used = t["retrieve"]["output"].as_array().unwrap();
    assert_eq!(used[0]["case_sensitive"], true);
    assert!(used[1].get("case_sensitive").is_none() && used[1].get("keep").is_none());
    assert_eq!(used[2]["keep"], true);
}

#[test]
fn other_case_is_not_the_case_sensitive_entry() {
    let dir = glossary_dir();
    // "Us" at a sentence start is the pronoun, with its capital carried;
    // the brand written in lower case is not the brand.
    let t = trace(dir.path(), "Us too: glossa café cookies.");
    assert_eq!(retrieved(&t), pairs(&[("us", "Us"), ("cookie", "cookies")]));
    assert_eq!(
        t["generate"]["output"]["text"],
        "Nosotros too: glossa café galleta."
    );
    assert!(!t["prompt"]["output"]["text"]
        .as_str()
        .unwrap()
        .contains("exact case"));
    // `retrieve` agrees, with every retriever the page offers.
    for retriever in ["exact", "normalised", "normalised+fuzzy", "glossa"] {
        let args = [
            "retrieve",
            "-g",
            "g.json",
            "-r",
            retriever,
            "US and us, US!",
            "-f",
            "json",
        ];
        let (stdout, _) = run_in(dir.path(), &args, 0);
        let v: Value = serde_json::from_str(&stdout).unwrap();
        // Each entry's first place: `us` gave "US" up to the country.
        let places: Vec<(&str, u64, u64)> = v["matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["entry"].as_str().unwrap(),
                    m["start"].as_u64().unwrap(),
                    m["end"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(places, [("US", 0, 2), ("us", 7, 9)], "{retriever}");
    }
}

/// A model that writes the country in lower case is told so, and the
/// repaired reply passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_in_the_wrong_case_is_missing_and_repaired() {
    let reply = |content: &str| {
        Response::json(
            200,
            serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
                .to_string(),
        )
    };
    let server = Server::start(vec![
        reply("Hecho en los ee. uu. para nosotros en glossa café."),
        reply("Hecho en los EE. UU. para nosotros en Glossa Café."),
    ])
    .await;
    let dir = glossary_dir();
    let args: Vec<String> = [
        "translate",
        "-g",
        "g.json",
        "Made in the US for us at Glossa Café.",
        "-f",
        "json",
        "--provider",
        "openai",
        "--model",
        "m",
        "--base-url",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([server.url("/v1")])
    .collect();
    let path = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || glossa_in(&path).args(&args).output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let t: Value = serde_json::from_slice(&out.stdout).unwrap();
    let turns = t["turns"].as_array().unwrap();
    let problems = turns[0]["problems"].to_string();
    // Both case-sensitive targets were missing in the first reply; the
    // pronoun, written in lower case like its target, was there.
    assert!(problems.contains("'EE. UU.'"), "{problems}");
    assert!(problems.contains("'Glossa Café'"), "{problems}");
    assert!(!problems.contains("nosotros"), "{problems}");
    assert!(turns[1]["problems"].as_array().unwrap().is_empty(), "{t}");
}

#[test]
fn the_demo_prompt_is_the_glossary_lines_as_ever() {
    // The café demo has no flags: each prompt's glossary block is exactly
    // `- source → target` (and `(meaning: sense)`) per entry used, in
    // glossary order, as before the flags existed.
    let dir = TempDir::new().unwrap();
    let glossary: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_file("glossaries/cafe.json")).unwrap())
            .unwrap();
    let entries = glossary["entries"].as_array().unwrap();
    let posts = jsonl(&repo_file("posts/cafe.jsonl"));
    assert_eq!(posts.len(), 24);
    for post in posts {
        let text = post["text"].as_str().unwrap();
        let (stdout, _) = run_in(dir.path(), &["translate", text, "-f", "json"], 0);
        let t: Value = serde_json::from_str(&stdout).unwrap();
        let used: Vec<&str> = t["retrieve"]["output"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["entry"].as_str().unwrap())
            .collect();
        let block: Vec<String> = entries
            .iter()
            .filter(|e| used.contains(&e["id"].as_str().unwrap()))
            .map(|e| {
                let line = format!(
                    "- {} → {}",
                    e["source"].as_str().unwrap(),
                    e["target"].as_str().unwrap()
                );
                match e["sense"].as_str() {
                    Some(sense) => format!("{line} (meaning: {sense})"),
                    None => line,
                }
            })
            .collect();
        let block = if block.is_empty() {
            "(no glossary entries apply to this text)".to_string()
        } else {
            block.join("\n")
        };
        let prompt = t["prompt"]["output"]["text"].as_str().unwrap();
        assert!(
            prompt.contains(&format!("\n\n{block}\n\nEnglish text:\n")),
            "{prompt}"
        );
    }
}

#[test]
fn sheets_carry_the_flags_through_import_and_export() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("g.csv"),
        "source,target,match case,do not translate\nUS,EE. UU.,x,\nus,nosotros,,\nGlossa Café,,yes,yes\n",
    )
    .unwrap();
    run_in(dir.path(), &["import", "g.csv", "--out", "g.json"], 0);
    let g: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("g.json")).unwrap()).unwrap();
    assert_eq!(g["entries"][0]["case_sensitive"], true);
    assert!(g["entries"][1].get("case_sensitive").is_none());
    assert_eq!(g["entries"][2]["target"], "Glossa Café");
    assert_eq!(g["entries"][2]["keep"], true);
    let (csv, _) = run_in(dir.path(), &["export", "g.json", "--format", "csv"], 0);
    assert_eq!(
        csv,
        "source,target,case_sensitive,keep\nUS,EE. UU.,yes,\nus,nosotros,,\nGlossa Café,Glossa Café,yes,yes\n"
    );
    // A cell that is neither yes nor no is refused with its line.
    std::fs::write(
        dir.path().join("bad.csv"),
        "source,target,keep\nAcme,Acme,perhaps\n",
    )
    .unwrap();
    let (_, stderr) = run_in(dir.path(), &["import", "bad.csv", "--out", "bad.json"], 2);
    assert!(
        stderr.contains("bad.csv:2: `Acme`: \"perhaps\" in column `keep`"),
        "{stderr}"
    );
}

#[test]
fn a_kept_target_that_differs_from_its_source_is_refused_by_line() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("g.json"),
        "{\"entries\": [\n {\"source\": \"tea\", \"target\": \"te\"},\n {\"source\": \"Acme\", \"target\": \"Acne\", \"keep\": true}\n]}",
    )
    .unwrap();
    let (_, stderr) = run_in(dir.path(), &["translate", "-g", "g.json", "tea"], 2);
    assert!(stderr.contains("g.json:3"), "{stderr}");
    assert!(stderr.contains("`keep` is set"), "{stderr}");
}
