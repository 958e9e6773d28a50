//! `glossa translate`: the translation, the entries used and whether each
//! target reached the output, then (on stderr) what was checked and what is
//! worth a second look. The check line and the sense warnings are worded
//! here for the page too.

use super::{Align, Format, Prose, Report, Table};
use crate::generate::ambiguity::{ContextState, Unconfirmed};
use crate::generate::check::Forbidden;
use crate::generate::pipeline::{Generation, Trace};
use crate::generate::provider;
use std::fmt::Write as _;

impl Report for Trace {
    /// The whole trace, every stage timed.
    fn json(&self) -> serde_json::Result<String> {
        super::pretty_json(self)
    }

    fn tables(&self, format: Format) -> Vec<Table> {
        // Without an output no target can have reached it: no table.
        match &self.generate.output.text {
            // CSV is read by programs, whose only input is standard
            // output: the translation rides along on every row (one row
            // with no entry when none matched), where the other formats
            // print it above the table.
            Some(text) if format == Format::Csv => {
                vec![with_translation(entries_table(self), text)]
            }
            Some(_) => vec![entries_table(self)],
            None => Vec::new(),
        }
    }

    fn prose(&self) -> Prose {
        Prose {
            before: translation(self),
            after: String::new(),
            notes: notes(self),
        }
    }
}

/// The model's output, then a blank line; or why there is none.
fn translation(trace: &Trace) -> String {
    let g = &trace.generate.output;
    match &g.text {
        Some(text) => format!("{}\n\n", text.trim_end()),
        None => format!(
            "no output: the call failed ({})\n",
            g.error.as_deref().unwrap_or("no reason given")
        ),
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

/// The entries table with a last column holding the translation.
fn with_translation(mut table: Table, translation: &str) -> Table {
    let text = translation.trim_end().to_string();
    if table.rows.is_empty() {
        table.rows.push(vec![String::new(); table.headers.len()]);
    }
    table.headers.push("Translation".to_string());
    table.align.push(Align::Left);
    for row in &mut table.rows {
        row.push(text.clone());
    }
    table
}

/// Only the translation, for `translate --quiet` (nothing when the call
/// failed: the exit code and the error line say so).
pub fn translation_only(trace: &Trace) -> Option<String> {
    let text = trace.generate.output.text.as_deref()?;
    Some(format!("{}\n", text.trim_end()))
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
        let _ = writeln!(out, "{}", check_line(trace, &missing));
        if let Some(offline) = offline_line(&trace.generate.output) {
            let _ = writeln!(out, "{offline}");
        }
        for (entry, longer) in inside {
            let _ = writeln!(
                out,
                "  `{entry}` matched only inside `{longer}`, whose target is in the output (not counted as missing)"
            );
        }
    }
    for f in &trace.review.forbidden {
        let _ = writeln!(out, "{}", forbidden_message(f));
    }
    for issue in &trace.invariants {
        let _ = writeln!(out, "Invariant not kept: {}", issue.describe());
    }
    for u in &trace.review.unconfirmed {
        let _ = writeln!(out, "Sense not confirmed: {}", unconfirmed_message(u));
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

/// What the check covered and what it did not: it looks for the targets
/// of the entries found, nothing else. `missing`: targets not in the
/// output (a term's choice of a longer one's target aside).
fn check_line(trace: &Trace, missing: &[&str]) -> String {
    const NOT_CHECKED: &str = "not checked: meaning, grammar";
    let n = trace.review.targets.len();
    let targets = if n == 1 { "target" } else { "targets" };
    if n == 0 {
        format!("Check: no glossary entry was found, so no target to look for; {NOT_CHECKED}.")
    } else if missing.is_empty() {
        let verb = if n == 1 { "is" } else { "are" };
        format!("Check: the {n} glossary {targets} found {verb} in the output; {NOT_CHECKED}.")
    } else {
        format!(
            "Check: not in the output: {} ({} of the {n} glossary {targets} found); {NOT_CHECKED}.",
            missing.join(", "),
            missing.len()
        )
    }
}

/// The check line of a trace with an output (see [`check_line`]): what
/// the page shows under the translation (it says on its own that the
/// offline provider translates nothing).
pub(crate) fn check_summary(trace: &Trace) -> Option<String> {
    trace.generate.output.text.as_ref()?;
    let missing: Vec<&str> = trace
        .review
        .targets
        .iter()
        .filter(|t| !t.in_output && trace.review.inside_used(t).is_none())
        .map(|t| t.target.as_str())
        .collect();
    Some(check_line(trace, &missing))
}

/// For the offline provider: its output is the post with glossary words
/// put in, so the check above is true by construction.
fn offline_line(g: &Generation) -> Option<&'static str> {
    provider::is_offline(&g.provider)
        .then_some("Offline: glossary words replaced, nothing was translated.")
}

/// A forbidden term in the output, as `translate` and the page say it:
/// "forbidden term 'Kunde' (entry customer) at 12: the glossary says never
/// to write it".
pub(crate) fn forbidden_message(f: &Forbidden) -> String {
    format!("{f}: the glossary says never to write it")
}

/// An ambiguous entry used where nothing confirms its sense, in a
/// sentence that says what to do.
pub(crate) fn unconfirmed_message(u: &Unconfirmed) -> String {
    let mut out = format!(
        "'{}' was read as `{}` (→ {})",
        u.phrase.to_lowercase(),
        u.entry,
        u.target
    );
    match (&u.sense, &u.listed) {
        (Some(sense), Some(l)) => {
            let _ = write!(
                out,
                ", meant as \"{sense}\"; '{}' can also mean: {}",
                l.word, l.senses
            );
        }
        (Some(sense), None) => {
            let _ = write!(out, ", meant as \"{sense}\"");
        }
        (None, Some(l)) => {
            let _ = write!(out, ", and '{}' can mean: {}", l.word, l.senses);
        }
        (None, None) => {}
    }
    out.push_str(match u.context {
        ContextState::None => {
            ". Nothing in the post confirms the sense: check the translation, and add `context` \
             to the entry (`any`: words that come with this sense; `not`: phrases of the others)."
        }
        ContextState::Contradicted => {
            ". A `context.not` phrase of the entry is right here: check the translation (the \
             `sense` filter, part of the default retriever `glossa`, leaves such a place out)."
        }
        ContextState::Unsupported => {
            ". None of the entry's `context.any` words is in the post: check the translation, \
             and if the sense is right, add a word of this post that shows it to `context.any`."
        }
    });
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
