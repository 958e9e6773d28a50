//! A stateful 127.0.0.1 mock of the OpenAI Files and Batch APIs (`POST
//! /v1/files`, `POST /v1/batches`, `GET /v1/batches[/{id}]`, `GET
//! /v1/files/{id}/content`) with the faults a real service shows: 429 with
//! Retry-After on create, a create that never answers, a batch that
//! expires half done (the rest in its error file as `batch_expired`),
//! failed requests in the error file, and output lines in reverse order.
//! A batch finishes on the first `GET` after `polls_before_done` polls,
//! answering every request with `answer`.

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

/// A form field of an upload: name, file name (for the file part), value
/// (for a text field).
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub filename: Option<String>,
    pub value: String,
}

#[derive(Debug, Default)]
pub struct MockState {
    /// Uploaded files: id -> (form fields, content).
    pub files: HashMap<String, String>,
    /// Every upload's form fields, in order.
    pub uploads: Vec<Vec<Field>>,
    /// Every create body received (also the refused and unanswered ones).
    pub creates: Vec<Value>,
    /// Batches by id, in creation order.
    pub batches: Vec<Value>,
    /// Every File and Batch object sent back (for the SDK-types check).
    pub replies: Vec<(String, Value)>,
    /// Authorization headers seen.
    pub auth: Vec<Option<String>>,
    /// Answer this many further creates with 429 and Retry-After: 1.
    pub rate_limit_creates: usize,
    /// Take the create requests in, never answer them.
    pub hang_creates: bool,
    /// Refuse the next create with 400 and this message.
    pub refuse_create: Option<String>,
    /// Answer at most this many requests of a batch, then expire it.
    pub answer_at_most: Option<usize>,
    /// These custom_ids fail (a 500 line in the error file).
    pub fail: HashSet<String>,
    /// The next batch to finish fails validation (no results).
    pub fail_validation: bool,
    /// The text every request is answered with.
    pub answer: String,
    /// `GET`s answered `in_progress` before a batch finishes.
    pub polls_before_done: usize,
    polls: HashMap<String, usize>,
    next_id: usize,
}

type Shared = Arc<Mutex<MockState>>;

pub struct BatchService {
    port: u16,
    pub state: Shared,
}

impl BatchService {
    pub async fn start(answer: &str) -> BatchService {
        let state: Shared = Arc::new(Mutex::new(MockState {
            answer: answer.to_string(),
            ..MockState::default()
        }));
        let app = Router::new()
            .route("/v1/files", post(upload))
            .route("/v1/files/{id}/content", get(content))
            .route("/v1/batches", post(create).get(list))
            .route("/v1/batches/{id}", get(retrieve))
            .with_state(Arc::clone(&state));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        BatchService { port, state }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut MockState) -> T) -> T {
        f(&mut self.state.lock().unwrap())
    }

    /// The custom_ids of the n-th uploaded file.
    pub fn uploaded_ids(&self, n: usize) -> Vec<String> {
        self.with(|s| {
            let id = format!("file-in{:03}", n + 1);
            s.files[&id]
                .lines()
                .map(|l| {
                    serde_json::from_str::<Value>(l).unwrap()["custom_id"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        })
    }
}

fn error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}})))
        .into_response()
}

fn now() -> u64 {
    1_735_646_400
}

async fn upload(State(state): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let mut s = state.lock().unwrap();
    s.auth.push(
        headers
            .get("authorization")
            .map(|v| v.to_str().unwrap().to_string()),
    );
    let ctype = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Some(boundary) = ctype.split("boundary=").nth(1) else {
        return error(StatusCode::BAD_REQUEST, "not multipart/form-data");
    };
    let fields = multipart(&String::from_utf8_lossy(&body), boundary.trim_matches('"'));
    s.uploads.push(fields.clone());
    let purpose = fields
        .iter()
        .find(|f| f.name == "purpose")
        .map(|f| f.value.clone());
    let Some(file) = fields
        .iter()
        .find(|f| f.name == "file" && f.filename.is_some())
    else {
        return error(StatusCode::BAD_REQUEST, "no file part");
    };
    if purpose.as_deref() != Some("batch") {
        return error(StatusCode::BAD_REQUEST, "purpose must be batch");
    }
    s.next_id += 1;
    let id = format!("file-in{:03}", s.uploads.len());
    s.files.insert(id.clone(), file.value.clone());
    let reply = json!({
        "id": id, "object": "file", "bytes": file.value.len(), "created_at": now(),
        "filename": file.filename, "purpose": "batch", "status": "processed"
    });
    s.replies.push(("file".into(), reply.clone()));
    Json(reply).into_response()
}

/// The fields of a multipart/form-data body (text only).
fn multipart(body: &str, boundary: &str) -> Vec<Field> {
    let delimiter = format!("--{boundary}");
    body.split(delimiter.as_str())
        .filter_map(|part| {
            let part = part.strip_prefix("\r\n")?;
            let (head, value) = part.split_once("\r\n\r\n")?;
            let value = value.strip_suffix("\r\n").unwrap_or(value);
            let disposition = head
                .lines()
                .find(|l| l.to_ascii_lowercase().starts_with("content-disposition"))?;
            let attr = |name: &str| {
                let key = format!("{name}=\"");
                let start = disposition.find(&key)? + key.len();
                Some(disposition[start..].split('"').next()?.to_string())
            };
            Some(Field {
                name: attr("name")?,
                filename: attr("filename"),
                value: value.to_string(),
            })
        })
        .collect()
}

