//! Batch API result lines on arbitrary text; and `custom_id`s, which
//! glossa writes and reads back, round-trip for any retriever and post.
#![no_main]

use glossa::batch::api::{custom_id, parse_custom_id, parse_result};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(result) = parse_result(text) {
        let (retriever, repeat, post) = &result.key;
        assert!(!retriever.is_empty() && !post.is_empty() && *repeat >= 1);
    }
    // The same text, cut in two, as a retriever and a post id.
    let cut = text
        .char_indices()
        .nth(text.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    let (retriever, post) = text.split_at(cut);
    if !retriever.is_empty() && !post.is_empty() {
        let id = custom_id(retriever, 3, post);
        let key = parse_custom_id(&id).expect("glossa reads back its own custom_id");
        assert_eq!(key, (retriever.to_string(), 3, post.to_string()));
    }
});
