//! What the batch services' clients share: one HTTP client that never
//! follows a redirect, the key in the service's header, a 429 or 5xx
//! reply or a lost connection tried again after the server's Retry-After
//! (or 1, 2, 4... seconds), and the key replaced by `[REDACTED:VAR]` in
//! anything the server sends back.

use crate::fsutil::{AtomicFile, WriteError};
use crate::generate::provider::{client_builder, display_url, error_chain, parse_retry_after};
use crate::generate::secrets::{scrub, Secret};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Longest wait between two tries, whatever Retry-After asks.
const MAX_WAIT: Duration = Duration::from_secs(120);
/// Longest server message quoted in an error.
const DETAIL_CHARS: usize = 300;

/// Why a request to the batch service failed.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error(
        "no API key for the batch service: set {var} (only a server on this machine, named with \
         --base-url, may go without one)"
    )]
    MissingKey { var: String },
    #[error(transparent)]
    BaseUrl(#[from] crate::generate::provider::ProviderError),
    #[error("cannot set up the HTTP client: {0}")]
    Setup(String),
    #[error("{method} {url}: HTTP {status}{detail}")]
    Status {
        method: &'static str,
        url: String,
        status: u16,
        detail: String,
    },
    #[error("{method} {url}: no answer: {detail}")]
    Connect {
        method: &'static str,
        url: String,
        detail: String,
    },
    #[error("{method} {url}: the reply is not the JSON expected: {detail}")]
    BadReply {
        method: &'static str,
        url: String,
        detail: String,
    },
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Atomic(#[from] WriteError),
}

/// How the key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyHeader {
    /// `Authorization: Bearer KEY` (OpenAI).
    Bearer,
    /// `x-goog-api-key: KEY` (Gemini).
    Goog,
}

/// One service's HTTP client and key.
pub(crate) struct ServiceHttp {
    pub(super) client: reqwest::Client,
    secret: Option<Secret>,
    header: KeyHeader,
    /// Tries per request (429, 5xx and lost connections are tried again).
    pub(crate) attempts: u32,
}

