//! `glossa lint`: check a glossary (see `crate::lint`); exit 1 when there
//! is at least one warning.

use crate::cli::LintArgs;
use crate::lint::wordnet::WordNet;
use crate::lint::{self, English};
use crate::report::lint::LintReport;
use crate::report::Format;
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
    let report = LintReport {
        glossary: &glossary,
        findings: &findings,
        english_words: &english.sources,
        suggestions: suggestions.as_ref(),
    };
    let (warnings, notes) = (report.warnings(), report.notes());
    super::emit_report(&report, args.format)?;
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
    Ok(if warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
