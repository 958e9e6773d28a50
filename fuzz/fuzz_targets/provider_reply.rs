//! Provider reply parsing on arbitrary JSON bodies: OpenAI's
//! chat-completions and Gemini's generateContent parsers, then the
//! judgement every reply goes through.
#![no_main]

use glossa::generate::provider::{chat_reply, gemini_reply};
use glossa::generate::reply::accept;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for parsed in [chat_reply(&body), gemini_reply(&body)] {
        match parsed {
            Ok(completion) => {
                if let Ok(accepted) = accept(completion) {
                    assert!(!accepted.text.trim().is_empty());
                }
            }
            Err(why) => assert!(!why.is_empty()),
        }
    }
});
