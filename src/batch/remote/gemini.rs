//! Gemini's batch mode of `generateContent`, as the Gemini API serves it
//! (the shapes of Google's API reference and its `google-genai` SDK):
//! the request file uploaded through the Files API's resumable protocol
//! (`POST {root}/upload/v1beta/files` with `X-Goog-Upload-Command: start`,
//! then the bytes to the `X-Goog-Upload-URL` it returns, the last chunk
//! with `upload, finalize`; after a chunk without an answer, a `query`
//! says how many bytes arrived and the upload goes on from there), the batch created with
//! `POST {root}/v1beta/models/{model}:batchGenerateContent`
//! (`{"batch": {"displayName", "inputConfig": {"fileName"}}}`: proto
//! JSON's canonical lowerCamelCase, as the SDK sends it), read
//! with `GET {root}/v1beta/batches/{id}` (an Operation whose `metadata` is
//! the batch: `state`, `batchStats`, `output.responsesFile`), listed with
//! `GET {root}/v1beta/batches`, and its results file downloaded with
//! `GET {root}/download/v1beta/files/{id}:download?alt=media`. The key
//! travels in `x-goog-api-key`; retries and redaction as for OpenAI
//! (super::http).

pub(crate) use super::http::RemoteError;
use super::http::{backoff, path_segment, KeyHeader, ServiceHttp};
use super::{Remote, RequestCounts};
use crate::generate::provider::{base_url, display_url, env_key, is_local};
use serde_json::{json, Value};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The Gemini API's own base URL (as `--provider gemini` takes it).
pub(crate) const DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com/v1beta";
/// The variable the key is read from unless the run names another.
pub(crate) const DEFAULT_KEY_VAR: &str = "GEMINI_API_KEY";
/// The MIME type the request files are uploaded as.
pub(crate) const MIME: &str = "application/jsonl";
/// Bytes per upload request (the SDK's chunk size).
pub(crate) const CHUNK_BYTES: usize = 8 << 20;
/// Pages of `GET /batches` searched for a batch whose create reply was lost.
const MAX_LIST_PAGES: usize = 20;

/// One Gemini API.
pub struct GeminiBatches {
    http: ServiceHttp,
    /// Scheme, host and any path before the version (no trailing slash).
    root: String,
    /// `v1beta`.
    version: String,
    /// Bytes per upload request.
    pub chunk_bytes: usize,
}

impl GeminiBatches {
    /// The API at `base` (Google's when `None`; like `--base-url` of
    /// `--provider gemini`, it ends in the API version), the key from
    /// `key_var` (`GEMINI_API_KEY` when `None`).
    pub fn new(base: Option<&str>, key_var: Option<&str>) -> Result<GeminiBatches, RemoteError> {
        let url = base_url("gemini", base, DEFAULT_BASE)?;
        let var = key_var.unwrap_or(DEFAULT_KEY_VAR);
        let key = env_key(var);
        let keyless_ok = base.is_some() && key_var.is_none() && is_local(&url);
        if key.is_none() && !keyless_ok {
            return Err(RemoteError::MissingKey {
                var: var.to_string(),
            });
        }
        let (root, version) = split_version(&url);
        Ok(GeminiBatches {
            http: ServiceHttp::new(KeyHeader::Goog, var, key)?,
            root,
            version,
            chunk_bytes: CHUNK_BYTES,
        })
    }

    /// The base URL as shown and recorded (without credentials).
    pub(crate) fn base_shown(&self) -> String {
        display_url(&format!("{}/{}", self.root, self.version))
    }