async fn create(State(state): State<Shared>, body: Bytes) -> Response {
    let body: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(_) => return error(StatusCode::BAD_REQUEST, "not JSON"),
    };
    let hang = {
        let mut s = state.lock().unwrap();
        s.creates.push(body.clone());
        if s.rate_limit_creates > 0 {
            s.rate_limit_creates -= 1;
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", "1")],
                Json(json!({"error": {"message": "Rate limit reached for batches", "type": "requests", "param": null, "code": "rate_limit_exceeded"}})),
            )
                .into_response();
        }
        if let Some(message) = s.refuse_create.take() {
            return error(StatusCode::BAD_REQUEST, &message);
        }
        s.hang_creates
    };
    if hang {
        std::future::pending::<()>().await;
    }
    let mut s = state.lock().unwrap();
    let Some(input) = body["input_file_id"]
        .as_str()
        .filter(|id| s.files.contains_key(*id))
    else {
        return error(StatusCode::BAD_REQUEST, "no such input file");
    };
    if body["endpoint"] != "/v1/chat/completions" || body["completion_window"] != "24h" {
        return error(StatusCode::BAD_REQUEST, "endpoint or completion_window");
    }
    let total = s.files[input].lines().count();
    let id = format!("batch_{:03}", s.batches.len() + 1);
    let batch = json!({
        "id": id, "object": "batch", "endpoint": body["endpoint"], "errors": null,
        "input_file_id": input, "completion_window": "24h", "status": "validating",
        "output_file_id": null, "error_file_id": null, "created_at": now(),
        "request_counts": {"total": total, "completed": 0, "failed": 0},
        "metadata": body["metadata"],
    });
    s.batches.push(batch.clone());
    s.replies.push(("batch".into(), batch.clone()));
    Json(batch).into_response()
}

async fn list(
    State(state): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let s = state.lock().unwrap();
    let mut data: Vec<Value> = s.batches.iter().rev().cloned().collect();
    if let Some(after) = query.get("after") {
        if let Some(i) = data.iter().position(|b| b["id"] == after.as_str()) {
            data.drain(..=i);
        }
    }
    let reply = json!({
        "object": "list", "data": data, "has_more": false,
        "first_id": data.first().map(|b| b["id"].clone()), "last_id": data.last().map(|b| b["id"].clone()),
    });
    Json(reply).into_response()
}

async fn retrieve(State(state): State<Shared>, Path(id): Path<String>) -> Response {
    let mut s = state.lock().unwrap();
    let Some(i) = s.batches.iter().position(|b| b["id"] == id.as_str()) else {
        return error(StatusCode::NOT_FOUND, "no such batch");
    };
    let polls = {
        let p = s.polls.entry(id.clone()).or_default();
        *p += 1;
        *p
    };
    let status = s.batches[i]["status"].as_str().unwrap().to_string();
    if status == "validating" || status == "in_progress" {
        if polls <= s.polls_before_done {
            s.batches[i]["status"] = json!("in_progress");
        } else {
            finish(&mut s, i);
        }
    }
    let batch = s.batches[i].clone();
    s.replies.push(("batch".into(), batch.clone()));
    Json(batch).into_response()
}

/// Answer a batch's requests: its output (last line first) and error files.
fn finish(s: &mut MockState, i: usize) {
    if std::mem::take(&mut s.fail_validation) {
        s.batches[i]["status"] = json!("failed");
        s.batches[i]["errors"] = json!({"object": "list", "data": [
            {"code": "invalid_request", "line": 1, "message": "This model is not available for batch.", "param": "body.model"}
        ]});
        return;
    }
    let input = s.batches[i]["input_file_id"].as_str().unwrap().to_string();
    let lines: Vec<Value> = s.files[&input]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let limit = s.answer_at_most.unwrap_or(usize::MAX);
    let (mut output, mut errors) = (Vec::new(), Vec::new());
    for (n, request) in lines.iter().enumerate() {
        let custom_id = request["custom_id"].as_str().unwrap();
        let line = if n >= limit {
            json!({"id": format!("batch_req_{n}"), "custom_id": custom_id, "response": null,
                   "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}})
        } else if s.fail.contains(custom_id) {
            json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                   "response": {"status_code": 500, "request_id": format!("req_{n}"),
                                "body": {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}},
                   "error": null})
        } else {
            json!({"id": format!("batch_req_{n}"), "custom_id": custom_id,
                   "response": {"status_code": 200, "request_id": format!("req_{n}"), "body": {
                       "id": format!("chatcmpl-{n}"), "object": "chat.completion", "created": now(),
                       "model": "gpt-4o-mini-2024-07-18",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": s.answer}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}}},
                   "error": null})
        };
        if line["response"]["status_code"] == 200 {
            output.push(line);
        } else {
            errors.push(line);
        }
    }
    output.reverse();
    let completed = output.len();
    let failed = errors.len();
    let mut file = |lines: Vec<Value>, kind: &str| -> Value {
        if lines.is_empty() {
            return Value::Null;
        }
        let id = format!("file-{kind}-{}", s.batches[i]["id"].as_str().unwrap());
        let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
        s.files.insert(id.clone(), text);
        json!(id)
    };
    let output_id = file(output, "out");
    let error_id = file(errors, "err");
    let batch = &mut s.batches[i];
    batch["status"] = json!(if limit < lines.len() {
        "expired"
    } else {
        "completed"
    });
    batch["output_file_id"] = output_id;
    batch["error_file_id"] = error_id;
    batch["request_counts"] =
        json!({"total": lines.len(), "completed": completed, "failed": failed});
}

async fn content(State(state): State<Shared>, Path(id): Path<String>) -> Response {
    let s = state.lock().unwrap();
    match s.files.get(&id) {
        Some(text) => {
            ([("content-type", "application/octet-stream")], text.clone()).into_response()
        }
        None => error(StatusCode::NOT_FOUND, "no such file"),
    }
}
