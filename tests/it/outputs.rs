//! Snapshots of what every command prints, in every format it offers.
//! Each records the real standard output of the binary on small fixtures
//! (tests/fixtures/mini*, lint-bad.json, research-terms.*), copied into a
//! temporary folder so paths read the same everywhere. Timings and the
//! version are redacted; nothing else is.
//!
//! Command × format covered (snapshot names `outputs__<name>.snap`):
//!
//! | command      | formats                       | snapshots                                  |
//! |--------------|-------------------------------|--------------------------------------------|
//! | eval         | table, markdown, csv, json    | eval_{table,markdown,csv,json}             |
//! | eval --by-tag --compare | table, markdown, csv, json | eval_compare_{table,markdown,csv,json} |
//! | sweep        | table, markdown, csv, json    | sweep_{table,markdown,csv,json}            |
//! | sweep --list-params | table, markdown, csv, json | conventions__sweep_list_params_* (tests/it/conventions.rs) |
//! | lint         | table, markdown, csv, json    | lint_{table,markdown,csv,json}             |
//! | lint (notes only, exit 0) | table           | lint_notes_only_table, lint_notes_only_table_stderr |
//! | retrieve     | table, markdown, csv, json    | retrieve_{table,markdown,csv,json}         |
//! | phrases      | table, markdown, csv, json    | phrases_{table,markdown,csv,json}          |
//! | translate    | table, markdown, csv, json    | translate_{table,markdown,csv,json}, translate_{csv,table}_stderr |
//! | translate (no entry matches) | table, csv    | translate_unmatched_{table,csv}            |
//! | retrievers   | text (no --format)            | retrievers                                 |
//! | run          | table, markdown, csv, json    | run_{table,markdown,csv,json}              |
//! | merge        | table, markdown, csv, json    | merge_{table,markdown,csv,json}            |
//! | diff         | table, markdown, csv, json    | diff_{table,markdown,csv,json}             |
//! | export       | tsv, csv (with and without --header) | export_{tsv,csv,csv_header}         |
//! | import       | JSON glossary (from tsv, csv, tbx) | import_from_{tsv,csv,tbx}             |
//!
//! Not snapshotted here: `completions SHELL` and `man` print what
//! clap_complete and clap_mangen generate from the CLI definitions (their
//! `--help` is snapshotted and their content tested in
//! tests/it/conventions.rs); `serve` prints no report (tests/it/serve.rs).

use crate::support;

use std::path::Path;
use support::{repo_file, run_in};

const FORMATS: [&str; 4] = ["table", "markdown", "csv", "json"];

/// A temporary folder holding copies of the fixtures, named as in
/// tests/fixtures.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "mini.json",
        "mini-posts.jsonl",
        "mini-labels.jsonl",
        "lint-bad.json",
        "lint-clean.json",
        "research-terms.tsv",
        "research-terms.tbx",
    ] {
        std::fs::copy(
            repo_file(&format!("tests/fixtures/{name}")),
            dir.path().join(name),
        )
        .unwrap();
    }
    // No WordNet, whatever the machine has: lint's output is the same
    // everywhere.
    std::fs::create_dir(dir.path().join("no-wordnet")).unwrap();
    dir
}

const DATA: [&str; 6] = [
    "-g",
    "mini.json",
    "-p",
    "mini-posts.jsonl",
    "-l",
    "mini-labels.jsonl",
];

/// Standard output of `glossa ARGS` in `dir`, which must exit with `code`.
fn stdout(dir: &Path, args: &[&str], code: i32) -> String {
    redact(&run_in(dir, args, code).0)
}

/// Timings and the version change from run to run; everything else is
/// recorded as printed.
fn redact(text: &str) -> String {
    const VARYING: [&str; 5] = [
        "\"ms\": ",
        "\"seconds\": ",
        "\"index_seconds\": ",
        "\"posts_per_second\": ",
        "\"glossa_version\": ",
    ];
    text.lines()
        .map(|line| {
            for key in VARYING {
                if let Some(at) = line.find(key) {
                    let start = at + key.len();
                    let end = line[start..]
                        .find(',')
                        .map_or(line.len(), |comma| start + comma);
                    return format!("{}[redacted]{}\n", &line[..start], &line[end..]);
                }
            }
            format!("{line}\n")
        })
        .collect::<String>()
        // `lines` drops the last line's end: keep the text's own ending.
        .strip_suffix(if text.ends_with('\n') { "" } else { "\n" })
        .map(str::to_string)
        .unwrap_or_default()
}

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

