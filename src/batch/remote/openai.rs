//! The OpenAI Batch API and its Files API, as OpenAI, Azure OpenAI and
//! compatible proxies (LiteLLM) serve them under one base URL:
//! `POST /files` (multipart, `purpose=batch`), `POST /batches`,
//! `GET /batches/{id}`, `GET /batches?limit=&after=` and
//! `GET /files/{id}/content`. A 429 or 5xx reply, or a lost connection, is
//! tried again after the server's Retry-After (or 1, 2, 4... seconds);
//! the key travels in `Authorization: Bearer` and is replaced by
//! `[REDACTED:VAR]` in anything the server sends back.

pub(crate) use super::http::RemoteError;
use super::http::{path_segment, KeyHeader, ServiceHttp};
use super::RequestCounts;
use crate::generate::provider::{base_url, display_url, env_key, is_local};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::Path;

/// OpenAI's own base URL.
pub(crate) const DEFAULT_BASE: &str = "https://api.openai.com/v1";
/// The variable the key is read from unless the run names another.
pub(crate) const DEFAULT_KEY_VAR: &str = "OPENAI_API_KEY";
/// How long the service has to answer a batch (the only window OpenAI offers).
pub(crate) const COMPLETION_WINDOW: &str = "24h";
/// Pages of `GET /batches` searched for a batch whose create reply was lost.
const MAX_LIST_PAGES: usize = 20;

/// The fields of a Batch object glossa uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct BatchObject {
    pub(crate) id: String,
    pub(crate) status: String,
    #[serde(default)]
    pub(crate) input_file_id: Option<String>,
    #[serde(default)]
    pub(crate) output_file_id: Option<String>,
    #[serde(default)]
    pub(crate) error_file_id: Option<String>,
    #[serde(default)]
    pub(crate) request_counts: Option<RequestCounts>,
    #[serde(default)]
    pub(crate) errors: Option<BatchErrors>,
}

impl BatchObject {
    /// The messages of the batch-wide errors (a file that failed validation).
    pub(crate) fn error_messages(&self) -> Vec<String> {
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
    http: ServiceHttp,
    base: String,
}

impl OpenAiBatches {
    /// The service at `base` (OpenAI's when `None`), the key from `key_var`
    /// (`OPENAI_API_KEY` when `None`).
    pub(crate) fn new(
        base: Option<&str>,
        key_var: Option<&str>,
    ) -> Result<OpenAiBatches, RemoteError> {
        let url = base_url("openai", base, DEFAULT_BASE)?;
        let var = key_var.unwrap_or(DEFAULT_KEY_VAR);
        let key = env_key(var);
        let keyless_ok = base.is_some() && key_var.is_none() && is_local(&url);
        if key.is_none() && !keyless_ok {
            return Err(RemoteError::MissingKey {
                var: var.to_string(),
            });
        }
        Ok(OpenAiBatches {
            http: ServiceHttp::new(KeyHeader::Bearer, var, key)?,
            base: url,
        })
    }

    /// The base URL as shown and recorded (without credentials).
    pub(crate) fn base_shown(&self) -> String {
        display_url(&self.base)
    }

    /// Upload a request file (`purpose=batch`); its file id.
    pub(crate) async fn upload(&self, path: &Path) -> Result<String, RemoteError> {
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
            .http
            .send("POST", &url, || {
                let part = reqwest::multipart::Part::bytes(bytes.clone())
                    .file_name(name.clone())
                    .mime_str("application/jsonl")
                    .expect("a valid MIME type");
                let form = reqwest::multipart::Form::new()
                    .text("purpose", "batch")
                    .part("file", part);
                self.http.client.post(&url).multipart(form)
            })
            .await?;
        let file: FileObject = self.http.parse("POST", &url, &reply)?;
        Ok(file.id)
    }

    /// Create the batch of an uploaded file, with `metadata` (string values).
    pub(crate) async fn create(
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
        let reply = self.http.post_json(&url, body).await?;
        self.http.parse("POST", &url, &reply)
    }

    /// The batch as the service sees it now.
    pub(crate) async fn get(&self, batch_id: &str) -> Result<BatchObject, RemoteError> {
        let url = format!("{}/batches/{}", self.base, path_segment(batch_id));
        let reply = self
            .http
            .send("GET", &url, || self.http.client.get(&url))
            .await?;
        self.http.parse("GET", &url, &reply)
    }

    /// The batch created from `input_file_id`, if the service lists one
    /// (for a create request whose answer was lost).
    pub(crate) async fn find_by_input(
        &self,
        input_file_id: &str,
    ) -> Result<Option<BatchObject>, RemoteError> {
        let mut after: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let mut url = format!("{}/batches?limit=100", self.base);
            if let Some(a) = &after {
                url.push_str(&format!("&after={}", path_segment(a)));
            }
            let reply = self
                .http
                .send("GET", &url, || self.http.client.get(&url))
                .await?;
            let page: BatchList = self.http.parse("GET", &url, &reply)?;
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
    pub(crate) async fn download(&self, file_id: &str, to: &Path) -> Result<u64, RemoteError> {
        let url = format!("{}/files/{}/content", self.base, path_segment(file_id));
        self.http.download(&url, to).await
    }
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
