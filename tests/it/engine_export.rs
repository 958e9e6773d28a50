//! `glossa export --to deepl|google|google-sets|amazon|amazon-tsv` and
//! `glossa lint --for ENGINE` (docs/formats.md, "Exporting to MT
//! engines"): each engine's file imports back as the same (source, target)
//! pairs and languages; each documented limit fires on a glossary built to
//! break it, nothing is written then, and the rules stay silent on the demo
//! and on a real dictionary except where it truly breaks them.

use crate::support::{glossa_in, required_data, run_in};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

const ENGINES: [&str; 5] = ["deepl", "google", "google-sets", "amazon", "amazon-tsv"];

/// A glossary in several scripts, with what CSV must quote (commas,
/// quotes), aliases, a sense, a context, forms and a kept name.
const SHOP: &str = r#"{"name": "shop", "source_lang": "en", "target_lang": "km", "entries": [
  {"source": "cold coffee", "target": "កាហ្វេត្រជាក់", "aliases": ["iced coffee"]},
  {"source": "price, per kg", "target": "តម្លៃ \"គីឡូ\""},
  {"source": "date", "target": "ផ្លែលម៉ើ", "sense": "the fruit, not the day", "context": {"any": ["palm"]}},
  {"source": "tea", "target": "តែ", "forms": ["តែក្រហម"]},
  {"source": "Glossa Café", "keep": true, "case_sensitive": true}
]}"#;

fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).unwrap();
    name.to_string()
}

/// (source, target) of each entry of a glossary JSON file.
fn pairs(g: &Value) -> Vec<(String, String)> {
    g["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let source = e["source"].as_str().unwrap().to_string();
            let target = e["target"].as_str().unwrap_or(&source).to_string();
            (source, target)
        })
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn each_engine_file_imports_back_as_the_same_pairs_and_languages() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(dir.path(), "shop.json", SHOP);
    // The pairs an engine gets: each entry, then its alias → its target.
    let mut expected = pairs(&read_json(&dir.path().join("shop.json")));
    expected.insert(1, ("iced coffee".into(), "កាហ្វេត្រជាក់".into()));
    for engine in ENGINES {
        let ext = if engine == "amazon-tsv" { "tsv" } else { "csv" };
        let out = format!("shop-{engine}.{ext}");
        let (_, stderr) = run_in(
            dir.path(),
            &["export", &g, "--to", engine, "--out", &out],
            0,
        );
        // What the file cannot carry is said once.
        assert_eq!(
            stderr.matches("does not carry").count(),
            1,
            "{engine}: {stderr}"
        );
        assert!(stderr.contains("context (1 entry)"), "{engine}: {stderr}");
        // Headerless files need the languages at import, as at the engine.
        let back_file = format!("back-{engine}.json");
        let mut args = vec!["import", out.as_str(), "--out", back_file.as_str()];
        if matches!(engine, "deepl" | "google") {
            assert!(stderr.contains("give source en and target km"), "{stderr}");
            args.extend(["--source-lang", "en", "--target-lang", "km"]);
        }
        run_in(dir.path(), &args, 0);
        let back = read_json(&dir.path().join(&back_file));
        assert_eq!(pairs(&back), expected, "{engine}");
        assert_eq!(
            (back["source_lang"].as_str(), back["target_lang"].as_str()),
            (Some("en"), Some("km")),
            "{engine}"
        );
        // Only the equivalent term sets keep the sense (a description column).
        let sense = back["entries"][3]["sense"].as_str();
        match engine {
            "google-sets" => assert_eq!(sense, Some("the fruit, not the day")),
            _ => assert_eq!(sense, None, "{engine}"),
        }
    }
}

#[test]
fn the_files_are_laid_out_as_the_engines_document() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(
        dir.path(),
        "g.json",
        r#"{"source_lang": "en", "target_lang": "de", "entries": [
          {"source": "tea, iced", "target": "Eistee", "sense": "a drink"}]}"#,
    );
    let text = |engine: &str| run_in(dir.path(), &["export", &g, "--to", engine], 0).0;
    assert_eq!(text("deepl"), "\"tea, iced\",Eistee\n");
    assert_eq!(text("google"), "\"tea, iced\",Eistee\n");
    assert_eq!(
        text("google-sets"),
        "en,de,description\n\"tea, iced\",Eistee,a drink\n"
    );
    assert_eq!(text("amazon"), "en,de\n\"tea, iced\",Eistee\n");
    assert_eq!(text("amazon-tsv"), "en\tde\ntea, iced\tEistee\n");
}