#[test]
fn redact_keeps_the_text_and_hides_timings() {
    assert_eq!(
        redact("{\n  \"seconds\": 0.25,\n  \"ms\": 3\n}\n"),
        "{\n  \"seconds\": [redacted],\n  \"ms\": [redacted]\n}\n"
    );
    assert_eq!(redact("a\nb"), "a\nb");
}

#[test]
fn eval_in_every_format() {
    let dir = workspace();
    let base = with(&["eval", "--no-save", "-r", "exact,normalised"], &DATA);
    for format in FORMATS {
        let args = with(&base, &["-f", format]);
        insta::assert_snapshot!(format!("eval_{format}"), stdout(dir.path(), &args, 0));
        let args = with(&args, &["--by-tag", "--compare"]);
        insta::assert_snapshot!(
            format!("eval_compare_{format}"),
            stdout(dir.path(), &args, 0)
        );
    }
}

#[test]
fn sweep_in_every_format() {
    let dir = workspace();
    let base = with(
        &[
            "sweep",
            "--no-save",
            "-r",
            "fuzzy",
            "--values",
            "0.6,0.75,0.9",
            "--split",
            "all",
        ],
        &DATA,
    );
    for format in FORMATS {
        let args = with(&base, &["-f", format]);
        insta::assert_snapshot!(format!("sweep_{format}"), stdout(dir.path(), &args, 0));
    }
}

/// `glossa lint ARGS` in `dir`, without WordNet whatever the machine has,
/// so that the output is the same everywhere.
fn lint(dir: &Path, args: &[&str], code: i32) -> (String, String) {
    let out = support::glossa_in(dir)
        .env("WNSEARCHDIR", "no-wordnet")
        .arg("lint")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(code), "lint {args:?}");
    let text = |bytes| String::from_utf8(bytes).unwrap();
    let (stdout, stderr) = (text(out.stdout), text(out.stderr));
    (
        without_system_words(&stdout),
        stderr.replace(&format!(", {SYSTEM_WORDS}"), ""),
    )
}

/// The system word list lint reads when the machine has one; it names
/// more English words, and no finding of these fixtures depends on it.
const SYSTEM_WORDS: &str = "/usr/share/dict/words";

/// Lint's JSON without the system word list among `english_words` (it is
/// a `json!` document, so parsing and printing it again changes nothing
/// else); other formats as they are.
fn without_system_words(stdout: &str) -> String {
    let Ok(mut doc) = serde_json::from_str::<serde_json::Value>(stdout) else {
        return stdout.to_string();
    };
    if let Some(words) = doc["english_words"].as_array_mut() {
        words.retain(|w| w != SYSTEM_WORDS);
    }
    serde_json::to_string_pretty(&doc).unwrap() + "\n"
}

#[test]
fn lint_in_every_format() {
    let dir = workspace();
    for format in FORMATS {
        // Warnings: exit 1.
        let (stdout, _) = lint(dir.path(), &["lint-bad.json", "-f", format], 1);
        insta::assert_snapshot!(format!("lint_{format}"), stdout);
    }
    let (stdout, stderr) = lint(dir.path(), &["lint-clean.json"], 0);
    insta::assert_snapshot!("lint_notes_only_table", stdout);
    // The table's summary, for a person: stderr.
    insta::assert_snapshot!("lint_notes_only_table_stderr", stderr);
}

#[test]
fn retrieve_in_every_format() {
    let dir = workspace();
    for format in FORMATS {
        let args = [
            "retrieve",
            "Fresh cookies, cold cofee and a date to save.",
            "-g",
            "mini.json",
            "-r",
            "normalised+fuzzy",
            "-f",
            format,
        ];
        insta::assert_snapshot!(format!("retrieve_{format}"), stdout(dir.path(), &args, 0));
    }
}

#[test]
fn phrases_in_every_format() {
    let dir = workspace();
    for format in FORMATS {
        let args = [
            "phrases",
            "Free home delivry on week-ends, 24 hours!",
            "-f",
            format,
        ];
        insta::assert_snapshot!(format!("phrases_{format}"), stdout(dir.path(), &args, 0));
    }
}

