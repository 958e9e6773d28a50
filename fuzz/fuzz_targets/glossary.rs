//! The glossary loader on arbitrary bytes: an error or a glossary whose
//! every entry is found by its id and has a key, empty exactly when its
//! source has no letter or digit ("±": found as written), and whose
//! forbidden terms (the entries' and the glossary-wide ones) are never
//! blank; never a panic.
#![no_main]

use glossa::glossary::Glossary;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(glossary) = Glossary::parse("fuzz.json", "fuzz", text) else {
        return;
    };
    for (i, entry) in glossary.entries.iter().enumerate() {
        let has_words = entry.source.chars().any(char::is_alphanumeric);
        assert_eq!(entry.key.is_empty(), !has_words, "{:?}", entry.source);
        assert!(!entry.key.contains("  "));
        assert_eq!(glossary.index_of(&entry.id), Some(i));
        assert!(entry.forbidden.iter().all(|f| !f.trim().is_empty()));
    }
    assert!(glossary.forbidden.iter().all(|f| !f.trim().is_empty()));
});
