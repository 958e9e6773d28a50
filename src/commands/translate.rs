//! `glossa translate`: one post through the pipeline; `report::translate`
//! shows what the user should know about it.

use crate::cli::TranslateArgs;
use crate::error::read_text;
use crate::generate::pipeline::Pipeline;
use crate::generate::prompt::Template;
use crate::retrieve::{self, Params};
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
    let pipeline = pipeline(&args)?;
    let trace = super::runtime()?.block_on(pipeline.run(&text, None, 1));

    super::emit_report(&trace, args.format)?;
    if args.invariants == crate::invariants::Mode::Fail && !trace.invariants.is_empty() {
        // The table and markdown formats listed them in their notes.
        if args.format == crate::report::Format::Json {
            for issue in &trace.invariants {
                eprintln!(
                    "{}: invariant not kept: {}",
                    super::style::error(),
                    issue.describe()
                );
            }
        }
        return Ok(crate::exit::Exit::Failed.into());
    }
    match &trace.generate.output.error {
        Some(err) => {
            // The other formats said "no output: the call failed (…)".
            if args.format == crate::report::Format::Json {
                eprintln!("{}: {err}", super::style::error());
            }
            Ok(crate::exit::Exit::Failed.into())
        }
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The pipeline of `glossa translate`: one post or a file of them.
pub(super) fn pipeline(args: &TranslateArgs) -> anyhow::Result<Pipeline> {
    let glossary = Arc::new(super::load_glossary(&args.glossary)?);
    let params = Params::from(&args.params);
    let retriever = retrieve::build(&args.retriever, &glossary, &params)?;
    super::note_missing_data([args.retriever.as_str()]);
    if retriever.needs_labels() {
        anyhow::bail!(
            "`{}` needs labels; use it with `glossa run`",
            args.retriever
        );
    }
    Ok(Pipeline {
        glossary: Arc::clone(&glossary),
        retriever_name: args.retriever.clone(),
        retriever: Arc::from(retriever),
        template: super::translate_template(&(&args.provider).into())?,
        simplify: args.provider.simplify,
        simplify_template: Template::builtin("simplify.v1"),
        client: Arc::new(super::build_client(&(&args.provider).into())?),
        check: Default::default(),
        repair: args.repair,
        invariants: args.invariants,
    })
}
