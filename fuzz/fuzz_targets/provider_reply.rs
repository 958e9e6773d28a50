//! Provider reply parsing on arbitrary JSON bodies: every reply parser in
//! the provider table (`PROVIDERS`: OpenAI's chat-completions, Gemini's
//! generateContent, and any provider added there), then the judgement
//! every reply goes through.
#![no_main]

use glossa::generate::provider::PROVIDERS;
use glossa::generate::reply::accept;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for parse in PROVIDERS.iter().filter_map(|kind| kind.parse_reply) {
        match parse(&body) {
            Ok(completion) => {
                if let Ok(accepted) = accept(completion) {
                    assert!(!accepted.text.trim().is_empty());
                }
            }
            Err(why) => assert!(!why.is_empty()),
        }
    }
});
