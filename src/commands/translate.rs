//! `glossa translate`: one post through the pipeline; `report::translate`
//! shows what the user should know about it.

use crate::cli::TranslateArgs;
use glossa::error::read_text;
use glossa::generate::pipeline::Pipeline;
use glossa::retrieve::{self, Params};
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
    let pipeline = pipeline(&args, &[&text])?;
    let started = std::time::SystemTime::now();
    // Ctrl-C abandons the call but not the trace: the post's span is
    // recorded, and the exporter flushed on the way out (commands::run).
    let finished = super::runtime()?.block_on(async {
        tokio::select! {
            trace = pipeline.run(&text, None, 1) => Some(trace),
            _ = tokio::signal::ctrl_c() => None,
        }
    });
    let now = std::time::SystemTime::now();
    let Some(trace) = finished else {
        pipeline.record_interrupted(&opentelemetry::Context::current(), "1", started, now);
        eprintln!(
            "{}: interrupted (Ctrl-C) before the translation came back",
            super::style::warning()
        );
        return Ok(glossa::exit::Exit::Interrupted.into());
    };
    pipeline.record_spans(&opentelemetry::Context::current(), &trace, "1", None, now);

    if args.quiet {
        if let Some(text) = glossa::report::translate::translation_only(&trace) {
            super::emit(&text)?;
        }
    } else {
        super::emit_report(&trace, args.format)?;
    }
    // With --quiet only a failure is said, in one line each.
    let said_in_notes = !args.quiet && args.format != glossa::report::Format::Json;
    let review = &trace.review;
    let flagged = review.missing().next().is_some()
        || !review.forbidden.is_empty()
        || review.echo.is_some()
        || !trace.invariants.is_empty();
    if args.quiet && flagged && trace.generate.output.error.is_none() {
        eprintln!(
            "{}: the check found a problem in this translation; run without --quiet to see it",
            super::style::warning()
        );
    }
    if args.invariants == glossa::invariants::Mode::Fail && !trace.invariants.is_empty() {
        // The table and markdown formats listed them in their notes.
        if !said_in_notes {
            for issue in &trace.invariants {
                eprintln!(
                    "{}: invariant not kept: {}",
                    super::style::error(),
                    issue.describe()
                );
            }
        }
        return Ok(glossa::exit::Exit::Failed.into());
    }
    match &trace.generate.output.error {
        Some(err) => {
            // The other formats said "no output: the call failed (…)".
            if !said_in_notes {
                eprintln!("{}: {err}", super::style::error());
            }
            Ok(glossa::exit::Exit::Failed.into())
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The pipeline of `glossa translate`: one post or a file of them, `posts`
/// (which entries a compiled glossary loads).
pub(super) fn pipeline(args: &TranslateArgs, posts: &[&str]) -> anyhow::Result<Pipeline> {
    let params = Params::from(&args.params);
    let glossary = Arc::new(glossary_of(args, &params, posts)?);
    let retriever = retrieve::build(&args.retriever, &glossary, &params)?;
    super::note_missing_data([args.retriever.as_str()]);
    let client = Arc::new(super::build_client(&(&args.provider).into())?);
    Ok(Pipeline {
        template: super::translate_template(&(&args.provider).into())?,
        simplify: args.provider.simplify,
        repair: args.repair,
        invariants: args.invariants,
        ..Pipeline::new(
            glossary,
            &args.retriever,
            Arc::from(retriever),
            client,
            false,
        )?
    })
}

/// The glossary for `posts`: from the compiled glossary where retrieval
/// sees the post's own words (their sentences, `--simplify rules` or
/// `none`), else the whole file.
fn glossary_of(
    args: &TranslateArgs,
    params: &Params,
    posts: &[&str],
) -> anyhow::Result<glossa::glossary::Glossary> {
    use glossa::generate::simplify::{sentences, Simplify};
    let mut compiled = args.compiled.clone();
    if args.provider.simplify == Simplify::Llm {
        // A model rewrites the post before retrieval: its words are not known here.
        compiled.mode = crate::cli::CompiledMode::Never;
        compiled.index = None;
    }
    let split: Vec<String> = posts.iter().flat_map(|p| sentences(p)).collect();
    let texts: Vec<&str> = posts
        .iter()
        .copied()
        .chain(split.iter().map(String::as_str))
        .collect();
    super::compiled::glossary_for(
        &args.glossary,
        &compiled,
        &args.provider.cache_dir,
        &args.retriever,
        params,
        &texts,
        posts.len(),
    )
}
