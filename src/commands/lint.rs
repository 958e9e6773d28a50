//! `glossa lint`: check a glossary (see `crate::lint`); exit 1 when there
//! is at least one warning.

use crate::cli::LintArgs;
use crate::lint::wordnet::WordNet;
use crate::lint::{self, English, Severity};
use crate::report::{exporter, Align, Format, Table};
use std::process::ExitCode;

pub fn run(args: LintArgs) -> anyhow::Result<ExitCode> {
    let glossary = super::load_glossary(&args.glossary)?;
    let dir = args.wordnet.clone().unwrap_or_else(WordNet::default_dir);
    // WordNet is needed for --suggest-aliases and wanted for the English
    // check; a folder named with --wordnet must be there.
    let wordnet = match WordNet::load(&dir) {
        Ok(wn) => Some(wn),
        Err(msg) if args.suggest_aliases || args.wordnet.is_some() => anyhow::bail!(msg),
        Err(_) => None,
    };
    let english = English::new(&glossary, wordnet.as_ref());
    let findings = lint::lint(&glossary, &english);
    let suggestions = match (&wordnet, args.suggest_aliases) {
        (Some(wn), true) => {
            Some(lint::suggest_aliases(&glossary, wn, &args.domain).map_err(anyhow::Error::msg)?)
        }
        _ => None,
    };
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    let notes = findings.len() - warnings;

    match exporter(args.format) {
        None => {
            let out = serde_json::json!({
                "glossary": glossary.path,
                "entries": glossary.len(),
                "warnings": warnings,
                "notes": notes,
                "english_words": english.sources,
                "findings": findings,
                "alias_suggestions": suggestions,
            });
            super::emit(&(serde_json::to_string_pretty(&out)? + "\n"))?;
        }
        Some(e) => {
            let mut tables = Vec::new();
            if !findings.is_empty() {
                let mut t = Table::new(
                    Some("Findings"),
                    &[
                        ("Line", Align::Right),
                        ("Entry", Align::Left),
                        ("Severity", Align::Left),
                        ("Check", Align::Left),
                        ("Problem", Align::Left),
                        ("Suggestion", Align::Left),
                    ],
                );
                for f in &findings {
                    t.push(vec![
                        f.line.to_string(),
                        f.entry.clone(),
                        match f.severity {
                            Severity::Warning => "warning".to_string(),
                            Severity::Note => "note".to_string(),
                        },
                        f.check.to_string(),
                        f.message.clone(),
                        f.suggestion.clone(),
                    ]);
                }
                tables.push(t);
            }
            if let Some(s) = &suggestions {
                let mut t = Table::new(
                    Some("Suggested aliases from WordNet (for a person to accept; nothing was changed)"),
                    &[
                        ("Line", Align::Right),
                        ("Entry", Align::Left),
                        ("Add to aliases", Align::Left),
                        ("WordNet sense", Align::Left),
                        ("Chosen because", Align::Left),
                    ],
                );
                for a in &s.suggestions {
                    t.push(vec![
                        a.line.to_string(),
                        a.entry.clone(),
                        a.add.join(", "),
                        format!("{} ({}, {})", a.gloss, a.lexfile, a.synset),
                        a.why.clone(),
                    ]);
                }
                tables.push(t);
            }
            if !tables.is_empty() {
                super::emit(&e.render(&tables))?;
            }
            if args.format == Format::Table {
                eprintln!(
                    "{}: {warnings} warning(s), {notes} note(s) in {} entries",
                    glossary.path,
                    glossary.len()
                );
                eprintln!(
                    "English words for target-english: {}",
                    english.sources.join(", ")
                );
                if wordnet.is_none() {
                    eprintln!(
                        "(WordNet data files not found in {}: install `wordnet-base` for a fuller target-english check and --suggest-aliases)",
                        dir.display()
                    );
                }
                if let Some(s) = &suggestions {
                    eprintln!(
                        "WordNet {}: domain {}; {} of {} entries known, {} with suggestions, {} without a clear sense",
                        s.wordnet,
                        s.domain_reason,
                        s.entries_in_wordnet,
                        glossary.len(),
                        s.suggestions.len(),
                        s.unsure.len()
                    );
                }
            }
        }
    }
    Ok(if warnings > 0 {
        crate::exit::Exit::Failed.into()
    } else {
        ExitCode::SUCCESS
    })
}
