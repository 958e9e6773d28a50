//! The OpenAI Batch API and its Files API, as OpenAI, Azure OpenAI and
//! compatible proxies (LiteLLM) serve them under one base URL:
//! `POST /files` (multipart, `purpose=batch`), `POST /batches`,
//! `GET /batches/{id}`, `GET /batches?limit=&after=` and
//! `GET /files/{id}/content`. A 429 or 5xx reply, or a lost connection, is
//! tried again after the server's Retry-After (or 1, 2, 4... seconds);
//! the key travels in `Authorization: Bearer` and is replaced by
//! `[REDACTED:VAR]` in anything the server sends back.

use super::RequestCounts;
use crate::fsutil::{AtomicFile, WriteError};
use crate::generate::provider::{
    base_url, display_url, env_key, error_chain, is_local, parse_retry_after,
};
use crate::generate::secrets::{scrub, Secret};
use serde::Deserialize;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// OpenAI's own base URL.
pub(crate) const DEFAULT_BASE: &str = "https://api.openai.com/v1";
/// The variable the key is read from unless the run names another.
pub(crate) const DEFAULT_KEY_VAR: &str = "OPENAI_API_KEY";
/// How long the service has to answer a batch (the only window OpenAI offers).
pub(crate) const COMPLETION_WINDOW: &str = "24h";
/// Longest wait between two tries, whatever Retry-After asks.
const MAX_WAIT: Duration = Duration::from_secs(120);
/// Longest server message quoted in an error.
const DETAIL_CHARS: usize = 300;
/// Pages of `GET /batches` searched for a batch whose create reply was lost.
const MAX_LIST_PAGES: usize = 20;

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

/// The fields of a Batch object glossa uses.
#[derive(Debug, Clone, Deserialize)]
pub struct BatchObject {
    pub id: String,
    pub status: String,
    #[serde(default)]
    pub(crate) input_file_id: Option<String>,
    #[serde(default)]
    pub output_file_id: Option<String>,
    #[serde(default)]
    pub error_file_id: Option<String>,
    #[serde(default)]
    pub request_counts: Option<RequestCounts>,
    #[serde(default)]
    pub(crate) errors: Option<BatchErrors>,
}

impl BatchObject {
    /// The messages of the batch-wide errors (a file that failed validation).
    pub fn error_messages(&self) -> Vec<String> {
        self.errors
            .iter()
            .flat_map(|e| e.data.iter())
            .map(|e| match (&e.line, &e.code) {
                (Some(line), Some(code)) => format!("line {line}: {code}: {}", e.message),
                (Some(line), None) => format!("line {line}: {}", e.message),
                (None, Some(code)) => format!("{code}: {}", e.message),
                (None, None) => e.message.clone(),
            })
            .collect()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BatchErrors {
    #[serde(default)]
    pub(crate) data: Vec<BatchErrorItem>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BatchErrorItem {
    #[serde(default)]
    pub(crate) code: Option<String>,
    #[serde(default)]
    pub(crate) line: Option<u64>,
    #[serde(default)]
    pub(crate) message: String,
}

#[derive(Deserialize)]
struct FileObject {
    id: String,
}

#[derive(Deserialize)]
struct BatchList {
    data: Vec<BatchObject>,
    #[serde(default)]
    has_more: bool,
    #[serde(default)]
    last_id: Option<String>,
}

/// One OpenAI-compatible batch service.
pub struct OpenAiBatches {
    client: reqwest::Client,
    base: String,
    secret: Option<Secret>,
    /// Tries per request (429, 5xx and lost connections are tried again).
    pub(crate) attempts: u32,
}

impl OpenAiBatches {
    /// The service at `base` (OpenAI's when `None`), the key from `key_var`
    /// (`OPENAI_API_KEY` when `None`).
    pub fn new(base: Option<&str>, key_var: Option<&str>) -> Result<OpenAiBatches, RemoteError> {
        let url = base_url("openai", base, DEFAULT_BASE)?;
        let var = key_var.unwrap_or(DEFAULT_KEY_VAR);
        let key = env_key(var);
        let keyless_ok = base.is_some() && key_var.is_none() && is_local(&url);
        if key.is_none() && !keyless_ok {
            return Err(RemoteError::MissingKey {
                var: var.to_string(),
            });
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(concat!("glossa/", env!("CARGO_PKG_VERSION")))
            // As for model calls: the key never follows a redirect.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(300))
            .build()
            .map_err(|e| RemoteError::Setup(error_chain(&e)))?;
        Ok(OpenAiBatches {
            client,
            base: url,
            secret: key.map(|value| Secret {
                var: var.to_string(),
                value,
            }),
            attempts: 5,
        })
    }

    /// The base URL as shown and recorded (without credentials).
    pub fn base_shown(&self) -> String {
        display_url(&self.base)
    }

    /// Upload a request file (`purpose=batch`); its file id.
    pub async fn upload(&self, path: &Path) -> Result<String, RemoteError> {
        let bytes = std::fs::read(path).map_err(|source| RemoteError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "requests.jsonl".to_string());
        let url = format!("{}/files", self.base);
        let reply = self
            .send("POST", &url, || {
                let part = reqwest::multipart::Part::bytes(bytes.clone())
                    .file_name(name.clone())
                    .mime_str("application/jsonl")
                    .expect("a valid MIME type");
                let form = reqwest::multipart::Form::new()
                    .text("purpose", "batch")
                    .part("file", part);
                self.client.post(&url).multipart(form)
            })
            .await?;
        let file: FileObject = self.parse("POST", &url, &reply)?;
        Ok(file.id)
    }

    /// Create the batch of an uploaded file, with `metadata` (string values).
    pub async fn create(
        &self,
        input_file_id: &str,
        endpoint: &str,
        metadata: &[(&str, String)],
    ) -> Result<BatchObject, RemoteError> {
        let url = format!("{}/batches", self.base);
        let metadata: serde_json::Map<String, Value> = metadata
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.clone())))
            .collect();
        let body = json!({
            "input_file_id": input_file_id,
            "endpoint": endpoint,
            "completion_window": COMPLETION_WINDOW,
            "metadata": metadata,
        })
        .to_string();
        let reply = self
            .send("POST", &url, || {
                self.client
                    .post(&url)
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.clone())
            })
            .await?;
        self.parse("POST", &url, &reply)
    }

