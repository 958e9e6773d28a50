//! The switch and the root of glossa's OpenTelemetry spans (docs/telemetry.md).
//! Only the OpenTelemetry API is used: until the binary installs an
//! exporter (src/telemetry.rs) and calls [`enable`], nothing is built.
//! Posts' spans are made where a post finishes: `generate::spans` for a
//! translated post, `eval` for a scored one.

use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _};
use opentelemetry::{global, Array, Context, KeyValue, StringValue, Value};
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
pub fn invocation(name: &'static str, mut attributes: Vec<KeyValue>) -> Context {
    let tracer = global::tracer(SCOPE);
    attributes.push(KeyValue::new("openinference.span.kind", "CHAIN"));
    let span = tracer
        .span_builder(name)
        .with_kind(SpanKind::Internal)
        .with_attributes(attributes)
        .start(&tracer);
    Context::current_with_span(span)
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
