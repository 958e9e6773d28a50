//! `glossa export GLOSSARY`: a glossary as TSV, CSV or TBX, or as an MT
//! engine's glossary file (checked against the engine's limits first), or
//! as a Crowdin or Lokalise glossary CSV.

use crate::cli::ExportArgs;
use glossa::exit::Exit;
use glossa::interchange::{self, Engine, ExportFormat};
use glossa::language;
use std::collections::HashSet;
use std::process::ExitCode;

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let mut glossary = super::load_glossary(&args.glossary)?;
    for (flag, given, lang) in [
        (
            "--source-lang",
            &args.source_lang,
            &mut glossary.source_lang,
        ),
        (
            "--target-lang",
            &args.target_lang,
            &mut glossary.target_lang,
        ),
    ] {
        if let Some(given) = given {
            *lang = language_flag(flag, given)?;
        }
    }
    let tbx = matches!(
        args.format,
        ExportFormat::Sheet(interchange::SheetFormat::Tbx | interchange::SheetFormat::Tbx3)
    );
    if !glossary.forbidden.is_empty() && !tbx {
        eprintln!(
            "{}: the glossary-wide `forbidden` list ({} words) has no place in a sheet or an \
             engine's file and is not exported; keep the JSON file for it, or export TBX",
            super::style::warning(),
            glossary.forbidden.len()
        );
    }
    let text = match args.format {
        ExportFormat::Sheet(format) => interchange::export_sheet(&glossary, format, args.header)?,
        ExportFormat::Engine(engine) => match engine_file(&glossary, engine, args.drop_refused)? {
            Some(text) => text,
            None => return Ok(Exit::Failed.into()),
        },
        ExportFormat::Tms(tms) => {
            let file = interchange::export_tms(&glossary, tms)?;
            for note in &file.notes {
                eprintln!("{}: {note}", super::style::note());
            }
            file.text
        }
    };
    match &args.out {
        Some(out) => {
            glossa::fsutil::write_atomic(out, &text)?;
            eprintln!(
                "exported {} to {}",
                glossa::report::count(glossary.len(), "entry", "entries"),
                out.display()
            );
        }
        None => super::emit(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// A language flag's value as the code to write: an English name becomes
/// its code (`French` → `fr`); a code or locale stays as given (`pt-BR`,
/// which the engines take).
fn language_flag(flag: &str, given: &str) -> anyhow::Result<String> {
    let given = given.trim();
    match language::code_of(given) {
        Some(lang) if language::by_name(given).is_some() => Ok(lang.code),
        Some(_) => Ok(given.to_string()),
        None => anyhow::bail!("{flag} `{given}`: not a language code, locale or English name"),
    }
}

/// The engine's file, or `None` when the engine would refuse it (the
/// findings listed on stderr, nothing written). With `drop_refused`, the
/// rows it would refuse are left out, each listed, when that is enough.
fn engine_file(
    glossary: &glossa::glossary::Glossary,
    engine: Engine,
    drop_refused: bool,
) -> anyhow::Result<Option<String>> {
    let mut file = interchange::export_engine(glossary, engine)?;
    let mut issues = interchange::engine_limits(&file);
    let place = |i: &interchange::EngineIssue| match i.line {
        0 => glossary.path.clone(),
        line => format!("{}:{line}", glossary.path),
    };
    let entry = |i: &interchange::EngineIssue| match i.entry.is_empty() {
        true => String::new(),
        false => format!("entry `{}`: ", i.entry),
    };
    let refused_rows: HashSet<usize> = issues
        .iter()
        .filter(|i| i.refused)
        .filter_map(|i| i.row)
        .collect();
    let whole_file = issues.iter().any(|i| i.refused && i.row.is_none());
    if drop_refused && !refused_rows.is_empty() && !whole_file {
        for i in issues.iter().filter(|i| i.refused) {
            eprintln!(
                "{}: {}: {}{} [{}]; left out",
                super::style::note(),
                place(i),
                entry(i),
                i.message,
                i.check
            );
        }
        file = file.without_rows(&refused_rows);
        issues = interchange::engine_limits(&file);
    }
    let refused = issues.iter().filter(|i| i.refused).count();
    for i in &issues {
        let status = match i.refused {
            true => super::style::error(),
            false => super::style::warning(),
        };
        eprintln!(
            "{status}: {}: {}{} [{}] ({})",
            place(i),
            entry(i),
            i.message,
            i.check,
            i.suggestion
        );
    }
    if refused > 0 {
        eprintln!(
            "{}: {} would refuse this file ({}); nothing was written. Fix the glossary, or \
             --drop-refused to leave those rows out (`glossa lint {} --for {}` lists them)",
            super::style::error(),
            engine.title(),
            glossa::report::count(refused, "problem", "problems"),
            glossary.path,
            engine.name()
        );
        return Ok(None);
    }
    for note in &file.notes {
        eprintln!("{}: {note}", super::style::note());
    }
    Ok(Some(file.text))
}
