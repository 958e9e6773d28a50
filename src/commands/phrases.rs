//! `glossa phrases`: every phrase of a text, marking the single words that
//! are never looked up.

use crate::cli::PhrasesArgs;
use glossa::phrase;
use glossa::report::phrases::PhrasesReport;
use glossa::report::Format;
use std::process::ExitCode;

pub fn run(args: PhrasesArgs) -> anyhow::Result<ExitCode> {
    let text = super::text_or_stdin(args.text)?;
    let phrases = phrase::phrases(&text);
    super::emit_report(&PhrasesReport { phrases: &phrases }, args.format)?;
    if args.format == Format::Table && phrases.is_empty() {
        eprintln!("no words in the text");
    }
    Ok(ExitCode::SUCCESS)
}
