//! TSV/CSV import on arbitrary bytes (UTF-8, UTF-16 with a byte-order
//! mark, or neither): the first byte picks the format.
#![no_main]

use glossa::interchange::{decode_sheet, import_sheet, ImportOptions, SheetFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let format = if pick & 1 == 0 {
        SheetFormat::Tsv
    } else {
        SheetFormat::Csv
    };
    let Ok(text) = decode_sheet("fuzz.sheet", bytes.to_vec()) else {
        return;
    };
    let opts = ImportOptions {
        name: "fuzz".to_string(),
        ..ImportOptions::default()
    };
    match import_sheet("fuzz.sheet", &text, format, &opts) {
        Ok(imported) => assert!(!imported.glossary.is_empty()),
        Err(errors) => assert!(!errors.errors.is_empty()),
    }
});
