//! A stateful 127.0.0.1 mock of the Gemini API's Files and batch
//! endpoints, in the shapes of Google's API reference: the resumable
//! upload (`POST /upload/v1beta/files` with `X-Goog-Upload-Command:
//! start`, answered with an `X-Goog-Upload-URL` at another host, which the
//! client must bring back here; then `upload` / `upload, finalize` chunks),
//! `POST /v1beta/models/{model}:batchGenerateContent`, `GET
//! /v1beta/batches[/{id}]` (Operations whose `metadata` is the batch) and
//! `GET /download/v1beta/files/{id}:download?alt=media`. Faults: a chunk
//! kept but answered 503 (the client must `query` the upload's size), 429
//! with Retry-After on create, a batch that expires with only some requests
//! answered (the others have no line), failed requests (an `error` line),
//! and result lines in reverse order. A batch finishes on the first `GET`
//! after `polls_before_done` polls, answering every request with `answer`.

#![allow(dead_code)]

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// An upload session: declared size, the start request's body, the bytes
/// received so far.
#[derive(Debug, Clone)]
struct Session {
    size: usize,
    start: Value,
    bytes: Vec<u8>,
    /// The File, once finalized.
    done: Option<Value>,
}

#[derive(Debug, Default)]
pub struct GeminiState {
    /// Files by name (`files/in001`, `files/batch-b001`): content.
    pub files: HashMap<String, String>,
    /// Each finished upload's name, in order.
    pub uploaded: Vec<String>,
    /// Each upload's start request (its body and the X-Goog-Upload headers).
    pub upload_starts: Vec<Value>,
    /// Upload requests with content, in order: (command, offset, bytes).
    pub chunks: Vec<(String, usize, usize)>,
    /// Every create: the model of its URL and its body (also the refused).
    pub creates: Vec<(String, Value)>,
    /// Operations by batch, in creation order.
    pub batches: Vec<Value>,
    /// Every File and Operation sent back (for the SDK-types check).
    pub replies: Vec<(String, Value)>,
    /// Every result line served.
    pub result_lines: Vec<Value>,
    /// x-goog-api-key headers seen.
    pub keys: Vec<Option<String>>,
    /// Answer this many further creates with 429 and Retry-After: 1.
    pub rate_limit_creates: usize,
    /// Keep the bytes of this many further chunks, then answer 503 (the
    /// client must ask how far the upload got, not send them again).
    pub lose_chunk_answers: usize,
    /// Answer at most this many requests of a batch, then expire it.
    pub answer_at_most: Option<usize>,
    /// These keys fail (an `error` line in the results).
    pub fail: HashSet<String>,
    /// The text every request is answered with.
    pub answer: String,
    /// `GET`s answered running before a batch finishes.
    pub polls_before_done: usize,
    polls: HashMap<String, usize>,
    sessions: HashMap<String, Session>,
    port: u16,
}

type Shared = Arc<Mutex<GeminiState>>;

pub struct GeminiService {
    port: u16,
    pub state: Shared,
}

impl GeminiService {
    pub async fn start(answer: &str) -> GeminiService {
        let state: Shared = Arc::new(Mutex::new(GeminiState {
            answer: answer.to_string(),
            ..GeminiState::default()
        }));
        let app = Router::new()
            .route("/upload/v1beta/files", post(upload))
            .route("/v1beta/models/{action}", post(create))
            .route("/v1beta/batches", get(list))
            .route("/v1beta/batches/{id}", get(retrieve))
            .route("/download/v1beta/files/{action}", get(download))
            .with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        state.lock().unwrap().port = port;
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        GeminiService { port, state }
    }