#[test]
fn the_demo_exports_to_every_engine_and_lints_clean_for_each() {
    let dir = tempfile::tempdir().unwrap();
    for engine in ENGINES {
        let (text, _) = run_in(dir.path(), &["export", "--to", engine], 0);
        assert!(text.lines().count() > 25, "{engine}: {text}");
        let (json, _) = run_in(
            dir.path(),
            &["lint", "--for", engine, "--format", "json"],
            0,
        );
        let v: Value = serde_json::from_str(&json).unwrap();
        let engine_checks: Vec<&Value> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                ENGINES
                    .iter()
                    .any(|e| f["check"].as_str().unwrap().starts_with(&e[..4]))
            })
            .collect();
        assert!(engine_checks.is_empty(), "{engine}: {engine_checks:?}");
    }
}

/// `export --to ENGINE` that must be refused: exit 1, nothing written,
/// stderr returned.
fn refused(dir: &Path, glossary: &str, engine: &str) -> String {
    let out = dir.join("refused.csv");
    let (stdout, stderr) = run_in(
        dir,
        &[
            "export",
            glossary,
            "--to",
            engine,
            "--out",
            out.to_str().unwrap(),
        ],
        1,
    );
    assert!(!out.exists(), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("nothing was written"), "{stderr}");
    stderr
}

/// The checks `lint --for ENGINE` reports: (check, entry, line, severity).
fn lint_for(dir: &Path, glossary: &str, engine: &str) -> Vec<(String, String, u64, String)> {
    let out = glossa_in(dir)
        .args(["lint", glossary, "--for", engine, "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["check"].as_str().unwrap().contains('-')
                && f["check"].as_str().unwrap().starts_with(&engine[..4])
        })
        .map(|f| {
            (
                f["check"].as_str().unwrap().to_string(),
                f["entry"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_duplicate_source_refuses_the_deepl_file_naming_both_entries() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(
        dir.path(),
        "dates.json",
        r#"{"source_lang": "en", "target_lang": "de", "entries": [
          {"id": "date-fruit", "source": "date", "target": "Dattel", "context": {"any": ["palm"]}},
          {"id": "date-day", "source": "date", "target": "Datum", "context": {"any": ["calendar"]}},
          {"source": "Date", "target": "Datum"}
        ]}"#,
    );
    let stderr = refused(dir.path(), &g, "deepl");
    assert!(
        stderr.contains("dates.json:3: entry `date-day`: source `date` is also the source of entry `date-fruit` (line 2)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("`Date`"),
        "DeepL compares sources as written: {stderr}"
    );
    assert_eq!(
        lint_for(dir.path(), &g, "deepl"),
        [(
            "deepl-duplicate".into(),
            "date-day".into(),
            3,
            "error".into()
        )]
    );
    // --drop-refused leaves the later one out and says so.
    let (text, stderr) = run_in(
        dir.path(),
        &["export", &g, "--to", "deepl", "--drop-refused"],
        0,
    );
    assert_eq!(text, "date,Dattel\nDate,Datum\n");
    assert!(
        stderr.contains("entry `date-day`") && stderr.contains("left out"),
        "{stderr}"
    );
    // Amazon matches whatever the case: a warning for each later source
    // with another target, and the file is written.
    assert_eq!(
        lint_for(dir.path(), &g, "amazon"),
        [
            (
                "amazon-duplicate".into(),
                "date-day".into(),
                3,
                "warning".into()
            ),
            (
                "amazon-duplicate".into(),
                "Date".into(),
                4,
                "warning".into()
            ),
        ]
    );
    let (text, stderr) = run_in(dir.path(), &["export", &g, "--to", "amazon"], 0);
    assert_eq!(text.lines().count(), 4, "{stderr}");
    assert!(
        stderr.contains("warning:") && stderr.contains("amazon-duplicate"),
        "{stderr}"
    );
}

#[test]
fn terms_the_engines_refuse_are_named_by_entry_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let deepl_max = "ä".repeat(512); // 1,024 bytes: the most DeepL takes
    let amazon_max = "ö".repeat(100); // 200 bytes: the most Amazon takes
    let g = write(
        dir.path(),
        "terms.json",
        &format!(
            r#"{{"source_lang": "en", "target_lang": "de", "entries": [
          {{"source": "tab", "target": "Tab\tulator"}},
          {{"source": "long", "target": "{deepl_max}x"}},
          {{"source": "longest", "target": "{deepl_max}"}},
          {{"source": "amazon", "target": "{amazon_max}"}},
          {{"source": "line", "target": "Zeile\u2028zwei"}}
        ]}}"#
        ),
    );
    let stderr = refused(dir.path(), &g, "deepl");
    assert!(
        stderr.contains(
            "terms.json:2: entry `tab`: target \"Tab\\tulator\" holds the control character U+0009"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("terms.json:3: entry `long`: target is 1025 bytes"),
        "{stderr}"
    );
    assert_eq!(
        lint_for(dir.path(), &g, "deepl")
            .iter()
            .map(|f| (f.0.as_str(), f.1.as_str()))
            .collect::<Vec<_>>(),
        [
            ("deepl-characters", "tab"),
            ("deepl-entry-size", "long"),
            ("deepl-characters", "line")
        ]
    );
    let stderr = refused(dir.path(), &g, "amazon");
    assert!(
        stderr.contains(
            "entry `long`: target is 1025 bytes in UTF-8; Amazon Translate takes at most 200"
        ),
        "{stderr}"
    );
    let amazon: Vec<String> = lint_for(dir.path(), &g, "amazon")
        .into_iter()
        .map(|f| f.1)
        .collect();
    assert_eq!(amazon, ["long", "longest"]);
    // Google documents no such limits: the same glossary goes out.
    run_in(dir.path(), &["export", &g, "--to", "google"], 0);
}

