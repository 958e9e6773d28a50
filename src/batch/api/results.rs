//! `--batch-in`: the lines of a Batch API output (or error) file, read
//! one at a time, each an answer or why the call failed. An OpenAI line
//! names its call in `custom_id`, a Gemini line in `key`.

use super::{parse_custom_id, BadLine, BatchError, Dialect};
use crate::generate::provider::{chat_reply, gemini_reply};
use crate::generate::reply::Completion;
use crate::run_dir::record::CallKey;
use serde_json::Value;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// What the API answered for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchResult {
    pub key: CallKey,
    /// Whose result line it is.
    pub(crate) dialect: Dialect,
    /// The reply as the API sent it (not yet judged by
    /// [`crate::generate::reply::accept`]), or why the call failed.
    pub(crate) answer: Result<Completion, String>,
}

/// Read one line of a Batch API output or error file. `Err` means the line
/// is malformed; a call that failed is `Ok` with an `Err` answer.
pub fn parse_result(line: &str) -> Result<BatchResult, BadLine> {
    let v: Value = serde_json::from_str(line).map_err(|e| BadLine::NotAResult(e.to_string()))?;
    let Some(obj) = v.as_object() else {
        return Err(BadLine::NotAResult("not a JSON object".to_string()));
    };
    let (name, dialect) = if obj.contains_key("custom_id") {
        ("custom_id", Dialect::OpenAi)
    } else if obj.contains_key("key") {
        ("key", Dialect::Gemini)
    } else {
        return Err(BadLine::NoId);
    };
    let Some(Value::String(id)) = obj.get(name) else {
        return Err(BadLine::IdNotAString(name));
    };
    let key = parse_custom_id(id)?;
    let answer = match dialect {
        Dialect::OpenAi => answer(obj)?,
        Dialect::Gemini => gemini_answer(obj)?,
    };
    Ok(BatchResult {
        key,
        dialect,
        answer,
    })
}

/// The answer of a Gemini result line: `response` (a
/// GenerateContentResponse), or `error` / `status` (a google.rpc.Status).
fn gemini_answer(
    obj: &serde_json::Map<String, Value>,
) -> Result<Result<Completion, String>, BadLine> {
    let label = Dialect::Gemini.label();
    let error = ["error", "status"]
        .iter()
        .find_map(|name| obj.get(*name).filter(|e| !e.is_null()));
    if let Some(error) = error {
        let field = |name: &str| match error.get(name) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let message = match error {
            Value::String(s) => s.clone(),
            _ => match (field("code"), field("message")) {
                (Some(code), Some(message)) => format!("code {code}: {message}"),
                (None, Some(message)) => message,
                (Some(code), None) => format!("code {code}"),
                (None, None) => error.to_string(),
            },
        };
        return Ok(Err(format!(
            "the {label} failed this request: {}",
            one_line(&message, 300)
        )));
    }
    match obj.get("response") {
        None | Some(Value::Null) => Ok(Err(format!(
            "the {label} returned no response for this request"
        ))),
        Some(response @ Value::Object(_)) => Ok(gemini_reply(response)
            .map_err(|why| format!("reply from the {label} has no text: {why}"))),
        Some(_) => Err(BadLine::ResponseNotAnObject),
    }
}

/// The answer a well-formed line carries: a completion, or why the call
/// failed (recorded as the call's error).
fn answer(obj: &serde_json::Map<String, Value>) -> Result<Result<Completion, String>, BadLine> {
    if let Some(error) = obj.get("error").filter(|e| !e.is_null()) {
        let text = |name: &str| {
            error
                .get(name)
                .and_then(|v| match v {
                    Value::String(s) => Some(s.clone()),
                    Value::Null => None,
                    other => Some(other.to_string()),
                })
                .filter(|s| !s.is_empty())
        };
        let message = match error {
            Value::String(s) => s.clone(),
            _ => match (text("code"), text("message")) {
                (Some(code), Some(message)) => format!("{code}: {message}"),
                (None, Some(message)) => message,
                (Some(code), None) => code,
                (None, None) => error.to_string(),
            },
        };
        return Ok(Err(format!(
            "the OpenAI Batch API failed this request: {message}"
        )));
    }
    let response = match obj.get("response") {
        None | Some(Value::Null) => {
            return Ok(Err(
                "the OpenAI Batch API returned no response for this request".to_string(),
            ))
        }
        Some(Value::Object(r)) => r,
        Some(_) => return Err(BadLine::ResponseNotAnObject),
    };
    let status = response
        .get("status_code")
        .and_then(Value::as_u64)
        .ok_or(BadLine::NoStatus)?;
    let body = response.get("body").unwrap_or(&Value::Null);
    let request = response
        .get("request_id")
        .and_then(Value::as_str)
        .map(|r| format!(" (request {r})"))
        .unwrap_or_default();
    if !(200..300).contains(&status) {
        let detail = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| match body {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            });
        let detail = one_line(&detail, 300);
        return Ok(Err(if detail.is_empty() {
            format!("{status} from the OpenAI Batch API{request}")
        } else {
            format!("{status} from the OpenAI Batch API{request}: {detail}")
        }));
    }
    Ok(chat_reply(body)
        .map_err(|why| format!("reply from the OpenAI Batch API{request} has no text: {why}")))
}

