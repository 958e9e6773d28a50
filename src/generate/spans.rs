//! OpenTelemetry spans of a finished post: one `post` span with a child per
//! stage (simplify, retrieve, prompt, generate, check), built from its
//! [`Trace`] when it is recorded. The stages ran one after the other, so
//! each span's start and end come from the post's end and the stages'
//! durations.
//!
//! Nothing is built until an exporter is installed (`--otlp`,
//! `OTEL_EXPORTER_OTLP_ENDPOINT`; src/otel.rs, src/telemetry.rs). Attribute names follow
//! the GenAI semantic conventions (`gen_ai.*`) and OpenInference's span
//! kinds, which Arize Phoenix shows; glossa's own are `glossa.*`
//! (docs/telemetry.md). Post text, prompt and reply are attached only when
//! `--otlp-text` says so: posts may be private.

use super::pipeline::{Pipeline, Stage, Trace};
use crate::dataset::Label;
use crate::otel::{count, include_text, strings, SCOPE};
use opentelemetry::trace::{Span as _, Status, TraceContextExt, Tracer as _};
use opentelemetry::{global, Context, KeyValue};
use std::time::{Duration, SystemTime};

/// Stage spans back to back from `at`.
struct Timeline {
    at: SystemTime,
}

impl Timeline {
    fn span(&mut self, parent: &Context, name: &'static str, ms: f64, attributes: Vec<KeyValue>) {
        let tracer = global::tracer(SCOPE);
        let start = self.at;
        let end = start + Duration::from_secs_f64(ms.max(0.0) / 1000.0);
        self.at = end;
        let mut span = tracer
            .span_builder(name)
            .with_start_time(start)
            .with_attributes(attributes)
            .start_with_context(&tracer, parent);
        span.end_with_timestamp(end);
    }
}

impl Pipeline {
    /// Record `trace` as spans under `parent` (an [`crate::otel::invocation`]): a
    /// `post` span (`post` names the post, `label` its labelled entries)
    /// ending at `ended`, and one span per stage. Nothing without an
    /// exporter ([`crate::otel::enable`]).
    pub fn record_spans(
        &self,
        parent: &Context,
        trace: &Trace,
        post: &str,
        label: Option<&Label>,
        ended: SystemTime,
    ) {
        if !crate::otel::enabled() {
            return;
        }
        let text = include_text();
        let stages_ms = trace.simplify.ms
            + trace.phrases.ms
            + trace.retrieve.ms
            + trace.prompt.ms
            + trace.generate.ms;
        let start = ended
            .checked_sub(Duration::from_secs_f64(stages_ms.max(0.0) / 1000.0))
            .unwrap_or(ended);
        let tracer = global::tracer(SCOPE);
        let ok = trace
            .labelled
            .as_ref()
            .map_or_else(|| trace.review.missing().next().is_none(), |l| l.check.ok);
        let mut attributes = vec![
            KeyValue::new("openinference.span.kind", "CHAIN"),
            KeyValue::new("glossa.post.id", post.to_string()),
            KeyValue::new("glossa.retriever", trace.retriever.clone()),
            KeyValue::new("glossa.repeat", i64::from(trace.repeat)),
            KeyValue::new("glossa.check.ok", ok),
        ];
        if text {
            attributes.push(KeyValue::new("input.value", trace.input.clone()));
            if let Some(output) = &trace.generate.output.text {
                attributes.push(KeyValue::new("output.value", output.clone()));
            }
        }
        let mut span = tracer
            .span_builder("post")
            .with_start_time(start)
            .with_attributes(attributes)
            .start_with_context(&tracer, parent);
        if let Some(error) = trace
            .retrieve_error
            .as_ref()
            .or(trace.generate.output.error.as_ref())
        {
            span.set_status(Status::error(error.clone()));
        }
        let cx = parent.with_span(span);
        let mut timeline = Timeline { at: start };
        timeline.span(
            &cx,
            "simplify",
            trace.simplify.ms,
            vec![KeyValue::new(
                "glossa.sentences",
                count(trace.simplify.output.len()),
            )],
        );
        timeline.span(
            &cx,
            "retrieve",
            trace.phrases.ms + trace.retrieve.ms,
            self.retrieve_attributes(trace, label),
        );
        timeline.span(
            &cx,
            "prompt",
            trace.prompt.ms,
            prompt_attributes(trace, text),
        );
        timeline.span(
            &cx,
            "generate",
            trace.generate.ms,
            generate_attributes(&trace.generate, text),
        );
        // The check is not timed apart: a span of no length after generate.
        timeline.span(&cx, "check", 0.0, check_attributes(trace, ok));
        cx.span().end_with_timestamp(ended);
    }