#[test]
fn files_over_the_engines_size_limits_are_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    // 28,000 entries of 190-byte terms: about 10.7 MB and 10.7 million
    // code points, under every per-term limit.
    let entries: Vec<String> = (0..28_000)
        .map(|i| {
            let pad = "t".repeat(180);
            format!(r#"{{"source":"s{i:06}{pad}","target":"z{i:06}{pad}"}}"#)
        })
        .collect();
    let g = write(
        dir.path(),
        "big.json",
        &format!(
            r#"{{"source_lang":"en","target_lang":"de","entries":[{}]}}"#,
            entries.join(",\n")
        ),
    );
    for (engine, check) in [
        ("deepl", "deepl-file-size"),
        ("amazon", "amazon-file-size"),
        ("google", "google-size"),
    ] {
        let stderr = refused(dir.path(), &g, engine);
        assert!(stderr.contains(&format!("[{check}]")), "{stderr}");
        assert_eq!(
            stderr.matches("error:").count(),
            2,
            "one finding and the summary: {stderr}"
        );
    }
    // --drop-refused cannot make a whole file fit.
    let stderr = {
        let (_, e) = run_in(
            dir.path(),
            &[
                "export",
                &g,
                "--to",
                "deepl",
                "--drop-refused",
                "--out",
                "x.csv",
            ],
            1,
        );
        e
    };
    assert!(stderr.contains("deepl-file-size"), "{stderr}");
    assert!(!dir.path().join("x.csv").exists());
    // A tenth of it is far from every limit.
    let small = write(
        dir.path(),
        "small.json",
        &format!(
            r#"{{"source_lang":"en","target_lang":"de","entries":[{}]}}"#,
            entries[..2_800].join(",\n")
        ),
    );
    for engine in ENGINES {
        run_in(
            dir.path(),
            &["export", &small, "--to", engine, "--out", "small.csv"],
            0,
        );
    }
}