    /// The batch as the service sees it now.
    pub async fn get(&self, batch_id: &str) -> Result<BatchObject, RemoteError> {
        let url = format!("{}/batches/{}", self.base, path_segment(batch_id));
        let reply = self.send("GET", &url, || self.client.get(&url)).await?;
        self.parse("GET", &url, &reply)
    }

    /// The batch created from `input_file_id`, if the service lists one
    /// (for a create request whose answer was lost).
    pub async fn find_by_input(
        &self,
        input_file_id: &str,
    ) -> Result<Option<BatchObject>, RemoteError> {
        let mut after: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let mut url = format!("{}/batches?limit=100", self.base);
            if let Some(a) = &after {
                url.push_str(&format!("&after={}", path_segment(a)));
            }
            let reply = self.send("GET", &url, || self.client.get(&url)).await?;
            let page: BatchList = self.parse("GET", &url, &reply)?;
            if let Some(found) = page
                .data
                .iter()
                .find(|b| b.input_file_id.as_deref() == Some(input_file_id))
            {
                return Ok(Some(found.clone()));
            }
            let last = page
                .last_id
                .or_else(|| page.data.last().map(|b| b.id.clone()));
            match (page.has_more, last) {
                (true, Some(last)) => after = Some(last),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Download a file's content to `to` (atomically), with any key the
    /// content holds replaced by its marker; the bytes written.
    pub async fn download(&self, file_id: &str, to: &Path) -> Result<u64, RemoteError> {
        let url = format!("{}/files/{}/content", self.base, path_segment(file_id));
        let mut response = self.respond("GET", &url, || self.client.get(&url)).await?;
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
                url: display_url(&url),
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

    fn clean(&self, text: &str) -> String {
        match &self.secret {
            Some(s) => scrub(text, std::slice::from_ref(s)).unwrap_or_else(|| text.to_string()),
            None => text.to_string(),
        }
    }

    /// Send a request (built afresh for each try) and read the whole reply.
    async fn send(
        &self,
        method: &'static str,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<String, RemoteError> {
        let response = self.respond(method, url, build).await?;
        let bytes = response.bytes().await.map_err(|e| RemoteError::Connect {
            method,
            url: display_url(url),
            detail: self.clean(&error_chain(&e.without_url())),
        })?;
        Ok(self.clean(&String::from_utf8_lossy(&bytes)))
    }

    /// A 2xx response, after the tries a 429, 5xx or lost connection earns.
    async fn respond(
        &self,
        method: &'static str,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, RemoteError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let mut request = build();
            if let Some(secret) = &self.secret {
                request = request.bearer_auth(&secret.value);
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
                Some(after) if attempt < self.attempts => {
                    let backoff = Duration::from_secs(1 << (attempt - 1).min(6));
                    tokio::time::sleep(after.unwrap_or(backoff).min(MAX_WAIT)).await;
                }
                _ => return Err(error),
            }
        }
    }

    /// The server's message, short, without the key.
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

    fn parse<T: serde::de::DeserializeOwned>(
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
}

/// An id as one path segment: anything but letters, digits, `-`, `_` and
/// `.` percent-encoded (ids are plain, but they come from a file).
fn path_segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_stay_one_path_segment_and_urls_lose_their_credentials() {
        assert_eq!(path_segment("batch_abc-1.2"), "batch_abc-1.2");
        assert_eq!(path_segment("../x?y"), "..%2Fx%3Fy");
        assert_eq!(
            display_url("https://u:p@h.example/v1"),
            "https://h.example/v1"
        );
    }

    #[test]
    fn a_remote_server_needs_a_key() {
        let err = OpenAiBatches::new(
            Some("https://example.invalid/v1"),
            Some("GLOSSA_TEST_UNSET_VAR_36"),
        )
        .err()
        .unwrap();
        assert!(
            err.to_string().contains("GLOSSA_TEST_UNSET_VAR_36"),
            "{err}"
        );
        assert!(OpenAiBatches::new(Some("http://127.0.0.1:9/v1"), None).is_ok());
    }
}
