//! `glossa export GLOSSARY`: a glossary as TSV or CSV.

use crate::cli::ExportArgs;
use crate::interchange;
use std::process::ExitCode;

pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let glossary = super::load_glossary(&args.glossary)?;
    let text = interchange::export_sheet(&glossary, args.format, args.header)?;
    match &args.out {
        Some(out) => {
            crate::fsutil::write_atomic(out, &text)?;
            eprintln!("exported {} entries to {}", glossary.len(), out.display());
        }
        None => super::emit(&text)?,
    }
    Ok(ExitCode::SUCCESS)
}
