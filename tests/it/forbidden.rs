//! Forbidden terms end to end (issue 31, item 1): a TBX-Basic termbase with
//! deprecated and superseded German terms is imported, and a model's
//! output that uses one fails the check, naming the entry, the term and
//! its byte place; the same in `translate` (a warning), the repair prompt,
//! the run's summary and table, and a TBX → JSON → TBX → JSON round trip.

use crate::support;

use serde_json::Value;
use std::path::Path;
use support::{
    chat_reply_with_usage, fixture, glossa, glossa_at, glossa_in, jsonl, strings, Server,
};
use tempfile::TempDir;

/// `glossa import tests/fixtures/forbidden-terms.tbx --out DIR/g.json`.
fn import_fixture(dir: &Path) -> Value {
    let out = glossa()
        .args(["import", "--out"])
        .arg(dir.join("g.json"))
        .arg(fixture("forbidden-terms.tbx"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The concept whose only German term is deprecated gives no entry, and
    // says so.
    assert!(
        stderr.contains("termEntry `hotline` has only deprecated `de-de` terms (Hotline); skipped"),
        "{stderr}"
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("g.json")).unwrap()).unwrap()
}

#[test]
fn a_tbx_basic_termbase_keeps_its_deprecated_and_superseded_terms_as_forbidden() {
    let dir = TempDir::new().unwrap();
    let g = import_fixture(dir.path());
    let entries = g["entries"].as_array().unwrap();
    let by_id = |id: &str| {
        entries
            .iter()
            .find(|e| e["id"] == id || (e.get("id").is_none() && e["source"] == id))
            .unwrap_or_else(|| panic!("no entry {id} in {g}"))
    };
    let email = by_id("email");
    assert_eq!(email["target"], "E-Mail");
    assert_eq!(email["forbidden"], serde_json::json!(["Email"]));
    // An admitted source term is an alias; the deprecated target is
    // neither the target nor a form.
    assert_eq!(email["aliases"], serde_json::json!(["email"]));
    assert!(email.get("forms").is_none(), "{email}");
    assert_eq!(
        by_id("download")["forbidden"],
        serde_json::json!(["downloaden"])
    );
    let service = by_id("customer-service");
    assert_eq!(service["forms"], serde_json::json!(["Kundenservice"]));
    assert_eq!(
        service["forbidden"],
        serde_json::json!(["Customer Service"])
    );
    assert_eq!(entries.len(), 3, "{g}");
}

/// The issue's "Done when": a TBX with a deprecated term yields an entry
/// whose `forbidden` list fails an output that uses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_fails_an_output_that_uses_a_deprecated_term_naming_entry_and_place() {
    let dir = TempDir::new().unwrap();
    import_fixture(dir.path());
    std::fs::write(
        dir.path().join("posts.jsonl"),
        "{\"id\": \"a\", \"text\": \"Send us an e-mail.\"}\n\
         {\"id\": \"b\", \"text\": \"Download the app and e-mail customer service.\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("labels.jsonl"),
        "{\"post\": \"a\", \"needed\": [\"email\"]}\n\
         {\"post\": \"b\", \"needed\": [\"download\", \"email\", \"customer-service\"]}\n",
    )
    .unwrap();
    // Post a uses the deprecated "Email" (enamel); post b is right: no
    // forbidden term stands in it ("Email" is not in "E-Mail").
    let wrong = "Schicken Sie uns eine Email.";
    let right = "Die App herunterladen und dem Kundendienst eine E-Mail schreiben.";
    let server = Server::start(vec![
        chat_reply_with_usage(wrong),
        chat_reply_with_usage(right),
    ])
    .await;
    let mut run = strings(&[
        "run",
        "-g",
        "g.json",
        "-p",
        "posts.jsonl",
        "-l",
        "labels.jsonl",
        "-r",
        "glossa",
        "-j",
        "1",
        "--out",
        "r",
        "--format",
        "json",
    ]);
    run.extend(server.provider_args("m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), run).await;
    assert_eq!(code, 0, "a run whose calls answered exits 0: {stderr}");
    // The prompt told the model which words never to write.
    let prompt = server.prompt(0);
    assert!(
        prompt.contains(
            "- e-mail → E-Mail (meaning: a message sent from one computer user to another over a network) (never: Email)"
        ),
        "{prompt}"
    );
    let calls = jsonl(&dir.path().join("r/calls.jsonl"));
    let a = calls.iter().find(|c| c["post"] == "a").unwrap();
    assert_eq!(a["check"]["ok"], false, "{a}");
    assert_eq!(a["check"]["missing"], serde_json::json!(["email"]));
    let at = wrong.find("Email").unwrap();
    assert_eq!(at, 22);
    assert_eq!(
        a["check"]["forbidden"],
        serde_json::json!([{"entry": "email", "term": "Email", "at": [at, at + 5]}])
    );
    let b = calls.iter().find(|c| c["post"] == "b").unwrap();
    assert_eq!(b["check"]["ok"], true, "{b}");
    assert!(b["check"].get("forbidden").is_none(), "{b}");
    // The summary counts the post; the table gets its column.
    let summary: Value = serde_json::from_str(&stdout).unwrap();
    let figures = &support::retriever_figures(&summary, "glossa")["runs"][0];
    assert_eq!(figures["forbidden"], 1, "{summary}");
    assert_eq!(figures["right"], 1, "{summary}");
    // Again as a table: every reply comes from the cache.
    let mut again = strings(&[
        "run",
        "-g",
        "g.json",
        "-p",
        "posts.jsonl",
        "-l",
        "labels.jsonl",
        "-r",
        "glossa",
        "-j",
        "1",
        "--out",
        "r2",
    ]);
    again.extend(server.provider_args("m"));
    let (code, table, stderr) = glossa_at(dir.path(), again).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(server.count(), 2, "cached");
    assert!(table.contains("Forbidden term used"), "{table}");
}

/// `translate` shows a forbidden term as a warning with its place and
/// exits 0; the repair turn names the term and the target to write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn translate_warns_of_a_forbidden_term_and_the_repair_asks_for_the_target() {
    let dir = TempDir::new().unwrap();
    import_fixture(dir.path());
    let wrong = "Bitte downloaden Sie die App.";
    // The first translate takes the first reply; the second gets the same
    // wrong one first, then the repaired one.
    let server = Server::start(vec![
        chat_reply_with_usage(wrong),
        chat_reply_with_usage(wrong),
        chat_reply_with_usage("Bitte die App herunterladen."),
    ])
    .await;
    let mut translate = strings(&[
        "translate",
        "Please download the app.",
        "-g",
        "g.json",
        "--repair",
        "0",
    ]);
    translate.extend(server.provider_args("m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), translate).await;
    assert_eq!(code, 0, "a forbidden term is a warning: {stderr}");
    assert!(stdout.starts_with(wrong), "{stdout}");
    assert!(
        stderr.contains(
            "forbidden term 'downloaden' (entry download) at 6: the glossary says never to write it"
        ),
        "{stderr}"
    );

    let mut repaired = strings(&[
        "translate",
        "Please download the app.",
        "-g",
        "g.json",
        "--format",
        "json",
        "--no-cache",
    ]);
    repaired.extend(server.provider_args("m"));
    let (code, stdout, stderr) = glossa_at(dir.path(), repaired).await;
    assert_eq!(code, 0, "{stderr}");
    let requests = server.requests();
    let repair = requests.last().unwrap().json()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        repair
            .contains("- the glossary forbids 'downloaden'; write 'herunterladen' for 'download'"),
        "{repair}"
    );
    let trace: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        trace["generate"]["output"]["text"],
        "Bitte die App herunterladen."
    );
    assert!(trace["review"].get("forbidden").is_none(), "{trace}");
    assert_eq!(
        trace["turns"][0]["problems"],
        serde_json::json!([
            "the glossary requires 'herunterladen' for 'download'",
            "the glossary forbids 'downloaden'; write 'herunterladen' for 'download'"
        ])
    );
}

/// A glossary-wide forbidden word fails any output, with or without
/// labels; inside a target the glossary asked for it does not count.
#[test]
fn a_glossary_wide_word_is_reported_without_an_entry() {
    let dir = TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("g.json"),
        r#"{"target_lang": "x-cafe", "forbidden": ["cheap"],
            "entries": [{"id": "deal", "source": "deal", "target": "cheap deal"}]}"#,
    )
    .unwrap();
    // The offline provider writes the target, which holds the word: not a
    // forbidden use. The untranslated "cheap" elsewhere is.
    let out = glossa_in(dir.path())
        .args([
            "translate",
            "A deal, not cheap!",
            "-g",
            "g.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let trace: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        trace["generate"]["output"]["text"],
        "A cheap deal, not cheap!"
    );
    assert_eq!(
        trace["review"]["forbidden"],
        serde_json::json!([{"entry": null, "term": "cheap", "at": [18, 23]}])
    );
    let prompt = trace["prompt"]["output"]["text"].as_str().unwrap();
    assert!(
        prompt.contains("- deal → cheap deal\n- never write: cheap"),
        "{prompt}"
    );
}

