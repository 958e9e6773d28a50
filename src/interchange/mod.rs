//! Glossaries to and from spreadsheets and terminology files: the
//! two-column source/target TSV or CSV that machine-translation services
//! take as glossaries (with optional `sense` and `aliases` columns), and
//! TBX (TermBase eXchange, ISO 30042) import and export.
//!
//! Sheet layout:
//!
//! - no header: columns are `source, target[, sense[, aliases]]`;
//! - a header naming the columns (any order, case and spelling): `id`,
//!   `source`, `target`, `forms`, `forbidden`, `sense`, `aliases`,
//!   `context_any`, `context_not` and synonyms (`sourceString`,
//!   `Target term`, `description`), per-row `sourceLang`/`targetLang`,
//!   Crowdin's `Term [en]` and Lokalise's `translation_fr`; other columns
//!   are ignored with one warning (docs/formats.md "Glossary sheets");
//! - a header of two language codes (`en,fr`, the Amazon Translate custom
//!   terminology layout): columns `source, target`, and the codes become the
//!   glossary's languages.
//!
//! `forms`, `forbidden`, `aliases`, `context_any` and `context_not` hold several
//! phrases separated by `;`. Blank rows are skipped. Every bad row is reported with
//! its line, and the result is validated by the same rules as a glossary
//! file ([`Glossary::new`]) before anything is written.
//!
//! One module a concern: `sheet` reads TSV/CSV ([`import_sheet`]), `tbx`
//! reads TBX ([`import_tbx`]), `export` writes JSON and sheets
//! ([`to_json`], [`export_sheet`]), `engine` writes the MT engines'
//! glossary files and checks their limits ([`export_engine`],
//! [`engine_limits`]); this module holds what they share.

mod engine;
mod export;
mod header;
pub mod segments;
mod sheet;
mod tbx;
mod tms;
mod workbook;

pub use engine::{
    engine_limits, export_engine, Engine, EngineFile, EngineIssue, EngineRow, ExportFormat,
};
pub use export::{export_sheet, export_tbx, to_json, TbxDialect};
pub use sheet::{decode_sheet, import_sheet, parse_columns};
pub use tbx::{import_tbx, MAX_XML_DEPTH};
pub use tms::{export_tms, Tms, TmsFile};
pub use workbook::import_workbook;

use crate::error::InputError;
use crate::glossary::{Entry, Glossary};
use crate::language;
use std::collections::hash_map::{Entry as Slot, HashMap};
use std::path::Path;

/// A file format glossaries can be read from or written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SheetFormat {
    /// Tab-separated values.
    Tsv,
    /// Comma-separated values.
    Csv,
    /// TermBase eXchange (XML; TBX-Basic in TBX 2008 when exported).
    Tbx,
    /// TBX v3 (ISO 30042:2019) when exported; read as [`SheetFormat::Tbx`].
    Tbx3,
    /// An Excel workbook (`.xlsx`, `.xlsm`, `.xls`; import only).
    Xlsx,
    /// An OpenDocument spreadsheet (`.ods`; import only).
    Ods,
}

impl SheetFormat {
    /// The format a file name implies: `.tsv`/`.tab`/`.txt`, `.csv`,
    /// `.tbx`/`.xml`, `.xlsx`/`.xlsm`/`.xls`, `.ods`.
    pub fn from_path(path: &Path) -> Option<SheetFormat> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "tsv" | "tab" | "txt" => Some(SheetFormat::Tsv),
            "csv" => Some(SheetFormat::Csv),
            "tbx" | "xml" => Some(SheetFormat::Tbx),
            "xlsx" | "xlsm" | "xls" => Some(SheetFormat::Xlsx),
            "ods" => Some(SheetFormat::Ods),
            _ => None,
        }
    }

    /// A spreadsheet workbook (a binary file, read from its bytes).
    pub fn is_workbook(self) -> bool {
        matches!(self, SheetFormat::Xlsx | SheetFormat::Ods)
    }

    pub(crate) fn delimiter(self) -> u8 {
        match self {
            SheetFormat::Csv => b',',
            _ => b'\t',
        }
    }
}

/// Every problem found in a file, each naming its line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", listed(.errors, .path))]
pub struct ImportErrors {
    pub(crate) path: String,
    pub errors: Vec<InputError>,
}

/// One problem a line, then how many when there are several.
fn listed(errors: &[InputError], path: &str) -> String {
    let mut out: Vec<String> = errors.iter().map(ToString::to_string).collect();
    if errors.len() > 1 {
        out.push(format!(
            "{} problems in {path}; nothing was written",
            errors.len()
        ));
    }
    out.join("\n")
}

impl From<InputError> for ImportErrors {
    fn from(e: InputError) -> Self {
        ImportErrors {
            path: e.path.clone(),
            errors: vec![e],
        }
    }
}

/// Names and languages for an imported glossary.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub name: String,
    /// Default `en`; for TBX, the language whose terms are the sources.
    pub source_lang: Option<String>,
    /// Default from a language header or the TBX file, else none (the
    /// glossary is written without `target_lang`, with a warning). A code,
    /// locale or English name (`km`, `km_KH`, `Khmer`).
    pub target_lang: Option<String>,
    /// `--columns`: (field, header name) pairs that pick a sheet's
    /// columns by name, overriding what the header says.
    pub columns: Vec<(String, String)>,
    /// `--delimiter`: a sheet's delimiter (default: tab for TSV, sniffed
    /// from the first rows for CSV).
    pub delimiter: Option<u8>,
}

