//! A minimal W3C WebDriver client for the end-to-end test: just the
//! commands it uses, over the same tiny HTTP client as the API tests, so
//! the browser test needs no extra crate and no Node. It drives Debian's
//! `chromium` through `chromedriver`.

use super::{http, wait_for_port};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian installs them (`apt-get install chromium chromium-driver`).
pub fn find_tools() -> Option<(PathBuf, PathBuf)> {
    let find = |names: &[&str]| -> Option<PathBuf> {
        for name in names {
            let direct = Path::new("/usr/bin").join(name);
            if direct.exists() {
                return Some(direct);
            }
            if let Some(paths) = std::env::var_os("PATH") {
                for dir in std::env::split_paths(&paths) {
                    let p = dir.join(name);
                    if p.exists() {
                        return Some(p);
                    }
                }
            }
        }
        None
    };
    Some((
        find(&["chromium", "chromium-browser"])?,
        find(&["chromedriver"])?,
    ))
}

/// A chromedriver process and one browser session. Dropping it ends the
/// session and stops the chromedriver it started.
pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub fn start(chromium: &Path, chromedriver: &Path, width: u32, height: u32) -> Browser {
        // A free port for chromedriver: bind, read it, let go.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let mut browser = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: tempfile::tempdir().unwrap(),
        };
        wait_for_port(addr, Duration::from_secs(30));
        let profile = browser._profile.path().display().to_string();
        let caps = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:loggingPrefs": { "browser": "ALL" },
                "goog:chromeOptions": {
                    "binary": chromium.display().to_string(),
                    "args": [
                        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-dev-shm-usage", "--hide-scrollbars",
                        format!("--user-data-dir={profile}"),
                        format!("--window-size={width},{height}"),
                    ]
                }
            }}
        });
        let v = browser.command("POST", "/session", Some(caps));
        browser.session = v["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("chromedriver gave no session: {v}"))
            .to_string();
        browser.command(
            "POST",
            &format!("/session/{}/timeouts", browser.session),
            Some(json!({ "implicit": 20_000, "pageLoad": 30_000, "script": 30_000 })),
        );
        browser
    }

    /// One WebDriver command; its `value`. Errors panic with the driver's
    /// message.
    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let bytes = body.map(|b| b.to_string().into_bytes());
        let reply = http(
            self.addr,
            method,
            path,
            &[("Content-Type", "application/json")],
            bytes.as_deref(),
        );
        let v: Value = serde_json::from_str(&reply.body).unwrap_or_else(|e| {
            panic!(
                "chromedriver answered {} with non-JSON ({e}): {}",
                reply.status, reply.body
            )
        });
        if reply.status != 200 {
            panic!(
                "WebDriver {method} {path} failed ({}): {}",
                reply.status, v["value"]
            );
        }
        v["value"].clone()
    }

    fn at(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    pub fn goto(&self, url: &str) {
        self.command("POST", &self.at("/url"), Some(json!({ "url": url })));
    }

    /// The first element matching `css`, waiting for it to appear.
    pub fn find(&self, css: &str) -> Element<'_> {
        let v = self.command(
            "POST",
            &self.at("/element"),
            Some(json!({ "using": "css selector", "value": css })),
        );
        Element {
            browser: self,
            id: v[ELEMENT_KEY]
                .as_str()
                .expect("an element reference")
                .to_string(),
        }
    }

    /// Run `script` (a function body; `return` a value) in the page.
    pub fn eval(&self, script: &str) -> Value {
        self.command(
            "POST",
            &self.at("/execute/sync"),
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// Poll `script` until it returns true (or fail after `within`, with
    /// `what` in the message).
    pub fn wait_until(&self, what: &str, script: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            if self.eval(script) == Value::Bool(true) {
                return;
            }
            if Instant::now() > deadline {
                let status =
                    self.eval("return document.getElementById('status')?.textContent || ''");
                panic!("timed out waiting for {what} (page status: {status})");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The console's errors (level SEVERE: uncaught exceptions, failed
    /// loads, Content-Security-Policy refusals) since the last call.
    pub fn console_errors(&self) -> Vec<String> {
        let v = self.command(
            "POST",
            &self.at("/se/log"),
            Some(json!({ "type": "browser" })),
        );
        v.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    pub fn resize(&self, width: u32, height: u32) {
        self.command(
            "POST",
            &self.at("/window/rect"),
            Some(json!({ "width": width, "height": height })),
        );
    }

    /// A PNG screenshot of the viewport, written to `path`.
    pub fn screenshot(&self, path: &Path) {
        let v = self.command("GET", &self.at("/screenshot"), None);
        let png = base64_decode(v.as_str().expect("base64 PNG"));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(path, png).unwrap();
    }

    /// A PNG of the whole page, beyond the viewport (Chromium's DevTools
    /// protocol through chromedriver), written to `path`.
    pub fn screenshot_full(&self, path: &Path) {
        let v = self.command(
            "POST",
            &self.at("/goog/cdp/execute"),
            Some(json!({ "cmd": "Page.captureScreenshot",
                         "params": { "format": "png", "captureBeyondViewport": true } })),
        );
        let png = base64_decode(v["data"].as_str().expect("base64 PNG"));
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                http(
                    self.addr,
                    "DELETE",
                    &format!("/session/{}", self.session),
                    &[],
                    None,
                )
            }));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

pub struct Element<'a> {
    browser: &'a Browser,
    id: String,
}

impl Element<'_> {
    pub fn click(&self) {
        let b = self.browser;
        b.command(
            "POST",
            &b.at(&format!("/element/{}/click", self.id)),
            Some(json!({})),
        );
    }

    pub fn type_text(&self, text: &str) {
        let b = self.browser;
        b.command(
            "POST",
            &b.at(&format!("/element/{}/value", self.id)),
            Some(json!({ "text": text })),
        );
    }

    pub fn text(&self) -> String {
        let b = self.browser;
        b.command("GET", &b.at(&format!("/element/{}/text", self.id)), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c) << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

#[test]
fn base64_round_trip() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("aGk="), b"hi");
    assert_eq!(base64_decode("YWJj"), b"abc");
}
