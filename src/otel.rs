//! The switch and the root of glossa's OpenTelemetry spans (docs/telemetry.md).
//! Only the OpenTelemetry API is used: until the binary installs an
//! exporter (src/telemetry.rs) and calls [`enable`], nothing is built.
//! Posts' spans are made where a post finishes: `generate::spans` for a
//! translated post, `eval` for a scored one.

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceContextExt, TraceFlags, TraceId, TraceState,
    Tracer as _,
};
use opentelemetry::{global, Array, Context, KeyValue, StringValue, Value};
use std::str::FromStr as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The instrumentation scope of every span glossa makes.
pub(crate) const SCOPE: &str = "glossa";

static ENABLED: AtomicBool = AtomicBool::new(false);
static INCLUDE_TEXT: AtomicBool = AtomicBool::new(false);
static ROOT: Mutex<Option<Context>> = Mutex::new(None);

/// Build spans from now on (an exporter is the global tracer provider);
/// with `include_text`, put post, prompt and reply texts on them
/// (`--otlp-text`).
pub(crate) fn enable(include_text: bool) {
    INCLUDE_TEXT.store(include_text, Ordering::Relaxed);
    ENABLED.store(true, Ordering::Relaxed);
}

/// Whether spans are built at all.
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Whether texts go on spans.
pub(crate) fn include_text() -> bool {
    INCLUDE_TEXT.load(Ordering::Relaxed)
}

/// A root span (one invocation, or one request of `glossa serve`), as a
/// context to make posts' spans under; end it with [`end_invocation`].
/// Under `parent` (a caller's span, [`parent`]) it joins the caller's
/// trace; without, it starts a trace of its own.
pub fn invocation(
    name: &'static str,
    mut attributes: Vec<KeyValue>,
    parent: Option<&Context>,
) -> Context {
    let tracer = global::tracer(SCOPE);
    attributes.push(KeyValue::new("openinference.span.kind", "CHAIN"));
    let builder = tracer
        .span_builder(name)
        .with_kind(SpanKind::Internal)
        .with_attributes(attributes);
    let span = match parent {
        Some(parent) => builder.start_with_context(&tracer, parent),
        None => builder.start(&tracer),
    };
    Context::current_with_span(span)
}

/// A `TRACEPARENT` that is not a W3C traceparent (docs/telemetry.md).
#[derive(Debug, thiserror::Error)]
#[error("TRACEPARENT {shown} is not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>, ids not all zero); ignored, this invocation starts a trace of its own")]
pub struct BadTraceparent {
    /// The value quoted when it is short and plain, else only its length:
    /// a value longer than a traceparent may be something else entirely.
    shown: String,
}

/// The caller's span from a W3C `traceparent` (and its `tracestate`, dropped
/// when malformed), as a parent for [`invocation`]. A parent not sampled
/// (flags `00`) makes the invocation's spans unsampled too: none are sent.
pub fn parent(traceparent: &str, tracestate: Option<&str>) -> Result<Context, BadTraceparent> {
    let (trace_id, span_id, flags) = parse_traceparent(traceparent.trim()).ok_or_else(|| {
        let plain = traceparent.len() <= 64
            && traceparent
                .chars()
                .all(|c| c.is_ascii_graphic() || c == ' ');
        BadTraceparent {
            shown: if plain {
                format!("{traceparent:?}")
            } else {
                format!("(a value of {} bytes)", traceparent.len())
            },
        }
    })?;
    let state = tracestate
        .and_then(|s| TraceState::from_str(s).ok())
        .unwrap_or_default();
    let span_context = SpanContext::new(trace_id, span_id, flags, true, state);
    Ok(Context::new().with_remote_span_context(span_context))
}

/// `version-traceid-parentid-flags` as the W3C Trace Context spec reads it
/// (by hand: opentelemetry_sdk's `TraceContextPropagator` lets short ids
/// and a leading `+` through):
/// lowercase hex of exact lengths, version `ff` invalid, version `00` with
/// exactly four fields (a later version may add fields after a `-`), ids
/// not all zero.
fn parse_traceparent(value: &str) -> Option<(TraceId, SpanId, TraceFlags)> {
    fn hex(field: &str, len: usize) -> Option<&str> {
        (field.len() == len
            && field
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
        .then_some(field)
    }
    let head = value.get(..55)?;
    let rest = &value[55..];
    let mut fields = head.split('-');
    let version = u8::from_str_radix(hex(fields.next()?, 2)?, 16).ok()?;
    let trace_id = TraceId::from_hex(hex(fields.next()?, 32)?).ok()?;
    let span_id = SpanId::from_hex(hex(fields.next()?, 16)?).ok()?;
    let flags = u8::from_str_radix(hex(fields.next()?, 2)?, 16).ok()?;
    let valid_rest = match version {
        0xff => false,
        0 => rest.is_empty(),
        _ => rest.is_empty() || rest.starts_with('-'),
    };
    if !valid_rest || trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
        return None;
    }
    // Flags other than "sampled" are not known to this version: dropped.
    Some((
        trace_id,
        span_id,
        TraceFlags::new(flags) & TraceFlags::SAMPLED,
    ))
}

