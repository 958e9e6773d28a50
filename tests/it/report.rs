//! `glossa report` (eval result, run folder, sweep), `glossa diff
//! --format html` and `--show failing` through the real binary, on a small
//! data set whose post, post id and glossary term hold `<script>`; and the
//! page in headless Chromium from file:// (no console error, the filters
//! work, axe-core finds no WCAG 2.1 AA violation).

use crate::serve::{axe_violations, browser_tools, webdriver};
use crate::support::{jsonl, run_in};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use tempfile::TempDir;

/// A glossary, posts and labels where user text tries to be HTML: a
/// term, a target, a post and a post id. p2 has a wrong-sense "date";
/// p3 needs tea and has none (incomplete for every retriever).
fn hostile_set() -> TempDir {
    let dir = TempDir::new().unwrap();
    let w = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    w(
        "g.json",
        r#"{"name":"shop","target_lang":"x-test","entries":[
 {"id":"tag","source":"<script>alert(1)</script> cake","target":"<img src=x onerror=alert(2)>"},
 {"id":"tea","source":"tea","target":"te"},
 {"id":"date-fruit","source":"date","target":"zimbo","sense":"fruit"}
]}"#,
    );
    w(
        "p.jsonl",
        "{\"id\":\"<b>p1</b>\",\"text\":\"Try our <script>alert(1)</script> cake & tea!\"}\n\
         {\"id\":\"p2\",\"text\":\"Save the date for tea.\"}\n\
         {\"id\":\"p3\",\"text\":\"Nothing here.\"}\n",
    );
    w(
        "l.jsonl",
        "{\"post\":\"<b>p1</b>\",\"needed\":[\"tag\",\"tea\"]}\n\
         {\"post\":\"p2\",\"needed\":[\"tea\"],\"wrong_sense\":[\"date-fruit\"]}\n\
         {\"post\":\"p3\",\"needed\":[\"tea\"]}\n",
    );
    dir
}

const DATA: [&str; 6] = [
    "--glossary",
    "g.json",
    "--posts",
    "p.jsonl",
    "--labels",
    "l.jsonl",
];

