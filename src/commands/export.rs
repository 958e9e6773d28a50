//! `glossa export GLOSSARY`: a glossary as TSV, CSV or TBX.

use crate::cli::ExportArgs;
use crate::interchange;
use std::process::ExitCode;

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let glossary = super::load_glossary(&args.glossary)?;
    let tbx = matches!(
        args.format,
        interchange::SheetFormat::Tbx | interchange::SheetFormat::Tbx3
    );
    if !glossary.forbidden.is_empty() && !tbx {
        eprintln!(
            "{}: the glossary-wide `forbidden` list ({} words) has no place in a sheet and is \
             not exported; keep the JSON file for it, or export TBX",
            super::style::warning(),
            glossary.forbidden.len()
        );
    }
    let text = interchange::export_sheet(&glossary, args.format, args.header)?;
    match &args.out {
        Some(out) => {
            crate::fsutil::write_atomic(out, &text)?;
            eprintln!(
                "exported {} to {}",
                crate::report::count(glossary.len(), "entry", "entries"),
                out.display()
            );
        }
        None => super::emit(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}