    /// The base URL, as `--base-url` of `--provider gemini` takes it.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}/v1beta", self.port)
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut GeminiState) -> T) -> T {
        f(&mut self.state.lock().unwrap())
    }

    /// The keys of the n-th uploaded file's request lines.
    pub fn uploaded_keys(&self, n: usize) -> Vec<String> {
        self.with(|s| {
            s.files[&s.uploaded[n]]
                .lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l).unwrap()["key"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
    }
}

/// Google's error body.
fn error(status: StatusCode, message: &str) -> Response {
    let code = status.as_u16();
    let name = match code {
        400 => "INVALID_ARGUMENT",
        404 => "NOT_FOUND",
        429 => "RESOURCE_EXHAUSTED",
        _ => "INTERNAL",
    };
    (
        status,
        Json(json!({"error": {"code": code, "message": message, "status": name}})),
    )
        .into_response()
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

const TIME: &str = "2026-12-05T12:00:00.000000Z";

async fn upload(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
    body: Bytes,
) -> Response {
    let mut s = state.lock().unwrap();
    s.keys.push(header(&headers, "x-goog-api-key"));
    let command = header(&headers, "x-goog-upload-command").unwrap_or_default();
    if command == "start" {
        if header(&headers, "x-goog-upload-protocol").as_deref() != Some("resumable") {
            return error(
                StatusCode::BAD_REQUEST,
                "X-Goog-Upload-Protocol must be resumable",
            );
        }
        let Some(size) = header(&headers, "x-goog-upload-header-content-length")
            .and_then(|v| v.parse::<usize>().ok())
        else {
            return error(
                StatusCode::BAD_REQUEST,
                "no X-Goog-Upload-Header-Content-Length",
            );
        };
        let start: Value = match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(_) => return error(StatusCode::BAD_REQUEST, "the start body is not JSON"),
        };
        s.upload_starts.push(json!({
            "body": start,
            "content_type": header(&headers, "x-goog-upload-header-content-type"),
            "size": size,
        }));
        let id = format!("u{}", s.sessions.len() + 1);
        s.sessions.insert(
            id.clone(),
            Session {
                size,
                start,
                bytes: Vec::new(),
                done: None,
            },
        );
        // At another host, as Google's are: the client must send the
        // bytes (and its key) to the base it was given.
        let url = format!(
            "https://uploads.example.invalid/upload/v1beta/files?upload_id={id}&upload_protocol=resumable"
        );
        return (
            [
                ("x-goog-upload-url", url),
                ("x-goog-upload-status", "active".into()),
            ],
            "",
        )
            .into_response();
    }
    let Some(id) = query.get("upload_id").cloned() else {
        return error(StatusCode::BAD_REQUEST, "no upload_id");
    };
    let offset = header(&headers, "x-goog-upload-offset")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(usize::MAX);
    s.chunks.push((command.clone(), offset, body.len()));
    if command == "query" {
        let Some(session) = s.sessions.get(&id) else {
            return error(StatusCode::NOT_FOUND, "no such upload");
        };
        let received = session.bytes.len().to_string();
        let status = if session.done.is_some() {
            "final"
        } else {
            "active"
        };
        let body = match &session.done {
            Some(file) => json!({ "file": file }).to_string(),
            None => String::new(),
        };
        return (
            [
                ("x-goog-upload-status", status.to_string()),
                ("x-goog-upload-size-received", received),
            ],
            body,
        )
            .into_response();
    }
    let lose = s.lose_chunk_answers > 0 && command == "upload";
    let Some(session) = s.sessions.get_mut(&id) else {
        return error(StatusCode::NOT_FOUND, "no such upload");
    };
    if offset != session.bytes.len() || session.done.is_some() {
        return error(
            StatusCode::BAD_REQUEST,
            "X-Goog-Upload-Offset is not the bytes received",
        );
    }
    session.bytes.extend_from_slice(&body);
    if lose {
        s.lose_chunk_answers -= 1;
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "The service is currently unavailable.",
        );
    }
    match command.as_str() {
        "upload" => ([("x-goog-upload-status", "active")], "").into_response(),
        "upload, finalize" => {
            let session = s.sessions[&id].clone();
            if session.bytes.len() != session.size {
                return error(StatusCode::BAD_REQUEST, "fewer bytes than declared");
            }
            let name = format!("files/in{:03}", s.uploaded.len() + 1);
            s.files
                .insert(name.clone(), String::from_utf8(session.bytes).unwrap());
            s.uploaded.push(name.clone());
            let start = &session.start["file"];
            let display = start
                .get("displayName")
                .or_else(|| start.get("display_name"))
                .cloned()
                .unwrap_or(Value::Null);
            let file = json!({
                "name": name, "displayName": display, "mimeType": "application/jsonl",
                "sizeBytes": session.size.to_string(), "createTime": TIME, "updateTime": TIME,
                "expirationTime": "2026-12-07T12:00:00.000000Z",
                "sha256Hash": "ZmFrZQ==", "uri": format!("https://generativelanguage.googleapis.com/v1beta/{name}"),
                "state": "ACTIVE", "source": "UPLOADED",
            });
            s.replies.push(("file".into(), file.clone()));
            s.sessions.get_mut(&id).unwrap().done = Some(file.clone());
            (
                [("x-goog-upload-status", "final")],
                Json(json!({ "file": file })),
            )
                .into_response()
        }
        _ => error(StatusCode::BAD_REQUEST, "unknown X-Goog-Upload-Command"),
    }
}

