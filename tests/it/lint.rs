//! `glossa lint` through the real binary: each check on a small bad
//! glossary, exit codes, and WordNet alias suggestions (skipped with a note
//! when WordNet's data files are not installed).

use crate::support;
use serde_json::Value;
use std::path::PathBuf;
use support::{fixture, glossa};

/// `glossa lint FILE --format json ARGS`: exit code and parsed output.
fn lint_json(file: &str, args: &[&str]) -> (i32, Value) {
    let out = glossa()
        .arg("lint")
        .arg(fixture(file))
        .args(["--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), v)
}

/// `(line, entry, severity)` of each finding of `check`.
fn found(v: &Value, check: &str) -> Vec<(u64, String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == check)
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["entry"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn w(line: u64, entry: &str) -> (u64, String, String) {
    (line, entry.to_string(), "warning".to_string())
}

fn n(line: u64, entry: &str) -> (u64, String, String) {
    (line, entry.to_string(), "note".to_string())
}

#[test]
fn each_check_names_the_entry_and_its_line() {
    let (code, v) = lint_json("lint-bad.json", &[]);
    assert_eq!(code, 1, "warnings exit with 1");
    assert_eq!(found(&v, "duplicate-key"), [w(6, "java"), w(8, "cookies")]);
    // SPEC v2: short words ("go"), long keys and punctuation ("Mr. Smith")
    // are found as written; a lower-case stop word and keys over the bound
    // never are.
    assert_eq!(found(&v, "never-matches"), [w(9, "up"), w(20, "huge")]);
    assert_eq!(found(&v, "leading-article"), [n(11, "long")]);
    assert_eq!(found(&v, "context-own-key"), [w(19, "fig")]);
    assert_eq!(found(&v, "nested"), [n(4, "coffee"), n(6, "java")]);
    assert_eq!(
        found(&v, "ambiguous"),
        [
            w(7, "cookie"),
            w(8, "cookies"),
            w(13, "date"),
            n(14, "mint")
        ]
    );
    assert_eq!(
        found(&v, "redundant-alias"),
        [n(17, "scone"), n(17, "scone"), n(18, "takeaway")]
    );
    // "the" and "jam" are English whatever word list is installed; the
    // invented targets are not.
    let english = found(&v, "target-english");
    assert!(english.contains(&w(15, "tea")), "{english:?}");
    assert!(english.contains(&w(16, "jam")), "{english:?}");
    for made_up in ["coffee", "cold-coffee", "date", "up"] {
        assert!(!english.iter().any(|f| f.1 == made_up), "{made_up}");
    }
    // Every finding carries a message and a suggestion.
    for f in v["findings"].as_array().unwrap() {
        assert!(!f["message"].as_str().unwrap().is_empty());
        assert!(!f["suggestion"].as_str().unwrap().is_empty());
    }
    let nested = &v["findings"][0];
    assert_eq!(nested["check"], "nested");
    assert!(nested["message"]
        .as_str()
        .unwrap()
        .contains("`coffee` lies inside `cold coffee` (entry `cold-coffee`, line 5)"));
    assert!(nested["suggestion"].as_str().unwrap().contains("longest"));
}

/// "C++" is keyed `c` and "S" `s`: every lone letter retrieves them. The
/// stop word "a" is never looked up (`never-matches` says so instead).
#[test]
fn one_letter_keys_are_noted() {
    let (_, v) = lint_json("lint-one-letter.json", &[]);
    assert_eq!(found(&v, "one-letter"), [n(4, "cpp"), n(6, "s")]);
    assert_eq!(found(&v, "never-matches"), [w(7, "a")]);
}

/// "±" and "&" have no letter or digit: noted (found only as written),
/// and two entries of the same symbols are duplicates, told apart from
/// other symbols by their text ("C++" has a word: not noted).
#[test]
fn keys_of_symbols_only_are_noted_and_compared_by_text() {
    let (_, v) = lint_json("lint-symbols.json", &[]);
    assert_eq!(
        found(&v, "symbols-only"),
        [n(4, "pm"), n(4, "pm"), n(5, "and"), n(6, "amp")]
    );
    assert_eq!(found(&v, "duplicate-key"), [w(6, "amp")]);
}

#[test]
fn notes_alone_exit_zero() {
    let (code, v) = lint_json("lint-clean.json", &[]);
    assert_eq!(code, 0);
    assert_eq!(v["warnings"], 0);
    assert_eq!(found(&v, "nested"), [n(5, "coffee")]);
}

#[test]
fn table_output_and_summary() {
    let out = glossa()
        .arg("lint")
        .arg(fixture("lint-bad.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("never-matches"));
    assert!(table.contains("context-own-key"));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("10 warnings, 7 notes in 17 entries"),
        "{stderr}"
    );
}

#[test]
fn missing_wordnet_is_a_clear_error() {
    glossa()
        .arg("lint")
        .arg(fixture("lint-clean.json"))
        .args(["--suggest-aliases", "--wordnet", "/no/such/wordnet"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("WordNet data files not found"))
        .stderr(predicates::str::contains("wordnet-base"));
}

fn wordnet_installed() -> bool {
    let dir = std::env::var_os("WNSEARCHDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/wordnet"));
    if dir.join("index.noun").exists() && dir.join("data.noun").exists() {
        true
    } else {
        eprintln!(
            "note: WordNet data files not found in {}; skipping (apt-get install wordnet-base)",
            dir.display()
        );
        false
    }
}

#[test]
fn wordnet_suggestions_stay_in_the_entry_sense() {
    if !wordnet_installed() {
        return;
    }
    let (code, v) = lint_json("lint-clean.json", &["--suggest-aliases"]);
    assert_eq!(code, 0);
    let s = &v["alias_suggestions"];
    assert_eq!(s["domain"], serde_json::json!(["noun.food"]));
    let adds = |entry: &str| -> Vec<String> {
        s["suggestions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["entry"] == entry)
            .flat_map(|a| a["add"].as_array().unwrap().clone())
            .map(|a| a.as_str().unwrap().to_string())
            .collect()
    };
    // The bread roll: "bun", not a roster, a drum roll or a rolling motion.
    let roll = adds("roll");
    assert!(roll.contains(&"bun".to_string()), "{roll:?}");
    for wrong in [
        "roster",
        "paradiddle",
        "drum roll",
        "roller",
        "axial rotation",
        "coil",
        "curl",
    ] {
        assert!(!roll.contains(&wrong.to_string()), "{wrong} in {roll:?}");
    }
    // Takeaway food, not a concession or a lesson.
    let takeaway = adds("takeaway");
    assert!(takeaway.contains(&"takeout".to_string()), "{takeaway:?}");
    assert!(!takeaway.contains(&"concession".to_string()));
    // Nothing was written.
    let text = std::fs::read_to_string(fixture("lint-clean.json")).unwrap();
    assert!(!text.contains("takeout"));
}

/// A source word that is not English but one slip from an English word is
/// named with that word ("rasberry" → raspberry); words one letter
/// *replaced* from English ("muxer"), capitalised names and sources of a
/// glossary from another language are left alone.
#[test]
fn a_misspelt_source_is_named_with_the_word_it_likely_meant() {
    let dir = tempfile::TempDir::new().unwrap();
    let write = |name: &str, lang: &str| {
        let text = format!(
            r#"{{"source_lang": "{lang}", "target_lang": "de", "entries": [
  {{"source": "rasberry", "target": "Himbeere"}},
  {{"source": "accomodation", "target": "Unterkunft"}},
  {{"source": "muxer", "target": "Muxer"}},
  {{"source": "Glosa", "target": "Glosa"}},
  {{"source": "raspberry jam", "target": "Himbeermarmelade"}}
]}}"#
        );
        std::fs::write(dir.path().join(name), text).unwrap();
    };
    write("en.json", "en");
    write("fr.json", "fr");
    let lint = |name: &str| {
        let out = support::glossa_in(dir.path())
            .args(["lint", name, "--format", "json"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let findings = v["findings"].as_array().cloned().unwrap_or_default();
        findings
            .into_iter()
            .filter(|f| f["check"] == "misspelt-source")
            .map(|f| {
                (
                    f["entry"].as_str().unwrap().to_string(),
                    f["message"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let found = lint("en.json");
    let entries: Vec<&str> = found.iter().map(|(e, _)| e.as_str()).collect();
    assert_eq!(entries, ["rasberry", "accomodation"], "{found:?}");
    assert!(
        found[0].1.contains("did you mean `raspberry`?"),
        "{found:?}"
    );
    assert!(
        found[1].1.contains("did you mean `accommodation`?"),
        "{found:?}"
    );
    assert!(lint("fr.json").is_empty());
}
