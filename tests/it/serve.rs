//! `glossa serve` through a real server on an ephemeral 127.0.0.1 port:
//! the JSON API, safe glossary saves (stale writes refused, never a partial
//! file, even when the process dies mid-save), and one end-to-end run of
//! the page in headless Chromium.
//!
//! Servers are started in-process (`glossa::serve::serve`) or through the
//! binary; tests poll the port, they never sleep to wait for a server.

#[path = "browser/webdriver.rs"]
pub(crate) mod webdriver;

use glossa::glossary::Glossary;
use glossa::serve::{self, AppState, Options};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tempfile::TempDir;

// ---------------------------------------------------------------------------
// A tiny HTTP/1.1 client: full control over paths (no dot-segment
// clean-up), headers and bodies.

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message in {}", self.body))
            .to_string()
    }
}

pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Reply {
    try_http(addr, method, path, headers, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

fn try_http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if let Some(body) = body {
        // The server may answer (413) and close before reading it all.
        let _ = stream.write_all(body);
    }
    read_reply(&mut stream)
}

fn read_reply(stream: &mut TcpStream) -> std::io::Result<Reply> {
    // Read the head, then the body by its length: some servers
    // (chromedriver) keep the connection open after `Connection: close`.
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let split = loop {
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::Error::other(format!(
                "no HTTP reply: {:?}",
                String::from_utf8_lossy(&raw)
            )));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("bad status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut body = raw[split + 4..].to_vec();
    if let Some(len) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        while body.len() < len {
            let n = stream.read(&mut buf)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&buf[..n]);
        }
    } else {
        stream.read_to_end(&mut body)?;
        if find("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            body = dechunk(&body);
        }
    }
    Ok(Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
    out
}

/// Poll until something accepts connections on `addr`.
pub fn wait_for_port(addr: SocketAddr, within: Duration) {
    let deadline = Instant::now() + within;
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {addr}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

// ---------------------------------------------------------------------------
// Servers

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// A folder holding a copy of the repository file `file` as `name`.
fn folder_with(file: &str, name: &str) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(repo(file), dir.path().join(name)).unwrap();
    dir
}

/// A glossaries folder holding a copy of the café demo.
fn cafe_folder() -> TempDir {
    folder_with("glossaries/cafe.json", "cafe.json")
}

/// A browser on the page at `addr`, once the café glossary's 25 entries are listed.
fn open_cafe_page(chromium: &Path, chromedriver: &Path, addr: &str) -> webdriver::Browser {
    let b = webdriver::Browser::start(chromium, chromedriver, 1280, 1000);
    b.goto(&format!("http://{addr}/"));
    b.find("body[data-ready='true']");
    b.wait_until(
        "the café glossary to be listed",
        "return document.getElementById('entries').children.length === 25",
        Duration::from_secs(20),
    );
    b
}

struct Served {
    addr: SocketAddr,
    dir: TempDir,
}

impl Served {
    fn get(&self, path: &str) -> Reply {
        http(self.addr, "GET", path, &[], None)
    }

    fn send(&self, method: &str, path: &str, body: &Value, headers: &[(&str, &str)]) -> Reply {
        let mut h = vec![("Content-Type", "application/json")];
        h.extend_from_slice(headers);
        http(
            self.addr,
            method,
            path,
            &h,
            Some(body.to_string().as_bytes()),
        )
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn version(&self) -> String {
        self.get("/api/glossaries/cafe").json()["version"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

/// The application in this process, on its own runtime thread.
fn serve_in_process(dir: TempDir) -> Served {
    serve_in_process_with(dir, |_| {})
}

/// The same, with `adjust` applied to the default options.
fn serve_in_process_with(dir: TempDir, adjust: impl FnOnce(&mut Options)) -> Served {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut options = Options::new(dir.path());
    adjust(&mut options);
    let state = AppState::new(options);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            serve::serve(listener, state).await.unwrap();
        });
    });
    wait_for_port(addr, Duration::from_secs(10));
    Served { addr, dir }
}

/// `glossa serve` as a process on an ephemeral port; the address is read
/// from the line it prints.
struct Process {
    child: Option<Child>,
    addr: SocketAddr,
}

impl Process {
    fn start(dir: &Path, addr: &str, env: &[(&str, &str)]) -> Process {
        Process::start_with(dir, addr, env, &[])
    }

    /// The same, with further arguments to `serve`.
    fn start_with(dir: &Path, addr: &str, env: &[(&str, &str)], args: &[&str]) -> Process {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_glossa"));
        cmd.args(["serve", "--addr", addr, "--glossaries"])
            .arg(dir)
            .args(args.iter());
        Process::spawn(cmd, env)
    }

    /// Run `cmd` (a `glossa serve`, maybe wrapped) and wait for its port.
    fn spawn(mut cmd: Command, env: &[(&str, &str)]) -> Process {
        cmd.env_remove("OPENAI_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address printed: {line:?}"));
        let addr: SocketAddr = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .parse()
            .unwrap();
        wait_for_port(addr, Duration::from_secs(10));
        Process {
            child: Some(child),
            addr,
        }
    }

    /// Stop it and return what it wrote on stderr.
    fn stop(mut self) -> String {
        let mut child = self.child.take().expect("running");
        let _ = child.kill();
        let output = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&output.stderr).to_string()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

// ---------------------------------------------------------------------------
// Translate and retrieve

#[test]
fn a_term_inside_a_longer_one_is_not_warned_about() {
    // "language" agrees with the longer terms (jazyk, jazykové), so the
    // default keeps it; the offline provider writes the longest term's
    // target, which holds "jazykové" but not "jazyk" standing alone.
    let s = serve_in_process(folder_with(
        "tests/fixtures/language-models.json",
        "nlp.json",
    ));
    let body = json!({"text": "We study contextual language models.", "glossary": "nlp"});
    let v = s.send("POST", "/api/translate", &body, &[]).json();
    let language = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "language")
        .unwrap();
    assert_eq!(language["in_output"], false, "{v}");
    assert_eq!(language["inside"], "contextual language models", "{v}");
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().all(|w| w["kind"] != "not_in_output"),
        "{warnings:?}"
    );
}

#[test]
fn translate_highlights_glossary_words_and_explains_what_was_left_out() {
    let s = serve_in_process(cafe_folder());
    let r = s.send(
        "POST",
        "/api/translate",
        &json!({"text": "Save the date: our brunch is back! Fresh biscuits and cold coffee.", "glossary": "cafe"}),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["provider"], "offline");
    let translation = v["translation"].as_str().unwrap();
    assert!(
        translation.contains("frosk mavi") && translation.contains("dorpa"),
        "{translation}"
    );
    // The segments put the translation back together, targets marked.
    let segments = v["segments"].as_array().unwrap();
    let joined: String = segments
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert_eq!(joined, translation);
    let marked: Vec<(String, String)> = segments
        .iter()
        .filter_map(|s| {
            let i = s["entry"].as_u64()? as usize;
            Some((
                s["text"].as_str()?.to_string(),
                v["entries"][i]["id"].as_str()?.to_string(),
            ))
        })
        .collect();
    assert!(
        marked.contains(&("frosk mavi".into(), "cold-coffee".into())),
        "{marked:?}"
    );
    assert!(
        marked.contains(&("dorpa".into(), "cookie".into())),
        "{marked:?}"
    );
    // How each entry matched, and the phrase of the post.
    let cookie = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "cookie")
        .unwrap();
    assert_eq!(cookie["kind"], "alias");
    assert_eq!(cookie["phrase"], "biscuits");
    assert_eq!(cookie["sense"], "a sweet baked biscuit");
    assert_eq!(cookie["in_output"], true);
    // Warnings in plain words.
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert!(
        warnings.contains(&"'date' was left out here: the post says 'save the date'"),
        "{warnings:?}"
    );
    assert!(
        warnings.contains(&"'fresh' matched no entry"),
        "{warnings:?}"
    );
    assert!(
        !warnings.contains(&"'date' matched no entry"),
        "{warnings:?}"
    );
}

/// The page's warnings as (kind, word, message).
fn warnings_of(v: &Value) -> Vec<(String, String, String)> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let field = |k: &str| w[k].as_str().unwrap_or_default().to_string();
            (field("kind"), field("word"), field("message"))
        })
        .collect()
}

