//! TSV and CSV import: any bytes give a glossary or errors naming lines,
//! never a panic.
#![no_main]

use glossa::interchange::{decode_sheet, import_sheet, ImportOptions, SheetFormat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode_sheet("fuzz.tsv", data.to_vec()) else {
        return;
    };
    let opts = ImportOptions {
        name: "fuzz".into(),
        ..ImportOptions::default()
    };
    for format in [SheetFormat::Tsv, SheetFormat::Csv] {
        if let Err(e) = import_sheet("fuzz.tsv", &text, format, &opts) {
            assert!(e.errors.iter().all(|e| e.path == "fuzz.tsv"));
        }
    }
});
