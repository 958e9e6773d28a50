//! TBX import: any text gives a glossary or an error, never a panic or a
//! stack overflow (deep nesting is refused before parsing).
#![no_main]

use glossa::interchange::{import_tbx, ImportOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let opts = ImportOptions {
        name: "fuzz".into(),
        target_lang: Some("fr".into()),
        ..ImportOptions::default()
    };
    let _ = import_tbx("fuzz.tbx", text, &opts);
});