#[test]
fn translate_in_every_format() {
    let dir = workspace();
    let text = "Try our cold coffee with a cookie.";
    for format in FORMATS {
        let args = ["translate", text, "-g", "mini.json", "-f", format];
        insta::assert_snapshot!(format!("translate_{format}"), stdout(dir.path(), &args, 0));
    }
    // CSV is for programs: the translation and the notes go to stderr.
    let (_, stderr) = run_in(
        dir.path(),
        &["translate", text, "-g", "mini.json", "-f", "csv"],
        0,
    );
    insta::assert_snapshot!("translate_csv_stderr", stderr);
    // For a person too, the notes are on stderr: `> file` keeps the result.
    let (_, stderr) = run_in(
        dir.path(),
        &["translate", text, "-g", "mini.json", "-f", "table"],
        0,
    );
    insta::assert_snapshot!("translate_table_stderr", stderr);
    for format in ["table", "csv"] {
        let args = [
            "translate",
            "Nothing here.",
            "-g",
            "mini.json",
            "-f",
            format,
        ];
        insta::assert_snapshot!(
            format!("translate_unmatched_{format}"),
            stdout(dir.path(), &args, 0)
        );
    }
}

#[test]
fn retrievers_lists_what_retriever_accepts() {
    let dir = workspace();
    insta::assert_snapshot!("retrievers", stdout(dir.path(), &["retrievers"], 0));
}

#[test]
fn run_in_every_format() {
    let dir = workspace();
    for format in FORMATS {
        let out = format!("run-{format}");
        let args = with(
            &["run", "-r", "exact,normalised", "--out", &out, "-f", format],
            &DATA,
        );
        insta::assert_snapshot!(format!("run_{format}"), stdout(dir.path(), &args, 0));
    }
}

#[test]
fn merge_in_every_format() {
    let dir = workspace();
    for shard in ["0/2", "1/2"] {
        let out = format!("shard{}", &shard[..1]);
        let args = with(
            &[
                "run",
                "-r",
                "exact,normalised",
                "--shard",
                shard,
                "--out",
                &out,
            ],
            &DATA,
        );
        run_in(dir.path(), &args, 0);
    }
    for format in FORMATS {
        let out = format!("merged-{format}");
        let args = ["merge", "shard0", "shard1", "--out", &out, "-f", format];
        insta::assert_snapshot!(format!("merge_{format}"), stdout(dir.path(), &args, 0));
    }
}

#[test]
fn diff_in_every_format() {
    let dir = workspace();
    // The same retrievers, B with a looser fuzzy threshold.
    for (name, threshold) in [("a.json", "0.9"), ("b.json", "0.6")] {
        let args = with(
            &[
                "eval",
                "--no-save",
                "-r",
                "exact,fuzzy",
                "--threshold",
                threshold,
                "-f",
                "json",
            ],
            &DATA,
        );
        let (json, _) = run_in(dir.path(), &args, 0);
        std::fs::write(dir.path().join(name), json).unwrap();
    }
    for format in FORMATS {
        let args = ["diff", "a.json", "b.json", "-f", format];
        insta::assert_snapshot!(format!("diff_{format}"), stdout(dir.path(), &args, 0));
    }
}

#[test]
fn export_as_tsv_and_csv() {
    let dir = workspace();
    for (name, args) in [
        ("export_tsv", &["export", "mini.json"][..]),
        ("export_csv", &["export", "mini.json", "-f", "csv"]),
        (
            "export_csv_header",
            &["export", "mini.json", "-f", "csv", "--header"],
        ),
    ] {
        insta::assert_snapshot!(name, stdout(dir.path(), args, 0));
    }
}

#[test]
fn import_from_tsv_csv_and_tbx() {
    let dir = workspace();
    let (csv, _) = run_in(dir.path(), &["export", "mini.json", "-f", "csv"], 0);
    std::fs::write(dir.path().join("mini.csv"), csv).unwrap();
    for (name, file) in [
        ("import_from_tsv", "research-terms.tsv"),
        ("import_from_csv", "mini.csv"),
        ("import_from_tbx", "research-terms.tbx"),
    ] {
        insta::assert_snapshot!(name, stdout(dir.path(), &["import", file], 0));
    }
}
