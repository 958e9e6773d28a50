//! `glossa translate`: the translation, the entries used and whether each
//! target reached the output, then what is worth a second look.

use super::{Align, Format, Prose, Report, Table};
use crate::generate::pipeline::{Generation, Trace};
use std::fmt::Write as _;

impl Report for Trace {
    /// The whole trace, every stage timed.
    fn json(&self) -> serde_json::Result<String> {
        super::pretty_json(self)
    }

    fn tables(&self, _: Format) -> Vec<Table> {
        vec![entries_table(self)]
    }

    fn prose(&self) -> Prose {
        Prose {
            before: translation(self),
            after: notes(self),
        }
    }
}

/// The model's output, then a blank line (nothing when it failed).
fn translation(trace: &Trace) -> String {
    match &trace.generate.output.text {
        Some(text) => format!("{}\n\n", text.trim_end()),
        None => String::new(),
    }
}

/// The entries used and whether each target reached the output.
fn entries_table(trace: &Trace) -> Table {
    let mut t = Table::new(
        Some("Glossary entries used"),
        &[
            ("Entry", Align::Left),
            ("Target", Align::Left),
            ("Phrase", Align::Left),
            ("Match", Align::Left),
            ("In output", Align::Left),
        ],
    )
    .when_empty("No glossary entry matched.");
    for (used, target) in trace.retrieve.output.iter().zip(&trace.review.targets) {
        t.push(vec![
            used.entry.clone(),
            used.target.clone(),
            used.phrase.clone(),
            format!("{} {:.2}", used.kind, used.score),
            match (target.in_output, trace.review.inside_used(target)) {
                (true, _) => "yes".to_string(),
                (false, Some(longer)) => format!("no: inside `{longer}`"),
                (false, None) => "NO".to_string(),
            },
        ]);
    }
    t
}

/// The check, the words worth a look, and how the output was made.
fn notes(trace: &Trace) -> String {
    let mut out = String::from("\n");
    // Targets not in the output: missing, or the choice of a longer term.
    let (mut missing, mut inside) = (Vec::new(), Vec::new());
    for t in trace.review.targets.iter().filter(|t| !t.in_output) {
        match trace.review.inside_used(t) {
            Some(longer) => inside.push((&t.entry, longer)),
            None => missing.push(t.target.as_str()),
        }
    }
    if trace.generate.output.text.is_some() {
        if missing.is_empty() {
            out.push_str("Check: every glossary target is in the output.\n");
        } else {
            let _ = writeln!(out, "Check: not in the output: {}", missing.join(", "));
        }
        for (entry, longer) in inside {
            let _ = writeln!(
                out,
                "  `{entry}` matched only inside `{longer}`, whose target is in the output (not counted as missing)"
            );
        }
    }
    out.push_str(&echo_and_repair(trace));
    if !trace.review.not_exact.is_empty() {
        let _ = writeln!(
            out,
            "Second look (matched by stem or spelling, not as written): {}",
            trace.review.not_exact.join(", ")
        );
    }
    if !trace.review.uncovered.is_empty() {
        let _ = writeln!(
            out,
            "No entry covers: {} (candidates for the glossary)",
            trace.review.uncovered.join(", ")
        );
    }
    out.push_str(&how_made(&trace.generate.output, trace));
    out
}

/// Whether the reply copied the prompt, and what the repair turns fixed.
fn echo_and_repair(trace: &Trace) -> String {
    let mut out = String::new();
    if let Some(echo) = &trace.review.echo {
        let _ = writeln!(
            out,
            "echo: the reply copies the prompt/glossary, not a translation (it copied {}: \"{}\")",
            echo.what(),
            echo.copied()
        );
    }
    let Some(first) = trace.turns.first() else {
        return out;
    };
    let repairs = trace.turns.len() - 1;
    let _ = writeln!(
        out,
        "Repair: {repairs} follow-up turn{} after the first reply, which had these problems:",
        if repairs == 1 { "" } else { "s" }
    );
    for p in &first.problems {
        let _ = writeln!(out, "  - {p}");
    }
    let last = trace.turns.last().expect("turns are not empty");
    match (&last.error, last.problems.is_empty()) {
        (Some(err), _) => {
            let _ = writeln!(
                out,
                "  the repair call failed ({err}); the output above is the last reply"
            );
        }
        (None, true) => out.push_str("  the repaired reply has none of them\n"),
        (None, false) => {
            let _ = writeln!(out, "  still: {}", last.problems.join("; "));
        }
    }
    out
}

/// "(openai gpt-x, served by SNAPSHOT, prompt translate.v1, 2 attempts, cached, …)".
fn how_made(g: &Generation, trace: &Trace) -> String {
    let provider = if g.model.is_empty() {
        g.provider.clone()
    } else {
        format!("{} {}", g.provider, g.model)
    };
    let served = match &g.meta.served_model {
        // The API named another model than the one asked.
        Some(served) if *served != g.model => format!(", served by {served}"),
        _ => String::new(),
    };
    let template = &trace.prompt.output.template;
    let plural = if g.attempts == 1 { "" } else { "s" };
    let cached = if g.cached { ", cached" } else { "" };
    let tokens = g
        .meta
        .usage
        .map(|u| format!(", {} + {} tokens", u.input_tokens, u.output_tokens))
        .unwrap_or_default();
    let think = if g.meta.think {
        ", <think> block stripped"
    } else {
        ""
    };
    format!(
        "({provider}{served}, prompt {}.{}, {} attempt{plural}{cached}{tokens}{think})\n",
        template.name, template.version, g.attempts
    )
}
