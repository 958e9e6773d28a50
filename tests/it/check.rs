//! `glossa check` (issue 31, item 4): translations made elsewhere checked
//! against a glossary with no model, per segment and in sum, with the JSON
//! interface an independent check calls.

use crate::support;

use serde_json::{json, Value};
use support::run_in as run;
use tempfile::TempDir;

const GLOSSARY: &str = r#"{"name": "shop", "source_lang": "en", "target_lang": "de", "entries": [
  {"id": "delivery", "source": "delivery", "target": "Lieferung", "forms": ["Lieferungen"]},
  {"id": "ice-cream", "source": "ice cream", "target": "Eis"},
  {"id": "cream", "source": "cream", "target": "Sahne"},
  {"id": "customer-service", "source": "customer service", "target": "Kundendienst"}
]}"#;

fn setup(segments: &[Value]) -> TempDir {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("shop.json"), GLOSSARY).unwrap();
    let lines: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
    std::fs::write(dir.path().join("pairs.jsonl"), lines.join("\n") + "\n").unwrap();
    dir
}

fn seg(id: &str, source: &str, target: &str) -> Value {
    json!({"id": id, "source": source, "target": target})
}

fn check_json(dir: &TempDir, extra: &[&str], code: i32) -> Value {
    let mut args = vec![
        "check",
        "--glossary",
        "shop.json",
        "pairs.jsonl",
        "--format",
        "json",
    ];
    args.extend(extra);
    let (stdout, _) = run(dir.path(), &args, code);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn each_segment_is_judged_by_the_entries_its_source_retrieves() {
    let dir = setup(&[
        seg("ok", "Free delivery today.", "Heute kostenlose Lieferung."),
        seg(
            "form",
            "Two deliveries a week.",
            "Zwei Lieferungen pro Woche.",
        ),
        seg(
            "missing",
            "Call customer service.",
            "Rufen Sie den Support an.",
        ),
        seg("nested", "Ice cream with cream.", "Eis mit Schlagobers."),
        seg("none", "Nothing to look up.", "Nichts nachzuschlagen."),
    ]);
    let v = check_json(&dir, &[], 1);
    let segments = v["segments"].as_array().unwrap();
    let ids: Vec<&str> = segments.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["ok", "form", "missing", "nested", "none"]);
    let by = |id: &str| segments.iter().find(|s| s["id"] == id).unwrap();
    assert_eq!(by("ok")["ok"], true);
    assert_eq!(by("form")["ok"], true, "a form counts");
    assert_eq!(by("missing")["ok"], false);
    assert_eq!(by("missing")["missing"], json!(["customer-service"]));
    // "cream" matched inside "ice cream", whose target stands: covered,
    // and the plain "cream" elsewhere is missing "Sahne".
    assert_eq!(by("nested")["missing"], json!(["cream"]));
    assert_eq!(by("none")["ok"], true);
    for s in segments {
        for field in [
            "id",
            "ok",
            "missing",
            "forbidden",
            "invariants",
            "nested_covered",
            "line",
        ] {
            assert!(s.get(field).is_some(), "{field} in {s}");
        }
    }
    let summary = &v["summary"];
    assert_eq!(summary["segments"], 5);
    assert_eq!(summary["ok"], 3);
    // needed: delivery ×2, customer-service, ice-cream, cream.
    assert_eq!(summary["terms_needed"], 5);
    assert_eq!(summary["terms_found"], 3);
    assert_eq!(summary["term_accuracy"], 0.6);
}

#[test]
fn a_nested_term_whose_longer_term_stands_is_covered_not_missing() {
    let dir = setup(&[seg("n", "Our ice cream is back.", "Unser Eis ist zurück.")]);
    // `exact` retrieves both "ice cream" and the "cream" inside it.
    let v = check_json(&dir, &["--retriever", "exact"], 0);
    let s = &v["segments"][0];
    assert_eq!(s["ok"], true);
    assert_eq!(s["missing"], json!([]));
    assert_eq!(s["nested_covered"], json!(["cream"]));
    assert_eq!(s["found"], json!(["ice-cream"]));
    // The default keeps both too (docs/formats.md, `longest`).
    let v = check_json(&dir, &[], 0);
    assert_eq!(v["segments"][0]["nested_covered"], json!(["cream"]));
    assert_eq!(v["summary"]["terms_needed"], 1);
}