    /// Upload a request file (resumable protocol); its name (`files/...`).
    pub async fn upload(&self, path: &Path) -> Result<String, RemoteError> {
        let read = |source| RemoteError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut file = std::fs::File::open(path).map_err(read)?;
        let size = file.metadata().map_err(read)?.len();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "requests.jsonl".to_string());
        let url = format!("{}/upload/{}/files", self.root, self.version);
        let body = json!({"file": {"displayName": name}}).to_string();
        let started = self
            .http
            .respond("POST", &url, || {
                self.http
                    .client
                    .post(&url)
                    .header("X-Goog-Upload-Protocol", "resumable")
                    .header("X-Goog-Upload-Command", "start")
                    .header("X-Goog-Upload-Header-Content-Length", size.to_string())
                    .header("X-Goog-Upload-Header-Content-Type", MIME)
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.clone())
            })
            .await?;
        let given = started
            .headers()
            .get("x-goog-upload-url")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let Some(given) = given else {
            return Err(RemoteError::BadReply {
                method: "POST",
                url: display_url(&url),
                detail: "no X-Goog-Upload-URL header to send the file to".to_string(),
            });
        };
        let upload_url = self.same_origin(&given, &url)?;
        let mut offset = 0u64;
        let mut chunk = vec![0u8; self.chunk_bytes.max(1)];
        let mut failures = 0u32;
        loop {
            file.seek(SeekFrom::Start(offset)).map_err(read)?;
            let n = read_full(&mut file, &mut chunk).map_err(read)?;
            let last = offset + n as u64 >= size;
            let command = if last { "upload, finalize" } else { "upload" };
            let bytes = chunk[..n].to_vec();
            let sent = self
                .http
                .respond_tries(1, "POST", &upload_url, || {
                    self.http
                        .client
                        .post(&upload_url)
                        .header("X-Goog-Upload-Command", command)
                        .header("X-Goog-Upload-Offset", offset.to_string())
                        .body(bytes.clone())
                })
                .await;
            let response = match sent {
                Ok(response) => response,
                // The bytes may have arrived though the answer did not:
                // ask the service how many it holds, and go on from there.
                Err(e) if e.is_transient() && failures + 1 < self.http.attempts => {
                    failures += 1;
                    tokio::time::sleep(backoff(failures)).await;
                    let asked = self.query(&upload_url).await?;
                    if header(&asked, "x-goog-upload-status") == "final" {
                        return self.uploaded_name(&upload_url, asked).await;
                    }
                    offset = header(&asked, "x-goog-upload-size-received")
                        .parse()
                        .map_err(|_| RemoteError::BadReply {
                            method: "POST",
                            url: display_url(&upload_url),
                            detail: "no X-Goog-Upload-Size-Received in the answer to a query"
                                .to_string(),
                        })?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let status = header(&response, "x-goog-upload-status");
            offset += n as u64;
            if last {
                if status != "final" {
                    return Err(RemoteError::BadReply {
                        method: "POST",
                        url: display_url(&upload_url),
                        detail: format!(
                            "the upload did not finish (X-Goog-Upload-Status {status:?})"
                        ),
                    });
                }
                return self.uploaded_name(&upload_url, response).await;
            }
            if status != "active" {
                return Err(RemoteError::BadReply {
                    method: "POST",
                    url: display_url(&upload_url),
                    detail: format!(
                        "the upload stopped at byte {offset} of {size} (X-Goog-Upload-Status {status:?})"
                    ),
                });
            }
        }
    }

    /// `X-Goog-Upload-Command: query`: how far an upload got.
    async fn query(&self, upload_url: &str) -> Result<reqwest::Response, RemoteError> {
        self.http
            .respond("POST", upload_url, || {
                self.http
                    .client
                    .post(upload_url)
                    .header("X-Goog-Upload-Command", "query")
            })
            .await
    }

    /// The name (`files/...`) in the answer to a finished upload.
    async fn uploaded_name(
        &self,
        upload_url: &str,
        response: reqwest::Response,
    ) -> Result<String, RemoteError> {
        let reply = self.http.text("POST", upload_url, response).await?;
        let file: Value = self.http.parse("POST", upload_url, &reply)?;
        let name = file
            .pointer("/file/name")
            .and_then(Value::as_str)
            .ok_or_else(|| RemoteError::BadReply {
                method: "POST",
                url: display_url(upload_url),
                detail: "no file.name in the reply".to_string(),
            })?;
        Ok(name.to_string())
    }

    /// The upload URL the service gave, at the base's scheme, host and
    /// port (as the SDK does: the key goes nowhere else).
    fn same_origin(&self, given: &str, asked: &str) -> Result<String, RemoteError> {
        let bad = |detail: String| RemoteError::BadReply {
            method: "POST",
            url: display_url(asked),
            detail,
        };
        let base = reqwest::Url::parse(&self.root).map_err(|e| bad(e.to_string()))?;
        let mut url = reqwest::Url::parse(given)
            .map_err(|e| bad(format!("X-Goog-Upload-URL is not a URL: {e}")))?;
        url.set_scheme(base.scheme())
            .map_err(|_| bad("X-Goog-Upload-URL: cannot take the base's scheme".into()))?;
        url.set_host(base.host_str())
            .map_err(|e| bad(format!("X-Goog-Upload-URL: {e}")))?;
        url.set_port(base.port())
            .map_err(|_| bad("X-Goog-Upload-URL: cannot take the base's port".into()))?;
        let _ = url.set_username("");
        let _ = url.set_password(None);
        Ok(url.to_string())
    }

    /// Create the batch of an uploaded file for `model`.
    pub(crate) async fn create(
        &self,
        file_name: &str,
        model: &str,
        display_name: &str,
    ) -> Result<Remote, RemoteError> {
        let model = model.strip_prefix("models/").unwrap_or(model);
        let url = format!(
            "{}/{}/models/{}:batchGenerateContent",
            self.root,
            self.version,
            path_segment(model)
        );
        let body = json!({
            "batch": {
                "displayName": display_name,
                "inputConfig": {"fileName": file_name},
            }
        })
        .to_string();
        let reply = self.http.post_json(&url, body).await?;
        let operation: Value = self.http.parse("POST", &url, &reply)?;
        remote(&operation).ok_or_else(|| no_batch("POST", &url))
    }

    /// The batch as the service sees it now.
    pub(crate) async fn get(&self, name: &str) -> Result<Remote, RemoteError> {
        let id = name.strip_prefix("batches/").unwrap_or(name);
        let url = format!(
            "{}/{}/batches/{}",
            self.root,
            self.version,
            path_segment(id)
        );
        let reply = self
            .http
            .send("GET", &url, || self.http.client.get(&url))
            .await?;
        let operation: Value = self.http.parse("GET", &url, &reply)?;
        remote(&operation).ok_or_else(|| no_batch("GET", &url))
    }

    /// The batch created from `file_name`, if the service lists one (for a
    /// create request whose answer was lost).
    pub(crate) async fn find_by_input(
        &self,
        file_name: &str,
    ) -> Result<Option<Remote>, RemoteError> {
        let mut token: Option<String> = None;
        for _ in 0..MAX_LIST_PAGES {
            let mut url = format!("{}/{}/batches?pageSize=100", self.root, self.version);
            if let Some(t) = &token {
                url.push_str(&format!("&pageToken={}", path_segment(t)));
            }
            let reply = self
                .http
                .send("GET", &url, || self.http.client.get(&url))
                .await?;
            let page: Value = self.http.parse("GET", &url, &reply)?;
            let found = page
                .get("operations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|op| input_file(op) == Some(file_name));
            if let Some(found) = found {
                return Ok(remote(found));
            }
            match page.get("nextPageToken").and_then(Value::as_str) {
                Some(t) if !t.is_empty() => token = Some(t.to_string()),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Download a file (`files/...`) to `to` (atomically), with any key
    /// the content holds replaced by its marker; the bytes written.
    pub(crate) async fn download(&self, file_name: &str, to: &Path) -> Result<u64, RemoteError> {
        let id = file_name.strip_prefix("files/").unwrap_or(file_name);
        let url = format!(
            "{}/download/{}/files/{}:download?alt=media",
            self.root,
            self.version,
            path_segment(id)
        );
        self.http.download(&url, to).await
    }
}

/// `https://host/v1beta` as (`https://host`, `v1beta`); a base whose last
/// segment is no API version (`v1`, `v1beta`, `v1alpha`...) is all root,
/// with `v1beta`.
fn split_version(url: &str) -> (String, String) {
    if let Some((root, last)) = url.rsplit_once('/') {
        let version = last.len() >= 2
            && last.starts_with('v')
            && last.as_bytes()[1].is_ascii_digit()
            && !root.ends_with('/');
        if version {
            return (root.to_string(), last.to_string());
        }
    }
    (url.to_string(), "v1beta".to_string())
}

/// A response header's value ("" when absent).
fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

/// Read until `buf` is full or the file ends; the bytes read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            m => n += m,
        }
    }
    Ok(n)
}

fn no_batch(method: &'static str, url: &str) -> RemoteError {
    RemoteError::BadReply {
        method,
        url: display_url(url),
        detail: "no batch name (`name` or `metadata.name`) in the reply".to_string(),
    }
}

/// The batch (an Operation's `metadata`, or the batch itself).
fn batch(operation: &Value) -> &Value {
    match operation.get("metadata") {
        Some(m) if m.is_object() => m,
        _ => operation,
    }
}

/// A field by its proto-JSON name, in camelCase or snake_case.
fn field<'a>(v: &'a Value, camel: &str, snake: &str) -> Option<&'a Value> {
    v.get(camel).or_else(|| v.get(snake))
}

