//! A scripted HTTP/1.1 server on 127.0.0.1 for provider tests: it records
//! every request and answers from a script, including the misbehaviour a
//! mocking library cannot produce (a body cut short, no answer at all).

#![allow(dead_code)]

pub mod batch_files;
pub mod batch_service;
pub mod gemini_service;
pub mod providers;

use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Response {
    Reply {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Announces `declared` bytes of body, sends `body`, then closes.
    Truncated { declared: usize, body: String },
    /// Reads the request and never answers (the connection stays open).
    Hang,
    /// Waits, then answers as the inner response.
    Delayed(std::time::Duration, Box<Response>),
}

impl Response {
    pub fn json(status: u16, body: impl Into<String>) -> Response {
        Response::Reply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
        }
    }

    pub fn text(status: u16, body: impl Into<String>) -> Response {
        Response::Reply {
            status,
            headers: vec![("Content-Type".into(), "text/html".into())],
            body: body.into(),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Response {
        if let Response::Reply { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// The body's bytes as sent (`body` replaces what is not UTF-8).
    pub raw: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

pub struct Server {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    /// Listen on a free port and answer the n-th request with `script[n]`;
    /// the last entry answers all further requests. The listener is bound
    /// before this returns, so no waiting is needed before use.
    pub async fn start(script: Vec<Response>) -> Server {
        assert!(!script.is_empty(), "a script needs at least one response");
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(script);
        let next = Arc::new(AtomicUsize::new(0));
        let recorded = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let script = Arc::clone(&script);
                let next = Arc::clone(&next);
                let recorded = Arc::clone(&recorded);
                tokio::spawn(async move {
                    serve(stream, &script, &next, &recorded).await;
                });
            }
        });
        Server { port, requests }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    /// `--provider openai --model MODEL --base-url` this server, as arguments.
    pub fn provider_args(&self, model: &str) -> Vec<String> {
        strings(&["--provider", "openai", "--model", model, "--base-url"])
            .into_iter()
            .chain([self.url("/v1")])
            .collect()
    }

    /// The first message's text of the `i`-th chat request (the prompt).
    pub fn prompt(&self, i: usize) -> String {
        self.requests()[i].json()["messages"][0]["content"]
            .as_str()
            .expect("a chat request with a text message")
            .to_string()
    }
}

/// One connection, one request: every answer closes the connection.
async fn serve(
    mut stream: TcpStream,
    script: &[Response],
    next: &AtomicUsize,
    recorded: &Mutex<Vec<Recorded>>,
) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    recorded.lock().unwrap().push(request);
    let n = next.fetch_add(1, Ordering::SeqCst).min(script.len() - 1);
    let mut response = &script[n];
    if let Response::Delayed(wait, inner) = response {
        tokio::time::sleep(*wait).await;
        response = inner;
    }
    match response {
        Response::Reply {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n",
                reason(*status),
                body.len()
            );
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(body.as_bytes()).await;
        }
        Response::Truncated { declared, body } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(body.as_bytes()).await;
        }
        Response::Hang => {
            std::future::pending::<()>().await;
        }
        Response::Delayed(..) => unreachable!("one level of delay"),
    }
    let _ = stream.shutdown().await;
}

async fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let raw = buf[head_end..head_end + length].to_vec();
    let body = String::from_utf8_lossy(&raw).to_string();
    Some(Recorded {
        method,
        path,
        headers,
        body,
        raw,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Whatever",
    }
}

/// The real binary, with the environment that changes how output looks
/// (terminal width, colour) cleared, so outputs are the same everywhere.
pub fn glossa() -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("glossa").unwrap();
    command
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR");
    command
}

/// One retriever's figures in the JSON of `glossa eval --format json`.
pub fn retriever_figures<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no retriever `{name}` in the result"))
}

/// A file of tests/fixtures.
pub fn fixture(name: &str) -> std::path::PathBuf {
    repo_file("tests/fixtures").join(name)
}

/// A file of the repository.
pub fn repo_file(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The glossa binary, run in `cwd`.
pub fn glossa_in(cwd: &std::path::Path) -> assert_cmd::Command {
    let mut c = glossa();
    c.current_dir(cwd).env("RUST_BACKTRACE", "0");
    c
}

/// Run glossa in `cwd`, check its exit code, return stdout and stderr.
pub fn run_in(cwd: &std::path::Path, args: &[&str], code: i32) -> (String, String) {
    let out = glossa_in(cwd).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(code),
        "glossa {}\nstdout: {stdout}\nstderr: {stderr}",
        args.join(" ")
    );
    (stdout, stderr)
}

/// The JSON values of a JSONL file, blank lines skipped.
pub fn jsonl(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every file below `dir`, at any depth.
pub fn files_below(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// An OpenAI chat-completion reply holding `content`, finished by `stop`.
pub fn chat_reply(content: &str) -> Response {
    Response::json(
        200,
        serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
            .to_string(),
    )
}

/// [`chat_reply`] that also reports its usage: 100 prompt tokens, 10
/// completion tokens.
pub fn chat_reply_with_usage(content: &str) -> Response {
    Response::json(
        200,
        serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 10}})
            .to_string(),
    )
}

/// `glossa ARGS` in `dir` off the async runtime that serves a mock:
/// (exit code, stdout, stderr).
pub async fn glossa_at(dir: &std::path::Path, args: Vec<String>) -> (i32, String, String) {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let out = glossa_in(&dir).args(&args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

/// Owned arguments.
pub fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `dir` when `present` says the data a test needs is there; else `None`
/// (the test skips), except under CI=true, where it must be there.
pub fn required_data(
    dir: Option<std::path::PathBuf>,
    present: impl Fn(&std::path::Path) -> bool,
    missing: &str,
) -> Option<std::path::PathBuf> {
    match dir {
        Some(dir) if present(&dir) => Some(dir),
        _ => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("required under CI=true: {missing}");
            }
            eprintln!("note: {missing}; skipping");
            None
        }
    }
}

/// Django's catalogues as PO, XLIFF and TMX with translate-toolkit's
/// reading of each (.ci/catalogues.sh; .ci/run exports GLOSSA_CATALOGUES).
pub fn catalogues() -> Option<std::path::PathBuf> {
    required_data(
        std::env::var_os("GLOSSA_CATALOGUES").map(std::path::PathBuf::from),
        |dir| dir.join("de/django.po").exists(),
        "GLOSSA_CATALOGUES is unset or holds no de/django.po \
         (export GLOSSA_CATALOGUES=$(bash .ci/catalogues.sh))",
    )
}

/// WordNet's folder (`WNSEARCHDIR`, else Debian's `/usr/share/wordnet`)
/// when its exception lists are there, for the default's irregular
/// inflections (.ci/run installs `wordnet-base`).
pub fn wordnet() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("WNSEARCHDIR")
        .map_or_else(|| "/usr/share/wordnet".into(), std::path::PathBuf::from);
    required_data(
        Some(dir),
        |dir| dir.join("noun.exc").exists() && dir.join("index.noun").exists(),
        "WordNet's exception lists are not installed (apt-get install wordnet-base)",
    )
}