#[test]
fn consistency_is_the_share_written_as_each_terms_most_common_rendering() {
    let dir = setup(&[
        seg("1", "The delivery is late.", "Die Lieferung ist spät."),
        seg("2", "A delivery came.", "Eine Lieferung kam."),
        seg("3", "Delivery on Monday.", "Zustellung am Montag."),
        seg("4", "Call customer service.", "Kundendienst anrufen."),
    ]);
    let v = check_json(&dir, &[], 1);
    let summary = &v["summary"];
    // delivery: "lieferung" twice, missing once; customer service once.
    assert_eq!(summary["repeated_terms"], 1);
    let consistency = summary["consistency"].as_f64().unwrap();
    assert!((consistency - 2.0 / 3.0).abs() < 1e-9, "{consistency}");
}

#[test]
fn labels_say_what_is_needed_and_which_sense_must_not_be_used() {
    let dir = setup(&[
        seg("a", "Ice cream with cream.", "Eis mit Sahne."),
        seg("b", "Free delivery.", "Kostenlose Lieferung."),
    ]);
    std::fs::write(
        dir.path().join("labels.jsonl"),
        "{\"post\": \"a\", \"needed\": [\"ice-cream\"], \"wrong_sense\": [\"customer-service\"]}\n\
         {\"post\": \"b\", \"needed\": [\"delivery\", \"customer-service\"]}\n\
         {\"post\": \"zz\", \"needed\": [\"delivery\"]}\n",
    )
    .unwrap();
    let mut args = vec!["check", "-g", "shop.json", "pairs.jsonl", "-f", "json"];
    args.extend(["--labels", "labels.jsonl"]);
    let (stdout, stderr) = run(dir.path(), &args, 1);
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["segments"][0]["ok"], true,
        "only the label's entries count"
    );
    assert_eq!(v["segments"][1]["missing"], json!(["customer-service"]));
    assert_eq!(v["summary"]["labelled"], 2);
    assert!(stderr.contains("1 of 3 labels name no segment"), "{stderr}");

    // A label naming an entry the glossary lacks is refused with its line.
    std::fs::write(
        dir.path().join("labels.jsonl"),
        "{\"post\": \"a\", \"needed\": [\"ice-cream\"]}\n{\"post\": \"b\", \"needed\": [\"nope\"]}\n",
    )
    .unwrap();
    let (_, stderr) = run(dir.path(), &args, 2);
    assert!(
        stderr.contains("labels.jsonl:2") && stderr.contains("nope"),
        "{stderr}"
    );
}

