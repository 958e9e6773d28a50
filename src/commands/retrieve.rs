//! `glossa retrieve`: one post's matches.

use crate::cli::RetrieveArgs;
use crate::report::{exporter, Align, Table};
use crate::retrieve::{self, best_per_entry, MatchKind, Params, PostView};
use serde::Serialize;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Serialize)]
struct MatchRow<'a> {
    entry: &'a str,
    source: &'a str,
    target: &'a str,
    kind: MatchKind,
    phrase: &'a str,
    score: f64,
    /// Byte range of the matched phrase in the text.
    start: Option<usize>,
    end: Option<usize>,
}

pub fn run(args: RetrieveArgs) -> anyhow::Result<ExitCode> {
    let text = super::text_or_stdin(args.text)?;
    let glossary = Arc::new(super::load_glossary(&args.glossary)?);
    let params = Params::from(&args.params);
    let retriever = retrieve::build(&args.retriever, &glossary, &params)?;
    if retriever.needs_labels() {
        anyhow::bail!(
            "`{}` needs labels: the oracle is only defined for labelled posts (use `glossa eval`)",
            args.retriever
        );
    }
    let view = PostView::new(&text, None);
    let matches = best_per_entry(retriever.retrieve(&view));
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
    match exporter(args.format) {
        None => {
            let out = serde_json::json!({
                "glossary": glossary.name,
                "retriever": args.retriever,
                "text": text,
                "matches": rows,
            });
            super::emit(&(serde_json::to_string_pretty(&out)? + "\n"))?;
        }
        Some(e) => {
            let mut t = Table::new(
                None,
                &[
                    ("Entry", Align::Left),
                    ("Target", Align::Left),
                    ("Kind", Align::Left),
                    ("Phrase", Align::Left),
                    ("Score", Align::Right),
                ],
            );
            for r in &rows {
                t.push(vec![
                    r.entry.to_string(),
                    r.target.to_string(),
                    r.kind.to_string(),
                    r.phrase.to_string(),
                    format!("{:.3}", r.score),
                ]);
            }
            super::emit(&e.render(&[t]))?;
            if rows.is_empty() {
                eprintln!(
                    "no entry of {} matched (`glossa phrases` shows what was looked up)",
                    glossary.path
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