/// `glossa eval` of the set as JSON, saved to `name`; the parsed result.
fn eval_json(dir: &Path, retrievers: &str, name: &str) -> Value {
    let mut args = vec!["eval", "--retriever", retrievers, "--format", "json"];
    args.extend(DATA);
    args.push("--no-save");
    let (out, _) = run_in(dir, &args, 0);
    std::fs::write(dir.join(name), &out).unwrap();
    serde_json::from_str(&out).unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// The number of times `needle` stands in `hay`.
fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Every user-written piece of the set is escaped: the page has exactly
/// its own one script element, and the hostile strings stand escaped.
fn assert_escaped(page: &str) {
    assert_eq!(count(page, "<script"), 1, "only the page's own script");
    assert_eq!(count(page, "<img"), 0, "the target is text, not an image");
    assert_eq!(count(page, "<b>"), 0, "the post id is text");
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

fn eval_page(dir: &Path) -> (Value, String) {
    let result = eval_json(dir, "exact,fuzzy", "result.json");
    let (_, err) = run_in(dir, &["report", "result.json", "--out", "report.html"], 0);
    assert!(err.contains("wrote report.html"), "{err}");
    (result, read(&dir.join("report.html")))
}

#[test]
fn eval_report_escapes_user_text_and_has_a_row_for_every_post() {
    let dir = hostile_set();
    let (result, page) = eval_page(dir.path());
    assert_escaped(&page);
    assert!(page.contains("&lt;b&gt;p1&lt;/b&gt;"));
    // A row group per retriever and post, flagged as the result says.
    let mut rows = 0;
    let mut failing = 0;
    for r in result["retrievers"].as_array().unwrap() {
        for p in r["per_post"].as_array().unwrap() {
            rows += 1;
            failing += usize::from(p["complete"] == false);
        }
        let name = r["name"].as_str().unwrap();
        assert_eq!(
            count(&page, &format!("data-retriever=\"{name}\" data-failing")),
            3,
            "three posts for {name}"
        );
    }
    assert_eq!(rows, 6);
    assert_eq!(count(&page, "<tbody class=\"post\""), rows);
    assert!(failing > 0 && failing < rows, "some posts fail, some pass");
    assert_eq!(count(&page, "data-failing=\"true\""), failing);
    assert!(page.contains(&format!("Failing ({failing})")));
    // p2's "date" is marked as the wrong sense it is, with how it matched.
    assert!(
        page.contains(
            "Save the <mark class=\"wrong\" title=\"date-fruit: wrong sense (exact)\">date</mark>"
        ),
        "{page}"
    );
    // The term written with symbols is marked where it stands.
    assert!(page.contains(
        "Try our <mark class=\"found\" title=\"tag: needed, found (exact)\">&lt;script&gt;alert(1)&lt;/script&gt; cake</mark>"
    ), "{page}");
    // The summary table and offline policy are there.
    assert!(page.contains("<th scope=\"col\">Retriever</th>"));
    assert!(page.contains("default-src 'none'"));
}

#[test]
fn run_report_marks_targets_found_and_leaked_in_each_output() {
    let dir = hostile_set();
    let mut args = vec!["run", "--retriever", "exact", "--out", "r"];
    args.extend(DATA);
    run_in(dir.path(), &args, 0);
    let calls = jsonl(&dir.path().join("r/calls.jsonl"));
    run_in(dir.path(), &["report", "r", "--out", "run.html"], 0);
    let page = read(&dir.path().join("run.html"));
    assert_escaped(&page);
    assert_eq!(count(&page, "<tbody class=\"post\""), calls.len());
    let wrong = calls.iter().filter(|c| c["check"]["ok"] == false).count();
    assert_eq!(count(&page, "data-failing=\"true\""), wrong);
    assert_eq!(count(&page, "data-error=\"true\""), 0);
    // The offline provider puts the fruit in p2: leaked, and the needed
    // "te" found; the escaped target stands marked in p1's output.
    let p2 = calls.iter().find(|c| c["post"] == "p2").unwrap();
    assert_eq!(p2["check"]["leaked"], serde_json::json!(["date-fruit"]));
    assert!(page.contains(
        "<mark class=\"leaked\" title=\"date-fruit: wrong-sense target, leaked\">zimbo</mark>"
    ));
    assert!(page.contains(
        "<mark class=\"found\" title=\"tag: needed target, found\">&lt;img src=x onerror=alert(2)&gt;</mark>"
    ));
    // Rows in posts-file order, whatever order the calls finished in.
    let at = |id: &str| page.find(&format!("<td>1</td><td>{id}</td>")).unwrap();
    assert!(at("&lt;b&gt;p1&lt;/b&gt;") < at("p2") && at("p2") < at("p3"));
    // p3 needs tea and has none: its missing entry is listed.
    assert!(page.contains("<td>te</td><td>yes</td><td>no</td><td>missing</td>"));
}

#[test]
fn diff_html_flags_the_posts_whose_status_changed() {
    let dir = hostile_set();
    eval_json(dir.path(), "exact", "a.json");
    eval_json(dir.path(), "fuzzy", "b.json");
    let both = ["diff", "a.json", "b.json", "--retriever", "exact=fuzzy"];
    let (json, _) = run_in(dir.path(), &[&both[..], &["--format", "json"]].concat(), 0);
    let d: Value = serde_json::from_str(&json).unwrap();
    let changed = d["retrievers"][0]["changed"].as_array().unwrap().len();
    let (page, _) = run_in(dir.path(), &[&both[..], &["--format", "html"]].concat(), 0);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // The diff lists post ids and entry ids, no texts: the id is escaped.
    assert_eq!(count(&page, "<script"), 1);
    assert_eq!(count(&page, "<b>"), 0);
    assert!(page.contains("&lt;b&gt;p1&lt;/b&gt;"));
    assert_eq!(count(&page, "<tbody class=\"post\""), 3);
    assert_eq!(count(&page, "data-changed=\"true\""), changed);
    assert!(page.contains(&format!("Changed ({changed})")));
    assert!(page.contains("exact → fuzzy"));
    // Each row shows the post as A's and B's retrievers marked it.
    assert_eq!(count(&page, "<h3>A: exact</h3>"), 3);
    assert_eq!(count(&page, "<h3>B: fuzzy</h3>"), 3);
    assert!(page.contains(
        "Save the <mark class=\"wrong\" title=\"date-fruit: wrong sense (exact)\">date</mark>"
    ));
}

#[test]
fn show_failing_lists_the_incomplete_posts_in_every_format() {
    let dir = hostile_set();
    let result = eval_json(dir.path(), "exact", "x.json");
    let incomplete: Vec<&str> = result["retrievers"][0]["per_post"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["complete"] == false)
        .map(|p| p["post"].as_str().unwrap())
        .collect();
    assert!(!incomplete.is_empty());
    let mut args = vec![
        "eval",
        "--retriever",
        "exact",
        "--no-save",
        "--show",
        "failing",
    ];
    args.extend(DATA);
    let (json, _) = run_in(dir.path(), &[&args[..], &["--format", "json"]].concat(), 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    let listed: Vec<&str> = v["failing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["post"].as_str().unwrap())
        .collect();
    assert_eq!(listed, incomplete);
    assert!(v["retrievers"].is_array(), "the result is still there");
    let (table, _) = run_in(dir.path(), &args, 0);
    assert!(table.contains(&format!("Failing posts: {}", incomplete.len())));
    let (csv, _) = run_in(dir.path(), &[&args[..], &["--format", "csv"]].concat(), 0);
    assert!(csv.contains("Retriever,Post,Split,Missed,Wrong sense,Extra\n"));
    // Without --show, no such table.
    let plain: Vec<&str> = args[..args.len() - 2].to_vec();
    let (table, _) = run_in(dir.path(), &[&plain[..4], &DATA[..]].concat(), 0);
    assert!(!table.contains("Failing posts"));

    // A run: p2 (wrong sense leaked) and p3 (tea missing) fail.
    let mut args = vec![
        "run",
        "--retriever",
        "exact",
        "--out",
        "r",
        "--show",
        "failing",
    ];
    args.extend(DATA);
    let (md, _) = run_in(
        dir.path(),
        &[&args[..], &["--format", "markdown"]].concat(),
        0,
    );
    let calls = jsonl(&dir.path().join("r/calls.jsonl"));
    let wrong: Vec<&str> = calls
        .iter()
        .filter(|c| c["check"]["ok"] == false)
        .map(|c| c["post"].as_str().unwrap())
        .collect();
    assert!(
        md.contains(&format!("**Failing posts: {}**", wrong.len())),
        "{md}"
    );
    for post in &wrong {
        assert!(
            md.contains(&format!("| exact | {post} |")),
            "{post} in {md}"
        );
    }
    let (json, _) = run_in(
        dir.path(),
        &[
            "run", "--resume", "r", "--show", "failing", "--format", "json",
        ],
        0,
    );
    let v: Value = serde_json::from_str(&json).unwrap();
    let p2 = v["failing"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["post"] == "p2")
        .expect("p2 fails");
    assert_eq!(p2["leaked"], serde_json::json!(["date-fruit"]));
}

#[test]
fn sweep_report_holds_the_table_and_the_chart_as_an_image() {
    let dir = hostile_set();
    let mut args = vec![
        "sweep",
        "--retriever",
        "fuzzy",
        "--param",
        "threshold",
        "--from",
        "0.7",
        "--to",
        "0.9",
        "--step",
        "0.1",
        "--runs-dir",
        "runs",
        "--split",
        "all",
    ];
    args.extend(DATA);
    run_in(dir.path(), &args, 0);
    let saved = std::fs::read_dir(dir.path().join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("the sweep's JSON");
    let (page, _) = run_in(dir.path(), &["report", saved.to_str().unwrap()], 0);
    assert!(page.contains("<img class=\"chart\" src=\"data:image/svg+xml;base64,"));
    for value in ["0.7", "0.8", "0.9"] {
        assert_eq!(
            count(&page, &format!("<tr><td class=\"num\">{value}</td>")),
            1
        );
    }
}

#[test]
fn report_of_something_else_names_the_file() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("x.json"), "{\"a\": 1}").unwrap();
    let (_, err) = run_in(dir.path(), &["report", "x.json"], 2);
    assert!(err.contains("x.json"), "{err}");
    assert!(err.contains("not an eval result"), "{err}");
}

/// The eval page from file:// in headless Chromium: no console error
/// (a probe proves errors are seen), "Failing" hides every passing row
/// and "All" brings them back, the retriever choice narrows the rows, and
/// axe-core finds no WCAG 2.1 A/AA violation with a row's details open.
#[test]
fn browser_report_opens_offline_filters_and_is_accessible() {
    let Some((chromium, chromedriver)) =
        browser_tools("browser_report_opens_offline_filters_and_is_accessible")
    else {
        return;
    };
    let dir = hostile_set();
    let (result, _) = eval_page(dir.path());
    let probe = dir.path().join("probe.html");
    std::fs::write(
        &probe,
        "<!DOCTYPE html><script>console.error('probe')</script>",
    )
    .unwrap();
    let url = |p: &Path| format!("file://{}", p.display());
    let b = webdriver::Browser::start(&chromium, &chromedriver, 1200, 900);
    b.goto(&url(&probe));
    let seen = b.console_errors();
    assert!(
        seen.iter().any(|e| e.contains("probe")),
        "the console is read: {seen:?}"
    );

    b.goto(&url(&dir.path().join("report.html")));
    b.find("body[data-ready='true']");
    let errors = b.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");

    let visible =
        "return Array.from(document.querySelectorAll('tbody.post')).filter((g) => !g.hidden)\
                   .map((g) => g.dataset.failing)";
    let all = b.eval(visible);
    assert_eq!(all.as_array().unwrap().len(), 6);
    let failing = result["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["per_post"].as_array().unwrap())
        .filter(|p| p["complete"] == false)
        .count();
    b.find("button[data-filter='failing']").click();
    let shown = b.eval(visible);
    let shown = shown.as_array().unwrap();
    assert_eq!(shown.len(), failing);
    assert!(shown.iter().all(|f| f == "true"), "{shown:?}");
    assert_eq!(
        b.find("button[data-filter='failing']").text(),
        format!("Failing ({failing})")
    );
    assert_eq!(
        b.eval("return document.querySelector(\"button[data-filter='failing']\").getAttribute('aria-pressed')"),
        Value::String("true".into())
    );
    assert!(b
        .find("#shown")
        .text()
        .starts_with(&format!("{failing} of 6")));
    b.find("button[data-filter='all']").click();
    assert_eq!(b.eval(visible).as_array().unwrap().len(), 6);
    b.eval(
        "const s = document.getElementById('retriever-filter'); s.value = 'fuzzy';\
         s.dispatchEvent(new Event('change')); return true;",
    );
    let by_retriever = b.eval(
        "return Array.from(document.querySelectorAll('tbody.post')).filter((g) => !g.hidden)\
         .map((g) => g.dataset.retriever)",
    );
    assert_eq!(by_retriever, serde_json::json!(["fuzzy", "fuzzy", "fuzzy"]));

    b.find("tbody.post:not([hidden]) details summary").click();
    b.wait_until(
        "a row's details to open",
        "return document.querySelector('details[open]') !== null",
        Duration::from_secs(10),
    );
    if let Some(violations) = axe_violations(&b) {
        assert!(violations.is_empty(), "WCAG 2.1 AA: {violations:#?}");
    }
    let errors = b.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}

/// The rows of the page that are not hidden, as `data-KEY` values.
fn visible(b: &webdriver::Browser, key: &str) -> Vec<String> {
    let v = b.eval(&format!(
        "return Array.from(document.querySelectorAll('tbody.post')).filter((g) => !g.hidden)\
         .map((g) => g.dataset.{key})"
    ));
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A run page with one failed call (its record rewritten so, error text
/// hostile) and a diff page, from file://: "Errors" shows only the failed
/// call, "Changed" only the changed posts; no console error, no WCAG 2.1
/// A/AA violation on either.
#[test]
fn browser_run_and_diff_pages_filter_errors_and_changes_and_are_accessible() {
    let Some((chromium, chromedriver)) =
        browser_tools("browser_run_and_diff_pages_filter_errors_and_changes_and_are_accessible")
    else {
        return;
    };
    let dir = hostile_set();
    let d = dir.path();
    let mut args = vec!["run", "--retriever", "exact", "--out", "r"];
    args.extend(DATA);
    run_in(d, &args, 0);
    let calls_file = d.join("r/calls.jsonl");
    let mut calls = jsonl(&calls_file);
    calls[0]["output"] = Value::Null;
    calls[0]["error"] = Value::String("HTTP 500: <script>boom()</script>".into());
    let text: String = calls.iter().map(|c| format!("{c}\n")).collect();
    std::fs::write(&calls_file, text).unwrap();
    run_in(d, &["report", "r", "--out", "run.html"], 0);
    let page = read(&d.join("run.html"));
    assert_eq!(count(&page, "<script"), 1);
    assert!(page.contains("HTTP 500: &lt;script&gt;boom()&lt;/script&gt;"));

    eval_json(d, "exact", "a.json");
    eval_json(d, "fuzzy", "b.json");
    let (diff, _) = run_in(
        d,
        &[
            "diff",
            "a.json",
            "b.json",
            "-r",
            "exact=fuzzy",
            "-f",
            "html",
        ],
        0,
    );
    std::fs::write(d.join("diff.html"), &diff).unwrap();
    let changed = count(&diff, "data-changed=\"true\"");
    assert!(changed > 0 && changed < 3, "some posts changed, not all");

    let url = |name: &str| format!("file://{}", d.join(name).display());
    let b = webdriver::Browser::start(&chromium, &chromedriver, 1200, 900);
    b.goto(&url("run.html"));
    b.find("body[data-ready='true']");
    assert_eq!(visible(&b, "error").len(), calls.len());
    b.find("button[data-filter='error']").click();
    assert_eq!(visible(&b, "error"), vec!["true".to_string()]);
    b.find("tbody.post:not([hidden]) details summary").click();
    if let Some(violations) = axe_violations(&b) {
        assert!(
            violations.is_empty(),
            "run page, WCAG 2.1 AA: {violations:#?}"
        );
    }
    let errors = b.console_errors();
    assert!(errors.is_empty(), "run page, console errors: {errors:?}");

    b.goto(&url("diff.html"));
    b.find("body[data-ready='true']");
    assert_eq!(visible(&b, "changed").len(), 3);
    b.find("button[data-filter='changed']").click();
    let shown = visible(&b, "changed");
    assert_eq!(shown.len(), changed);
    assert!(shown.iter().all(|c| c == "true"));
    b.find("tbody.post:not([hidden]) details summary").click();
    if let Some(violations) = axe_violations(&b) {
        assert!(
            violations.is_empty(),
            "diff page, WCAG 2.1 AA: {violations:#?}"
        );
    }
    let errors = b.console_errors();
    assert!(errors.is_empty(), "diff page, console errors: {errors:?}");
}