#[test]
fn save_the_date_puts_the_fruit_only_in_the_loaf_and_explains_the_other() {
    let s = serve_in_process(cafe_folder());
    let post = "Save the date! Sticky date loaf.";
    let body = json!({"text": post, "glossary": "cafe"});
    let r = s.send("POST", "/api/translate", &body, &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["translation"], "Save the date! Sticky zimbo loaf.");
    assert_eq!(
        v["check"],
        "Check: the 1 glossary target found is in the output; not checked: meaning, grammar."
    );
    // The occurrence the sense rule excluded is explained, once.
    let left: Vec<(&str, &str, &str)> = v["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["id"].as_str().unwrap(),
                l["post_says"].as_str().unwrap(),
                l["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        left,
        [(
            "date",
            "Save the date",
            "'date' was left out here: the post says 'save the date'"
        )]
    );
    // ... and never offered as a word without an entry.
    let warnings = warnings_of(&v);
    let no_entry: Vec<&str> = warnings
        .iter()
        .filter(|(kind, ..)| kind == "no_entry")
        .map(|(_, word, _)| word.as_str())
        .collect();
    assert_eq!(no_entry, ["save", "sticky", "loaf"], "{warnings:?}");
    assert!(
        warnings
            .iter()
            .all(|(_, _, m)| !m.contains("'date' matched no entry")),
        "{warnings:?}"
    );
    // The same post without a word of the loaf: nothing confirms the
    // fruit, and the page says why the entry was left out.
    let body = json!({"text": "Save the date!", "glossary": "cafe"});
    let v = s.send("POST", "/api/retrieve", &body, &[]).json();
    assert_eq!(v["entries"], json!([]));
    assert_eq!(v["uncovered"], json!(["save"]));
    assert_eq!(v["left_out"][0]["post_says"], "Save the date", "{v}");
}

#[test]
fn the_page_warns_about_unconfirmed_senses_and_flags_stem_matches() {
    // An owner's glossary before `context`: roll and mint bare.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("owner.json"),
        r#"{"entries": [
          {"id": "roll", "source": "roll", "target": "rola"},
          {"id": "mint", "source": "mint", "target": "mionnt", "sense": "the herb"},
          {"id": "scone", "source": "scone", "target": "skonda"}
        ]}"#,
    )
    .unwrap();
    let s = serve_in_process(dir);
    let post = "Rolling out: vintage mugs in mint condition, and scones.";
    let body = json!({"text": post, "glossary": "owner"});
    let v = s.send("POST", "/api/translate", &body, &[]).json();
    assert_eq!(
        v["translation"],
        "Rola out: vintage mugs in mionnt condition, and skonda."
    );
    let warnings = warnings_of(&v);
    let of_kind = |kind: &str| -> Vec<(String, String)> {
        warnings
            .iter()
            .filter(|(k, ..)| k == kind)
            .map(|(_, w, m)| (w.clone(), m.clone()))
            .collect()
    };
    let unconfirmed = of_kind("unconfirmed");
    let words: Vec<&str> = unconfirmed.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(words, ["rolling", "mint"], "{warnings:?}");
    assert!(
        unconfirmed[0]
            .1
            .starts_with("'rolling' was read as `roll` (→ rola), and 'roll' can mean:")
            && unconfirmed
                .iter()
                .all(|(_, m)| m.contains("add `context` to the entry")),
        "{unconfirmed:?}"
    );
    // Stem matches are flagged as the CLI's "second look" does.
    assert_eq!(
        of_kind("check_match"),
        [
            (
                "rolling".to_string(),
                "'rolling' was read as 'roll' (stem match): check that is what the post means"
                    .to_string()
            ),
            (
                "scones".to_string(),
                "'scones' was read as 'scone' (stem match): check that is what the post means"
                    .to_string()
            )
        ]
    );
    // The same list from retrieval alone; the trace carries the data.
    let v = s.send("POST", "/api/retrieve", &body, &[]).json();
    assert_eq!(of_kind("unconfirmed").len(), 2);
    assert_eq!(warnings_of(&v).len(), warnings.len(), "{v}");

    // The café demo's senses have a `context`: a bacon roll is a roll.
    let s = serve_in_process(cafe_folder());
    let body = json!({"text": "A bacon roll and mint tea leaves.", "glossary": "cafe"});
    let v = s.send("POST", "/api/translate", &body, &[]).json();
    let warnings = warnings_of(&v);
    let unconfirmed: Vec<&str> = warnings
        .iter()
        .filter(|(k, ..)| k == "unconfirmed")
        .map(|(_, w, _)| w.as_str())
        .collect();
    // `tea` has a `sense` and no `context`: its use is not confirmed.
    assert_eq!(unconfirmed, ["tea"], "{warnings:?}");
    assert_eq!(v["trace"]["review"]["unconfirmed"][0]["entry"], "tea");
}

#[test]
fn retrieve_lists_entries_with_how_they_matched_and_words_no_entry_covers() {
    let s = serve_in_process(cafe_folder());
    let r = s.send(
        "POST",
        "/api/retrieve",
        &json!({"text": "Fresh biscuits and home delivry!", "glossary": "cafe"}),
        &[],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    let kinds: Vec<(String, String, String)> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().into(),
                e["kind"].as_str().unwrap().into(),
                e["phrase"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        kinds.contains(&("cookie".into(), "alias".into(), "biscuits".into())),
        "{kinds:?}"
    );
    assert!(
        kinds
            .iter()
            .any(|(id, kind, _)| id == "home-delivery" && kind != "exact"),
        "{kinds:?}"
    );
    // Whether a match is a close spelling, and what its kind means, come
    // from the server: the page lists no kinds of its own.
    let entry = |id: &str| {
        let entries = v["entries"].as_array().unwrap();
        entries.iter().find(|e| e["id"] == id).unwrap().clone()
    };
    let (cookie, delivery) = (entry("cookie"), entry("home-delivery"));
    assert_eq!(
        (&cookie["approximate"], &cookie["how"]),
        (&json!(false), &json!("one of its other forms"))
    );
    assert_eq!(delivery["approximate"], true, "{delivery}");
    assert_eq!(delivery["how"], "a close spelling", "{delivery}");
    assert_eq!(v["uncovered"], json!(["fresh"]));
    assert!(v.get("translation").is_none());

    // Unknown glossary, empty post, unknown retriever: JSON errors.
    let r = s.send(
        "POST",
        "/api/retrieve",
        &json!({"text": "tea", "glossary": "nope"}),
        &[],
    );
    assert_eq!(r.status, 404);
    assert!(r.error().contains("no glossary named `nope`"), "{}", r.body);
    let r = s.send(
        "POST",
        "/api/translate",
        &json!({"text": "  ", "glossary": "cafe"}),
        &[],
    );
    assert_eq!(r.status, 400);
    assert!(r.error().contains("the post is empty"));
    let r = s.send(
        "POST",
        "/api/retrieve",
        &json!({"text": "tea", "glossary": "cafe", "retriever": "exactt"}),
        &[],
    );
    assert_eq!(r.status, 400);
    assert!(
        r.error().contains("unknown retriever `exactt`"),
        "{}",
        r.body
    );
    // A retriever that needs a file the server was not started with: the
    // server's setup, said plainly.
    let r = s.send(
        "POST",
        "/api/retrieve",
        &json!({"text": "two mice", "glossary": "cafe", "retriever": "exact+lemmas"}),
        &[],
    );
    assert_eq!(r.status, 500, "{}", r.body);
    assert!(r.error().contains("`lemmas` needs --lemmas"), "{}", r.body);
    let r = s.send(
        "POST",
        "/api/translate",
        &json!({"text": "tea", "glossary": "cafe", "provider": "openai"}),
        &[],
    );
    assert_eq!(r.status, 400);
    assert!(r.error().contains("not available"), "{}", r.body);
}

// ---------------------------------------------------------------------------
// Editing

#[test]
fn the_editor_refuses_a_second_entry_for_a_written_word_and_never_saves_an_empty_id() {
    let s = serve_in_process(cafe_folder());
    let version = |s: &Served| {
        s.get("/api/glossaries/cafe").json()["version"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let before = std::fs::read(s.file("cafe.json")).unwrap();
    // `Coffee` beside `coffee`, as a source or as an alias: a post naming
    // it would retrieve both.
    for body in [
        json!({"source": "Coffee", "target": "kofi"}),
        json!({"source": "java", "target": "kofi", "aliases": ["COFFEE"]}),
    ] {
        let v = version(&s);
        let r = s.send(
            "POST",
            "/api/glossaries/cafe/entries",
            &body,
            &[("If-Match", &v)],
        );
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert!(
            r.error()
                .contains("is already written as `coffee` in entry `coffee`"),
            "{body}: {}",
            r.body
        );
    }
    assert_eq!(std::fs::read(s.file("cafe.json")).unwrap(), before);
    // Editing an entry into a clash is refused too; editing it in place is not.
    let v = version(&s);
    let r = s.send(
        "PUT",
        "/api/glossaries/cafe/entries/cold-coffee",
        &json!({"id": "cold-coffee", "source": "coffee", "target": "frosk mavi"}),
        &[("If-Match", &v)],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let r = s.send(
        "PUT",
        "/api/glossaries/cafe/entries/coffee",
        &json!({"id": "coffee", "source": "Coffee", "target": "mavi"}),
        &[("If-Match", &v)],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // A second meaning that says which it is stays allowed.
    let v = version(&s);
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"id": "coffee-colour", "source": "coffee", "target": "mavi-tun", "sense": "the brown colour"}),
        &[("If-Match", &v)],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    // An entry sent with an empty id is saved under its source.
    let v = version(&s);
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"id": "", "source": "cortado", "target": "kortada"}),
        &[("If-Match", &v)],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let text = std::fs::read_to_string(s.file("cafe.json")).unwrap();
    assert!(!text.contains(r#""id": """#), "{text}");
    assert!(
        text.contains(r#"{"id": "cortado", "source": "cortado""#),
        "{text}"
    );
    Glossary::load(&s.file("cafe.json")).unwrap();
}

#[test]
fn add_edit_delete_entries_with_the_cli_rules_and_a_backup_of_each_version() {
    let s = serve_in_process(cafe_folder());
    let original = std::fs::read_to_string(s.file("cafe.json")).unwrap();
    let g = s.get("/api/glossaries/cafe");
    assert_eq!(g.status, 200);
    let v1 = g.json()["version"].as_str().unwrap().to_string();
    assert_eq!(g.header("etag"), Some(format!("\"{v1}\"").as_str()));

    // Add an entry.
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "iced latte", "target": "frosk lata", "aliases": ["ice latte"], "version": v1}),
        &[],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let v2 = r.json()["version"].as_str().unwrap().to_string();
    assert_ne!(v1, v2);
    // Edit it (If-Match header this time): a new alias.
    let r = s.send(
        "PUT",
        "/api/glossaries/cafe/entries/iced%20latte",
        &json!({"id": "iced latte", "source": "iced latte", "target": "frosk lata", "aliases": ["ice latte", "frappe"]}),
        &[("If-Match", &format!("\"{v2}\""))],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v3 = r.json()["version"].as_str().unwrap().to_string();
    // The new alias is used at once.
    let t = s.send(
        "POST",
        "/api/retrieve",
        &json!({"text": "Two frappes, please", "glossary": "cafe"}),
        &[],
    );
    let found = &t.json()["entries"][0];
    assert_eq!(
        (found["id"].as_str(), found["kind"].as_str()),
        (Some("iced latte"), Some("alias"))
    );

    // A bad edit is refused with the CLI's message; the file is untouched.
    let before = std::fs::read(s.file("cafe.json")).unwrap();
    for (body, message) in [
        (
            json!({"source": "tea", "target": "x"}),
            "there is already an entry `tea`",
        ),
        (
            json!({"source": "oat scone", "target": " ", "id": "scone2"}),
            "entry `scone2`: `target` is empty",
        ),
        (json!({"source": " ", "target": "x"}), "`source` is empty"),
        (
            json!({"source": "x", "target": "y", "aliasses": []}),
            "unknown field `aliasses`",
        ),
    ] {
        let r = s.send(
            "POST",
            "/api/glossaries/cafe/entries",
            &body,
            &[("If-Match", &v3)],
        );
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert!(r.error().contains(message), "{body}: {}", r.body);
    }
    assert_eq!(std::fs::read(s.file("cafe.json")).unwrap(), before);

    // Delete it; then the glossary is the original entries again.
    let r = http(
        s.addr,
        "DELETE",
        &format!("/api/glossaries/cafe/entries/iced%20latte?version={v3}"),
        &[],
        None,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let now = Glossary::load(&s.file("cafe.json")).unwrap();
    assert_eq!(
        now.entries,
        Glossary::parse("x", "cafe", &original).unwrap().entries
    );
    let r = http(
        s.addr,
        "DELETE",
        "/api/glossaries/cafe/entries/nope",
        &[],
        None,
    );
    assert_eq!(r.status, 404);

    // Three saves, three backups: the original is among them, byte for byte.
    let backups: Vec<PathBuf> = std::fs::read_dir(s.file(".backup"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(backups.len(), 3, "{backups:?}");
    assert!(backups
        .iter()
        .any(|b| std::fs::read_to_string(b).unwrap() == original));
    // The listing shows only glossaries, not backups.
    let list = s.get("/api/glossaries").json();
    assert_eq!(list["glossaries"].as_array().unwrap().len(), 1);
}

#[test]
fn entries_carry_accepted_forms_of_the_target() {
    let s = serve_in_process(cafe_folder());
    let v1 = s.version();
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "iced latte", "target": "frosk lata", "forms": [" frosk latan ", "", "frosk latas"], "version": v1}),
        &[],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    // Trimmed, empty forms dropped, and in the file for the CLI.
    let saved = Glossary::load(&s.file("cafe.json")).unwrap();
    let entry = &saved.entries[saved.index_of("iced latte").unwrap()];
    assert_eq!(entry.forms, ["frosk latan", "frosk latas"]);
    let listed = s.get("/api/glossaries/cafe").json();
    let listed = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "iced latte")
        .unwrap()
        .clone();
    assert_eq!(listed["forms"], json!(["frosk latan", "frosk latas"]));
    // A translation lists the used entry's forms for the page.
    let t = s.send(
        "POST",
        "/api/translate",
        &json!({"text": "An iced latte, please", "glossary": "cafe"}),
        &[],
    );
    assert_eq!(t.status, 200, "{}", t.body);
    let used = t.json()["entries"][0].clone();
    assert_eq!(used["id"], "iced latte");
    assert_eq!(used["forms"], json!(["frosk latan", "frosk latas"]));
    // An unknown field next to it is still refused.
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "tea pot", "target": "x", "formz": ["y"]}),
        &[],
    );
    assert_eq!(r.status, 400, "{}", r.body);
}

