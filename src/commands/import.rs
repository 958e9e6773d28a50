//! `glossa import FILE`: a glossary from a TSV/CSV sheet, a workbook (XLSX/ODS) or a TBX file.

use crate::cli::ImportArgs;
use anyhow::Context as _;
use glossa::error::InputError;
use glossa::glossary::Glossary;
use glossa::interchange::{self, ImportOptions, SheetFormat};
use glossa::serve::store::FolderLock;
use std::process::ExitCode;

pub fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    let shown = args.file.display().to_string();
    if shown.contains("://") {
        anyhow::bail!(
            "{shown}: glossa reads files on this computer, not addresses; download it first \
             (e.g. `curl -LO '{shown}'`), then import the downloaded file"
        );
    }
    let format = args
        .from
        .or_else(|| SheetFormat::from_path(&args.file))
        .with_context(|| {
            format!(
                "{shown}: cannot tell the format from the file name; add --from tsv, csv, tbx, xlsx or ods"
            )
        })?;
    if let Some(out) = &args.out {
        if out.exists() && !args.force {
            anyhow::bail!("{} exists; add --force to overwrite it", out.display());
        }
    }
    let stem = |p: &std::path::Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let name = args
        .name
        .clone()
        .or_else(|| args.out.as_deref().map(stem))
        .unwrap_or_else(|| stem(&args.file));
    let bytes = std::fs::read(&args.file)
        .map_err(|e| InputError::file(&shown, format!("cannot read: {e}")))?;
    if args.sheet.is_some() && !format.is_workbook() {
        anyhow::bail!("{shown}: --sheet is for workbooks (xlsx, ods); this file has one sheet");
    }
    let opts = ImportOptions {
        name: name.clone(),
        source_lang: args.source_lang.clone(),
        target_lang: args.target_lang.clone(),
        columns: args.columns.clone().map(|c| c.0).unwrap_or_default(),
        delimiter: args.delimiter,
    };
    let mut imported =
        interchange::import_bytes(&shown, bytes, format, args.sheet.as_deref(), &opts)?;
    // A TBX file glossa exported names its glossary; --name still wins.
    let name = match &args.name {
        Some(given) => given.clone(),
        None => imported.glossary.name.clone(),
    };
    imported.glossary.name = name.clone();
    for w in &imported.warnings {
        eprintln!("{}: {w}", super::style::warning());
    }
    let json = interchange::to_json(&imported.glossary);
    // What is written must load as a glossary by the usual rules.
    let out_shown = args
        .out
        .as_ref()
        .map_or("<stdout>".to_string(), |p| p.display().to_string());
    Glossary::parse(&out_shown, &name, &json)?;
    let n = imported.glossary.len();
    match &args.out {
        Some(out) => {
            // The lock `glossa serve` saves under: a server saving the same
            // file meanwhile sees a new version (409), never loses this one.
            let folder = out
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let _lock = FolderLock::acquire(folder)?;
            if out.exists() && !args.force {
                anyhow::bail!("{} exists; add --force to overwrite it", out.display());
            }
            glossa::runs::write_atomic(out, &json)?;
            eprintln!(
                "imported {} from {shown} into {out_shown} (glossary `{name}`)",
                glossa::report::count(n, "entry", "entries")
            );
        }
        None => {
            super::emit(&json)?;
            eprintln!(
                "imported {} from {shown}",
                glossa::report::count(n, "entry", "entries")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