/// The batch's file name, from snake_case or camelCase fields.
fn input_file(body: &Value) -> Option<String> {
    let batch = &body["batch"];
    let config = batch
        .get("input_config")
        .or_else(|| batch.get("inputConfig"))?;
    config
        .get("file_name")
        .or_else(|| config.get("fileName"))?
        .as_str()
        .map(str::to_string)
}

async fn create(
    State(state): State<Shared>,
    headers: HeaderMap,
    Path(action): Path<String>,
    body: Bytes,
) -> Response {
    let mut s = state.lock().unwrap();
    s.keys.push(header(&headers, "x-goog-api-key"));
    let Some(model) = action.strip_suffix(":batchGenerateContent") else {
        return error(StatusCode::NOT_FOUND, "no such method");
    };
    let body: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => return error(StatusCode::BAD_REQUEST, "not JSON"),
    };
    s.creates.push((model.to_string(), body.clone()));
    if s.rate_limit_creates > 0 {
        s.rate_limit_creates -= 1;
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "1")],
            Json(json!({"error": {"code": 429, "message": "Resource has been exhausted (e.g. check quota).", "status": "RESOURCE_EXHAUSTED"}})),
        )
            .into_response();
    }
    let Some(file) = input_file(&body).filter(|f| s.files.contains_key(f)) else {
        return error(StatusCode::BAD_REQUEST, "no such input file");
    };
    let total = s.files[&file].lines().count();
    let name = format!("batches/b{:03}", s.batches.len() + 1);
    let display = body["batch"]
        .get("display_name")
        .or_else(|| body["batch"].get("displayName"))
        .cloned()
        .unwrap_or(Value::Null);
    let operation = json!({
        "name": name,
        "metadata": {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": format!("models/{model}"), "displayName": display,
            "inputConfig": {"fileName": file}, "createTime": TIME, "updateTime": TIME,
            "batchStats": {"requestCount": total.to_string(), "pendingRequestCount": total.to_string()},
            "state": "BATCH_STATE_PENDING", "name": name,
        }
    });
    s.batches.push(operation.clone());
    s.replies.push(("operation".into(), operation.clone()));
    Json(operation).into_response()
}

async fn list(State(state): State<Shared>) -> Response {
    let s = state.lock().unwrap();
    let operations: Vec<Value> = s.batches.iter().rev().cloned().collect();
    Json(json!({ "operations": operations })).into_response()
}