    /// Record a post that Ctrl-C stopped before it finished (its stages'
    /// results are not known): a `post` span under `parent` from `started`
    /// to `ended` with an error status, so that the viewer shows where the
    /// time went. Nothing without an exporter.
    pub fn record_interrupted(
        &self,
        parent: &Context,
        post: &str,
        started: SystemTime,
        ended: SystemTime,
    ) {
        if !crate::otel::enabled() {
            return;
        }
        let tracer = global::tracer(SCOPE);
        let mut span = tracer
            .span_builder("post")
            .with_start_time(started)
            .with_attributes(vec![
                KeyValue::new("openinference.span.kind", "CHAIN"),
                KeyValue::new("glossa.post.id", post.to_string()),
                KeyValue::new("glossa.retriever", self.retriever_name.clone()),
                KeyValue::new("glossa.interrupted", true),
            ])
            .start_with_context(&tracer, parent);
        span.set_status(Status::error("interrupted (Ctrl-C) before it finished"));
        span.end_with_timestamp(ended);
    }

    fn retrieve_attributes(&self, trace: &Trace, label: Option<&Label>) -> Vec<KeyValue> {
        let used = &trace.retrieve.output;
        let review = &trace.review;
        let mut kinds: Vec<String> = used.iter().map(|u| u.kind.to_string()).collect();
        kinds.sort();
        kinds.dedup();
        let mut attributes = vec![
            KeyValue::new("openinference.span.kind", "RETRIEVER"),
            KeyValue::new("glossa.retriever", trace.retriever.clone()),
            KeyValue::new("glossa.phrases", count(trace.phrases.output.len())),
            KeyValue::new("glossa.entries", count(used.len())),
            KeyValue::new(
                "glossa.entry_ids",
                strings(used.iter().map(|u| u.entry.as_str())),
            ),
            KeyValue::new("glossa.kinds", strings(kinds.iter().map(String::as_str))),
            KeyValue::new("glossa.uncovered_words", count(review.uncovered.len())),
            KeyValue::new("glossa.approximate", count(review.not_exact.len())),
            KeyValue::new("glossa.ambiguous", count(review.unconfirmed.len())),
        ];
        if let Some(error) = &trace.retrieve_error {
            attributes.push(KeyValue::new("glossa.error", error.clone()));
        }
        if let Some(label) = label {
            let entries = &self.glossary.entries;
            let retrieved: std::collections::HashSet<&str> =
                used.iter().map(|u| u.entry.as_str()).collect();
            let needed: Vec<&str> = label
                .needed
                .iter()
                .map(|&i| entries[i].id.as_str())
                .collect();
            let found = needed.iter().filter(|id| retrieved.contains(*id)).count();
            let wrong_sense = label
                .wrong_sense
                .iter()
                .filter(|&&i| retrieved.contains(entries[i].id.as_str()))
                .count();
            attributes.extend([
                KeyValue::new("glossa.needed", count(needed.len())),
                KeyValue::new("glossa.found", count(found)),
                KeyValue::new("glossa.extra", count(used.len().saturating_sub(found))),
                KeyValue::new("glossa.wrong_sense", count(wrong_sense)),
            ]);
        }
        attributes
    }
}

