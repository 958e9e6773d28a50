//! Workbook import (XLSX, XLS, ODS) on arbitrary bytes: one error or a
//! glossary, never a panic. The first byte picks the sheet: the first, or
//! one by a name that may not exist.
#![no_main]

use glossa::interchange::{import_workbook, ImportOptions, SheetFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let sheet = (pick & 1 == 1).then_some("Glossary");
    let opts = ImportOptions {
        name: "fuzz".to_string(),
        ..ImportOptions::default()
    };
    match import_workbook("fuzz.xlsx", bytes, SheetFormat::Xlsx, sheet, &opts) {
        Ok(imported) => assert!(!imported.glossary.is_empty()),
        Err(errors) => assert!(!errors.errors.is_empty()),
    }
});