#[test]
fn entries_carry_forbidden_terms_and_a_translation_holding_one_is_warned_about() {
    let s = serve_in_process(cafe_folder());
    let v1 = s.version();
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "iced latte", "target": "frosk lata", "forbidden": [" macchiato ", ""], "version": v1}),
        &[],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let saved = Glossary::load(&s.file("cafe.json")).unwrap();
    let entry = &saved.entries[saved.index_of("iced latte").unwrap()];
    assert_eq!(entry.forbidden, ["macchiato"]);
    let listed = s.get("/api/glossaries/cafe").json();
    let listed = listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "iced latte")
        .unwrap()
        .clone();
    assert_eq!(listed["forbidden"], json!(["macchiato"]));
    // The offline provider writes the target, and leaves the rest of the
    // post as it is: there the forbidden word stands, and is named.
    let text = "An iced latte and a macchiato";
    let t = s.send(
        "POST",
        "/api/translate",
        &json!({"text": text, "glossary": "cafe"}),
        &[],
    );
    assert_eq!(t.status, 200, "{}", t.body);
    let v = t.json();
    assert_eq!(v["translation"], "An frosk lata and a macchiato");
    assert_eq!(v["entries"][0]["forbidden"], json!(["macchiato"]));
    let warning = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "forbidden")
        .unwrap_or_else(|| panic!("{v}"))
        .clone();
    assert_eq!(
        warning["message"],
        "forbidden term 'macchiato' (entry iced latte) at 20: the glossary says never to write it"
    );
    assert_eq!(warning["entry"], "iced latte");
    assert_eq!(v["trace"]["review"]["forbidden"][0]["at"], json!([20, 29]));
    // Without the word, no warning.
    let t = s.send(
        "POST",
        "/api/translate",
        &json!({"text": "An iced latte, please", "glossary": "cafe"}),
        &[],
    );
    let v = t.json();
    assert!(
        !v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["kind"] == "forbidden"),
        "{v}"
    );
}

#[test]
fn put_whole_glossary_creates_then_needs_the_version_it_replaces() {
    let s = serve_in_process(cafe_folder());
    let doc = json!({"name": "shop", "target_lang": "x-shop", "entries": [{"source": "gift card", "target": "dona karta"}]});
    let r = s.send("PUT", "/api/glossaries/shop", &doc, &[]);
    assert_eq!(r.status, 201, "{}", r.body);
    let v = r.json()["version"].as_str().unwrap().to_string();
    let written = std::fs::read_to_string(s.file("shop.json")).unwrap();
    assert!(written.contains("\"target_lang\": \"x-shop\""), "{written}");
    assert!(Glossary::parse("shop.json", "shop", &written).is_ok());

    let r = s.send("PUT", "/api/glossaries/shop", &doc, &[]);
    assert_eq!(r.status, 428, "{}", r.body);
    let bad = json!({"entries": [{"source": "a", "target": "b"}, {"source": "a", "target": "c"}], "version": v});
    let r = s.send("PUT", "/api/glossaries/shop", &bad, &[]);
    assert_eq!(r.status, 400);
    assert!(r.error().contains("duplicate entry id `a`"), "{}", r.body);
    // The error points into what was sent, not into the file on disk.
    assert!(r.error().contains("the request body"), "{}", r.body);
    let r = s.send(
        "PUT",
        "/api/glossaries/shop",
        &json!({"entries": [], "version": v}),
        &[],
    );
    assert_eq!(r.status, 400);
    assert!(
        r.error().contains("the glossary has no entries"),
        "{}",
        r.body
    );
    let mut doc2 = doc.clone();
    doc2["version"] = json!(v);
    assert_eq!(
        s.send("PUT", "/api/glossaries/shop", &doc2, &[]).status,
        200
    );
}

#[test]
fn a_glossary_fetched_with_get_is_taken_back_by_put() {
    let s = serve_in_process(cafe_folder());
    let r = s.get("/api/glossaries/cafe");
    assert_eq!(r.status, 200, "{}", r.body);
    let fetched = r.json();
    // The languages by name for the page: English; none for `x-cafe`.
    assert_eq!(fetched["source_language"], "English");
    assert_eq!(fetched["target_language"], Value::Null);
    let r = s.send("PUT", "/api/glossaries/cafe", &fetched, &[]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["title"], fetched["title"]);
    assert_eq!(r.json()["entries"], fetched["entries"]);
}

