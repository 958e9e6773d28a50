//! `glossa phrases`: every phrase of a text, marking the single words that
//! are never looked up.

use crate::cli::PhrasesArgs;
use crate::phrase::{self, Skip};
use crate::report::{exporter, Align, Format, Table};
use std::process::ExitCode;

pub fn run(args: PhrasesArgs) -> anyhow::Result<ExitCode> {
    let text = super::text_or_stdin(args.text)?;
    let phrases = phrase::phrases(&text);
    match exporter(args.format) {
        None => {
            let keys: Vec<&str> = phrases.iter().map(|p| p.key.as_str()).collect();
            super::emit(&(serde_json::to_string(&keys)? + "\n"))?;
        }
        Some(e) => {
            let mut t = Table::new(
                None,
                &[
                    ("Phrase", Align::Left),
                    ("Words", Align::Right),
                    ("Looked up", Align::Left),
                ],
            );
            for p in &phrases {
                let looked_up = match (p.lookup, phrase::skip_reason(&p.key)) {
                    (true, _) | (false, None) => "yes",
                    (false, Some(Skip::StopWord)) => "skipped: stop word",
                    (false, Some(Skip::AllDigits)) => "skipped: all digits",
                    (false, Some(Skip::Short)) => "skipped: under 3 characters",
                }
                .to_string();
                t.push(vec![p.key.clone(), p.len.to_string(), looked_up]);
            }
            super::emit(&e.render(&[t]))?;
            if args.format == Format::Table && phrases.is_empty() {
                eprintln!("no words in the text");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
