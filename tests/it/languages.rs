//! Languages known by name and code (docs/formats.md, "Languages"): import
//! writes codes and never `"target"`, the prompt names the language, lint
//! warns about a code that is none.

use crate::support::run_in;
use serde_json::Value;
use tempfile::TempDir;

fn dir_with(name: &str, text: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join(name), text).unwrap();
    dir
}

#[test]
fn a_header_of_language_names_gives_their_codes() {
    let dir = dir_with("g.csv", "English,Khmer\ncoffee,កាហ្វេ\ntea,តែ\n");
    let (stdout, _) = run_in(dir.path(), &["import", "g.csv"], 0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (v["source_lang"].as_str(), v["target_lang"].as_str()),
        (Some("en"), Some("km"))
    );
    assert_eq!(v["entries"][0]["target"], "កាហ្វេ");
}

#[test]
fn a_sheet_with_no_language_warns_and_never_writes_target() {
    let dir = dir_with("g.tsv", "coffee\tkafe\ntea\tte\n");
    let (stdout, stderr) = run_in(dir.path(), &["import", "g.tsv"], 0);
    assert!(stderr.contains("--target-lang"), "{stderr}");
    assert!(!stdout.contains("\"target_lang\""), "{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["source_lang"], "en");
    assert!(v.get("target_lang").is_none(), "{stdout}");
    // What is written loads, and its prompt does not say "into target".
    std::fs::write(dir.path().join("g.json"), &stdout).unwrap();
    let (trace, _) = run_in(
        dir.path(),
        &["translate", "-g", "g.json", "coffee", "-f", "json"],
        0,
    );
    let v: Value = serde_json::from_str(&trace).unwrap();
    let prompt = v["prompt"]["output"]["text"].as_str().unwrap();
    assert!(prompt.contains("into the target language"), "{prompt}");
    assert!(!prompt.contains("into target"), "{prompt}");
}

#[test]
fn target_lang_given_by_name_or_locale_is_written_as_the_code() {
    let dir = dir_with("g.tsv", "coffee\tkafe\n");
    let (stdout, stderr) = run_in(
        dir.path(),
        &["import", "g.tsv", "--target-lang", "Khmer"],
        0,
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["target_lang"], "km");
    assert!(
        stderr.contains("--target-lang `Khmer` read as `km` (Khmer)"),
        "{stderr}"
    );
    let (stdout, stderr) = run_in(
        dir.path(),
        &["import", "g.tsv", "--target-lang", "km_KH"],
        0,
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["target_lang"], "km");
    assert!(
        stderr.contains("`km_KH` written as `km` (Khmer)"),
        "{stderr}"
    );
    // A header's locale is normalised with a note naming both.
    let dir = dir_with("h.csv", "en-US,km_KH\ncoffee,kafe\n");
    let (stdout, stderr) = run_in(dir.path(), &["import", "h.csv"], 0);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (v["source_lang"].as_str(), v["target_lang"].as_str()),
        (Some("en"), Some("km"))
    );
    assert!(
        stderr.contains("`km_KH` written as `km` (Khmer)"),
        "{stderr}"
    );
}

#[test]
fn the_prompt_names_the_language() {
    let glossary = r#"{"source_lang":"en","target_lang":"km","entries":[{"source":"coffee","target":"កាហ្វេ"}]}"#;
    let dir = dir_with("g.json", glossary);
    let (stdout, _) = run_in(
        dir.path(),
        &["translate", "-g", "g.json", "Iced coffee", "-f", "json"],
        0,
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let prompt = v["prompt"]["output"]["text"].as_str().unwrap();
    assert!(prompt.contains("into Khmer"), "{prompt}");
    assert!(!prompt.contains("into km"), "{prompt}");
}

#[test]
fn lint_warns_about_a_target_lang_that_is_no_code() {
    let glossary = r#"{"source_lang":"en","target_lang":"Frnch","entries":[{"source":"coffee","target":"café"}]}"#;
    let dir = dir_with("g.json", glossary);
    let (stdout, _) = run_in(dir.path(), &["lint", "g.json", "--format", "json"], 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let found: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "language")
        .collect();
    assert_eq!(found.len(), 1, "{stdout}");
    assert_eq!(found[0]["entry"], "target_lang");
    assert_eq!(found[0]["severity"], "warning");
    assert!(
        found[0]["suggestion"].as_str().unwrap().contains("\"fr\""),
        "{stdout}"
    );
}