/// The root of this process's invocation, for posts finished on threads
/// that do not carry it (eval's scoring pool); set by [`set_root`].
pub(crate) fn root() -> Context {
    ROOT.lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .unwrap_or_else(Context::current)
}

/// Make `cx` the process's root ([`root`]).
pub fn set_root(cx: &Context) {
    *ROOT.lock().unwrap_or_else(|e| e.into_inner()) = Some(cx.clone());
}

/// End the root span of [`invocation`], marking it failed with `error`.
pub fn end_invocation(cx: &Context, error: Option<&str>) {
    let span = cx.span();
    if let Some(error) = error {
        span.set_status(Status::error(error.to_string()));
    }
    span.end();
}

/// A list of strings as one attribute value.
pub(crate) fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> Value {
    let items: Vec<StringValue> = items.into_iter().map(|s| s.to_string().into()).collect();
    Value::Array(Array::String(items))
}

/// A count as an attribute value.
pub(crate) fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
    const SPAN: &str = "00f067aa0ba902b7";

    fn span_context(traceparent: &str, tracestate: Option<&str>) -> Option<SpanContext> {
        parent(traceparent, tracestate)
            .ok()
            .map(|cx| cx.span().span_context().clone())
    }

    #[test]
    fn a_traceparent_gives_the_callers_trace_and_span() {
        let sc = span_context(&format!("00-{TRACE}-{SPAN}-01"), Some("vendor=x1")).unwrap();
        assert_eq!(sc.trace_id().to_string(), TRACE);
        assert_eq!(sc.span_id().to_string(), SPAN);
        assert!(sc.is_sampled() && sc.is_remote());
        assert_eq!(sc.trace_state().header(), "vendor=x1");
        // Not sampled; unknown flags dropped; spaces around; a later version
        // with a field more; a malformed tracestate is dropped, not fatal.
        let sc = span_context(&format!(" 00-{TRACE}-{SPAN}-00\n"), Some("no-equals-sign")).unwrap();
        assert!(!sc.is_sampled());
        assert_eq!(sc.trace_state().header(), "");
        assert!(span_context(&format!("00-{TRACE}-{SPAN}-09"), None)
            .unwrap()
            .is_sampled());
        assert!(span_context(&format!("01-{TRACE}-{SPAN}-01-more"), None).is_some());
    }

    #[test]
    fn each_malformed_traceparent_is_refused() {
        let zeros32 = "0".repeat(32);
        let zeros16 = "0".repeat(16);
        let bad = [
            String::new(),
            "garbage".into(),
            format!("00-{TRACE}-{SPAN}"),                     // no flags
            format!("00-{TRACE}-{SPAN}-"),                    // empty flags
            format!("00-{TRACE}-{SPAN}-011"),                 // long flags
            format!("00-{TRACE}-{SPAN}-01-more"),             // version 00 with more
            format!("01-{TRACE}-{SPAN}-01more"),              // no dash before more
            format!("ff-{TRACE}-{SPAN}-01"),                  // version ff
            format!("0-{TRACE}-{SPAN}-01"),                   // short version
            format!("0g-{TRACE}-{SPAN}-01"),                  // non-hex version
            format!("00-{}-{SPAN}-01", &TRACE[1..]),          // short trace id
            format!("00-{TRACE}a-{SPAN}-01"),                 // long trace id
            format!("00-{}-{SPAN}-01", TRACE.to_uppercase()), // upper case
            format!("00-+{}-{SPAN}-01", &TRACE[1..]),         // sign in trace id
            format!("00-{TRACE}-{}-01", &SPAN[1..]),          // short span id
            format!("00-{TRACE}-{}-01", SPAN.to_uppercase()), // upper case
            format!("00-{TRACE}-{SPAN}-0x"),                  // non-hex flags
            format!("00-{zeros32}-{SPAN}-01"),                // zero trace id
            format!("00-{TRACE}-{zeros16}-01"),               // zero span id
            format!("00_{TRACE}_{SPAN}_01"),                  // wrong separators
            format!("00-{TRACE}-{}é-01", &SPAN[2..]),         // not ASCII
        ];
        for value in bad {
            assert!(parent(&value, None).is_err(), "accepted {value:?}");
        }
    }

    #[test]
    fn a_refused_value_is_quoted_only_when_short_and_plain() {
        let short = parent("00-abc-def-01", None).unwrap_err().to_string();
        assert!(short.contains("\"00-abc-def-01\""), "{short}");
        let secret = format!("Bearer sk-{}", "x".repeat(80));
        let long = parent(&secret, None).unwrap_err().to_string();
        assert!(!long.contains("sk-x"), "{long}");
        assert!(long.contains("a value of 90 bytes"), "{long}");
        let control = parent("00\u{1b}[2J", None).unwrap_err().to_string();
        assert!(!control.contains('\u{1b}'), "{control}");
    }
}
