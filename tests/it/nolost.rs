//! No term written in the post is lost by the default (issue 33 item 3):
//! a nested term is kept and shown as part of the longer one, irregular
//! inflections are found through WordNet's exception lists, and a long
//! key takes one real word one edit off (docs/formats.md, `longest`,
//! `irregular`, `edit`).

use crate::support::{self, glossa, run_in};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

/// `glossa retrieve --format json` of `text` over `glossary`: (entry,
/// kind) per match.
fn retrieved(
    glossary: &Path,
    text: &str,
    env: &[(&str, &Path)],
) -> (Vec<(String, String)>, String) {
    let mut cmd = glossa();
    cmd.args(["retrieve", "--format", "json", "-g"])
        .arg(glossary)
        .arg(text);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["matches"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|m| {
            (
                m["entry"].as_str().unwrap().to_string(),
                m["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (rows, stderr)
}

fn write_glossary(dir: &Path, entries: &[(&str, &str, &str)]) -> std::path::PathBuf {
    let entries: Vec<Value> = entries
        .iter()
        .map(|(id, source, target)| serde_json::json!({"id": id, "source": source, "target": target}))
        .collect();
    let path = dir.join("g.json");
    std::fs::write(
        &path,
        serde_json::json!({"name": "g", "target_lang": "de", "entries": entries}).to_string(),
    )
    .unwrap();
    path
}

/// The default keeps "cream" inside "ice cream" and its prompt says it is
/// part of the longer term; a nested term whose target agrees, or one
/// written on its own too, gets no such note.
#[test]
fn a_nested_term_is_shown_as_part_of_the_longer_one() {
    let dir = TempDir::new().unwrap();
    let glossary = write_glossary(
        dir.path(),
        &[
            ("cream", "cream", "Sahne"),
            ("ice-cream", "ice cream", "Eis"),
            ("coffee", "coffee", "Kaffee"),
            ("iced-coffee", "iced coffee", "Eiskaffee"),
        ],
    );
    let g = glossary.to_str().unwrap();
    let prompt = |text: &str| -> String {
        let (out, _) = run_in(
            dir.path(),
            &["translate", "-g", g, "--format", "json", text],
            0,
        );
        let t: Value = serde_json::from_str(&out).unwrap();
        t["prompt"]["output"]["text"].as_str().unwrap().to_string()
    };
    let p = prompt("Ice cream and iced coffee today.");
    assert!(
        p.contains("- cream → Sahne (here part of 'ice cream')\n"),
        "{p}"
    );
    assert!(p.contains("- ice cream → Eis\n"), "{p}");
    // "Kaffee" is written in "Eiskaffee": they agree, the line is as before.
    assert!(p.contains("- coffee → Kaffee\n"), "{p}");
    let p = prompt("Ice cream with whipped cream.");
    assert!(p.contains("- cream → Sahne\n"), "{p}");
    assert!(!p.contains("here part of"), "{p}");
}

/// "40 loaves of rye" finds `loaf`, "children" `child`, "mice" `mouse`
/// (kind stem); without WordNet's lists they are not found and a note
/// says why.
#[test]
fn irregular_inflections_are_found_through_wordnet() {
    let dir = TempDir::new().unwrap();
    let glossary = write_glossary(
        dir.path(),
        &[
            ("loaf", "loaf", "Laib"),
            ("child", "child", "Kind"),
            ("mouse", "mouse", "Maus"),
            ("rye", "rye", "Roggen"),
        ],
    );
    let empty = dir.path().join("no-wordnet");
    std::fs::create_dir(&empty).unwrap();
    let (without, note) = retrieved(
        &glossary,
        "40 loaves of rye",
        &[("WNSEARCHDIR", empty.as_path())],
    );
    assert_eq!(without, [("rye".to_string(), "exact".to_string())]);
    assert!(
        note.contains("note: WordNet's exception lists not found") && note.contains("wordnet-base"),
        "{note}"
    );
    let Some(wordnet) = support::wordnet() else {
        return;
    };
    let env = [("WNSEARCHDIR", wordnet.as_path())];
    for (text, found) in [
        ("40 loaves of rye", vec![("loaf", "stem"), ("rye", "exact")]),
        ("Cakes for the children", vec![("child", "stem")]),
        ("Three blind mice", vec![("mouse", "stem")]),
    ] {
        let (got, note) = retrieved(&glossary, text, &env);
        let want: Vec<(String, String)> = found
            .iter()
            .map(|(e, k)| (e.to_string(), k.to_string()))
            .collect();
        assert_eq!(got, want, "{text}");
        assert!(!note.contains("WordNet"), "{note}");
    }
}

/// "pain au chocolate" is `pain au chocolat`: one word one edit off in a
/// key of three words whose others are written as in the glossary, though
/// "chocolate" is an English word; "chocolate" alone stays itself.
#[test]
fn a_real_word_one_edit_off_in_a_long_key_is_a_typo() {
    let dir = TempDir::new().unwrap();
    let glossary = write_glossary(
        dir.path(),
        &[
            ("pac", "pain au chocolat", "lunet koko"),
            ("choc", "chocolat", "koko"),
        ],
    );
    let (got, _) = retrieved(&glossary, "Warm pain au chocolate today", &[]);
    assert_eq!(got, [("pac".to_string(), "edit".to_string())]);
    let (got, _) = retrieved(&glossary, "Hot chocolate today", &[]);
    assert!(got.is_empty(), "{got:?}");
}