/// An imported glossary and what was skipped on the way.
#[derive(Debug, Clone)]
pub struct Imported {
    pub glossary: Glossary,
    pub warnings: Vec<String>,
}

/// Read any supported file from its text (a workbook is bytes: see
/// [`import_bytes`]).
pub(crate) fn import(
    path: &str,
    text: &str,
    format: SheetFormat,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    with_languages(path, opts, |opts| match format {
        SheetFormat::Tbx | SheetFormat::Tbx3 => import_tbx(path, text, opts),
        SheetFormat::Xlsx | SheetFormat::Ods => {
            import_workbook(path, text.as_bytes(), format, None, opts)
        }
        sheet => import_sheet(path, text, sheet, opts),
    })
}

/// `read` with the languages of the flags and of the result made codes
/// (docs/formats.md, "Languages"), and a warning where there is none.
fn with_languages(
    path: &str,
    opts: &ImportOptions,
    read: impl FnOnce(&ImportOptions) -> Result<Imported, ImportErrors>,
) -> Result<Imported, ImportErrors> {
    // `--target-lang Khmer`: the code, before a TBX file's languages are
    // matched against it. A locale (`de-AT`) stays as given for that
    // match (a file may hold de-DE and de-AT) and is written as its
    // language's code afterwards.
    let mut opts = opts.clone();
    let mut notes = Vec::new();
    for (flag, lang) in [
        ("--source-lang", &mut opts.source_lang),
        ("--target-lang", &mut opts.target_lang),
    ] {
        let Some(lang) = lang else { continue };
        if language::by_name(lang).is_none() {
            continue;
        }
        if let Some(known) = language::code_of(lang).filter(|k| k.code != *lang) {
            notes.push(format!(
                "{flag} `{lang}` read as `{}` ({})",
                known.code,
                known.name.unwrap_or("private use")
            ));
            *lang = known.code;
        }
    }
    let mut imported = read(&opts)?;
    imported.warnings.splice(0..0, notes);
    let languages_given = opts.target_lang.is_some() || opts.source_lang.is_some();
    let g = &mut imported.glossary;
    let w = &mut imported.warnings;
    if g.target_lang == language::MISSING_TARGET {
        w.push(format!(
            "{path}: no target language (no language header): the glossary is written \
             without `target_lang`; add --target-lang CODE or NAME (e.g. --target-lang Khmer)"
        ));
        if !languages_given {
            w.push(format!(
                "{path}: the source language is taken as `{}`; add --source-lang if it is not",
                g.source_lang
            ));
        }
    } else {
        normalise(path, "target", &mut g.target_lang, w);
    }
    normalise(path, "source", &mut g.source_lang, w);
    Ok(imported)
}

/// A language read from a file or flag as its code (`km_KH` → `km`, with a
/// note); an unknown one is kept and warned about.
fn normalise(path: &str, which: &str, lang: &mut String, warnings: &mut Vec<String>) {
    match language::code_of(lang) {
        Some(known) if known.code != *lang => {
            warnings.push(format!(
                "{path}: {which} language `{lang}` written as `{}` ({})",
                known.code,
                known.name.unwrap_or("private use")
            ));
            *lang = known.code;
        }
        Some(_) => {}
        None => warnings.push(format!(
            "{path}: {which} language `{lang}` is not an ISO 639 code or language name; \
             add --{which}-lang CODE or NAME"
        )),
    }
}

/// Read any supported file from its bytes: a workbook's sheet (`sheet`,
/// default the first), else the text (UTF-8, or UTF-16 with a byte-order
/// mark) of a sheet or TBX file.
pub fn import_bytes(
    path: &str,
    bytes: Vec<u8>,
    format: SheetFormat,
    sheet: Option<&str>,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    if format.is_workbook() {
        return with_languages(path, opts, |opts| {
            import_workbook(path, &bytes, format, sheet, opts)
        });
    }
    let text = decode_sheet(path, bytes)?;
    import(path, &text, format, opts)
}

/// The line each entry id was first used on, so that a duplicate names
/// both places.
#[derive(Default)]
struct FirstLines(HashMap<String, usize>);

impl FirstLines {
    /// The line `id` was first used on, if it was; else remembers `line`.
    fn earlier(&mut self, id: String, line: usize) -> Option<usize> {
        match self.0.entry(id) {
            Slot::Occupied(first) => Some(*first.get()),
            Slot::Vacant(slot) => {
                slot.insert(line);
                None
            }
        }
    }
}

/// Every problem found, or the glossary the entries make (validated as a
/// file would be); `none` says why no entry was found when none was.
fn finish(
    path: &str,
    errors: Vec<InputError>,
    entries: Vec<Entry>,
    none: impl FnOnce() -> String,
    opts: &ImportOptions,
    (source_lang, target_lang): (String, String),
) -> Result<Glossary, ImportErrors> {
    if !errors.is_empty() {
        return Err(ImportErrors {
            path: path.to_string(),
            errors,
        });
    }
    if entries.is_empty() {
        return Err(InputError::file(path, none()).into());
    }
    Ok(Glossary::new(
        path,
        opts.name.clone(),
        source_lang,
        target_lang,
        entries,
    )?)
}

#[cfg(test)]
mod test_util {
    use super::*;

    pub(super) fn opts() -> ImportOptions {
        ImportOptions {
            name: "t".into(),
            ..ImportOptions::default()
        }
    }

    pub(super) fn sheet(text: &str, format: SheetFormat) -> Result<Glossary, ImportErrors> {
        import_sheet("g.tsv", text, format, &opts()).map(|i| i.glossary)
    }
}