#[test]
fn a_second_tab_saving_from_a_stale_version_is_refused_with_409() {
    let s = serve_in_process(cafe_folder());
    let tab1 = s.version();
    let tab2 = s.version();
    assert_eq!(tab1, tab2);
    let r = s.send(
        "PUT",
        "/api/glossaries/cafe/entries/tea",
        &json!({"id": "tea", "source": "tea", "target": "tesh", "aliases": ["cuppa"]}),
        &[("If-Match", &format!("\"{tab1}\""))],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after_first = std::fs::read(s.file("cafe.json")).unwrap();

    for (method, path, body) in [
        (
            "PUT",
            "/api/glossaries/cafe/entries/tea",
            json!({"id": "tea", "source": "tea", "target": "chai"}),
        ),
        (
            "POST",
            "/api/glossaries/cafe/entries",
            json!({"source": "chai", "target": "chai"}),
        ),
        (
            "PUT",
            "/api/glossaries/cafe",
            json!({"entries": [{"source": "tea", "target": "chai"}]}),
        ),
    ] {
        let r = s.send(method, path, &body, &[("If-Match", &format!("\"{tab2}\""))]);
        assert_eq!(r.status, 409, "{method} {path}: {}", r.body);
        assert!(
            r.error().contains("changed since you loaded it"),
            "{}",
            r.body
        );
        assert_eq!(r.json()["version"], s.version());
    }
    let r = http(
        s.addr,
        "DELETE",
        &format!("/api/glossaries/cafe/entries/tea?version={tab2}"),
        &[],
        None,
    );
    assert_eq!(r.status, 409);
    assert_eq!(std::fs::read(s.file("cafe.json")).unwrap(), after_first);
}

// ---------------------------------------------------------------------------
// Limits and names

#[test]
fn bodies_over_64_kib_are_refused_with_a_json_413() {
    let s = serve_in_process(cafe_folder());
    let big = json!({"text": "coffee ".repeat(10_000), "glossary": "cafe"}).to_string();
    assert!(big.len() > serve::BODY_LIMIT);
    for path in [
        "/api/translate",
        "/api/retrieve",
        "/api/glossaries/cafe/entries",
    ] {
        let r = http(
            s.addr,
            "POST",
            path,
            &[("Content-Type", "application/json")],
            Some(big.as_bytes()),
        );
        assert_eq!(r.status, 413, "{path}: {}", r.body);
        assert!(r.error().contains("too large"), "{}", r.body);
    }
    // Without a Content-Length (chunked), the limit holds too.
    let mut stream = TcpStream::connect(s.addr).unwrap();
    let head = format!(
        "POST /api/translate HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        s.addr
    );
    stream.write_all(head.as_bytes()).unwrap();
    for chunk in big.as_bytes().chunks(8192) {
        if stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .is_err()
            || stream.write_all(chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let r = read_reply(&mut stream).unwrap();
    assert_eq!(r.status, 413, "{}", r.body);
    assert!(r.error().contains("too large"));
    // A post just under the limit is fine.
    let ok = json!({"text": "cold coffee ".repeat(4_000), "glossary": "cafe"}).to_string();
    assert!(ok.len() < serve::BODY_LIMIT);
    let r = http(
        s.addr,
        "POST",
        "/api/retrieve",
        &[("Content-Type", "application/json")],
        Some(ok.as_bytes()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn glossary_names_are_plain_names_and_paths_are_refused() {
    let outside = folder_with("glossaries/cafe.json", "secret.json");
    let s = serve_in_process(cafe_folder());
    let escape = format!(
        "..%2F..%2F..%2F..%2F..%2F..%2F..%2F..%2F..{}%2Fsecret",
        outside.path().display().to_string().replace('/', "%2F")
    );
    for path in [
        "/api/glossaries/..",
        "/api/glossaries/%2e%2e",
        "/api/glossaries/..%2Fcafe",
        "/api/glossaries/.backup",
        "/api/glossaries/cafe.json",
        "/api/glossaries/%2Fetc%2Fpasswd",
        "/api/glossaries/..%5Ccafe",
        &format!("/api/glossaries/{escape}"),
    ] {
        let r = s.get(path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(
            r.error().contains("is not a glossary name"),
            "{path}: {}",
            r.body
        );
    }
    // Writes too; nothing is created anywhere.
    let entry = json!({"source": "x", "target": "y"});
    let doc = json!({"entries": [entry]});
    let put = format!("/api/glossaries/{escape}");
    assert_eq!(s.send("PUT", &put, &doc, &[]).status, 400);
    assert_eq!(
        s.send("PUT", "/api/glossaries/..%2Fnew", &doc, &[]).status,
        400
    );
    assert_eq!(
        s.send("POST", &format!("{put}/entries"), &entry, &[])
            .status,
        400
    );
    let r = s.send(
        "POST",
        "/api/translate",
        &json!({"text": "x", "glossary": "../secret"}),
        &[],
    );
    assert_eq!(r.status, 400);
    assert!(!s.dir.path().parent().unwrap().join("new.json").exists());
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    // Raw dot segments match no route: a JSON 404, not a file.
    let r = s.get("/api/glossaries/../../etc/passwd");
    assert_eq!(r.status, 404);
    assert!(r.error().contains("no such"), "{}", r.body);
    // A wrong method is a JSON error too.
    let r = http(s.addr, "DELETE", "/api/translate", &[], None);
    assert_eq!(r.status, 405);
    assert!(r.error().contains("not allowed"));
}

/// A page on another site cannot use the server: not through a form or a
/// plain-text fetch (JSON only, which browsers do not send across sites
/// without asking), not with its own Origin, and not through a DNS name
/// that points at 127.0.0.1 (DNS rebinding).
#[test]
fn requests_from_other_sites_are_refused() {
    let s = serve_in_process(cafe_folder());
    let before = std::fs::read(s.file("cafe.json")).unwrap();
    let entry = json!({"source": "x", "target": "y"}).to_string();
    let post = |headers: &[(&str, &str)]| {
        http(
            s.addr,
            "POST",
            "/api/glossaries/cafe/entries",
            headers,
            Some(entry.as_bytes()),
        )
    };
    let r = post(&[("Content-Type", "text/plain")]);
    assert_eq!(r.status, 415, "{}", r.body);
    assert!(r.error().contains("Content-Type: application/json"));
    let r = post(&[("Content-Type", "application/x-www-form-urlencoded")]);
    assert_eq!(r.status, 415);
    let r = post(&[
        ("Content-Type", "application/json"),
        ("Origin", "https://evil.example"),
    ]);
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.error().contains("evil.example"));
    let rebound = format!("evil.example:{}", s.addr.port());
    for path in ["/", "/api/glossaries/cafe"] {
        let mut stream = TcpStream::connect(s.addr).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {rebound}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let r = read_reply(&mut stream).unwrap();
        assert_eq!(r.status, 403, "{path}: {}", r.body);
        assert!(
            r.error().contains("only at 127.0.0.1 or localhost"),
            "{}",
            r.body
        );
    }
    // Same host, another scheme: another site.
    let https = format!("https://{}", s.addr);
    let r = post(&[("Content-Type", "application/json"), ("Origin", &https)]);
    assert_eq!(r.status, 403, "{}", r.body);
    // Two Host headers: a proxy and this server could each read another.
    let mut stream = TcpStream::connect(s.addr).unwrap();
    write!(
        stream,
        "GET /api/glossaries/cafe HTTP/1.1\r\nHost: {}\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
        s.addr
    )
    .unwrap();
    let r = read_reply(&mut stream).unwrap();
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.error().contains("more than one Host header"),
        "{}",
        r.body
    );
    assert_eq!(std::fs::read(s.file("cafe.json")).unwrap(), before);
    // The page's own requests carry its origin: they pass.
    let origin = format!("http://{}", s.addr);
    let r = post(&[("Content-Type", "application/json"), ("Origin", &origin)]);
    assert_eq!(r.status, 201, "{}", r.body);
}

/// GET `path` from `addr` with `Host: host`.
fn get_as(addr: SocketAddr, host: &str, path: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    read_reply(&mut stream).unwrap()
}

/// Bound beyond loopback (here: as if bound to 192.0.2.7), the server
/// answers at that address, at loopback names and at names given with
/// `--allow-host`; a DNS name pointing at it (rebinding) gets 403 with the
/// reason, reads and writes alike.
#[test]
fn beyond_loopback_only_the_bound_address_and_allowed_names_are_answered() {
    let s = serve_in_process_with(cafe_folder(), |o| {
        o.hosts = serve::Hosts::new("192.0.2.7".parse().unwrap(), vec!["glossa.lan".into()])
    });
    let port = s.addr.port();
    for host in [
        format!("192.0.2.7:{port}"),
        format!("glossa.lan:{port}"),
        "GLOSSA.LAN".to_string(),
        format!("localhost:{port}"),
    ] {
        let r = get_as(s.addr, &host, "/api/glossaries/cafe");
        assert_eq!(r.status, 200, "{host}: {}", r.body);
    }
    for host in [
        format!("evil.example:{port}"),
        format!("192.0.2.8:{port}"),
        "glossa.lan.evil.example".to_string(),
    ] {
        for path in ["/", "/api/glossaries/cafe"] {
            let r = get_as(s.addr, &host, path);
            assert_eq!(r.status, 403, "{host}{path}: {}", r.body);
            assert!(
                r.error().contains(&format!("not at `{host}`")),
                "{}",
                r.body
            );
            assert!(r.error().contains("--allow-host"), "{}", r.body);
        }
    }
}

/// The binary bound to every address (`0.0.0.0`): a DNS-rebinding page's
/// `Host: evil.example` gets 403 and cannot write; an address or a name
/// given with `--allow-host` is answered.
#[test]
fn the_binary_bound_to_every_address_refuses_unknown_host_names() {
    let dir = cafe_folder();
    let p = Process::start_with(
        dir.path(),
        "0.0.0.0:0",
        &[],
        &["--allow-host", "glossa.lan"],
    );
    let before = std::fs::read(dir.path().join("cafe.json")).unwrap();
    let port = p.addr.port();
    let rebound = format!("evil.example:{port}");
    let r = get_as(p.addr, &rebound, "/api/glossaries/cafe");
    assert_eq!(r.status, 403, "{}", r.body);
    let mut stream = TcpStream::connect(p.addr).unwrap();
    let body = json!({"source": "x", "target": "y"}).to_string();
    write!(
        stream,
        "POST /api/glossaries/cafe/entries HTTP/1.1\r\nHost: {rebound}\r\nOrigin: http://{rebound}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let r = read_reply(&mut stream).unwrap();
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(std::fs::read(dir.path().join("cafe.json")).unwrap(), before);
    for host in [format!("glossa.lan:{port}"), format!("127.0.0.1:{port}")] {
        let r = get_as(p.addr, &host, "/api/glossaries/cafe");
        assert_eq!(r.status, 200, "{host}: {}", r.body);
    }
}

// ---------------------------------------------------------------------------
// Crash safety

/// Readers never see a partial glossary while saves race: every read of the
/// file parses and is one of the versions written.
#[test]
fn racing_saves_leave_the_file_whole_at_every_moment() {
    let s = Arc::new(serve_in_process(cafe_folder()));
    let path = s.file("cafe.json");
    let done = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let reader = {
        let (done, reads, path) = (Arc::clone(&done), Arc::clone(&reads), path.clone());
        std::thread::spawn(move || {
            let mut seen = std::collections::HashSet::new();
            loop {
                // One last read after the saves are done: the final version.
                let finished = done.load(Ordering::Relaxed);
                let text =
                    std::fs::read_to_string(&path).expect("the glossary file is always there");
                if let Err(e) = Glossary::parse("cafe.json", "cafe", &text) {
                    panic!("a reader saw a broken glossary: {e}\n{text}");
                }
                seen.insert(text);
                reads.fetch_add(1, Ordering::Relaxed);
                if finished {
                    break;
                }
            }
            seen.len()
        })
    };
    // The reader has seen the glossary before any save.
    while reads.load(Ordering::Relaxed) == 0 {
        std::thread::yield_now();
    }
    let ok = Arc::new(AtomicUsize::new(0));
    let conflicts = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (s, ok, conflicts) = (Arc::clone(&s), Arc::clone(&ok), Arc::clone(&conflicts));
            std::thread::spawn(move || {
                for i in 0..15 {
                    // Half the writers check the version, half do not.
                    let version = s.version();
                    let headers: Vec<(&str, &str)> = if w % 2 == 0 {
                        vec![("If-Match", version.as_str())]
                    } else {
                        vec![]
                    };
                    let body = json!({"id": "tea", "source": "tea", "target": format!("tesh {w} {i}"),
                        "sense": "x".repeat(2000)});
                    let r = s.send("PUT", "/api/glossaries/cafe/entries/tea", &body, &headers);
                    match r.status {
                        200 => ok.fetch_add(1, Ordering::Relaxed),
                        409 => conflicts.fetch_add(1, Ordering::Relaxed),
                        other => panic!("save answered {other}: {}", r.body),
                    };
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    done.store(true, Ordering::Relaxed);
    let versions_seen = reader.join().unwrap();
    assert!(
        ok.load(Ordering::Relaxed) >= 30,
        "unchecked saves always succeed"
    );
    assert_eq!(
        ok.load(Ordering::Relaxed) + conflicts.load(Ordering::Relaxed),
        60
    );
    assert!(versions_seen >= 2, "the reader saw the saves land");
    let last = Glossary::load(&path).unwrap();
    assert!(last.entries[last.index_of("tea").unwrap()]
        .target
        .starts_with("tesh "));
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// The server process dies in the middle of a save (half the new file
/// written, or all of it but not yet renamed): the glossary is the old
/// version, whole; the next start removes the leftover and serves it.
#[test]
fn a_server_killed_mid_save_leaves_the_previous_glossary_whole() {
    for fault in ["abort-mid-write", "abort-before-rename"] {
        let dir = cafe_folder();
        let path = dir.path().join("cafe.json");
        let original = std::fs::read(&path).unwrap();
        let p = Process::start(dir.path(), "127.0.0.1:0", &[("GLOSSA_SERVE_FAULT", fault)]);
        let body = json!({"source": "iced latte", "target": "frosk lata"}).to_string();
        // The connection dies with the process: no reply, or an error.
        let reply = try_http(
            p.addr,
            "POST",
            "/api/glossaries/cafe/entries",
            &[("Content-Type", "application/json")],
            Some(body.as_bytes()),
        );
        assert!(reply.is_err(), "{fault}: the server should have died");
        let stderr = p.stop();
        assert!(stderr.contains(fault), "{fault}: {stderr}");
        assert_eq!(
            std::fs::read(&path).unwrap(),
            original,
            "{fault}: the glossary changed"
        );
        let leftovers = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains(".tmp-")
            })
            .count();
        assert_eq!(
            leftovers, 1,
            "{fault}: the half-done save is a separate file"
        );

        let p = Process::start(dir.path(), "127.0.0.1:0", &[]);
        let r = http(p.addr, "GET", "/api/glossaries/cafe", &[], None);
        assert_eq!(r.status, 200);
        assert_eq!(r.json()["entries"].as_array().unwrap().len(), 25);
        let r = http(
            p.addr,
            "POST",
            "/api/glossaries/cafe/entries",
            &[("Content-Type", "application/json")],
            Some(body.as_bytes()),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        let stderr = p.stop();
        assert!(stderr.contains("removed 1 temporary file"), "{stderr}");
        assert_eq!(Glossary::load(&path).unwrap().len(), 26);
    }
}

/// Connections that send nothing, or stop halfway through their headers,
/// are closed after the header timeout: hundreds of them neither keep
/// their file descriptors nor keep the server from answering.
#[test]
fn idle_and_half_sent_connections_are_closed() {
    let s = serve_in_process_with(cafe_folder(), |o| {
        o.header_timeout = Duration::from_millis(300)
    });
    let mut idle: Vec<TcpStream> = (0..300)
        .map(|_| TcpStream::connect(s.addr).unwrap())
        .collect();
    let mut half = TcpStream::connect(s.addr).unwrap();
    write!(half, "GET / HTTP/1.1\r\nHost: {}\r\n", s.addr).unwrap();
    idle.push(half);
    assert_eq!(s.get("/api/glossaries").status, 200);
    for (i, stream) in idle.iter_mut().enumerate() {
        // The safety timeout is far beyond the server's: a read returns
        // once the server closes the connection.
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut buf = [0u8; 512];
        let closed = loop {
            match stream.read(&mut buf) {
                Ok(0) => break true,
                // A 408 reply may come first; read on to the close.
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break true,
                Err(_) => break false,
            }
        };
        assert!(closed, "connection {i} was left open");
    }
}

/// Headers with a `Content-Length`, then only part of the body: a client
/// that stalls mid-upload.
fn stall_a_body(addr: SocketAddr) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    // A server with no room may have answered 503 and closed already.
    let _ = write!(
        stream,
        "POST /api/retrieve HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"text\": "
    );
    stream
}

/// A request body that stops arriving is cut after the body timeout with
/// a 408 and its connection closed; meanwhile other requests are answered.
#[test]
fn a_stalled_request_body_is_cut_with_408_and_its_connection_closed() {
    let s = serve_in_process_with(cafe_folder(), |o| {
        o.body_timeout = Duration::from_millis(300)
    });
    let started = Instant::now();
    let mut stalled: Vec<TcpStream> = (0..50).map(|_| stall_a_body(s.addr)).collect();
    assert_eq!(s.get("/api/glossaries").status, 200);
    for (i, stream) in stalled.iter_mut().enumerate() {
        // Far beyond the server's timeout: a read returns once it answers.
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let r = read_reply(stream).unwrap_or_else(|e| panic!("stalled body {i}: {e}"));
        assert_eq!(r.status, 408, "{}", r.body);
        assert!(r.error().contains("did not arrive within"), "{}", r.body);
        let mut rest = Vec::new();
        // The end of the stream (or a reset): closed, not left waiting.
        let closed = match stream.read_to_end(&mut rest) {
            Ok(_) => true,
            Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
        };
        assert!(closed, "connection {i} was left open");
    }
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

/// A connection kept busy with one request after another takes no new
/// request after its deadline: the server closes it.
#[test]
fn a_busy_connection_is_closed_after_its_deadline() {
    let s = serve_in_process_with(cafe_folder(), |o| {
        o.connection_deadline = Duration::from_millis(300)
    });
    let mut stream = TcpStream::connect(s.addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let started = Instant::now();
    let mut answered = 0;
    let closed = loop {
        assert!(started.elapsed() < Duration::from_secs(5), "never closed");
        let sent = write!(
            stream,
            "GET /api/glossaries HTTP/1.1\r\nHost: {}\r\n\r\n",
            s.addr
        );
        match sent.and_then(|()| read_reply(&mut stream)) {
            Ok(r) if r.status == 200 => answered += 1,
            Ok(r) => panic!("{} {}", r.status, r.body),
            Err(_) => break started.elapsed(),
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(answered >= 2, "{answered} requests before the close");
    assert!(closed >= Duration::from_millis(300), "{closed:?}");
}

/// 300 clients that send headers and then never their body, against a
/// server allowed 256 open files (the default body timeout, 10 s): the
/// server keeps its connections bounded, refuses the surplus quickly
/// (503) and cuts stalled bodies while others wait, so a normal request is
/// answered within a second.
#[test]
fn three_hundred_stalled_bodies_do_not_stop_the_server() {
    let dir = cafe_folder();
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "ulimit -n 256 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_glossa"))
        .args(["serve", "--quiet", "--addr", "127.0.0.1:0", "--glossaries"])
        .arg(dir.path());
    let p = Process::spawn(cmd, &[]);
    let stalled: Vec<TcpStream> = (0..300).map(|_| stall_a_body(p.addr)).collect();
    let started = Instant::now();
    let mut answers = Vec::new();
    let answered = loop {
        let elapsed = started.elapsed();
        if elapsed > Duration::from_secs(5) {
            break None;
        }
        match try_http_within(p.addr, "/api/glossaries", Duration::from_secs(1)) {
            Ok(r) if r.status == 200 => break Some(elapsed),
            Ok(r) => answers.push(r.status.to_string()),
            Err(e) => answers.push(format!("{:?}", e.kind())),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let answered = answered.unwrap_or_else(|| panic!("no answer in 5 s; got {answers:?}"));
    assert!(
        answered < Duration::from_secs(1),
        "answered after {answered:?}; before that {answers:?}"
    );
    // Refusals are quick: a 503 (or the connection closed on it before
    // the request was read), never a wait for the reply.
    assert!(
        answers
            .iter()
            .all(|a| !matches!(a.as_str(), "WouldBlock" | "TimedOut")),
        "{answers:?}"
    );
    println!("answered after {answered:?}; before that {answers:?}");
    drop(stalled);
}

/// GET `path` with the reply due within `within`.
fn try_http_within(addr: SocketAddr, path: &str, within: Duration) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect_timeout(&addr, within)?;
    stream.set_read_timeout(Some(within))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    read_reply(&mut stream)
}

/// Two `glossa serve` processes on one folder (two terminals, or a restart
/// overlapping the old process): 40 saves race, half of them versioned,
/// alternating between the servers. Every save that got 201 is in the file;
/// no two versioned saves both succeeded from the same version (one would
/// have overwritten the other); the rest got 409.
#[test]
fn two_servers_on_one_folder_lose_no_acknowledged_save() {
    let dir = cafe_folder();
    let servers = [
        Process::start(dir.path(), "127.0.0.1:0", &[]),
        Process::start(dir.path(), "127.0.0.1:0", &[]),
    ];
    let addrs: Vec<SocketAddr> = servers.iter().map(|p| p.addr).collect();
    let saves = 40;
    let start = Arc::new(std::sync::Barrier::new(saves));
    let threads: Vec<_> = (0..saves)
        .map(|i| {
            let (addr, start) = (addrs[i % 2], Arc::clone(&start));
            std::thread::spawn(move || {
                let version = (i % 4 < 2).then(|| {
                    http(addr, "GET", "/api/glossaries/cafe", &[], None).json()["version"]
                        .as_str()
                        .unwrap()
                        .to_string()
                });
                let mut headers = vec![("Content-Type", "application/json")];
                if let Some(v) = &version {
                    headers.push(("If-Match", v.as_str()));
                }
                let body =
                    json!({"source": format!("race term {i}"), "target": format!("rask {i}")});
                start.wait();
                let r = http(
                    addr,
                    "POST",
                    "/api/glossaries/cafe/entries",
                    &headers,
                    Some(body.to_string().as_bytes()),
                );
                (i, version, r.status)
            })
        })
        .collect();
    let results: Vec<(usize, Option<String>, u16)> =
        threads.into_iter().map(|t| t.join().unwrap()).collect();
    let saved = Glossary::load(&dir.path().join("cafe.json")).unwrap();
    let mut bases = std::collections::HashSet::new();
    for (i, version, status) in &results {
        let present = saved.index_of(&format!("race term {i}")).is_some();
        match status {
            201 => {
                assert!(present, "save {i} got 201 but is not in the file");
                if let Some(v) = version {
                    assert!(
                        bases.insert(v.clone()),
                        "two saves succeeded from version {v}"
                    );
                }
            }
            409 => {
                assert!(version.is_some(), "an unversioned save {i} got 409");
                assert!(!present, "save {i} got 409 but is in the file");
            }
            other => panic!("save {i} answered {other}"),
        }
    }
    let ok = results.iter().filter(|r| r.2 == 201).count();
    assert_eq!(saved.len(), 25 + ok);
    assert!(ok >= saves / 2, "every unversioned save lands");
}

/// A glossary, or the `.backup` folder, linked to a place outside the
/// glossaries folder is neither served nor written through; a link that
/// stays inside works.
#[test]
fn symlinks_out_of_the_glossaries_folder_are_refused() {
    let s = serve_in_process(cafe_folder());
    let outside = tempfile::tempdir().unwrap();
    let secret = r#"{"entries": [{"source": "secret plan", "target": "hemlig"}]}"#;
    std::fs::write(outside.path().join("secret.json"), secret).unwrap();
    std::fs::write(outside.path().join("keep.txt"), "mine").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.json"), s.file("secret.json")).unwrap();
    std::os::unix::fs::symlink(s.file("cafe.json"), s.file("alias.json")).unwrap();

    let r = s.get("/api/glossaries/secret");
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(
        r.error()
            .contains("symbolic link out of the glossaries folder"),
        "{}",
        r.body
    );
    assert!(!r.body.contains("hemlig"));
    let r = s.send(
        "POST",
        "/api/glossaries/secret/entries",
        &json!({"source": "x y", "target": "z"}),
        &[],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.json")).unwrap(),
        secret
    );
    assert_eq!(
        s.get("/api/glossaries/alias").status,
        200,
        "a link inside the folder is fine"
    );

    // Backups go into `.backup`; pruning deletes there: not through a link.
    std::os::unix::fs::symlink(outside.path(), s.file(".backup")).unwrap();
    let version = s.version();
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "iced tea", "target": "frosk tesh"}),
        &[("If-Match", &version)],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.error().contains(".backup"), "{}", r.body);
    let mut left: Vec<String> = std::fs::read_dir(outside.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    left.sort();
    assert_eq!(left, ["keep.txt", "secret.json"]);
    assert_eq!(s.version(), version, "the refused save changed nothing");
}

// ---------------------------------------------------------------------------
// The binary

#[test]
fn the_binary_prints_its_address_logs_each_request_and_keeps_keys_to_itself() {
    let dir = cafe_folder();
    let secret = "sk-test-do-not-leak-0123456789";
    let p = Process::start(dir.path(), "127.0.0.1:0", &[("OPENAI_API_KEY", secret)]);
    let config = http(p.addr, "GET", "/api/config", &[], None);
    let names: Vec<String> = config.json()["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["offline", "openai"]);
    let page = http(p.addr, "GET", "/", &[], None);
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    assert!(page.body.contains("<textarea id=\"post\""));
    for path in [
        "/app.js",
        "/style.css",
        "/api/glossaries",
        "/api/glossaries/cafe",
    ] {
        let r = http(p.addr, "GET", path, &[], None);
        assert_eq!(r.status, 200, "{path}");
        assert!(!r.body.contains(secret) && !config.body.contains(secret));
    }
    let stderr = p.stop();
    assert!(stderr.contains("GET /api/config 200"), "{stderr}");
    assert!(stderr.contains("GET / 200"), "{stderr}");
    assert!(!stderr.contains(secret));
    assert!(!stderr.contains("warning: listening"), "{stderr}");
}

#[test]
fn binding_beyond_loopback_warns() {
    let dir = cafe_folder();
    let p = Process::start(dir.path(), "0.0.0.0:0", &[]);
    let r = http(p.addr, "GET", "/api/glossaries", &[], None);
    assert_eq!(r.status, 200);
    let stderr = p.stop();
    assert!(
        stderr.contains("warning: listening on 0.0.0.0:"),
        "{stderr}"
    );
}

// ---------------------------------------------------------------------------
// The page in a real browser

/// Open the page in headless Chromium, paste a post, translate, see the
/// highlighted glossary word and its explanation, add an alias from the
/// page, translate again and see the entry found through it. Screenshots
/// (desktop and phone width) go to runs/.
/// Chromium and chromedriver, or `None` (with a loud notice) where they are
/// missing and not required; under CI or GLOSSA_REQUIRE_BROWSER a missing
/// browser fails the test.
pub(crate) fn browser_tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    let tools = webdriver::find_tools();
    if tools.is_none() {
        let required = std::env::var_os("CI").is_some()
            || std::env::var_os("GLOSSA_REQUIRE_BROWSER").is_some();
        let message = "chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)";
        if required {
            panic!("the browser test is required here (CI or GLOSSA_REQUIRE_BROWSER is set): {message}");
        }
        eprintln!("\n!!!!!!!!\n!!!!!!!! SKIPPED {test}: {message}\n!!!!!!!!\n");
    }
    tools
}

/// axe-core's WCAG 2.1 A/AA violations on the page as it is now, one line
/// each (rule, element count, elements). `None` where axe-core is not
/// installed and not required (`.ci/run` installs it with npm).
pub(crate) fn axe_violations(b: &webdriver::Browser) -> Option<Vec<String>> {
    let path = std::env::var_os("GLOSSA_AXE_JS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo("target/axe/node_modules/axe-core/axe.min.js"));
    let Ok(source) = std::fs::read_to_string(&path) else {
        let required = std::env::var_os("CI").is_some()
            || std::env::var_os("GLOSSA_REQUIRE_BROWSER").is_some();
        let message = format!(
            "axe-core is not at {} (npm install --prefix target/axe axe-core)",
            path.display()
        );
        assert!(
            !required,
            "the accessibility check is required here: {message}"
        );
        eprintln!("\n!!!!!!!! SKIPPED the axe-core check: {message}\n");
        return None;
    };
    b.eval(&format!("{source}\n;window.__axe = null; return true;"));
    b.eval(
        "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
           .then((r) => { window.__axe = r.violations.map((v) =>
             `${v.id} (${v.nodes.length}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`); },
                 (e) => { window.__axe = ['axe failed: ' + e]; });
         return true;",
    );
    b.wait_until(
        "axe-core's report",
        "return window.__axe !== null",
        Duration::from_secs(60),
    );
    let found = b.eval("return window.__axe");
    Some(
        found
            .as_array()
            .expect("a list")
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
    )
}

#[test]
fn browser_creates_a_glossary_in_an_empty_folder() {
    let Some((chromium, chromedriver)) =
        browser_tools("browser_creates_a_glossary_in_an_empty_folder")
    else {
        return;
    };
    let s = serve_in_process(TempDir::new().unwrap());
    let b = webdriver::Browser::start(&chromium, &chromedriver, 1000, 900);
    b.goto(&format!("http://{}/", s.addr));
    b.find("body[data-ready='true']");
    assert!(b.find("#status").text().contains("New glossary"));
    b.find("#new-glossary").click();
    b.wait_until(
        "the new-glossary dialog",
        "return document.getElementById('glossary-dialog').open",
        Duration::from_secs(20),
    );
    b.find("#g-name").type_text("shop");
    b.find("#g-lang").type_text("nag");
    b.find("#g-source").type_text("gift card");
    b.find("#g-target").type_text("dona karta");
    b.find("#glossary-save").click();
    b.wait_until(
        "the glossary to be created",
        "return !document.getElementById('glossary-dialog').open",
        Duration::from_secs(20),
    );
    let created = Glossary::load(&s.file("shop.json")).unwrap();
    assert_eq!(created.target_lang, "nag");
    assert_eq!(created.entries[0].target, "dona karta");
    assert!(b.find("#entries").text().contains("gift card"));
}

/// A folder with a glossary that cannot be read beside ones that can: the
/// page says why that file is refused (it only did when none could be
/// read), and counts take their noun in the right number.
#[test]
fn browser_says_why_a_glossary_is_refused_and_counts_entries_right() {
    let Some((chromium, chromedriver)) =
        browser_tools("browser_says_why_a_glossary_is_refused_and_counts_entries_right")
    else {
        return;
    };
    let dir = cafe_folder();
    std::fs::write(
        dir.path().join("broken.json"),
        "{\"entries\": [{\"source\": \"tea\", \"target\": \"Tee\"},]}",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("one.json"),
        "{\"target_lang\": \"de\", \"entries\": [{\"source\": \"tea\", \"target\": \"Tee\"}]}",
    )
    .unwrap();
    let s = serve_in_process(dir);
    let b = webdriver::Browser::start(&chromium, &chromedriver, 1000, 900);
    b.goto(&format!("http://{}/", s.addr));
    b.find("body[data-ready='true']");
    let status = b.find("#status").text();
    assert!(status.contains("broken.json"), "{status}");
    assert!(status.contains("a comma after the last item"), "{status}");
    let options = b.eval(
        "return [...document.querySelectorAll('#glossary option')].map((o) => o.textContent)",
    );
    let options: Vec<&str> = options
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(options.contains(&"one (1 entry)"), "{options:?}");
    assert!(options.contains(&"broken (cannot be read)"), "{options:?}");
    assert!(
        !options.iter().any(|o| o.contains("1 entries")),
        "{options:?}"
    );
}

#[test]
fn browser_translate_add_an_alias_translate_again() {
    let Some((chromium, chromedriver)) =
        browser_tools("browser_translate_add_an_alias_translate_again")
    else {
        return;
    };
    let started = Instant::now();
    let s = serve_in_process(cafe_folder());
    let b = open_cafe_page(&chromium, &chromedriver, &s.addr.to_string());

    // WCAG 2.1 AA on load (axe-core).
    if let Some(violations) = axe_violations(&b) {
        assert!(violations.is_empty(), "on load: {violations:#?}");
    }

    // Paste a post and translate.
    b.find("#post")
        .type_text("Our iced latte is back, with fresh biscuits!");
    b.find("#translate").click();
    let cookie = b.find("#translation mark.term[data-id='cookie']");
    // ... and after a translation, with its warnings and their links.
    if let Some(violations) = axe_violations(&b) {
        assert!(
            violations.is_empty(),
            "after a translation: {violations:#?}"
        );
    }
    assert_eq!(cookie.text(), "dorpa");
    // The offline provider's output is not called a translation.
    let title = b.find("#result-title").text();
    assert!(title.contains("no translation"), "{title}");
    assert!(b
        .find("#offline-note")
        .text()
        .contains("No model was asked"));
    assert!(
        b.find("#translation").text().contains("iced latte"),
        "not in the glossary yet"
    );
    let warnings = b.find("#warnings").text();
    assert!(
        warnings.contains("iced") && warnings.contains("latte"),
        "{warnings}"
    );
    // Tap the highlighted word: the entry, the phrase and how it matched.
    cookie.click();
    b.wait_until(
        "the popover",
        "return !document.getElementById('popover').hidden",
        Duration::from_secs(20),
    );
    let pop = b.find("#popover").text();
    assert!(pop.contains("cookie → dorpa"), "{pop}");
    assert!(pop.contains("biscuits") && pop.contains("alias"), "{pop}");
    assert!(pop.contains("a sweet baked biscuit"), "{pop}");
    assert!(!pop.contains("null") && !pop.contains("undefined"), "{pop}");
    b.screenshot(&repo("runs/serve-e2e-first.png"));

    // Add an alias to `cold coffee` from the page.
    b.find("#entries li[data-id='cold-coffee'] button.edit")
        .click();
    b.wait_until(
        "the entry dialog",
        "return document.getElementById('entry-dialog').open",
        Duration::from_secs(20),
    );
    b.find("#f-aliases").type_text("iced latte");
    b.screenshot(&repo("runs/serve-e2e-dialog.png"));
    b.find("#entry-save").click();
    b.wait_until(
        "the save",
        "return !document.getElementById('entry-dialog').open",
        Duration::from_secs(20),
    );
    let saved = Glossary::load(&s.file("cafe.json")).unwrap();
    assert_eq!(saved.entries[0].aliases, ["iced latte"]);

    // Translate again: the entry is found through its new alias.
    b.find("#translate").click();
    let found = b.find("#translation mark.term[data-id='cold-coffee']");
    assert_eq!(found.text(), "frosk mavi");
    let used = b.find("#used li[data-id='cold-coffee']").text();
    assert!(
        used.contains("alias") && used.contains("iced latte"),
        "{used}"
    );
    found.click();
    b.wait_until(
        "the popover",
        "return document.getElementById('popover').dataset.id === 'cold-coffee' && !document.getElementById('popover').hidden",
        Duration::from_secs(20),
    );
    b.screenshot(&repo("runs/serve-e2e.png"));

    // Phone width: nothing wider than the screen; the popover docks at the bottom.
    b.resize(390, 844);
    b.wait_until(
        "the phone width",
        "return window.innerWidth <= 400",
        Duration::from_secs(20),
    );
    let overflow = b.eval("return document.documentElement.scrollWidth - window.innerWidth");
    assert!(
        overflow.as_i64().unwrap_or(1) <= 0,
        "the page is wider than a phone: {overflow}"
    );
    b.wait_until(
        "the popover to stay open, docked",
        "const p = document.getElementById('popover'); return !p.hidden && getComputedStyle(p).position === 'fixed'",
        Duration::from_secs(20),
    );
    // Close it, then tap another word.
    b.find("#popover .pop-close").click();
    b.wait_until(
        "the popover to close",
        "return document.getElementById('popover').hidden",
        Duration::from_secs(20),
    );
    b.find("#translation mark.term[data-id='cookie']").click();
    b.wait_until(
        "the docked popover",
        "const p = document.getElementById('popover'); \
         return !p.hidden && p.dataset.id === 'cookie' && getComputedStyle(p).position === 'fixed'",
        Duration::from_secs(20),
    );
    b.screenshot(&repo("runs/serve-e2e-phone.png"));
    b.find("#popover .pop-close").click();
    b.screenshot_full(&repo("runs/serve-e2e-phone-full.png"));
    eprintln!("browser test: {:.1} s", started.elapsed().as_secs_f64());
}

#[test]
fn browser_save_the_date_is_explained_and_senses_and_stems_are_flagged() {
    let Some((chromium, chromedriver)) =
        browser_tools("browser_save_the_date_is_explained_and_senses_and_stems_are_flagged")
    else {
        return;
    };
    let s = serve_in_process(cafe_folder());
    let b = open_cafe_page(&chromium, &chromedriver, &s.addr.to_string());
    // Two lines, as an owner writes them; `tea` has a sense, no context.
    b.find("#post")
        .type_text("Save the date! Sticky date loaf.\nFresh cookies and tea.");
    b.find("#translate").click();
    b.find("#translation mark.term[data-id='date']");
    let translation = b.eval("return document.getElementById('translation').textContent");
    assert_eq!(
        translation,
        "Save the date! Sticky zimbo loaf.\nFresh dorpa and tesh."
    );
    let check = b.find("#check").text();
    assert!(
        check.starts_with("Check: the 3 glossary targets found are in the output")
            && check.contains("not checked: meaning"),
        "{check}"
    );
    let warnings = b.find("#warnings").text();
    assert!(
        warnings.contains("'date' was left out here: the post says 'save the date'"),
        "{warnings}"
    );
    assert!(!warnings.contains("'date' matched no entry"), "{warnings}");
    // No "add" for a word that has an entry.
    let chips = b.eval(
        "return [...document.querySelectorAll('#warnings .chip')].map((c) => c.getAttribute('aria-label'))",
    );
    assert!(
        chips
            .as_array()
            .unwrap()
            .iter()
            .all(|c| !c.as_str().unwrap().contains("date")),
        "{chips}"
    );
    // The stem match and the unconfirmed sense, each with its entry's link.
    let flagged = b.eval(
        "return [...document.querySelectorAll('#warnings li.check_match, #warnings li.unconfirmed')]
           .map((li) => li.className + ': ' + li.textContent)",
    );
    let flagged: Vec<&str> = flagged
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(flagged.len(), 2, "{flagged:?}");
    assert!(
        flagged[0].starts_with(
            "warning unconfirmed: 'tea' was read as `tea` (→ tesh), meant as \"the drink\""
        ) && flagged[0].ends_with("edit entry"),
        "{flagged:?}"
    );
    assert!(
        flagged[1].starts_with("warning check_match: 'cookies' was read as 'cookie' (stem match)"),
        "{flagged:?}"
    );
    if let Some(violations) = axe_violations(&b) {
        assert!(violations.is_empty(), "{violations:#?}");
    }
    b.screenshot(&repo("runs/serve-e2e-save-the-date.png"));
}

/// The page after a translation that shows every kind of warning, from a
/// model (a mock chat server) whose reply, first pass and repair alike,
/// copies a glossary line, writes a forbidden term, changes a price and
/// leaves a target out; the post has a left-out entry, an unconfirmed
/// sense and a stem match. axe-core finds no WCAG 2.1 A/AA violation.
#[test]
fn browser_every_kind_of_warning_passes_axe() {
    let Some((chromium, chromedriver)) = browser_tools("browser_every_kind_of_warning_passes_axe")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut cafe: Value =
        serde_json::from_str(&std::fs::read_to_string(repo("glossaries/cafe.json")).unwrap())
            .unwrap();
    let cookie = cafe["entries"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["id"] == "cookie")
        .unwrap();
    cookie["forbidden"] = json!(["kuki"]);
    std::fs::write(dir.path().join("cafe.json"), cafe.to_string()).unwrap();

    let reply = "- cookie → dorpa\nSave the date! Sticky zimbo loaf.\nFresh kuki dorpa and tea, $6 until 4pm.";
    let rt = tokio::runtime::Runtime::new().unwrap();
    let model = rt.block_on(crate::support::Server::start(vec![
        crate::support::chat_reply(reply),
    ]));
    let settings = glossa::generate::provider::Settings {
        model: Some("mock-model".into()),
        base_url: Some(model.url("/v1")),
        ..Default::default()
    };
    let client = glossa::generate::retry::Client::new(
        vec![glossa::generate::provider::build("openai", &settings).unwrap()],
        glossa::generate::retry::RetryPolicy::default(),
        None,
    );
    let s = serve_in_process_with(dir, |o| {
        o.providers.insert(
            0,
            serve::ProviderChoice {
                name: "openai".into(),
                label: "mock-model (a mock)".into(),
                client: Arc::new(client),
            },
        )
    });
    let b = open_cafe_page(&chromium, &chromedriver, &s.addr.to_string());
    b.find("#post")
        .type_text("Save the date! Sticky date loaf.\nFresh cookies and tea, $5 until 4pm.");
    b.find("#translate").click();
    b.find("#translation mark.term[data-id='date']");
    assert_eq!(b.find("#result-title").text(), "Translation");
    let kinds = b.eval(
        "return [...document.querySelectorAll('#warnings li.warning')].map((li) => li.className.replace('warning ', ''))",
    );
    let kinds: Vec<&str> = kinds
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    for kind in [
        "forbidden",
        "echo",
        "invariant",
        "repaired",
        "left_out",
        "unconfirmed",
        "check_match",
        "not_in_output",
    ] {
        assert!(kinds.contains(&kind), "no {kind} warning in {kinds:?}");
    }
    let warnings = b.find("#warnings").text();
    assert!(warnings.contains("forbidden term 'kuki'"), "{warnings}");
    assert!(
        warnings.contains("after a second turn, still"),
        "{warnings}"
    );
    assert!(
        warnings.contains("'tesh' (for 'tea') is not in the translation"),
        "{warnings}"
    );
    // The first pass and one repair turn.
    assert_eq!(model.count(), 2);
    b.screenshot(&repo("runs/serve-e2e-every-warning.png"));
    if let Some(violations) = axe_violations(&b) {
        assert!(violations.is_empty(), "{violations:#?}");
    }
    // The entry dialog opened from a warning's link passes too.
    b.find("#warnings li.forbidden button.link").click();
    b.wait_until(
        "the entry dialog",
        "return document.getElementById('entry-dialog').open",
        Duration::from_secs(20),
    );
    if let Some(violations) = axe_violations(&b) {
        assert!(
            violations.is_empty(),
            "with the entry dialog open: {violations:#?}"
        );
    }
}

/// The editor's two checkboxes send `case_sensitive` and `keep`: a kept
/// entry needs no target, and a case-sensitive one is found only in its
/// case, at once (docs/formats.md, "Case and keep").
#[test]
fn entries_marked_match_case_or_keep_are_saved_and_used_as_marked() {
    let s = serve_in_process(cafe_folder());
    let version = s.get("/api/glossaries/cafe").json()["version"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "Glossa Café", "keep": true, "case_sensitive": true, "version": version}),
        &[],
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(s.file("cafe.json")).unwrap()).unwrap();
    let entry = saved["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["source"] == "Glossa Café")
        .unwrap()
        .clone();
    assert_eq!(
        (&entry["target"], &entry["keep"], &entry["case_sensitive"]),
        (&json!("Glossa Café"), &json!(true), &json!(true))
    );
    let found = |text: &str| {
        let r = s.send(
            "POST",
            "/api/retrieve",
            &json!({"text": text, "glossary": "cafe"}),
            &[],
        );
        r.json()["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["source"] == "Glossa Café")
    };
    assert!(found("Coffee at Glossa Café"));
    assert!(!found("coffee at glossa café"));
    // A kept entry whose target is another word is refused, as on the CLI.
    let version = r.json()["version"].as_str().unwrap().to_string();
    let r = s.send(
        "POST",
        "/api/glossaries/cafe/entries",
        &json!({"source": "Acme", "target": "Acne", "keep": true, "version": version}),
        &[],
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.error().contains("`keep` is set"), "{}", r.body);
}
