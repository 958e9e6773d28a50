//! `glossa translate`: one post through the pipeline, with what the user
//! should know about it — entries used, words no entry covered, matches
//! worth a second look, and whether each target reached the output.

use crate::cli::TranslateArgs;
use crate::error::read_text;
use crate::generate::pipeline::{Pipeline, Trace};
use crate::generate::prompt::Template;
use crate::report::{exporter, Align, Format, Table};
use crate::retrieve::{self, Params};
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: TranslateArgs) -> anyhow::Result<ExitCode> {
    let text = match &args.file {
        Some(path) => {
            let text = read_text(path)?;
            super::check_text_size(text.len())
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            text
        }
        None => super::text_or_stdin(args.text.clone())?,
    };
    if text.trim().is_empty() {
        anyhow::bail!(
            "the post is empty: give the text as an argument, with --file, or on standard input"
        );
    }
    let glossary = Arc::new(super::load_glossary(&args.glossary)?);
    let params = Params::from(&args.params);
    let retriever = retrieve::build(&args.retriever, &glossary, &params)?;
    if retriever.needs_labels() {
        anyhow::bail!(
            "`{}` needs labels; use it with `glossa run`",
            args.retriever
        );
    }
    let pipeline = Pipeline {
        glossary: Arc::clone(&glossary),
        retriever_name: args.retriever.clone(),
        retriever: Arc::from(retriever),
        template: super::translate_template(&(&args.provider).into())?,
        simplify: args.provider.simplify,
        simplify_template: Template::builtin("simplify.v1"),
        client: Arc::new(super::build_client(&(&args.provider).into())?),
        check: Default::default(),
    };
    let trace = super::runtime()?.block_on(pipeline.run(&text, None, 1));

    match args.format {
        Format::Json => super::emit(&(serde_json::to_string_pretty(&trace)? + "\n"))?,
        // CSV is read by programs: the table alone on stdout, prose on stderr.
        Format::Csv => {
            eprint!("{}", translation(&trace));
            super::emit(&entries_table(&trace, Format::Csv))?;
            eprint!("{}", notes(&trace));
        }
        format => super::emit(&format!(
            "{}{}{}",
            translation(&trace),
            entries_table(&trace, format),
            notes(&trace)
        ))?,
    }
    match &trace.generate.output.error {
        Some(err) => {
            eprintln!("{}: {err}", super::style::error());
            Ok(crate::exit::Exit::Failed.into())
        }
        None => Ok(ExitCode::SUCCESS),
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
fn entries_table(trace: &Trace, format: Format) -> String {
    let mut t = Table::new(
        Some("Glossary entries used"),
        &[
            ("Entry", Align::Left),
            ("Target", Align::Left),
            ("Phrase", Align::Left),
            ("Match", Align::Left),
            ("In output", Align::Left),
        ],
    );
    for (used, target) in trace.retrieve.output.iter().zip(&trace.review.targets) {
        t.push(vec![
            used.entry.clone(),
            used.target.clone(),
            used.phrase.clone(),
            format!("{} {:.2}", used.kind, used.score),
            if target.in_output { "yes" } else { "NO" }.to_string(),
        ]);
    }
    match exporter(format) {
        Some(_) if t.rows.is_empty() && format != Format::Csv => {
            "No glossary entry matched.\n".to_string()
        }
        Some(e) => e.render(&[t]),
        None => String::new(),
    }
}

/// The check, the words worth a look, and how the output was made.
fn notes(trace: &Trace) -> String {
    let mut out = String::new();
    let missing: Vec<&str> = trace
        .review
        .targets
        .iter()
        .filter(|t| !t.in_output)
        .map(|t| t.target.as_str())
        .collect();
    let _ = writeln!(out);
    if trace.generate.output.text.is_some() {
        if missing.is_empty() {
            let _ = writeln!(out, "Check: every glossary target is in the output.");
        } else {
            let _ = writeln!(out, "Check: not in the output: {}", missing.join(", "));
        }
    }
    if !trace.review.not_exact.is_empty() {
        let _ = writeln!(
            out,
            "Second look (matched by spelling, not exactly): {}",
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
    let g = &trace.generate.output;
    let provider = if g.model.is_empty() {
        g.provider.clone()
    } else {
        format!("{} {}", g.provider, g.model)
    };
    let _ = writeln!(
        out,
        "({provider}{}, prompt {}.{}, {} attempt{}{}{}{})",
        served(g),
        trace.prompt.output.template.name,
        trace.prompt.output.template.version,
        g.attempts,
        if g.attempts == 1 { "" } else { "s" },
        if g.cached { ", cached" } else { "" },
        g.usage
            .map(|u| format!(", {} + {} tokens", u.input_tokens, u.output_tokens))
            .unwrap_or_default(),
        if g.think {
            ", <think> block stripped"
        } else {
            ""
        }
    );
    out
}

/// ", served by SNAPSHOT" when the API named another model than the one
/// asked.
fn served(g: &crate::generate::pipeline::Generation) -> String {
    match &g.served_model {
        Some(served) if *served != g.model => format!(", served by {served}"),
        _ => String::new(),
    }
}
