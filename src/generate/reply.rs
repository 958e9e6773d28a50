//! What a model's reply carries besides its text, and the rules that turn
//! a reply as an API sends it into a translation or a failed call: the
//! finish reason (a reply cut off by the length limit or stopped by a
//! content filter is no translation), `<think>` blocks (a local reasoning
//! model's reasoning is not the answer), the served model and token usage.
//! Live calls and OpenAI Batch API result lines go through the same rules.

use serde::{Deserialize, Serialize};

/// Tokens one call used, as the API reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// OpenAI `usage.prompt_tokens`; Gemini `usageMetadata.promptTokenCount`.
    pub input_tokens: u64,
    /// OpenAI `usage.completion_tokens` (reasoning tokens included);
    /// Gemini `candidatesTokenCount + thoughtsTokenCount` (both billed as
    /// output).
    pub output_tokens: u64,
}

/// A reply as parsed from an API, before [`accept`] judges it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Completion {
    pub text: String,
    #[serde(flatten)]
    pub meta: ReplyMeta,
}

/// What a reply carries besides its text. One type for every place that
/// holds it (a parsed reply, a [`crate::generate::provider::Reply`], the
/// generate stage's output, a line of `calls.jsonl`), flattened into each:
/// every field is optional, absent when unset, and defaults when reading
/// files written before it existed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyMeta {
    /// How the reply ended, as the API spells it (`stop`, `length`, `STOP`,
    /// `MAX_TOKENS`, ...), when the API said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The model snapshot that answered (OpenAI `model`, Gemini
    /// `modelVersion`), which may differ from the one asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_model: Option<String>,
    /// Tokens the call used, when the API said; none for a cached reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A `<think>` block was stripped from the text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub think: bool,
    /// A secret the run knows (an API key) was in the reply and was
    /// replaced by a marker (see [`crate::generate::secrets`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) redacted: bool,
}

/// Why a reply is not a translation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The finish reason says the text is cut off or withheld.
    #[error("{why} (finish reason {reason})")]
    Stopped { reason: String, why: &'static str },
    /// Nothing but reasoning came back.
    #[error("the reply holds only a <think> block, no translation")]
    OnlyThinking,
}

/// Judge a parsed reply: a finish reason other than a normal stop is a
/// failure; a `<think>` block is stripped (and remembered); a reply that was
/// nothing but reasoning is a failure.
pub fn accept(mut completion: Completion) -> Result<Completion, Refusal> {
    if let Some(reason) = &completion.meta.finish_reason {
        if let Some(why) = failed_finish(reason) {
            return Err(Refusal::Stopped {
                reason: reason.clone(),
                why,
            });
        }
    }
    let (text, think) = strip_think(&completion.text);
    if think {
        if text.trim().is_empty() {
            return Err(Refusal::OnlyThinking);
        }
        completion.text = text;
        completion.meta.think = true;
    }
    Ok(completion)
}

/// No text, though the reply ended normally: the parser should say what
/// came back instead. (Empty text with a failing finish reason is judged
/// by that reason in [`accept`].)
pub(crate) fn is_empty_answer(completion: &Completion) -> bool {
    completion.text.trim().is_empty()
        && completion
            .meta
            .finish_reason
            .as_deref()
            .is_none_or(|r| failed_finish(r).is_none())
}

/// What a finish reason means when it is not a normal end. OpenAI sends
/// `stop`, `length`, `content_filter`, `tool_calls`; Gemini `STOP`,
/// `MAX_TOKENS`, `SAFETY`, `RECITATION`, `LANGUAGE`, `BLOCKLIST`,
/// `PROHIBITED_CONTENT`, `SPII`, `OTHER`, ... Only a normal stop (or a
/// server's own word for it: `eos`, `end_turn`) is a complete answer.
fn failed_finish(reason: &str) -> Option<&'static str> {
    let lower = reason.trim().to_ascii_lowercase();
    match lower.as_str() {
        "" | "stop" | "eos" | "end_turn" | "stop_sequence" | "finish_reason_unspecified" => None,
        "length" | "max_tokens" => Some("the reply was cut off by the token limit"),
        "content_filter" | "safety" | "recitation" | "blocklist" | "prohibited_content"
        | "spii" | "image_safety" => Some("the reply was stopped by a content filter"),
        _ => Some("the reply did not end normally"),
    }
}

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// The text without its `<think>…</think>` blocks, and whether there were
/// any. An unclosed `<think>` at the start (a reply cut off mid-reasoning)
/// takes the whole text; one further in is left alone. A reply whose
/// reasoning ends in `</think>` without an opening tag (the tag was in the
/// chat template) loses everything up to it.
pub(crate) fn strip_think(text: &str) -> (String, bool) {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut found = false;
    if let Some(end) = leading_close(text) {
        rest = &text[end..];
        found = true;
    }
    while let Some(start) = rest.find(OPEN) {
        match rest[start..].find(CLOSE) {
            Some(len) => {
                out.push_str(&rest[..start]);
                rest = &rest[start + len + CLOSE.len()..];
                found = true;
            }
            None if out.trim().is_empty() && rest[..start].trim().is_empty() => {
                rest = "";
                found = true;
            }
            None => break,
        }
    }
    if !found {
        return (text.to_string(), false);
    }
    out.push_str(rest);
    (out.trim().to_string(), true)
}

/// Where the text after a leading `</think>` starts, when no tag precedes
/// it (so a reply that merely mentions the tag is left alone).
fn leading_close(text: &str) -> Option<usize> {
    let at = text.find(CLOSE)?;
    (!text[..at].contains('<')).then_some(at + CLOSE.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_blocks_are_stripped_closed_or_not() {
        assert_eq!(
            strip_think("<think>frosk mavi? yes</think>\n\nPrøv kaffe."),
            ("Prøv kaffe.".to_string(), true)
        );
        assert_eq!(
            strip_think("<think>the target is frosk mavi and"),
            (String::new(), true)
        );
        assert_eq!(
            strip_think("reasoning about mavi</think>Prøv kaffe."),
            ("Prøv kaffe.".to_string(), true)
        );
        assert_eq!(
            strip_think("Plain reply."),
            ("Plain reply.".to_string(), false)
        );
        assert_eq!(
            strip_think("a <think>x</think> b"),
            ("a  b".to_string(), true)
        );
        // Only a leading unclosed block is reasoning.
        assert_eq!(
            strip_think("Use the <think> tag."),
            ("Use the <think> tag.".to_string(), false)
        );
    }

    #[test]
    fn finish_reasons_that_are_failures() {
        let with = |reason: &str| Completion {
            text: "x".into(),
            meta: ReplyMeta {
                finish_reason: Some(reason.into()),
                ..ReplyMeta::default()
            },
        };
        for ok in ["stop", "STOP", "eos"] {
            assert!(accept(with(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "length",
            "MAX_TOKENS",
            "content_filter",
            "SAFETY",
            "RECITATION",
            "PROHIBITED_CONTENT",
            "OTHER",
        ] {
            assert!(accept(with(bad)).is_err(), "{bad}");
        }
        let only = Completion {
            text: "<think>hmm</think>".into(),
            ..Completion::default()
        };
        assert_eq!(accept(only), Err(Refusal::OnlyThinking));
    }
}
