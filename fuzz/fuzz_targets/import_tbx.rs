//! TBX import on arbitrary text: a glossary or errors naming a line,
//! never a panic.
#![no_main]

use glossa::interchange::{import_tbx, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let opts = ImportOptions {
        name: "fuzz".to_string(),
        ..ImportOptions::default()
    };
    match import_tbx("fuzz.tbx", text, &opts) {
        Ok(imported) => assert!(!imported.glossary.is_empty()),
        Err(errors) => assert!(!errors.errors.is_empty()),
    }
});
