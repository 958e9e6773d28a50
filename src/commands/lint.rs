//! `glossa lint`: check a glossary (see `glossa::lint`); exit 1 when there
//! is at least one error or warning.

use crate::cli::LintArgs;
use glossa::lint::wordnet::WordNet;
use glossa::lint::{self, English};
use glossa::report::lint::LintReport;
use glossa::report::Format;
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
    let mut findings = lint::lint(&glossary, &english);
    if let Some(engine) = args.engine {
        findings.extend(lint::engine_findings(&glossary, engine)?);
    }
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
        wordnet_missing_from: wordnet.is_none().then_some(dir.as_path()),
    };
    super::emit_report(&report, args.format)?;
    if args.format == Format::Table {
        eprint!("{}", report.summary());
    }
    let warnings = report.errors() + report.warnings();
    Ok(if warnings > 0 {
        glossa::exit::Exit::Failed.into()
    } else {
        ExitCode::SUCCESS
    })
}
