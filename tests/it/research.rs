//! The researcher's workflow through the real binary: sweeps with charts,
//! diffs of saved results, paired significance tests, the CI gate, and
//! glossaries to and from spreadsheets.

use crate::support;
use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use support::{fixture, glossa};
use tempfile::TempDir;

fn root(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The café demo's three files, as arguments.
fn cafe() -> Vec<String> {
    vec![
        "--glossary".into(),
        root("glossaries/cafe.json").display().to_string(),
        "--posts".into(),
        root("posts/cafe.jsonl").display().to_string(),
        "--labels".into(),
        root("labels/cafe.jsonl").display().to_string(),
    ]
}

/// `glossa ARGS` on the café demo files.
fn on_cafe(args: &[&str]) -> std::process::Output {
    glossa().args(args).args(cafe()).output().unwrap()
}

fn run_ok(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {stdout}\nstderr: {stderr}",
        out.status.code()
    );
    (stdout, stderr)
}

fn json(cmd: &mut Command) -> Value {
    let (stdout, _) = run_ok(cmd);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `glossa eval --format json --no-save` on the café demo.
fn eval(extra: &[&str]) -> Value {
    json(
        glossa()
            .args(["eval", "--no-save", "--format", "json"])
            .args(cafe())
            .args(extra),
    )
}

const COUNTS: [&str; 7] = [
    "posts",
    "complete",
    "needed",
    "found",
    "retrieved",
    "extra",
    "wrong_sense",
];

fn counts(v: &Value) -> Vec<u64> {
    COUNTS
        .iter()
        .map(|f| v[*f].as_u64().unwrap_or_else(|| panic!("no {f} in {v}")))
        .collect()
}

// ---- sweep --------------------------------------------------------------

#[test]
fn sweep_rows_equal_separate_eval_runs_and_the_chart_is_svg() {
    let runs = TempDir::new().unwrap();
    let v = json(
        glossa()
            .args([
                "sweep",
                "--retriever",
                "fuzzy",
                "--param",
                "threshold",
                "--from",
                "0.55",
                "--to",
                "0.95",
                "--step",
                "0.1",
            ])
            .args(["--format", "json", "--runs-dir"])
            .arg(runs.path())
            .args(cafe()),
    );
    let rows = v["rows"].as_array().unwrap();
    let values: Vec<f64> = rows.iter().map(|r| r["value"].as_f64().unwrap()).collect();
    assert_eq!(values, [0.55, 0.65, 0.75, 0.85, 0.95]);
    assert_eq!(v["split"], "dev");
    let mut distinct = BTreeSet::new();
    for row in rows {
        let value = row["value"].as_f64().unwrap().to_string();
        let e = eval(&[
            "--retriever",
            "fuzzy",
            "--split",
            "dev",
            "--threshold",
            &value,
        ]);
        let r = &e["retrievers"][0];
        assert_eq!(counts(row), counts(r), "threshold {value}");
        assert_eq!(row["recall"], r["recall"], "threshold {value}");
        assert_eq!(row["precision"], r["precision"], "threshold {value}");
        distinct.insert(counts(row));
    }
    assert!(
        distinct.len() > 2,
        "the sweep should move the figures: {distinct:?}"
    );

    // The JSON and the chart are saved side by side; the chart is SVG.
    let mut files: Vec<String> = fs::read_dir(runs.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[0].ends_with("_cafe_sweep.json"), "{files:?}");
    assert_eq!(
        files[0].trim_end_matches(".json"),
        files[1].trim_end_matches(".svg")
    );
    let saved: Value =
        serde_json::from_str(&fs::read_to_string(runs.path().join(&files[0])).unwrap()).unwrap();
    assert_eq!(saved["rows"], v["rows"]);
    assert!(saved["chart"].as_str().unwrap().ends_with(&files[1]));
    let svg = fs::read_to_string(runs.path().join(&files[1])).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the chart parses as XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> = doc
        .descendants()
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for want in [
        "recall",
        "precision",
        "wrong sense (right axis)",
        "default 0.75",
        "threshold",
    ] {
        assert!(texts.contains(&want), "no {want:?} in the chart");
    }
    assert!(
        doc.descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .count()
            >= 4,
        "four lines drawn"
    );
}

#[test]
fn a_whole_number_parameter_sweeps_like_its_flag() {
    let v = json(
        glossa()
            .args([
                "sweep",
                "--retriever",
                "edit",
                "--param",
                "edit-one-from",
                "--values",
                "2,5,9",
            ])
            .args(["--format", "json", "--no-save", "--split", "all"])
            .args(cafe()),
    );
    for row in v["rows"].as_array().unwrap() {
        let value = row["value"].as_f64().unwrap();
        let e = eval(&[
            "--retriever",
            "edit",
            "--edit-one-from",
            &format!("{value:.0}"),
        ]);
        assert_eq!(
            counts(row),
            counts(&e["retrievers"][0]),
            "edit_one_from {value}"
        );
    }
}

#[test]
fn sweep_no_save_writes_nothing_and_svg_writes_only_the_chart() {
    let dir = TempDir::new().unwrap();
    let runs = dir.path().join("runs");
    let chart = dir.path().join("chart.svg");
    run_ok(
        glossa()
            .args(["sweep", "--values", "0.7,0.8", "--no-save", "--runs-dir"])
            .arg(&runs)
            .arg("--svg")
            .arg(&chart)
            .args(cafe()),
    );
    assert!(!runs.exists());
    roxmltree::Document::parse(&fs::read_to_string(&chart).unwrap()).unwrap();
}

#[test]
fn sweep_help_lists_every_parameter_and_bad_values_are_refused() {
    let (help, _) = run_ok(glossa().args(["sweep", "--help"]));
    for p in ["threshold", "edit_one_from", "edit_two_from", "Examples:"] {
        assert!(help.contains(p), "{p} not in sweep --help");
    }
    let out = glossa()
        .args(["sweep", "--param", "treshold", "--no-save"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown parameter `treshold`"));
    let out = glossa()
        .args([
            "sweep",
            "--from",
            "0.5",
            "--to",
            "1.5",
            "--step",
            "0.5",
            "--no-save",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("threshold = 1.5 is outside [0, 1]"));
}

// ---- diff ---------------------------------------------------------------

/// Eval JSON saved to `dir/name`.
fn save_eval(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let (stdout, _) = run_ok(
        glossa()
            .args(["eval", "--no-save", "--format", "json"])
            .args(cafe())
            .args(extra),
    );
    fs::write(&path, stdout).unwrap();
    path
}

/// The posts whose status differs, computed from two eval results.
fn changed_posts(a: &Value, b: &Value) -> BTreeSet<String> {
    let set = |v: &Value| {
        let mut s: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        s.sort();
        s
    };
    let a_posts = a["per_post"].as_array().unwrap();
    let b_posts = b["per_post"].as_array().unwrap();
    a_posts
        .iter()
        .zip(b_posts)
        .filter(|(x, y)| {
            assert_eq!(x["post"], y["post"]);
            x["complete"] != y["complete"]
                || set(&x["missed"]) != set(&y["missed"])
                || set(&x["wrong_sense"]) != set(&y["wrong_sense"])
        })
        .map(|(x, _)| x["post"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn diff_names_exactly_the_changed_posts() {
    let dir = TempDir::new().unwrap();
    let a = save_eval(dir.path(), "a.json", &["--retriever", "exact,fuzzy"]);
    let b = save_eval(
        dir.path(),
        "b.json",
        &["--retriever", "normalised,fuzzy", "--threshold", "0.6"],
    );
    let va: Value = serde_json::from_str(&fs::read_to_string(&a).unwrap()).unwrap();
    let vb: Value = serde_json::from_str(&fs::read_to_string(&b).unwrap()).unwrap();

    // Same name: fuzzy against fuzzy.
    let d = json(
        glossa()
            .arg("diff")
            .arg(&a)
            .arg(&b)
            .args(["--format", "json"]),
    );
    assert_eq!(d["kind"], "eval");
    assert_eq!(d["unpaired_a"], serde_json::json!(["exact"]));
    assert_eq!(d["unpaired_b"], serde_json::json!(["normalised"]));
    let r = &d["retrievers"][0];
    assert_eq!(
        (r["a"].as_str(), r["b"].as_str()),
        (Some("fuzzy"), Some("fuzzy"))
    );
    let listed: BTreeSet<String> = r["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["post"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        listed,
        changed_posts(&va["retrievers"][1], &vb["retrievers"][1])
    );
    assert_eq!(
        listed,
        BTreeSet::from(["p22".to_string()]),
        "focacia is found at 0.6 (Dice 0.727)"
    );
    assert_eq!(r["changed"][0]["change"], "now finds focaccia");

    // Named pair: exact against normalised, many changes.
    let d = json(glossa().arg("diff").arg(&a).arg(&b).args([
        "--retriever",
        "exact=normalised",
        "--format",
        "json",
    ]));
    let r = &d["retrievers"][0];
    let listed: BTreeSet<String> = r["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["post"].as_str().unwrap().to_string())
        .collect();
    let expected = changed_posts(&va["retrievers"][0], &vb["retrievers"][0]);
    assert!(expected.len() >= 4, "{expected:?}");
    assert_eq!(listed, expected);
    let change_of = |post: &str| {
        r["changed"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["post"] == post)
            .unwrap()["change"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // "rolling out" gets the bread roll once stemmed: a new wrong sense.
    assert!(r["changed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["change"].as_str().unwrap().contains("new wrong sense")));
    assert!(
        change_of("p02").starts_with("became complete"),
        "{}",
        change_of("p02")
    );
    // Figures: counts for A and B and the change, with p for complete and recall.
    let complete = &r["figures"][0];
    assert_eq!(complete["figure"], "complete");
    assert_eq!(complete["a"]["n"], va["retrievers"][0]["complete"]);
    assert_eq!(complete["b"]["n"], vb["retrievers"][0]["complete"]);
    assert!(complete["test"]["p"].as_f64().unwrap() > 0.0);
    assert_eq!(complete["test"]["resamples"], 10000);

    // The table names the changed posts too.
    let (table, _) = run_ok(glossa().arg("diff").arg(&a).arg(&b).args(["-r", "fuzzy"]));
    assert!(table.contains("Posts whose status changed: 1"), "{table}");
    assert!(table.contains("p22"), "{table}");
}

#[test]
fn diff_of_a_result_with_itself_changes_nothing_with_p_one() {
    let dir = TempDir::new().unwrap();
    let a = save_eval(dir.path(), "a.json", &[]);
    let d = json(
        glossa()
            .arg("diff")
            .arg(&a)
            .arg(&a)
            .args(["--format", "json"]),
    );
    assert_eq!(d["retrievers"].as_array().unwrap().len(), 5);
    for r in d["retrievers"].as_array().unwrap() {
        assert_eq!(r["changed"].as_array().unwrap().len(), 0);
        for f in r["figures"].as_array().unwrap().iter().take(2) {
            assert_eq!(f["test"]["p"], 1.0, "{f}");
        }
    }
}

#[test]
fn diff_reads_saved_eval_files_and_run_folders() {
    let dir = TempDir::new().unwrap();
    // Saved by `eval` itself under --runs-dir (with --compare's extra fields).
    let runs = dir.path().join("runs");
    run_ok(
        glossa()
            .args([
                "eval",
                "--compare",
                "--retriever",
                "exact,fuzzy",
                "--runs-dir",
            ])
            .arg(&runs)
            .args(cafe()),
    );
    let saved = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let d = json(
        glossa()
            .arg("diff")
            .arg(&saved)
            .arg(&saved)
            .args(["--format", "json"]),
    );
    assert_eq!(d["retrievers"].as_array().unwrap().len(), 2);

    // Two offline runs, the second with a lower threshold.
    let (ra, rb) = (dir.path().join("run-a"), dir.path().join("run-b"));
    for (out, threshold) in [(&ra, "0.75"), (&rb, "0.5")] {
        run_ok(
            glossa()
                .args([
                    "run",
                    "--retriever",
                    "fuzzy",
                    "--threshold",
                    threshold,
                    "--out",
                ])
                .arg(out)
                .args(cafe()),
        );
    }
    let d = json(
        glossa()
            .arg("diff")
            .arg(&ra)
            .arg(rb.join("summary.json"))
            .args(["--format", "json"]),
    );
    assert_eq!(d["kind"], "run");
    let r = &d["retrievers"][0];
    assert_eq!(r["posts"], 24);
    assert_eq!(r["figures"][0]["figure"], "right");
    // Every listed post's record really differs between the two runs.
    let calls = |dir: &Path| -> Vec<(String, bool, String)> {
        fs::read_to_string(dir.join("calls.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|c| {
                (
                    c["post"].as_str().unwrap().to_string(),
                    c["check"]["ok"].as_bool().unwrap(),
                    c["group"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let (ca, cb) = (calls(&ra), calls(&rb));
    let expected: BTreeSet<String> = ca
        .iter()
        .filter(|(post, ok, group)| {
            let other = cb.iter().find(|(p, _, _)| p == post).unwrap();
            (other.1, &other.2) != (*ok, group)
        })
        .map(|(p, _, _)| p.clone())
        .collect();
    let listed: BTreeSet<String> = r["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["post"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, expected);
    assert!(!listed.is_empty());

    // An eval result against a run is refused.
    let out = glossa().arg("diff").arg(&saved).arg(&ra).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("diff compares two of the same kind"));
    // A file that is not a result names itself.
    let bad = dir.path().join("bad.json");
    fs::write(&bad, "{\n  \"retrievers\": 3\n}\n").unwrap();
    let out = glossa().arg("diff").arg(&saved).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json:"), "{err}");
    assert!(err.contains("not an eval result"), "{err}");
}

// ---- significance -------------------------------------------------------

fn comparison<'a>(v: &'a Value, a: &str, b: &str) -> &'a Value {
    v["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["a"] == a && c["b"] == b)
        .unwrap()
}

#[test]
fn compare_gives_a_small_p_for_a_planted_difference_and_a_large_one_for_identical_retrievers() {
    let v = eval(&[
        "--compare",
        "--retriever",
        "exact,oracle,exact+exact",
        "--seed",
        "7",
        "--resamples",
        "5000",
    ]);
    assert_eq!(v["test"]["resamples"], 5000);
    assert_eq!(v["test"]["seed"], 7);
    // The oracle completes every post exact misses: a planted large difference.
    let planted = comparison(&v, "exact", "oracle");
    for figure in ["complete", "recall"] {
        let p = planted[figure]["test"]["p"].as_f64().unwrap();
        assert!(p < 0.05, "{figure}: p = {p}");
        assert!(planted[figure]["change"].as_f64().unwrap() > 0.3);
    }
    // `exact+exact` retrieves exactly what `exact` does.
    let same = comparison(&v, "exact", "exact+exact");
    for figure in ["complete", "recall"] {
        let p = same[figure]["test"]["p"].as_f64().unwrap();
        assert!(p > 0.2, "{figure}: p = {p}");
        assert_eq!(same[figure]["change"], 0.0);
    }
    // Seeded: the same seed gives the same p-values.
    let again = eval(&[
        "--compare",
        "--retriever",
        "exact,oracle,exact+exact",
        "--seed",
        "7",
        "--resamples",
        "5000",
    ]);
    assert_eq!(again["comparisons"], v["comparisons"]);

    // The table shows the p-value next to the difference, and the resamples.
    let (table, _) = run_ok(
        glossa()
            .args([
                "eval",
                "--no-save",
                "--compare",
                "--retriever",
                "exact,oracle",
            ])
            .args(cafe()),
    );
    assert!(table.contains("10000 resamples, seed 1"), "{table}");
    assert!(table.contains("+14 (+58.3 pts)"), "{table}");

    let out = glossa()
        .args(["eval", "--no-save", "--compare", "--retriever", "exact"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// ---- gate ---------------------------------------------------------------

#[test]
fn the_gate_exits_1_naming_each_failing_figure_and_0_when_it_passes() {
    let out = on_cafe(&[
        "eval",
        "--no-save",
        "--retriever",
        "fuzzy",
        "--fail-under",
        "recall=0.9,complete=0.7,precision=0.5",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("gate failed: fuzzy recall is 0.861 (31 of 36) below the bound 0.9"),
        "{err}"
    );
    assert!(
        !err.contains("fuzzy complete is"),
        "complete 0.75 meets 0.7: {err}"
    );
    assert!(!err.contains("precision is"), "{err}");
    assert!(!out.stdout.is_empty(), "the table is still printed");

    let out = on_cafe(&[
        "eval",
        "--no-save",
        "--retriever",
        "exact,oracle",
        "--fail-over",
        "wrong_sense=0",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exact wrong_sense is 2 above the bound 0"),
        "{err}"
    );
    assert!(!err.contains("oracle wrong_sense"), "{err}");

    // A bound for one retriever only; and a gate that passes.
    let out = glossa()
        .args([
            "eval",
            "--no-save",
            "--retriever",
            "exact,oracle",
            "--fail-under",
            "oracle:recall=1,oracle:complete=100%",
        ])
        .args(["--fail-over", "oracle:wrong_sense=0"])
        .args(cafe())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("gate passed: 3 figures within 3 bounds"));

    // Bad bounds are usage errors.
    for bad in [
        ["--fail-under", "recal=0.9"],
        ["--fail-under", "wrong_sense=0"],
        ["--fail-under", "nope:recall=0.5"],
    ] {
        let out = glossa()
            .args(["eval", "--no-save"])
            .args(bad)
            .args(cafe())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
    }
}

// ---- import / export ----------------------------------------------------

/// Entries as comparable JSON: every field, with `id` defaulting to `source`.
fn entries(glossary: &Path) -> Vec<Value> {
    let v: Value = serde_json::from_str(&fs::read_to_string(glossary).unwrap()).unwrap();
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let mut e = e.clone();
            if e.get("id").is_none() {
                e["id"] = e["source"].clone();
            }
            e
        })
        .collect()
}

#[test]
fn import_round_trips_through_export() {
    let dir = TempDir::new().unwrap();
    let cafe_json = root("glossaries/cafe.json");
    for format in ["tsv", "csv"] {
        let sheet = dir.path().join(format!("cafe.{format}"));
        run_ok(
            glossa()
                .arg("export")
                .arg(&cafe_json)
                .args(["--format", format, "--out"])
                .arg(&sheet),
        );
        let out = dir.path().join(format!("glossaries/cafe-{format}.json"));
        let (_, err) = run_ok(glossa().arg("import").arg(&sheet).arg("--out").arg(&out));
        assert!(err.contains("imported 25 entries"), "{err}");
        assert_eq!(entries(&out), entries(&cafe_json), "{format}");
        let v: Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(
            (v["source_lang"].as_str(), v["target_lang"].as_str()),
            (Some("en"), Some("x-cafe"))
        );
        // The imported glossary scores exactly like the original.
        let e = json(
            glossa()
                .args(["eval", "--no-save", "--format", "json", "--glossary"])
                .arg(&out)
                .arg("--posts")
                .arg(root("posts/cafe.jsonl"))
                .arg("--labels")
                .arg(root("labels/cafe.jsonl")),
        );
        let original = eval(&[]);
        for (x, y) in e["retrievers"]
            .as_array()
            .unwrap()
            .iter()
            .zip(original["retrievers"].as_array().unwrap())
        {
            assert_eq!(counts(x), counts(y));
            assert_eq!(x["per_post"], y["per_post"]);
        }
        // And exports back to the same sheet.
        let (again, _) = run_ok(glossa().arg("export").arg(&out).args(["--format", format]));
        assert_eq!(again, fs::read_to_string(&sheet).unwrap());
    }
}

#[test]
fn a_plain_sheet_and_a_tbx_file_import() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("terms.json");
    run_ok(
        glossa()
            .arg("import")
            .arg(fixture("research-terms.tsv"))
            .arg("--out")
            .arg(&out),
    );
    let got = entries(&out);
    assert_eq!(got.len(), 3);
    assert_eq!(
        got[1]["aliases"],
        serde_json::json!(["biscuit", "biscuits"])
    );
    assert_eq!(got[2]["sense"], "flat Italian bread");
    let (stdout, _) = run_ok(
        glossa()
            .args([
                "retrieve",
                "Fresh focacia and biscuits",
                "--retriever",
                "alias",
                "--format",
                "json",
                "--glossary",
            ])
            .arg(&out),
    );
    assert!(
        stdout.contains("\"focaccia\"") && stdout.contains("\"cookie\""),
        "{stdout}"
    );

    // No --out: the JSON on stdout.
    let (stdout, err) = run_ok(glossa().arg("import").arg(fixture("research-terms.tbx")));
    assert!(
        err.contains(
            "research-terms.tbx:18: termEntry `untranslated` has no `x-cafe` term; skipped"
        ),
        "{err}"
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["name"], "research-terms");
    assert_eq!(v["target_lang"], "x-cafe");
    assert_eq!(
        v["entries"][0]["id"], "cold-coffee",
        "the termEntry id, as it differs from the source"
    );
    assert_eq!(v["entries"][1]["source"], "cookie");
    assert_eq!(v["entries"][1]["target"], "dorpa");
    assert_eq!(v["entries"][1]["aliases"], serde_json::json!(["biscuit"]));
    assert_eq!(v["entries"][1]["sense"], "a sweet baked biscuit");

    // --out is not overwritten without --force.
    let out2 = glossa()
        .arg("import")
        .arg(fixture("research-terms.tsv"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(out2.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out2.stderr).contains("--force"));
}

#[test]
fn bad_import_rows_are_named_by_line_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let out_path = dir.path().join("bad.json");
    let out = glossa()
        .arg("import")
        .arg(fixture("research-bad.csv"))
        .arg("--out")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let file = fixture("research-bad.csv").display().to_string();
    for want in [
        format!("{file}:2: empty source"),
        format!("{file}:3: `cookie`: one column"),
        format!("{file}:5: `tea`: empty target"),
        format!("{file}:6: duplicate source `cold coffee` (first on line 1)"),
        format!("{file}:7: 5 columns"),
        "5 problems in".to_string(),
    ] {
        assert!(err.contains(&want), "no {want:?} in:\n{err}");
    }
    assert!(!err.contains(":8:") && !err.contains(":1: "), "{err}");
    assert!(!out_path.exists());

    let out = glossa()
        .arg("import")
        .arg(fixture("mini.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--from tsv, csv, tbx, xlsx or ods"));
}

/// A termbase nested 14,000 deep (98 KB) is refused with exit 2, naming the
/// file and the depth limit, instead of overflowing the stack.
#[test]
fn a_deeply_nested_tbx_is_refused_with_exit_2() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("deep.tbx");
    let depth = 14_000;
    fs::write(
        &path,
        format!(
            "<?xml version=\"1.0\"?>\n<martif><text><body>{}{}</body></text></martif>\n",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        ),
    )
    .unwrap();
    let out = glossa()
        .arg("import")
        .arg(&path)
        .args(["--target-lang", "de", "--out"])
        .arg(dir.path().join("deep.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("deep.tbx:2:"), "{stderr}");
    assert!(stderr.contains("nested more than 256 deep"), "{stderr}");
    assert!(!dir.path().join("deep.json").exists());
}

#[test]
fn diff_refuses_results_with_no_post_in_common() {
    // Issue 34: dev against test used to exit 0 with a table of zeros.
    let dir = TempDir::new().unwrap();
    let dev = save_eval(
        dir.path(),
        "dev.json",
        &["--retriever", "exact", "--split", "dev"],
    );
    let test = save_eval(
        dir.path(),
        "test.json",
        &["--retriever", "exact", "--split", "test"],
    );
    let out = glossa().arg("diff").arg(&dev).arg(&test).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no post in common"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The same split on both sides still compares.
    glossa().arg("diff").arg(&dev).arg(&dev).assert().success();
}

/// The WMT 2023 control conditions as retrievers (issue 31, item 5): no
/// terms reach the model, random terms as many as the label needs, and
/// the run reports term accuracy and consistency for each.
#[test]
fn control_conditions_run_beside_the_real_retrievers() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("run");
    let mut args = vec!["run".to_string()];
    args.extend(cafe());
    args.extend(["-r", "none,random,glossa", "-f", "json", "--out"].map(String::from));
    args.push(out.display().to_string());
    let output = glossa().args(&args).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    let terms = |name: &str| support::retriever_figures(&summary, name)["runs"][0]["terms"].clone();
    assert_eq!(terms("none")["terms_found"], 0);
    assert_eq!(terms("none")["terms_needed"], 36);
    assert_eq!(terms("glossa")["term_accuracy"], 1.0);
    let random = terms("random")["term_accuracy"].as_f64().unwrap();
    assert!(
        random < 0.2,
        "random terms are rarely the needed ones: {random}"
    );

    // Each post drew as many entries as its label needs, none of them needed.
    let labels: std::collections::HashMap<String, Value> =
        support::jsonl(&root("labels/cafe.jsonl"))
            .into_iter()
            .map(|l| (l["post"].as_str().unwrap().to_string(), l))
            .collect();
    let calls = support::jsonl(&out.join("calls.jsonl"));
    let random_calls: Vec<&Value> = calls
        .iter()
        .filter(|c| c["retriever"] == "random")
        .collect();
    assert_eq!(random_calls.len(), 24);
    for call in random_calls {
        let needed = labels[call["post"].as_str().unwrap()]["needed"]
            .as_array()
            .unwrap();
        let drawn = call["retrieved"].as_array().unwrap();
        assert_eq!(drawn.len(), needed.len(), "{call}");
        assert!(drawn.iter().all(|e| !needed.contains(e)), "{call}");
    }
}

/// The command `sweep` suggests, run as printed (through a shell), scores
/// the swept files, retriever and parameters on test: it used to say
/// `glossa eval --split test`, which scores the built-in demo.
#[test]
fn the_suggested_eval_command_runs_as_printed_on_the_same_data() {
    let dir = TempDir::new().unwrap();
    let cafe = fs::read_to_string(root("glossaries/cafe.json")).unwrap();
    fs::write(
        dir.path().join("my glossary.json"),
        cafe.replacen(r#""name": "cafe""#, r#""name": "mine""#, 1),
    )
    .unwrap();
    let posts = root("posts/cafe.jsonl").display().to_string();
    let labels = root("labels/cafe.jsonl").display().to_string();
    let spec = "normalised+fuzzy|sense";
    let (_, stderr) = run_ok(
        glossa()
            .current_dir(dir.path())
            .args(["sweep", "--no-save", "-r", spec, "--edit-two-from", "9"])
            .args(["-g", "my glossary.json", "-p", &posts, "-l", &labels]),
    );
    let command = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("glossa eval "))
        .unwrap_or_else(|| panic!("no command in {stderr}"));
    assert!(command.contains("-g 'my glossary.json'"), "{command}");
    assert!(command.contains(&format!("-r '{spec}'")), "{command}");
    assert!(command.ends_with("--split test"), "{command}");
    let suggested: f64 = command
        .split("--threshold ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no threshold in {command}"));
    // The table marks the same value.
    let (table, _) = run_ok(
        glossa()
            .current_dir(dir.path())
            .args(["sweep", "--no-save", "-r", spec, "--edit-two-from", "9"])
            .args(["-g", "my glossary.json", "-p", &posts, "-l", &labels]),
    );
    assert!(table.contains("(suggested)"), "{table}");

    let binary = assert_cmd::cargo::cargo_bin("glossa");
    let out = std::process::Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg(format!(
            "'{}' eval {command} --no-save --format json",
            binary.display()
        ))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["glossary"], "mine");
    assert_eq!(v["posts_file"], posts);
    assert_eq!(v["split"], "test");
    assert_eq!(v["retrievers"][0]["name"], spec);
    assert_eq!(v["params"]["threshold"].as_f64(), Some(suggested));
    assert_eq!(v["params"]["edit_two_from"], 9);
}
