//! `glossa check` on real published translations (issue 31, items 4 and
//! 6): Django's gettext catalogues in ten languages and scripts, as PO and
//! as translate-toolkit's XLIFF and TMX (.ci/catalogues.sh, exported by
//! .ci/run as GLOSSA_CATALOGUES). The glossary is built from each
//! catalogue's own short entries ("Arabic" → "Arabisch"), so every segment
//! that is such an entry must pass: a miss there is a false alarm on a
//! correct human translation. Without the folder these tests fail under
//! CI=true and skip elsewhere.

use crate::support;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::path::Path;
use support::{catalogues, jsonl};
use tempfile::TempDir;

const LANGS: [&str; 10] = [
    "de", "fr", "cs", "ar", "hi", "ja", "zh_Hans", "ru", "th", "sw",
];

/// A glossary of the catalogue's entries of one to three words of letters
/// (the first translation of each source), as JSON.
fn glossary_of(pairs: &[(String, String)], lang: &str) -> (Value, usize) {
    let mut seen = HashSet::new();
    let mut entries = Vec::new();
    for (source, target) in pairs {
        let words: Vec<&str> = source.split_whitespace().collect();
        let plain = (1..=3).contains(&words.len())
            && words
                .iter()
                .all(|w| w.chars().all(|c| c.is_alphabetic() || c == '-'))
            && !target.trim().is_empty();
        if plain && seen.insert(source.to_lowercase()) {
            entries.push(json!({"id": format!("e{}", entries.len()), "source": source, "target": target.trim()}));
        }
    }
    let n = entries.len();
    (
        json!({"name": "django", "source_lang": "en", "target_lang": lang, "entries": entries}),
        n,
    )
}

fn pairs_of(expected: &Path) -> Vec<(String, String)> {
    jsonl(expected)
        .into_iter()
        .map(|v| {
            (
                v["source"].as_str().unwrap().to_string(),
                v["target"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_catalogue_entry_that_is_a_glossary_term_passes_in_every_format() {
    let Some(dir) = catalogues() else { return };
    for lang in LANGS {
        let work = TempDir::new().unwrap();
        let cwd = work.path();
        let pairs = pairs_of(&dir.join(lang).join("django.po.expected.jsonl"));
        let (glossary, terms) = glossary_of(&pairs, lang);
        assert!(terms > 50, "{lang}: only {terms} short entries");
        std::fs::write(cwd.join("g.json"), glossary.to_string()).unwrap();

        // The pairs as translate-toolkit read them, the term segments
        // marked by id.
        // A term segment is an entry's own pair; "April" is also "avr."
        // in its abbreviated context, which is no false alarm to count.
        let terms_written: HashSet<(String, String)> = glossary["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let text = |f: &str| e[f].as_str().unwrap().to_string();
                (text("source"), text("target"))
            })
            .collect();
        let lines: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(i, (s, t))| {
                let id = match terms_written.contains(&(s.clone(), t.trim().to_string())) {
                    true => format!("term{i}"),
                    false => format!("seg{i}"),
                };
                json!({"id": id, "source": s, "target": t}).to_string()
            })
            .collect();
        std::fs::write(cwd.join("pairs.jsonl"), lines.join("\n")).unwrap();
        let (stdout, stderr) =
            run_any(cwd, &["check", "-g", "g.json", "pairs.jsonl", "-f", "json"]);
        let v: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{lang}: {e} {stderr}"));
        let segments = v["segments"].as_array().unwrap();
        assert_eq!(segments.len(), pairs.len(), "{lang}");
        let false_alarms: Vec<&Value> = segments
            .iter()
            .filter(|s| s["id"].as_str().unwrap().starts_with("term") && s["ok"] != true)
            .collect();
        assert!(
            false_alarms.is_empty(),
            "{lang}: {} of the catalogue's own term segments failed, e.g. {}",
            false_alarms.len(),
            false_alarms[0]
        );
        let summary = &v["summary"];
        eprintln!(
            "{lang}: {} segments, {} terms needed, accuracy {}, consistency {}",
            summary["segments"],
            summary["terms_needed"],
            summary["term_accuracy"],
            summary["consistency"]
        );

        // The real files themselves, through glossa's readers, need the
        // same terms and find the same ones.
        for file in ["django.po", "django.xlf", "django.tmx"] {
            let path = dir.join(lang).join(file);
            let path = path.display().to_string();
            let (stdout, stderr) = run_any(cwd, &["check", "-g", "g.json", &path, "-f", "json"]);
            let w: Value =
                serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{file}: {e} {stderr}"));
            let expected = pairs_of(&dir.join(lang).join(format!("{file}.expected.jsonl")));
            assert_eq!(w["summary"]["segments"], expected.len(), "{lang} {file}");
            // Every format holds the PO's segments, so the same terms.
            assert_eq!(expected.len(), pairs.len(), "{lang} {file}");
            for figure in ["terms_needed", "terms_found"] {
                assert_eq!(
                    w["summary"][figure], summary[figure],
                    "{lang} {file} {figure}"
                );
            }
        }
    }
}

/// `glossa ARGS` in `cwd` that checked (exit 0 or 1, never 2).
fn run_any(cwd: &Path, args: &[&str]) -> (String, String) {
    let out = support::glossa_in(cwd).args(args).output().unwrap();
    let code = out.status.code().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(code == 0 || code == 1, "exit {code}: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}
