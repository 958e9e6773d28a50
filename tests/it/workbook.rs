//! `glossa import` of spreadsheet workbooks (.xlsx, .ods) written by
//! LibreOffice Calc from the CSV beside them (tests/fixtures/import/README.md).

use crate::support::{fixture, glossa};
use serde_json::Value;
use tempfile::TempDir;

/// `glossa import FILE --name t [ARGS]`: exit code, stdout, stderr.
fn import(file: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let out = glossa()
        .arg("import")
        .arg(fixture(&format!("import/{file}")))
        .args(["--name", "t"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn glossary(file: &str, args: &[&str]) -> Value {
    let (code, stdout, stderr) = import(file, args);
    assert_eq!(code, Some(0), "{file}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn a_workbook_imports_as_the_csv_it_was_made_from() {
    for stem in ["cafe", "forms"] {
        let csv = glossary(&format!("{stem}.csv"), &[]);
        assert!(csv["entries"].as_array().unwrap().len() >= 3);
        for ext in ["xlsx", "ods"] {
            assert_eq!(glossary(&format!("{stem}.{ext}"), &[]), csv, "{stem}.{ext}");
        }
    }
    // What the sheets hold, beyond "the same as the CSV": ids, senses,
    // aliases, context lists, forms (with non-ASCII letters), flags.
    let cafe = glossary("cafe.ods", &[]);
    assert_eq!(cafe["target_lang"], "x-cafe");
    let cookie = &cafe["entries"][2];
    assert_eq!(cafe["entries"][0]["id"], "cold-coffee");
    assert_eq!(cookie["source"], "cookie");
    assert_eq!(cookie["sense"], "a sweet baked biscuit");
    assert_eq!(
        cookie["aliases"],
        serde_json::json!(["biscuit", "biscuits"])
    );
    assert_eq!(cookie["context"]["not"][0], "cookie policy");
    let forms = glossary("forms.xlsx", &[]);
    assert_eq!(
        forms["entries"][0]["forms"],
        serde_json::json!(["Spinalkanals", "Spinalkanälen"])
    );
    assert_eq!(forms["entries"][1]["case_sensitive"], true);
    assert_eq!(
        forms["entries"][1]["aliases"],
        serde_json::json!(["USA", "U.S."])
    );
}

#[test]
fn sheet_picks_the_sheet_of_a_workbook_and_cells_read_as_written() {
    for file in ["sheets.xlsx", "sheets.ods"] {
        // The first sheet is a note, not a glossary: named by sheet and row.
        let (code, _, err) = import(file, &[]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(", sheet Notes, row 1: "), "{err}");
        assert!(err.contains("in two cells"), "{err}");

        let g = glossary(file, &["--sheet", "Glossary"]);
        let pairs: Vec<(&str, &str)> = g["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["source"].as_str().unwrap(), e["target"].as_str().unwrap()))
            .collect();
        // A number 12 is "12" (not "12.0"), a date cell is ISO text, and
        // the spaces around "flat white" are trimmed.
        assert_eq!(
            pairs,
            [
                ("dozen", "12"),
                ("half", "0.5"),
                ("opening day", "2024-03-01"),
                ("flat white", "plano blanko")
            ],
            "{file}"
        );
        assert_eq!(g["entries"][0]["sense"], "a box of pastries");

        let (code, _, err) = import(file, &["--sheet", "Glossar"]);
        assert_eq!(code, Some(2));
        assert!(
            err.contains(r#"no sheet named "Glossar"; its sheets: "Notes", "Glossary", "Bad""#),
            "{err}"
        );
    }
}

#[test]
fn a_bad_workbook_row_is_named_by_file_sheet_and_row_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("t.json");
    for file in ["sheets.xlsx", "sheets.ods"] {
        let (code, _, err) = import(file, &["--sheet", "Bad", "--out", out.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{err}");
        // Row 3 is blank, so `cake` is on row 4 of the sheet.
        let want = format!(
            "{}, sheet Bad, row 4: `cake`: empty target",
            fixture(&format!("import/{file}")).display()
        );
        assert!(err.contains(&want), "{want:?} not in {err}");
        assert!(!out.exists());
    }
}

#[test]
fn a_file_that_is_no_workbook_is_one_error_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("t.json");
    let truncated = dir.path().join("truncated.ods");
    let ods = std::fs::read(fixture("import/cafe.ods")).unwrap();
    std::fs::write(&truncated, &ods[..ods.len() / 2]).unwrap();
    for file in [fixture("import/not-a-workbook.xlsx"), truncated] {
        let o = glossa()
            .arg("import")
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!(
                "{}: not a readable spreadsheet workbook",
                file.display()
            )),
            "{err}"
        );
        assert!(!err.contains("panick"), "{err}");
        assert!(!out.exists());
    }
}

#[test]
fn export_refuses_workbook_formats_naming_what_it_writes() {
    let o = glossa()
        .args(["export", "--format", "xlsx"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0));
    assert!(err.contains("export writes tsv, csv or tbx"), "{err}");
    assert!(o.stdout.is_empty());
}

/// A 5 KB workbook whose used area is A1 to AMJ1048576: read by its cells,
/// not as a billion-cell rectangle; the far cell is a row with too many
/// columns (XLSX), or the reader's cell limit refuses the file (ODS).
#[test]
fn a_far_cell_costs_no_billion_cell_rectangle() {
    let started = std::time::Instant::now();
    let (code, _, err) = import("far.xlsx", &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(", sheet Far, row 1048576: 1024 columns"),
        "{err}"
    );
    let (code, _, err) = import("far.ods", &[]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}