#[test]
fn fail_under_bounds_the_figures_and_exit_codes_say_what_happened() {
    let dir = setup(&[
        seg("1", "Free delivery.", "Kostenlose Lieferung."),
        seg("2", "Call customer service.", "Support anrufen."),
    ]);
    let args = |extra: &[&str]| {
        let mut a = vec!["check", "-g", "shop.json", "pairs.jsonl"];
        a.extend(extra);
        a.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let call = |extra: &[&str], code| {
        let a = args(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        run(dir.path(), &a, code)
    };
    // A failed segment is exit 1 whatever the bounds.
    let (_, stderr) = call(&["--fail-under", "term_accuracy=40%"], 1);
    assert!(!stderr.contains("not met"), "{stderr}");
    let (_, stderr) = call(&["--fail-under", "term_accuracy=0.9,ok=0.4"], 1);
    assert!(stderr.contains("term_accuracy 0.5000 < 0.9"), "{stderr}");
    assert!(!stderr.contains("ok 0.5"), "{stderr}");
    let (_, stderr) = call(&["--fail-under", "recall=0.9"], 2);
    assert!(stderr.contains("unknown figure"), "{stderr}");

    let ok = setup(&[seg("1", "Free delivery.", "Kostenlose Lieferung.")]);
    let (stdout, _) = run(
        ok.path(),
        &[
            "check",
            "-g",
            "shop.json",
            "pairs.jsonl",
            "--fail-under",
            "ok=1",
        ],
        0,
    );
    assert!(
        stdout.contains("Every segment passed the check."),
        "{stdout}"
    );
    assert!(stdout.contains("100.0% (1 of 1)"), "{stdout}");
}

#[test]
fn a_bad_segment_stops_the_check_after_printing_what_came_before() {
    let dir = setup(&[
        seg("1", "Free delivery.", "Kostenlose Lieferung."),
        seg("2", "Call customer service.", "Kundendienst anrufen."),
    ]);
    let path = dir.path().join("pairs.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"id\": \"3\", \"source\": \"no target\"}\n");
    std::fs::write(&path, text).unwrap();
    let (stdout, stderr) = run(
        dir.path(),
        &["check", "-g", "shop.json", "pairs.jsonl", "-f", "json"],
        2,
    );
    let v: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["summary"]["segments"], 2);
    assert!(stderr.contains("pairs.jsonl:3"), "{stderr}");
}

#[test]
fn thousands_of_segments_come_out_in_file_order() {
    // More than one chunk of side-by-side checks.
    let segments: Vec<Value> = (0..5000)
        .map(|i| match i % 2 {
            0 => seg(&format!("s{i}"), "Free delivery.", "Kostenlose Lieferung."),
            _ => seg(&format!("s{i}"), "Free delivery.", "Gratis Versand."),
        })
        .collect();
    let dir = setup(&segments);
    let (stdout, _) = run(
        dir.path(),
        &["check", "-g", "shop.json", "pairs.jsonl", "-f", "csv"],
        1,
    );
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        rows[0],
        "id,line,ok,missing,forbidden,invariants,leaked,nested_covered"
    );
    assert_eq!(rows.len(), 5001);
    for (i, row) in rows[1..].iter().enumerate() {
        let expected = match i % 2 {
            0 => format!("s{i},{},true,,,,,", i + 1),
            _ => format!("s{i},{},false,delivery,,,,", i + 1),
        };
        assert_eq!(*row, expected);
    }
}

#[test]
fn a_forbidden_term_fails_its_segment_with_its_place() {
    let dir = setup(&[
        seg(
            "1",
            "Free delivery.",
            "Kostenlose Lieferung, keine Zustellung.",
        ),
        seg("2", "Nothing to look up.", "Billig und gut."),
        seg("3", "Call customer service.", "Kundendienst anrufen."),
    ]);
    let glossary = GLOSSARY
        .replace(
            r#""forms": ["Lieferungen"]}"#,
            r#""forms": ["Lieferungen"], "forbidden": ["Zustellung"]}"#,
        )
        .replace(
            r#""entries": ["#,
            r#""forbidden": ["billig"], "entries": ["#,
        );
    std::fs::write(dir.path().join("shop.json"), glossary).unwrap();
    let v = check_json(&dir, &[], 1);
    let segments = v["segments"].as_array().unwrap();
    assert_eq!(segments[0]["ok"], false);
    assert_eq!(segments[0]["missing"], json!([]));
    let at = "Kostenlose Lieferung, keine ".len();
    assert_eq!(
        segments[0]["forbidden"],
        json!([{"entry": "delivery", "term": "Zustellung", "at": [at, at + "Zustellung".len()]}])
    );
    // The glossary-wide list applies to every segment.
    assert_eq!(segments[1]["ok"], false);
    assert_eq!(segments[1]["forbidden"][0]["entry"], Value::Null);
    assert_eq!(segments[1]["forbidden"][0]["term"], "billig");
    assert_eq!(segments[2]["ok"], true);
    assert_eq!(segments[2]["forbidden"], json!([]));
    assert_eq!(v["summary"]["with_forbidden"], 2);
}

