//! `glossa export --to crowdin|lokalise` (docs/formats.md, "Exporting to
//! Crowdin and Lokalise"): the header row is the one of the import samples
//! built to the vendors' layouts (tests/fixtures/import/), the file imports
//! back as the same entries, what the layout cannot hold is said once, and
//! a glossary with no target language is refused with nothing written.

use crate::support::{fixture, repo_file, run_in};
use serde_json::Value;
use std::path::Path;

const SYSTEMS: [&str; 2] = ["crowdin", "lokalise"];

/// Every field an entry can have, in several scripts, with what CSV must
/// quote (a comma, quotes, a line break in a sense).
const EVERY_FIELD: &str = r#"{"name": "shop", "source_lang": "en", "target_lang": "de", "entries": [
  {"id": "pr", "source": "pull request", "target": "Pull-Request", "sense": "A proposed change (noun)"},
  {"source": "merge", "target": "zusammenführen", "aliases": ["merging"], "forms": ["zusammengeführt", "führt zusammen"]},
  {"source": "price, per kg", "target": "Preis \"pro kg\"", "sense": "on a label,\nnot the total"},
  {"source": "date", "target": "Dattel", "sense": "the fruit", "context": {"any": ["palm"], "not": ["save"]}, "forbidden": ["Datum"]},
  {"source": "Glossa Café", "keep": true, "case_sensitive": true},
  {"source": "HTML", "target": "HTML", "case_sensitive": true},
  {"source": "water", "target": "ទឹក"}
]}"#;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (source, target, sense) of each entry; a missing target is the source.
fn triples(g: &Value) -> Vec<(String, String, String)> {
    g["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let source = e["source"].as_str().unwrap().to_string();
            let target = e["target"].as_str().unwrap_or(&source).to_string();
            let sense = e["sense"].as_str().unwrap_or("").to_string();
            (source, target, sense)
        })
        .collect()
}

fn langs(g: &Value) -> (String, String) {
    (
        g["source_lang"].as_str().unwrap_or("en").to_string(),
        g["target_lang"].as_str().unwrap().to_string(),
    )
}

/// Export `glossary` to `system` in `dir`, then import the file: the
/// glossary read back and the export's stderr.
fn round_trip(dir: &Path, glossary: &Path, system: &str) -> (Value, String) {
    let out = format!("{system}.csv");
    let back = format!("back-{system}.json");
    let (_, stderr) = run_in(
        dir,
        &[
            "export",
            glossary.to_str().unwrap(),
            "--to",
            system,
            "--out",
            &out,
        ],
        0,
    );
    run_in(dir, &["import", &out, "--out", &back], 0);
    (read_json(&dir.join(back)), stderr)
}

#[test]
fn the_demo_glossary_comes_back_as_the_same_entries_and_languages() {
    let demo = repo_file("glossaries/cafe.json");
    let original = read_json(&demo);
    let with_aliases = original["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["aliases"].as_array().is_some_and(|a| !a.is_empty()))
        .count();
    assert!(with_aliases > 0, "the demo has aliases to report");
    for system in SYSTEMS {
        let dir = tempfile::tempdir().unwrap();
        let (back, stderr) = round_trip(dir.path(), &demo, system);
        assert_eq!(triples(&back), triples(&original), "{system}");
        assert_eq!(langs(&back), ("en".into(), "x-cafe".into()), "{system}");
        // What the layout has no place for is said once, with its count.
        assert_eq!(
            stderr.matches("does not carry").count(),
            1,
            "{system}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("aliases ({with_aliases} entries)")),
            "{system}: {stderr}"
        );
    }
}

#[test]
fn a_glossary_using_every_field_keeps_what_each_layout_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shop.json");
    std::fs::write(&path, EVERY_FIELD).unwrap();
    let original = read_json(&path);
    for system in SYSTEMS {
        let (back, stderr) = round_trip(dir.path(), &path, system);
        // Pairs (a kept entry's target is its source) and senses, quoted
        // commas, quotes and line breaks included.
        assert_eq!(triples(&back), triples(&original), "{system}");
        assert_eq!(langs(&back), ("en".into(), "de".into()), "{system}");
        let entries = back["entries"].as_array().unwrap();
        let flag = |i: usize, f: &str| entries[i][f].as_bool().unwrap_or(false);
        // Neither layout has a place for aliases, forms, context, the
        // entry's forbidden words or an id: all named in one note.
        for e in entries {
            for gone in ["aliases", "forms", "context", "forbidden"] {
                assert!(
                    e.get(gone)
                        .is_none_or(|v| v.as_array().is_some_and(|a| a.is_empty())
                            || v.as_object().is_some_and(|o| o.is_empty())),
                    "{system}: {e}"
                );
            }
        }
        assert_eq!(stderr.matches("does not carry").count(), 1, "{stderr}");
        for lost in [
            "aliases (1 entry)",
            "forms beyond the target (1 entry)",
            "context (1 entry)",
            "forbidden terms (1 entry)",
            "ids (1 entry)",
        ] {
            assert!(stderr.contains(lost), "{system}: {lost}: {stderr}");
        }
        match system {
            // Lokalise's flags: case_sensitive, and translatable no for keep.
            "lokalise" => {
                assert!(flag(4, "keep") && flag(4, "case_sensitive"), "{back}");
                assert!(flag(5, "case_sensitive") && !flag(5, "keep"), "{back}");
                assert!(!flag(0, "case_sensitive") && !flag(0, "keep"), "{back}");
                assert!(!stderr.contains("case_sensitive ("), "{stderr}");
            }
            // Crowdin's layout has neither flag: both named as lost.
            _ => {
                assert!(stderr.contains("case_sensitive (2 entries)"), "{stderr}");
                assert!(
                    stderr.contains("keep (the target is written) (1 entry)"),
                    "{stderr}"
                );
            }
        }
    }
}

