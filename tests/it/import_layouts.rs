//! `glossa import` on the sheet layouts people have: the TICO-19 COVID-19
//! terminology header, DeepL, Google (both layouts), Amazon, Crowdin and
//! Lokalise exports, a semicolon CSV and Excel's UTF-16 "Unicode text"
//! (samples in tests/fixtures/import/, built to the layouts its README
//! names). Each: entries, languages and ids; and a bad input named by file
//! and line, with nothing written.

use crate::support::{fixture, run_in};
use serde_json::Value;

/// Import a sample into a fresh folder: the glossary and the stderr.
fn import(name: &str, extra: &[&str]) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = fixture(&format!("import/{name}"));
    let mut args = vec!["import", file.to_str().unwrap(), "--out", "g.json"];
    args.extend(extra);
    let (_, stderr) = run_in(dir.path(), &args, 0);
    let text = std::fs::read_to_string(dir.path().join("g.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), stderr)
}

/// Import a bad sample (or text): the stderr; checks nothing was written.
fn refused(file: &std::path::Path, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["import", file.to_str().unwrap(), "--out", "g.json"];
    args.extend(extra);
    let (_, stderr) = run_in(dir.path(), &args, 2);
    assert!(!dir.path().join("g.json").exists(), "{stderr}");
    stderr
}

/// A bad sheet written next to nothing else: its path.
fn bad_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// (id, source, target) of each entry; a glossary file leaves out an id
/// that is its source (docs/formats.md).
fn rows(g: &Value) -> Vec<(String, String, String)> {
    g["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            let id = if e["id"].is_null() {
                s("source")
            } else {
                s("id")
            };
            (id, s("source"), s("target"))
        })
        .collect()
}

fn langs(g: &Value) -> (&str, &str) {
    (
        g["source_lang"].as_str().unwrap(),
        g["target_lang"].as_str().unwrap(),
    )
}

fn triple(id: &str, source: &str, target: &str) -> (String, String, String) {
    (id.into(), source.into(), target.into())
}

#[test]
fn tico19_covid_terminology_imports_every_row_with_the_sheets_languages() {
    let (g, stderr) = import("tico19-en-fr.csv", &[]);
    assert_eq!(langs(&g), ("en", "fr"));
    let r = rows(&g);
    assert_eq!(r.len(), 4, "{r:?}");
    assert_eq!(r[0], triple("1", "COVID-19", "COVID-19"));
    assert_eq!(
        r[1],
        triple(
            "2",
            "severe acute respiratory syndrome",
            "syndrome respiratoire aigu sévère"
        )
    );
    assert!(
        !stderr.contains("ignored"),
        "every column is read: {stderr}"
    );
    // The command line wins over the sheet, and says so.
    // (A locale is written as its language: docs/formats.md, "Languages".)
    let (g, stderr) = import("tico19-en-fr.csv", &["--target-lang", "fr-CA"]);
    assert_eq!(langs(&g), ("en", "fr"));
    assert!(
        stderr.contains("--target-lang fr-CA given: the sheet's language `fr` is not used"),
        "{stderr}"
    );
}

#[test]
fn a_tico19_row_in_another_language_is_an_error_naming_its_line_and_both_values() {
    let stderr = refused(&fixture("import/tico19-mixed.csv"), &[]);
    assert!(
        stderr.contains("tico19-mixed.csv:4: target language `de`, but `fr` on line 2"),
        "{stderr}"
    );
}