fn prompt_attributes(trace: &Trace, text: bool) -> Vec<KeyValue> {
    let id = &trace.prompt.output.template;
    let mut attributes = vec![
        KeyValue::new("openinference.span.kind", "CHAIN"),
        KeyValue::new("glossa.prompt.template", id.name.clone()),
        KeyValue::new("glossa.prompt.version", id.version.clone()),
    ];
    if text {
        attributes.push(KeyValue::new(
            "input.value",
            trace.prompt.output.text.clone(),
        ));
    }
    attributes
}

/// `gen_ai.provider.name` for glossa's providers (the conventions' names
/// where they have one).
fn gen_ai_system(provider: &str) -> String {
    match provider {
        "gemini" => "gcp.gemini".to_string(),
        other => other.to_string(),
    }
}

fn generate_attributes(generate: &Stage<super::pipeline::Generation>, text: bool) -> Vec<KeyValue> {
    let g = &generate.output;
    let system = gen_ai_system(&g.provider);
    let mut attributes = vec![
        KeyValue::new("openinference.span.kind", "LLM"),
        KeyValue::new("gen_ai.operation.name", "chat"),
        KeyValue::new("gen_ai.system", system.clone()),
        KeyValue::new("gen_ai.provider.name", system),
        KeyValue::new("gen_ai.request.model", g.model.clone()),
        KeyValue::new("llm.model_name", g.model.clone()),
        KeyValue::new("glossa.cache_hit", g.cached),
        KeyValue::new("glossa.attempts", i64::from(g.attempts)),
    ];
    if let Some(served) = &g.meta.served_model {
        attributes.push(KeyValue::new("gen_ai.response.model", served.clone()));
    }
    if let Some(usage) = &g.meta.usage {
        let tokens = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        attributes.extend([
            KeyValue::new("gen_ai.usage.input_tokens", tokens(usage.input_tokens)),
            KeyValue::new("gen_ai.usage.output_tokens", tokens(usage.output_tokens)),
            KeyValue::new("llm.token_count.prompt", tokens(usage.input_tokens)),
            KeyValue::new("llm.token_count.completion", tokens(usage.output_tokens)),
        ]);
    }
    if let Some(reason) = &g.meta.finish_reason {
        attributes.push(KeyValue::new(
            "gen_ai.response.finish_reasons",
            strings([reason.as_str()]),
        ));
    }
    if let Some(error) = &g.error {
        attributes.push(KeyValue::new("error.type", "glossa.provider_error"));
        attributes.push(KeyValue::new("glossa.error", error.clone()));
    }
    if let (true, Some(output)) = (text, &g.text) {
        attributes.push(KeyValue::new("output.value", output.clone()));
    }
    attributes
}

fn check_attributes(trace: &Trace, ok: bool) -> Vec<KeyValue> {
    let review = &trace.review;
    let (missing, leaked): (Vec<&str>, Vec<&str>) = match &trace.labelled {
        Some(l) => (
            l.check.missing.iter().map(String::as_str).collect(),
            l.check.leaked.iter().map(String::as_str).collect(),
        ),
        None => (
            review.missing().map(|t| t.entry.as_str()).collect(),
            Vec::new(),
        ),
    };
    let mut attributes = vec![
        KeyValue::new("openinference.span.kind", "EVALUATOR"),
        KeyValue::new("glossa.check.ok", ok),
        KeyValue::new("glossa.check.missing", strings(missing)),
        KeyValue::new("glossa.check.leaked", strings(leaked)),
        KeyValue::new("glossa.check.forbidden", count(review.forbidden.len())),
        KeyValue::new("glossa.check.invariants", count(trace.invariants.len())),
        KeyValue::new("glossa.check.echo", review.echo.is_some()),
    ];
    if let Some(l) = &trace.labelled {
        if let Ok(serde_json::Value::String(group)) = serde_json::to_value(l.group) {
            attributes.push(KeyValue::new("glossa.check.group", group));
        }
    }
    attributes
}