fn input_file(operation: &Value) -> Option<&str> {
    let config = field(batch(operation), "inputConfig", "input_config")?;
    field(config, "fileName", "file_name")?.as_str()
}

/// A Gemini batch state as the ledger's (OpenAI's) name.
pub(crate) fn ledger_state(state: &str) -> String {
    let bare = state
        .strip_prefix("BATCH_STATE_")
        .or_else(|| state.strip_prefix("JOB_STATE_"))
        .unwrap_or(state);
    match bare {
        "PENDING" => "validating".to_string(),
        "RUNNING" => "in_progress".to_string(),
        "SUCCEEDED" => "completed".to_string(),
        "FAILED" => "failed".to_string(),
        "CANCELLED" => "cancelled".to_string(),
        "EXPIRED" => "expired".to_string(),
        other => other.to_ascii_lowercase(),
    }
}

/// An int64 of proto JSON: a string of digits, or a number.
fn count(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::String(s) => s.parse().ok(),
        other => other.as_u64(),
    }
}

/// What an Operation (or batch) says of the batch.
fn remote(operation: &Value) -> Option<Remote> {
    let b = batch(operation);
    let name = operation
        .get("name")
        .or_else(|| b.get("name"))
        .and_then(Value::as_str)?
        .to_string();
    let state = b.get("state").and_then(Value::as_str).unwrap_or("");
    let stats = field(b, "batchStats", "batch_stats");
    let counts = stats.map(|s| {
        let total = count(field(s, "requestCount", "request_count")).unwrap_or(0);
        RequestCounts {
            total,
            completed: count(field(
                s,
                "successfulRequestCount",
                "successful_request_count",
            ))
            .unwrap_or(0),
            failed: count(field(s, "failedRequestCount", "failed_request_count")).unwrap_or(0),
        }
    });
    let responses = |v: Option<&Value>| {
        v.and_then(|o| field(o, "responsesFile", "responses_file"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let output_file = responses(b.get("output")).or_else(|| responses(operation.get("response")));
    let errors = operation
        .get("error")
        .filter(|e| e.is_object())
        .map(|e| {
            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
            match e.get("code") {
                Some(code) => format!("code {code}: {message}"),
                None => message.to_string(),
            }
        })
        .into_iter()
        .collect();
    Some(Remote {
        id: name,
        status: if state.is_empty() {
            "validating".to_string()
        } else {
            ledger_state(state)
        },
        request_counts: counts,
        output_file_id: output_file,
        error_file_id: None,
        errors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_splits_into_root_and_version() {
        assert_eq!(
            split_version("https://generativelanguage.googleapis.com/v1beta"),
            (
                "https://generativelanguage.googleapis.com".to_string(),
                "v1beta".to_string()
            )
        );
        assert_eq!(
            split_version("http://127.0.0.1:9/proxy/v1alpha"),
            (
                "http://127.0.0.1:9/proxy".to_string(),
                "v1alpha".to_string()
            )
        );
        assert_eq!(
            split_version("http://127.0.0.1:9/proxy"),
            ("http://127.0.0.1:9/proxy".to_string(), "v1beta".to_string())
        );
        assert_eq!(
            split_version("http://127.0.0.1:9"),
            ("http://127.0.0.1:9".to_string(), "v1beta".to_string())
        );
    }

    #[test]
    fn an_operation_reads_as_the_ledger_records_it() {
        let op = json!({
            "name": "batches/abc",
            "metadata": {
                "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
                "model": "models/m", "displayName": "run part 1",
                "inputConfig": {"fileName": "files/in1"},
                "state": "BATCH_STATE_SUCCEEDED",
                "batchStats": {"requestCount": "10", "successfulRequestCount": "9", "failedRequestCount": "1"},
                "output": {"responsesFile": "files/batch-abc"}
            },
            "done": true,
            "response": {"responsesFile": "files/batch-abc"}
        });
        let r = remote(&op).unwrap();
        assert_eq!(r.id, "batches/abc");
        assert_eq!(r.status, "completed");
        assert_eq!(
            r.request_counts,
            Some(RequestCounts {
                total: 10,
                completed: 9,
                failed: 1
            })
        );
        assert_eq!(r.output_file_id.as_deref(), Some("files/batch-abc"));
        assert_eq!(input_file(&op), Some("files/in1"));
        let failed = json!({"name": "batches/x", "metadata": {"state": "BATCH_STATE_FAILED"},
                            "done": true, "error": {"code": 3, "message": "bad file"}});
        let r = remote(&failed).unwrap();
        assert_eq!(
            (r.status.as_str(), r.errors),
            ("failed", vec!["code 3: bad file".to_string()])
        );
        for (state, ledger) in [
            ("BATCH_STATE_PENDING", "validating"),
            ("BATCH_STATE_RUNNING", "in_progress"),
            ("BATCH_STATE_EXPIRED", "expired"),
            ("BATCH_STATE_CANCELLED", "cancelled"),
            ("JOB_STATE_SUCCEEDED", "completed"),
        ] {
            assert_eq!(ledger_state(state), ledger);
        }
        assert!(remote(&json!({"metadata": {}})).is_none());
    }

    #[test]
    fn a_remote_api_needs_a_key() {
        let err = GeminiBatches::new(
            Some("https://example.invalid/v1beta"),
            Some("GLOSSA_TEST_UNSET_VAR_36"),
        )
        .err()
        .unwrap();
        assert!(
            err.to_string().contains("GLOSSA_TEST_UNSET_VAR_36"),
            "{err}"
        );
        let local = GeminiBatches::new(Some("http://127.0.0.1:9/v1beta"), None).unwrap();
        assert_eq!(local.base_shown(), "http://127.0.0.1:9/v1beta");
    }
}