/// The issue's example: a changed price and a dropped handle are listed
/// with their places; `--invariants fail` fails the segment for them.
#[test]
fn invariants_of_the_source_are_listed_and_fail_only_when_asked() {
    let source = "Only £3.50 until 9 a.m. @cafe #weekend";
    let dir = setup(&[
        seg("kept", source, "Nur 3,50 £ bis 9:00 Uhr @cafe #weekend"),
        seg("changed", source, "Nur £3.05 bis 9 Uhr #weekend"),
    ]);
    let v = check_json(&dir, &[], 0);
    let segments = v["segments"].as_array().unwrap();
    assert_eq!(segments[0]["invariants"], json!([]));
    let issues = segments[1]["invariants"].as_array().unwrap();
    let price = issues.iter().find(|i| i["kind"] == "amount").unwrap();
    assert_eq!(price["text"], "£3.50");
    assert_eq!(price["problem"], "changed");
    assert_eq!(price["found"], "£3.05");
    let at = source.find("£3.50").unwrap();
    assert_eq!(price["at"], json!([at, at + "£3.50".len()]));
    let handle = issues.iter().find(|i| i["kind"] == "handle").unwrap();
    assert_eq!(
        (handle["text"].as_str(), handle["problem"].as_str()),
        (Some("@cafe"), Some("missing"))
    );
    assert_eq!(segments[1]["ok"], true, "warn: listed, the terms decide");
    assert_eq!(v["summary"]["with_invariants"], 1);

    let v = check_json(&dir, &["--invariants", "fail"], 1);
    assert_eq!(v["segments"][0]["ok"], true);
    assert_eq!(v["segments"][1]["ok"], false);
    let v = check_json(&dir, &["--invariants", "off"], 0);
    assert_eq!(v["segments"][1]["invariants"], json!([]));
}

/// Every input format through the command (issue 31's "Done when"): XLIFF
/// 2 and 1.2 with inline codes, a line-aligned pair and a UTF-16 TMX, each
/// checked against one glossary, inline codes never taken for text.
#[test]
fn every_input_format_is_checked_through_the_command() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("g.json"),
        r#"{"source_lang": "en", "target_lang": "fr", "entries": [
            {"id": "cold-coffee", "source": "cold coffee", "target": "café froid", "forms": ["kalten Kaffee", "kalter Kaffee"]},
            {"id": "cookie", "source": "cookie", "target": "biscuits", "forms": ["Kekse"]},
            {"id": "news", "source": "news", "target": "Neuigkeiten"}]}"#,
    )
    .unwrap();
    let fixture = |name: &str| {
        support::repo_file(&format!("tests/fixtures/segments/{name}"))
            .display()
            .to_string()
    };
    let check = |args: &[&str]| -> Value {
        let mut all = vec!["check", "-g", "g.json", "-f", "json"];
        all.extend(args);
        let out = support::glossa_in(dir.path()).args(&all).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let found = |v: &Value| -> Vec<String> {
        v["segments"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["found"].as_array().unwrap().clone())
            .map(|f| f.as_str().unwrap().to_string())
            .collect()
    };

    let xliff2 = check(&[&fixture("xliff2.xlf")]);
    assert_eq!(found(&xliff2), ["cold-coffee", "cookie"]);
    assert_eq!(xliff2["summary"]["failed"], 0);

    let xliff12 = check(&[&fixture("xliff12.xlf")]);
    // "news" stands between <bpt>/<ept> codes; the codes are no text.
    assert_eq!(found(&xliff12), ["cold-coffee", "news"]);
    assert_eq!(xliff12["summary"]["failed"], 0);

    let pair = check(&[
        &fixture("pair.en.txt"),
        "--target-file",
        &fixture("pair.de.txt"),
    ]);
    let ids: Vec<&str> = pair["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["1", "3", "4"], "line numbers, blank lines skipped");
    assert_eq!(found(&pair), ["cold-coffee", "cookie"]);

    // Two target languages: the one asked for is read.
    let tmx = check(&[&fixture("tmx-utf16le.tmx"), "--target-lang", "fr"]);
    assert!(tmx["summary"]["segments"].as_u64().unwrap() > 0);
    let out = support::glossa_in(dir.path())
        .args(["check", "-g", "g.json", &fixture("tmx-utf16le.tmx")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--target-lang"), "{stderr}");
}