fn one_line(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// Longest result line read: a reply at glossa's reply cap, plus room for
/// the line's envelope.
pub(super) const MAX_RESULT_LINE_BYTES: usize = crate::limits::MAX_REPLY_BYTES + (64 << 10);

/// Call `f(line number, line)` for each non-blank line of `path` (a
/// byte-order mark at its start is dropped, as everywhere). A line longer
/// than [`MAX_RESULT_LINE_BYTES`] is an error naming it, found without
/// reading it whole.
pub(super) fn for_each_line(path: &Path, mut f: impl FnMut(usize, &str)) -> Result<(), BatchError> {
    let file = File::open(path).map_err(|source| BatchError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut reader = BufReader::new(file);
    let mut bytes = Vec::new();
    for number in 1.. {
        bytes.clear();
        let cap = MAX_RESULT_LINE_BYTES as u64 + 1;
        let n = (&mut reader)
            .take(cap)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| BatchError::Read {
                path: path.to_path_buf(),
                line: number,
                source,
            })?;
        if n == 0 {
            break;
        }
        if bytes.len() > MAX_RESULT_LINE_BYTES {
            return Err(BatchError::LongLine {
                path: path.to_path_buf(),
                line: number,
            });
        }
        let line = std::str::from_utf8(&bytes).map_err(|_| BatchError::NotUtf8 {
            path: path.to_path_buf(),
            line: number,
        })?;
        let line = if number == 1 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        if !line.trim().is_empty() {
            f(number, line.trim_end_matches(['\n', '\r']));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::reply::ReplyMeta;

    #[test]
    fn result_lines_success_failure_and_malformed() {
        let ok = r#"{"id":"batch_req_1","custom_id":"exact|1|p1","response":{"status_code":200,"request_id":"r1","body":{"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":"hei"},"finish_reason":"stop"}]}},"error":null}"#;
        let r = parse_result(ok).unwrap();
        assert_eq!(r.key, ("exact".to_string(), 1, "p1".to_string()));
        assert_eq!(
            r.answer,
            Ok(Completion {
                text: "hei".into(),
                meta: ReplyMeta {
                    finish_reason: Some("stop".into()),
                    served_model: Some("gpt-x".into()),
                    ..ReplyMeta::default()
                },
            })
        );
        let status = r#"{"id":"b","custom_id":"exact|1|p1","response":{"status_code":500,"request_id":"r2","body":{"error":{"message":"The server had an error","type":"server_error"}}},"error":null}"#;
        let e = parse_result(status).unwrap().answer.unwrap_err();
        assert_eq!(
            e,
            "500 from the OpenAI Batch API (request r2): The server had an error"
        );
        let error = r#"{"id":"b","custom_id":"exact|1|p1","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#;
        let e = parse_result(error).unwrap().answer.unwrap_err();
        assert!(e.contains("batch_expired: This request could not"), "{e}");
        let empty = r#"{"custom_id":"exact|1|p1","response":{"status_code":200,"body":{"choices":[{"message":{"content":null},"finish_reason":"stop"}]}}}"#;
        let e = parse_result(empty).unwrap().answer.unwrap_err();
        assert!(e.contains("content is null (finish_reason stop)"), "{e}");
        assert_eq!(r.dialect, Dialect::OpenAi);
        assert!(parse_result("not json").is_err());
        assert!(parse_result(r#"{"response":null}"#).is_err());
        assert!(parse_result(r#"{"custom_id":"exact|1|p1","response":{"body":{}}}"#).is_err());
    }

    #[test]
    fn gemini_result_lines_success_failure_and_malformed() {
        let ok = r#"{"key":"exact|1|p1","response":{"candidates":[{"content":{"parts":[{"text":"hei"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"totalTokenCount":110},"modelVersion":"gemini-2.5-flash"}}"#;
        let r = parse_result(ok).unwrap();
        assert_eq!(r.key, ("exact".to_string(), 1, "p1".to_string()));
        assert_eq!(r.dialect, Dialect::Gemini);
        let c = r.answer.unwrap();
        assert_eq!(c.text, "hei");
        assert_eq!(c.meta.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(
            c.meta.usage.map(|u| (u.input_tokens, u.output_tokens)),
            Some((100, 10))
        );
        let error =
            r#"{"key":"exact|1|p1","error":{"code":500,"message":"Internal error","details":[]}}"#;
        let e = parse_result(error).unwrap().answer.unwrap_err();
        assert_eq!(
            e,
            "the Gemini Batch API failed this request: code 500: Internal error"
        );
        let status = r#"{"key":"exact|1|p1","status":{"code":3,"message":"Request contains an invalid argument."}}"#;
        let e = parse_result(status).unwrap().answer.unwrap_err();
        assert!(
            e.contains("code 3: Request contains an invalid argument."),
            "{e}"
        );
        let blocked =
            r#"{"key":"exact|1|p1","response":{"promptFeedback":{"blockReason":"SAFETY"}}}"#;
        let e = parse_result(blocked).unwrap().answer.unwrap_err();
        assert!(e.contains("the prompt was blocked (SAFETY)"), "{e}");
        let e = parse_result(r#"{"key":"exact|1|p1"}"#)
            .unwrap()
            .answer
            .unwrap_err();
        assert!(e.contains("no response"), "{e}");
        assert_eq!(
            parse_result(r#"{"key":7,"response":{}}"#).unwrap_err(),
            BadLine::IdNotAString("key")
        );
        assert!(parse_result(r#"{"key":"exact|1|p1","response":[]}"#).is_err());
        assert!(parse_result(r#"{"key":"request-1","response":{}}"#).is_err());
    }
}