async fn retrieve(
    State(state): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let mut s = state.lock().unwrap();
    s.keys.push(header(&headers, "x-goog-api-key"));
    let name = format!("batches/{id}");
    let Some(i) = s.batches.iter().position(|b| b["name"] == name.as_str()) else {
        return error(StatusCode::NOT_FOUND, "no such batch");
    };
    let polls = {
        let p = s.polls.entry(name.clone()).or_default();
        *p += 1;
        *p
    };
    let state_now = s.batches[i]["metadata"]["state"]
        .as_str()
        .unwrap()
        .to_string();
    if state_now == "BATCH_STATE_PENDING" || state_now == "BATCH_STATE_RUNNING" {
        if polls <= s.polls_before_done {
            s.batches[i]["metadata"]["state"] = json!("BATCH_STATE_RUNNING");
        } else {
            finish(&mut s, i);
        }
    }
    let operation = s.batches[i].clone();
    s.replies.push(("operation".into(), operation.clone()));
    Json(operation).into_response()
}

/// Answer a batch's requests: one results file, last line first, errors
/// among the responses; requests past `answer_at_most` get no line.
fn finish(s: &mut GeminiState, i: usize) {
    let input = s.batches[i]["metadata"]["inputConfig"]["fileName"]
        .as_str()
        .unwrap()
        .to_string();
    let lines: Vec<Value> = s.files[&input]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let limit = s.answer_at_most.unwrap_or(usize::MAX);
    let (mut out, mut ok, mut failed) = (Vec::new(), 0, 0);
    for (n, request) in lines.iter().enumerate().take(limit) {
        let key = request["key"].as_str().unwrap();
        let line = if s.fail.contains(key) {
            failed += 1;
            json!({"key": key, "error": {"code": 500, "message": "Internal error encountered.", "details": []}})
        } else {
            ok += 1;
            json!({"key": key, "response": {
                "candidates": [{"content": {"parts": [{"text": s.answer}], "role": "model"},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110,
                                  "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 100}]},
                "modelVersion": "gemini-2.5-flash", "responseId": format!("resp-{n}"),
            }})
        };
        out.push(line);
    }
    out.reverse();
    s.result_lines.extend(out.iter().cloned());
    let name = s.batches[i]["name"].as_str().unwrap().to_string();
    let file = format!("files/batch-{}", name.trim_start_matches("batches/"));
    let text: String = out.iter().map(|l| l.to_string() + "\n").collect();
    s.files.insert(file.clone(), text);
    let expired = limit < lines.len();
    let meta = &mut s.batches[i]["metadata"];
    meta["state"] = json!(if expired {
        "BATCH_STATE_EXPIRED"
    } else {
        "BATCH_STATE_SUCCEEDED"
    });
    meta["endTime"] = json!(TIME);
    meta["output"] = json!({ "responsesFile": file });
    meta["batchStats"] = json!({
        "requestCount": lines.len().to_string(),
        "successfulRequestCount": ok.to_string(),
        "failedRequestCount": failed.to_string(),
        "pendingRequestCount": (lines.len() - ok - failed).to_string(),
    });
    s.batches[i]["done"] = json!(true);
    s.batches[i]["response"] = json!({
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput",
        "responsesFile": file,
    });
}

async fn download(
    State(state): State<Shared>,
    headers: HeaderMap,
    Path(action): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let mut s = state.lock().unwrap();
    s.keys.push(header(&headers, "x-goog-api-key"));
    let Some(id) = action.strip_suffix(":download") else {
        return error(StatusCode::NOT_FOUND, "no such method");
    };
    if query.get("alt").map(String::as_str) != Some("media") {
        return error(StatusCode::BAD_REQUEST, "alt=media expected");
    }
    match s.files.get(&format!("files/{id}")) {
        Some(text) => {
            ([("content-type", "application/octet-stream")], text.clone()).into_response()
        }
        None => error(StatusCode::NOT_FOUND, "no such file"),
    }
}