/// TBX → JSON → TBX → JSON keeps every forbidden term, form and alias.
#[test]
fn forbidden_terms_survive_a_tbx_round_trip() {
    let dir = TempDir::new().unwrap();
    let first = import_fixture(dir.path());
    let out = glossa()
        .arg("export")
        .arg(dir.path().join("g.json"))
        .args(["--format", "tbx", "--out"])
        .arg(dir.path().join("back.tbx"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tbx = std::fs::read_to_string(dir.path().join("back.tbx")).unwrap();
    assert!(
        tbx.contains("<tig><term>Email</term><termNote type=\"administrativeStatus\">deprecatedTerm-admn-sts</termNote></tig>"),
        "{tbx}"
    );
    let out = glossa()
        .args(["import", "--name", "forbidden-terms", "--out"])
        .arg(dir.path().join("again.json"))
        .arg(dir.path().join("back.tbx"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("again.json")).unwrap())
            .unwrap();
    assert_eq!(again["entries"], first["entries"]);
    assert_eq!(again["target_lang"], first["target_lang"]);
}

/// Real German translations nobody here wrote: the gettext catalogues
/// installed on this machine (`/usr/share/locale/de/LC_MESSAGES/*.mo`,
/// read with gettext's `msgunfmt`). Every message that mentions mail is
/// a post; the glossary forbids "Email" (the German word is enamel; the
/// Duden spelling is "E-Mail") everywhere. The offline provider copies
/// each post as it is (no entry matches), so the check runs on real text:
/// glossa's places must be exactly those of an independent reading of the
/// rule (Python's `re`, case ignored, no letter or digit on either side),
/// "E-Mail" never counts, and GnuPG's "Email-Adresse" does.
#[test]
fn the_forbidden_check_agrees_with_an_independent_reading_on_real_german_catalogues() {
    let catalogues: Vec<std::path::PathBuf> = std::fs::read_dir("/usr/share/locale/de/LC_MESSAGES")
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output();
    let msgunfmt = std::process::Command::new("msgunfmt")
        .arg("--version")
        .output();
    if catalogues.is_empty() || python.is_err() || msgunfmt.is_err() {
        eprintln!("skipped: no German gettext catalogues, msgunfmt or python3 here");
        return;
    }
    let mut posts: Vec<String> = Vec::new();
    for mo in catalogues
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "mo"))
    {
        let out = std::process::Command::new("msgunfmt")
            .arg(mo)
            .output()
            .unwrap();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some(rest) = line.strip_prefix("msgstr") else {
                continue;
            };
            let Some(text) = rest
                .split_once('"')
                .map(|(_, t)| t.trim_end_matches('"').trim())
            else {
                continue;
            };
            if text.to_lowercase().contains("mail") && !posts.iter().any(|p| p == text) {
                posts.push(text.to_string());
            }
        }
    }
    if posts.len() < 20 {
        eprintln!(
            "skipped: only {} German messages mention mail here",
            posts.len()
        );
        return;
    }
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("posts.txt"), posts.join("\n") + "\n").unwrap();
    std::fs::write(
        dir.path().join("g.json"),
        r#"{"target_lang": "de", "forbidden": ["Email"],
            "entries": [{"source": "zqxjv", "target": "E-Mail", "forbidden": ["Email"]}]}"#,
    )
    .unwrap();
    let out = glossa_in(dir.path())
        .args([
            "translate",
            "--posts",
            "posts.txt",
            "-g",
            "g.json",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<Vec<usize>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            assert_eq!(
                v["output"],
                posts[v["id"].as_str().unwrap().parse::<usize>().unwrap() - 1]
            );
            v["forbidden"]
                .as_array()
                .map(|fs| {
                    fs.iter()
                        .inspect(|f| assert!(f["entry"].is_null(), "{f}"))
                        .map(|f| f["at"][0].as_u64().unwrap() as usize)
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    // The independent reading: byte offsets of every "email" with no
    // letter or digit (Python's \w without "_") before or after it.
    let script = r#"
import re, sys
rule = re.compile(r"(?<![^\W_])email(?![^\W_])", re.IGNORECASE)
for line in open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]:
    print(" ".join(str(len(line[:m.start()].encode("utf-8"))) for m in rule.finditer(line)))
"#;
    let reference = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(dir.path().join("posts.txt"))
        .output()
        .unwrap();
    let theirs: Vec<Vec<usize>> = String::from_utf8(reference.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().map(|n| n.parse().unwrap()).collect())
        .collect();
    assert_eq!(ours.len(), posts.len());
    assert_eq!(theirs.len(), posts.len());
    let mut flagged = 0;
    for ((post, ours), theirs) in posts.iter().zip(&ours).zip(&theirs) {
        assert_eq!(ours, theirs, "{post:?}");
        flagged += usize::from(!ours.is_empty());
        if post.contains("E-Mail") && !ours.is_empty() {
            // Only where the post also writes the other spelling.
            assert!(post.to_lowercase().contains("email"), "{post:?}");
        }
    }
    let e_mail = posts.iter().filter(|p| p.contains("E-Mail")).count();
    eprintln!(
        "{} German messages mention mail; {e_mail} write E-Mail; {flagged} hold a forbidden Email",
        posts.len()
    );
    assert!(e_mail > 0);
}

/// `glossa lint` calls a forbidden term that is the entry's own target an
/// error (the glossary asks for the word and forbids it) and exits 1; the
/// imported termbase has none.
#[test]
fn lint_finds_a_forbidden_term_the_entry_asks_for() {
    let dir = TempDir::new().unwrap();
    import_fixture(dir.path());
    let out = glossa_in(dir.path())
        .args(["lint", "g.json", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["errors"], 0, "{v}");
    assert!(
        !v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "forbidden"),
        "{v}"
    );
    std::fs::write(
        dir.path().join("bad.json"),
        "{\"entries\": [\n{\"id\": \"email\", \"source\": \"e-mail\", \"target\": \"E-Mail\", \"forbidden\": [\"e-mail\"]}]}",
    )
    .unwrap();
    let out = glossa_in(dir.path())
        .args(["lint", "bad.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("error"), "{table}");
    assert!(
        table.contains("forbidden term `e-mail` is the entry's own target `E-Mail`"),
        "{table}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.json: 1 error, 1 warning"), "{stderr}");
}