#[test]
fn no_target_language_is_refused_where_the_file_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let g = write(
        dir.path(),
        "bare.json",
        r#"{"entries": [{"source": "tea", "target": "te"}]}"#,
    );
    for engine in ["amazon", "amazon-tsv", "google-sets"] {
        let (_, stderr) = run_in(
            dir.path(),
            &["export", &g, "--to", engine, "--out", "x.csv"],
            2,
        );
        assert!(
            stderr.contains("bare.json: the glossary has no target language"),
            "{stderr}"
        );
        assert!(
            stderr.contains(&format!("--to {engine} --target-lang CODE")),
            "{stderr}"
        );
        assert!(!dir.path().join("x.csv").exists());
    }
    // lint --for says so as a finding of its own, and checks the rest.
    let out = crate::support::glossa_in(dir.path())
        .args(["lint", &g, "--for", "amazon", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["check"].as_str().unwrap())
        .filter(|c| c.starts_with("engine") || c.starts_with("amazon"))
        .collect();
    assert_eq!(checks, ["engine-language"]);
    // The fix the message names works, a language name read as its code.
    let (text, _) = run_in(
        dir.path(),
        &["export", &g, "--to", "amazon", "--target-lang", "Khmer"],
        0,
    );
    assert_eq!(text, "en,km\ntea,te\n");
    // DeepL's and Google's pairs name no language: written, with a note.
    let (text, stderr) = run_in(dir.path(), &["export", &g, "--to", "deepl"], 0);
    assert_eq!(text, "tea,te\n");
    assert!(stderr.contains("the glossary names none"), "{stderr}");
}

/// FreeDict English-German (Debian dict-freedict-eng-deu), converted by
/// bench/real_data.py as the real-data tests do.
fn freedict_glossary(dir: &Path) -> Option<String> {
    let dictd = required_data(
        Some("/usr/share/dictd".into()),
        |d| d.join("freedict-eng-deu.index").exists(),
        "dict-freedict-eng-deu is not installed (apt-get install dict-freedict-eng-deu)",
    )?;
    let status = std::process::Command::new("python3")
        .arg(crate::support::repo_file("bench/real_data.py"))
        .arg("glossary")
        .arg(dictd.join("freedict-eng-deu.index"))
        .arg(dictd.join("freedict-eng-deu.dict.dz"))
        .arg(dir.join("deu.json"))
        .status()
        .ok()?;
    assert!(status.success());
    Some("deu.json".into())
}

/// The (check, entry) of each finding `export --to ENGINE` prints.
fn export_findings(stderr: &str) -> HashSet<(String, String)> {
    const CHECKS: [&str; 8] = [
        "deepl-duplicate",
        "deepl-characters",
        "deepl-entry-size",
        "deepl-file-size",
        "amazon-duplicate",
        "amazon-term-size",
        "amazon-file-size",
        "google-size",
    ];
    stderr
        .lines()
        .filter_map(|line| {
            let check = CHECKS.iter().find(|c| line.contains(&format!(" [{c}]")))?;
            let entry = line
                .split_once(": entry `")
                .and_then(|(_, rest)| rest.split_once("`: "))
                .map_or("", |(id, _)| id);
            Some((check.to_string(), entry.to_string()))
        })
        .collect()
}

/// What DeepL's documented rules refuse in a source or target, restated:
/// empty, a control character or line/paragraph separator, white space at
/// an end, over 1,024 bytes.
fn deepl_refuses(text: &str) -> Option<&'static str> {
    if text.is_empty()
        || text
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')
        || text.trim() != text
    {
        Some("deepl-characters")
    } else if text.len() > 1024 {
        Some("deepl-entry-size")
    } else {
        None
    }
}

fn field<'a>(e: &'a Value, key: &str) -> &'a str {
    e[key]
        .as_str()
        .unwrap_or_else(|| e["source"].as_str().unwrap())
}