impl ServiceHttp {
    /// The client, with the key `key` read from `var` (if any).
    pub(crate) fn new(
        header: KeyHeader,
        var: &str,
        key: Option<String>,
    ) -> Result<ServiceHttp, RemoteError> {
        // As for model calls: the key never follows a redirect.
        let client = client_builder()
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(300))
            .build()
            .map_err(|e| RemoteError::Setup(error_chain(&e)))?;
        Ok(ServiceHttp {
            client,
            secret: key.map(|value| Secret {
                var: var.to_string(),
                value,
            }),
            header,
            attempts: 5,
        })
    }

    /// `text` without the key.
    pub(crate) fn clean(&self, text: &str) -> String {
        match &self.secret {
            Some(s) => scrub(text, std::slice::from_ref(s)).unwrap_or_else(|| text.to_string()),
            None => text.to_string(),
        }
    }

    /// Send a request (built afresh for each try) and read the whole reply.
    pub(crate) async fn send(
        &self,
        method: &'static str,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<String, RemoteError> {
        let response = self.respond(method, url, build).await?;
        self.text(method, url, response).await
    }

    /// POST a JSON body and read the whole reply.
    pub(crate) async fn post_json(&self, url: &str, body: String) -> Result<String, RemoteError> {
        self.send("POST", url, || {
            self.client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.clone())
        })
        .await
    }

    /// The whole body of a response, without the key.
    pub(crate) async fn text(
        &self,
        method: &'static str,
        url: &str,
        response: reqwest::Response,
    ) -> Result<String, RemoteError> {
        let bytes = response.bytes().await.map_err(|e| RemoteError::Connect {
            method,
            url: display_url(url),
            detail: self.clean(&error_chain(&e.without_url())),
        })?;
        Ok(self.clean(&String::from_utf8_lossy(&bytes)))
    }

    /// A 2xx response, after the tries a 429, 5xx or lost connection earns.
    pub(crate) async fn respond(
        &self,
        method: &'static str,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, RemoteError> {
        self.respond_tries(self.attempts, method, url, build).await
    }

    /// [`Self::respond`] with at most `attempts` tries.
    pub(crate) async fn respond_tries(
        &self,
        attempts: u32,
        method: &'static str,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, RemoteError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let mut request = build();
            if let Some(secret) = &self.secret {
                request = match self.header {
                    KeyHeader::Bearer => request.bearer_auth(&secret.value),
                    KeyHeader::Goog => request.header("x-goog-api-key", &secret.value),
                };
            }
            let (error, wait) = match request.send().await {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| parse_retry_after(v, SystemTime::now()));
                    let body = response.text().await.unwrap_or_default();
                    let error = RemoteError::Status {
                        method,
                        url: display_url(url),
                        status,
                        detail: self.detail(&body),
                    };
                    let again = status == 429 || status >= 500;
                    (error, again.then_some(retry_after))
                }
                Err(e) => (
                    RemoteError::Connect {
                        method,
                        url: display_url(url),
                        detail: self.clean(&error_chain(&e.without_url())),
                    },
                    Some(None),
                ),
            };
            match wait {
                Some(after) if attempt < attempts => {
                    tokio::time::sleep(after.unwrap_or(backoff(attempt)).min(MAX_WAIT)).await;
                }
                _ => return Err(error),
            }
        }
    }

    /// The server's message (`error.message`, as OpenAI and Google send
    /// it), short, without the key.
    fn detail(&self, body: &str) -> String {
        let message = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.pointer("/error/message")?.as_str().map(str::to_string))
            .unwrap_or_else(|| body.trim().to_string());
        let message = self.clean(&message);
        if message.is_empty() {
            return String::new();
        }
        let short: String = message.chars().take(DETAIL_CHARS).collect();
        let more = if short.len() < message.len() {
            "..."
        } else {
            ""
        };
        format!(": {short}{more}")
    }

    /// A JSON reply as `T`.
    pub(crate) fn parse<T: serde::de::DeserializeOwned>(
        &self,
        method: &'static str,
        url: &str,
        reply: &str,
    ) -> Result<T, RemoteError> {
        serde_json::from_str(reply).map_err(|e| RemoteError::BadReply {
            method,
            url: display_url(url),
            detail: format!(
                "{e}; it starts with {:?}",
                reply.chars().take(80).collect::<String>()
            ),
        })
    }

    /// Download `url` to `to` (atomically), with any key the content holds
    /// replaced by its marker; the bytes written.
    pub(crate) async fn download(&self, url: &str, to: &Path) -> Result<u64, RemoteError> {
        let mut response = self.respond("GET", url, || self.client.get(url)).await?;
        let mut out = AtomicFile::create(to)?;
        let mut pending: Vec<u8> = Vec::new();
        let mut written = 0u64;
        let write_err = |source| RemoteError::Write {
            path: to.to_path_buf(),
            source,
        };
        loop {
            let chunk = response.chunk().await.map_err(|e| RemoteError::Connect {
                method: "GET",
                url: display_url(url),
                detail: format!("the download stopped: {}", error_chain(&e.without_url())),
            })?;
            let last = chunk.is_none();
            if let Some(chunk) = chunk {
                pending.extend_from_slice(&chunk);
            }
            // Whole lines only, so a key is never split between two writes.
            let cut = if last {
                pending.len()
            } else {
                match pending.iter().rposition(|&b| b == b'\n') {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            let lines: Vec<u8> = pending.drain(..cut).collect();
            let text = String::from_utf8_lossy(&lines);
            let clean = self.clean(&text);
            out.write_all(clean.as_bytes()).map_err(write_err)?;
            written += clean.len() as u64;
            if last {
                break;
            }
        }
        out.commit()?;
        Ok(written)
    }
}

/// The wait before try `attempt + 1` when the server names none: 1, 2,
/// 4... seconds.
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_secs(1 << attempt.saturating_sub(1).min(6))
}

impl RemoteError {
    /// A failure another try may mend: a 429 or 5xx, or no answer.
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            RemoteError::Status { status, .. } => *status == 429 || *status >= 500,
            RemoteError::Connect { .. } => true,
            _ => false,
        }
    }
}

/// An id as one path segment: anything but letters, digits, `-`, `_` and
/// `.` percent-encoded (ids are plain, but they come from a file).
pub(crate) fn path_segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
