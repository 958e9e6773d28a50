//! `glossa retrieve`: one post's matches.

use crate::cli::RetrieveArgs;
use glossa::report::retrieve::{MatchRow, RetrieveReport};
use glossa::report::Format;
use glossa::retrieve::{self, best_per_entry, Params, PostView};
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: RetrieveArgs) -> anyhow::Result<ExitCode> {
    let text = super::text_or_stdin(args.text)?;
    let params = Params::from(&args.params);
    let glossary = Arc::new(super::compiled::glossary_for(
        &args.glossary,
        &args.compiled,
        std::path::Path::new(glossa::generate::cache::DEFAULT_DIR),
        &args.retriever,
        &params,
        &[&text],
        1,
    )?);
    let retriever = retrieve::build(&args.retriever, &glossary, &params)?;
    super::note_missing_data([args.retriever.as_str()]);
    retrieve::refuse_without_labels(retriever.as_ref(), &args.retriever)?;
    let view = PostView::new(&text, None);
    let matches = best_per_entry(retriever.retrieve(&view)?);
    let rows: Vec<MatchRow> = matches
        .iter()
        .map(|m| {
            let e = &glossary.entries[m.entry];
            let span = m
                .words
                .map(|(first, len)| (view.words[first].start, view.words[first + len - 1].end));
            MatchRow {
                entry: &e.id,
                source: &e.source,
                target: &e.target,
                kind: m.kind,
                phrase: &m.phrase,
                score: m.score,
                start: span.map(|s| s.0),
                end: span.map(|s| s.1),
            }
        })
        .collect();
    let nothing = rows.is_empty();
    let report = RetrieveReport {
        glossary: &glossary.name,
        retriever: &args.retriever,
        text: &text,
        matches: rows,
    };
    super::emit_report(&report, args.format)?;
    if nothing && args.format != Format::Json {
        eprintln!(
            "no entry of {} matched (`glossa phrases` shows what was looked up)",
            glossary.path
        );
    }
    Ok(ExitCode::SUCCESS)
}