#[test]
fn a_real_dictionary_breaks_only_the_rules_it_truly_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let Some(g) = freedict_glossary(dir.path()) else {
        return;
    };
    let glossary = read_json(&dir.path().join(&g));
    let entries = glossary["entries"].as_array().unwrap();
    assert!(entries.len() > 100_000, "{}", entries.len());
    // What DeepL refuses, computed here from the dictionary: each source
    // written before (FreeDict repeats headwords, `source (2)` ids), each
    // term with a control character (FreeDict has U+0096, a Windows-1252
    // dash read as Latin-1), and the whole file, 17 MB.
    let mut expected = HashSet::new();
    let mut seen = HashSet::new();
    for e in entries {
        let id = field(e, "id").to_string();
        if !seen.insert(field(e, "source")) {
            expected.insert(("deepl-duplicate".to_string(), id.clone()));
        }
        for text in [field(e, "source"), field(e, "target")] {
            if let Some(check) = deepl_refuses(text) {
                expected.insert((check.to_string(), id.clone()));
            }
        }
    }
    let bytes: usize = entries
        .iter()
        .map(|e| field(e, "source").len() + field(e, "target").len() + 2)
        .sum();
    assert!(bytes > 10 * 1024 * 1024, "{bytes}");
    expected.insert(("deepl-file-size".to_string(), String::new()));
    let (_, stderr) = run_in(
        dir.path(),
        &[
            "export",
            &g,
            "--to",
            "deepl",
            "--target-lang",
            "de",
            "--out",
            "deu.csv",
        ],
        1,
    );
    assert!(!dir.path().join("deu.csv").exists());
    let found = export_findings(&stderr);
    assert!(found.contains(&("deepl-characters".to_string(), "I\u{96}V curve".to_string())));
    assert_eq!(found.len(), expected.len());
    assert_eq!(found, expected);

    // Its first 30,000 entries, under every size limit: with the refused
    // rows left out, the file imports back as the first entry of each
    // source, every other pair as it was.
    let slice = serde_json::json!({
        "name": "deu", "source_lang": "en", "target_lang": "de",
        "entries": entries[..30_000].to_vec(),
    });
    std::fs::write(dir.path().join("slice.json"), slice.to_string()).unwrap();
    let (_, stderr) = run_in(
        dir.path(),
        &[
            "export",
            "slice.json",
            "--to",
            "deepl",
            "--drop-refused",
            "--out",
            "slice.csv",
        ],
        0,
    );
    let dropped = export_findings(&stderr);
    assert!(stderr.lines().filter(|l| l.ends_with("left out")).count() >= dropped.len());
    run_in(
        dir.path(),
        &[
            "import",
            "slice.csv",
            "--source-lang",
            "en",
            "--target-lang",
            "de",
            "--out",
            "back.json",
        ],
        0,
    );
    let back = pairs(&read_json(&dir.path().join("back.json")));
    let mut first = HashSet::new();
    let kept: Vec<(String, String)> = entries[..30_000]
        .iter()
        .filter(|e| {
            first.insert(field(e, "source"))
                && deepl_refuses(field(e, "source")).is_none()
                && deepl_refuses(field(e, "target")).is_none()
        })
        .map(|e| {
            (
                field(e, "source").to_string(),
                field(e, "target").to_string(),
            )
        })
        .collect();
    assert_eq!(back, kept);

    // Amazon on the same slice: a warning for each source that an earlier
    // one is, whatever the case, with another target; an error for a term
    // over 200 bytes (FreeDict has a 206-byte example sentence).
    let mut expected = HashSet::new();
    let mut first_target = std::collections::HashMap::new();
    for e in &entries[..30_000] {
        let (source, target, id) = (field(e, "source"), field(e, "target"), field(e, "id"));
        match first_target.get(&source.to_lowercase()) {
            Some(t) if t != &target => {
                expected.insert(("amazon-duplicate".to_string(), id.to_string()));
            }
            Some(_) => {}
            None => {
                first_target.insert(source.to_lowercase(), target);
            }
        }
        if source.len() > 200 || target.len() > 200 {
            expected.insert(("amazon-term-size".to_string(), id.to_string()));
        }
    }
    assert!(expected.iter().any(|f| f.0 == "amazon-term-size"));
    let (_, stderr) = run_in(dir.path(), &["export", "slice.json", "--to", "amazon"], 1);
    assert_eq!(export_findings(&stderr), expected);
}