#[test]
fn the_header_rows_are_the_import_samples_headers() {
    let dir = tempfile::tempdir().unwrap();
    let first_line = |path: &Path| {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let g = dir.path().join("g.json");
    std::fs::write(
        &g,
        r#"{"source_lang": "en", "entries": [{"source": "merge", "target": "x"}]}"#,
    )
    .unwrap();
    let g = g.to_str().unwrap();
    // crowdin.csv is English → German: the whole header.
    run_in(
        dir.path(),
        &[
            "export",
            g,
            "--to",
            "crowdin",
            "--target-lang",
            "de",
            "-o",
            "c.csv",
        ],
        0,
    );
    assert_eq!(
        first_line(&dir.path().join("c.csv")),
        first_line(&fixture("import/crowdin.csv"))
    );
    // lokalise.csv has French and Spanish: the header up to French's columns.
    run_in(
        dir.path(),
        &[
            "export",
            g,
            "--to",
            "lokalise",
            "--target-lang",
            "fr",
            "-o",
            "l.csv",
        ],
        0,
    );
    let sample = first_line(&fixture("import/lokalise.csv"));
    let french = &sample[..sample.find(",translation_es").unwrap()];
    assert_eq!(first_line(&dir.path().join("l.csv")), french);
}

#[test]
fn a_lokalise_file_of_non_english_terms_says_which_source_language_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("de.json");
    std::fs::write(
        &g,
        r#"{"source_lang": "de", "target_lang": "fr", "entries": [{"source": "Kaffee", "target": "café"}]}"#,
    )
    .unwrap();
    let (_, stderr) = run_in(
        dir.path(),
        &[
            "export",
            g.to_str().unwrap(),
            "--to",
            "lokalise",
            "-o",
            "l.csv",
        ],
        0,
    );
    assert!(stderr.contains("needs --source-lang de"), "{stderr}");
    assert!(!stderr.contains("does not carry"), "nothing lost: {stderr}");
    run_in(
        dir.path(),
        &["import", "l.csv", "--source-lang", "de", "--out", "b.json"],
        0,
    );
    let back = read_json(&dir.path().join("b.json"));
    assert_eq!(langs(&back), ("de".into(), "fr".into()));
}

#[test]
fn a_glossary_with_no_target_language_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.json");
    std::fs::write(&g, r#"{"entries": [{"source": "tea", "target": "te"}]}"#).unwrap();
    for system in SYSTEMS {
        let out = format!("{system}.csv");
        let (stdout, stderr) = run_in(
            dir.path(),
            &["export", g.to_str().unwrap(), "--to", system, "-o", &out],
            2,
        );
        assert!(stderr.contains("g.json"), "{stderr}");
        assert!(stderr.contains("--target-lang"), "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(!dir.path().join(&out).exists(), "{system}: nothing written");
    }
}
