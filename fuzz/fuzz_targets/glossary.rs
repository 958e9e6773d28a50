//! The glossary loader: any text gives a glossary whose entries have keys,
//! or an error naming the file, never a panic.
#![no_main]

use glossa::glossary::Glossary;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    match Glossary::parse("fuzz.json", "fuzz", text) {
        Ok(g) => assert!(g
            .entries
            .iter()
            .all(|e| !e.key.is_empty() && !e.id.is_empty())),
        Err(e) => assert_eq!(e.path, "fuzz.json"),
    }
});