#[test]
fn deepl_glossaries_import_with_and_without_language_columns() {
    let (g, _) = import("deepl.csv", &["--target-lang", "de"]);
    assert_eq!(
        rows(&g)[1],
        triple("tea, black", "tea, black", "Schwarztee")
    );
    assert_eq!(langs(&g), ("en", "de"));
    let (g, _) = import("deepl-4col.csv", &[]);
    assert_eq!(langs(&g), ("en", "de"));
    assert_eq!(rows(&g).len(), 3);
    assert_eq!(
        g["entries"][2]["sense"],
        Value::Null,
        "a language is not a sense"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = bad_file(&dir, "d.csv", b"coffee,Kaffee,en,de\ntea,,en,de\n");
    let stderr = refused(&bad, &[]);
    assert!(stderr.contains("d.csv:2: `tea`: empty target"), "{stderr}");
}

#[test]
fn google_glossaries_in_both_layouts() {
    let (g, _) = import("google-unidirectional.csv", &[]);
    assert_eq!(langs(&g), ("en", "es"));
    assert_eq!(
        rows(&g),
        [
            triple("coffee", "coffee", "café"),
            triple("milk", "milk", "leche")
        ]
    );
    // Equivalent term sets: pick the pair; pos and description make the sense.
    let (g, _) = import(
        "google-equivalent.csv",
        &["--source-lang", "fr", "--target-lang", "de"],
    );
    assert_eq!(langs(&g), ("fr", "de"));
    assert_eq!(rows(&g)[1], triple("torréfier", "torréfier", "rösten"));
    assert_eq!(g["entries"][0]["sense"], "a hot drink (noun)");
    assert_eq!(g["entries"][1]["sense"], "verb");
    let stderr = refused(&fixture("import/google-equivalent.csv"), &[]);
    assert!(
        stderr.contains("google-equivalent.csv:1: the header names the languages en, fr, de; pick the pair with --source-lang and --target-lang"),
        "{stderr}"
    );
}

#[test]
fn amazon_terminology_takes_one_target_of_several() {
    let (g, _) = import("amazon.csv", &["--target-lang", "de"]);
    assert_eq!(langs(&g), ("en", "de"));
    assert_eq!(
        rows(&g)[1],
        triple(
            "custom terminology",
            "custom terminology",
            "benutzerdefinierte Terminologie"
        )
    );
    let stderr = refused(&fixture("import/amazon.csv"), &[]);
    assert!(
        stderr.contains("amazon.csv:1: the header names the languages en, fr, de"),
        "{stderr}"
    );
}

#[test]
fn crowdin_export_reads_terms_descriptions_and_parts_of_speech() {
    let (g, stderr) = import("crowdin.csv", &[]);
    assert_eq!(langs(&g), ("en", "de"));
    assert_eq!(
        rows(&g),
        [
            triple("pull request", "pull request", "Pull-Request"),
            triple("merge", "merge", "zusammenführen")
        ]
    );
    assert_eq!(g["entries"][0]["sense"], "A proposed change (noun)");
    assert_eq!(g["entries"][1]["sense"], "verb");
    assert!(
        stderr.contains("ignored the column `Description [de]`"),
        "{stderr}"
    );
    let dir = tempfile::tempdir().unwrap();
    let bad = bad_file(
        &dir,
        "c.csv",
        "\"Term [en]\",\"Term [de]\"\nmerge,zusammenführen\nmerge,mergen\n".as_bytes(),
    );
    let stderr = refused(&bad, &[]);
    assert!(
        stderr.contains("c.csv:3: duplicate source `merge` (first on line 2)"),
        "{stderr}"
    );
}

#[test]
fn lokalise_export_reads_one_translation_and_its_flags() {
    let (g, stderr) = import("lokalise.csv", &["--target-lang", "fr"]);
    assert_eq!(langs(&g), ("en", "fr"));
    let r = rows(&g);
    assert_eq!(r[0], triple("Checkout", "Checkout", "Paiement"));
    assert_eq!(r[2], triple("basket", "basket", "panier"));
    let acme = &g["entries"][1];
    assert_eq!(
        (acme["keep"].as_bool(), acme["target"].as_str()),
        (Some(true), Some("Acme"))
    );
    assert_eq!(g["entries"][0]["case_sensitive"], true);
    assert_eq!(g["entries"][0]["sense"], "Payment page");
    assert!(
        stderr
            .contains("`forbidden`, `tags`, `description_fr`, `translation_es`, `description_es`"),
        "one note names every ignored column: {stderr}"
    );
    let stderr = refused(&fixture("import/lokalise.csv"), &[]);
    assert!(
        stderr.contains("lokalise.csv:1: the header names the languages fr, es"),
        "{stderr}"
    );
}

#[test]
fn semicolon_csv_and_utf16_unicode_text_import() {
    let (g, _) = import(
        "semicolon.csv",
        &["--source-lang", "de", "--target-lang", "en"],
    );
    assert_eq!(rows(&g)[0], triple("Kaffee", "Kaffee", "coffee"));
    assert_eq!(g["entries"][0]["sense"], "Getränk, heiß");
    assert_eq!(
        rows(&g)[2],
        triple("Milch; frisch", "Milch; frisch", "fresh milk")
    );
    let (g, _) = import("unicode-text.txt", &[]);
    assert_eq!(langs(&g), ("en", "fr"));
    assert_eq!(
        rows(&g)[1],
        triple("crème brûlée", "crème brûlée", "crème brûlée")
    );
    // Forced delimiter: the semicolon sheet read as commas is one column.
    let stderr = refused(&fixture("import/semicolon.csv"), &["--delimiter", "comma"]);
    assert!(
        stderr.contains("semicolon.csv:1: `Source term;Target term;Note`: one column; expected source and target separated by a comma"),
        "{stderr}"
    );
    // A UTF-16 file cut in the middle of a character is named, not guessed.
    let dir = tempfile::tempdir().unwrap();
    let bad = bad_file(&dir, "u.txt", &[0xFF, 0xFE, 0x61, 0x00, 0x00, 0xD8]);
    let stderr = refused(&bad, &[]);
    assert!(stderr.contains("u.txt: invalid UTF-16LE text"), "{stderr}");
}

#[test]
fn an_unreadable_header_is_one_error_and_columns_pick_it() {
    let stderr = refused(&fixture("import/unreadable.csv"), &[]);
    assert_eq!(stderr.matches("unreadable.csv:").count(), 1, "{stderr}");
    assert!(
        stderr.contains("`uid`, `left`, `right`, `score`, `flag`"),
        "{stderr}"
    );
    assert!(stderr.contains("--columns"), "{stderr}");
    let (g, stderr) = import(
        "unreadable.csv",
        &[
            "--columns",
            "id=UID,source=left,target=right",
            "--target-lang",
            "fr",
        ],
    );
    assert_eq!(rows(&g)[2], triple("3", "e", "f"));
    assert!(
        stderr.contains("ignored the columns `score`, `flag`"),
        "{stderr}"
    );
    let stderr = refused(
        &fixture("import/unreadable.csv"),
        &["--columns", "source=left,target=nope"],
    );
    assert!(
        stderr.contains("no column `nope`; its columns are `uid`, `left`"),
        "{stderr}"
    );
}

#[test]
fn a_307_row_tico19_sheet_is_307_entries_not_307_errors() {
    // The size of the published per-language files that 0 of 8 imported.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,sourceLang,targetLang,sourceString,targetString\n");
    for n in 1..=307 {
        text.push_str(&format!("{n},en,km,term {n},ពាក្យ {n}\n"));
    }
    let file = bad_file(&dir, "tico-km.csv", text.as_bytes());
    let (_, stderr) = run_in(
        dir.path(),
        &["import", file.to_str().unwrap(), "--out", "g.json"],
        0,
    );
    let g: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("g.json")).unwrap()).unwrap();
    assert_eq!(langs(&g), ("en", "km"));
    let r = rows(&g);
    assert_eq!(r.len(), 307, "{stderr}");
    assert_eq!(r[306], triple("307", "term 307", "ពាក្យ 307"));
}
