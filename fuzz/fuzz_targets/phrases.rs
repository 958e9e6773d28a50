//! Phrase enumeration on arbitrary UTF-8: words, phrases, tokens and keys
//! never panic and keep docs/formats.md's shape (keys without double spaces or
//! line breaks, byte ranges on character boundaries, in order).
#![no_main]

use glossa::phrase::{self, MAX_PHRASE_WORDS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let words = phrase::words(text);
    let mut last_end = 0;
    let mut last_segment = 0;
    for w in &words {
        assert!(!w.text.is_empty(), "empty word in {text:?}");
        assert!(last_end <= w.start && w.start < w.end && w.end <= text.len());
        assert!(text.is_char_boundary(w.start) && text.is_char_boundary(w.end));
        assert!(w.segment >= last_segment);
        (last_end, last_segment) = (w.end, w.segment);
    }
    for p in phrase::phrases_of(&words) {
        assert!((1..=MAX_PHRASE_WORDS).contains(&p.len));
        assert_well_formed_key(&p.key, text);
        assert_eq!(p.key.split(' ').count(), p.len, "{text:?}: {:?}", p.key);
        let span = &text[p.start..p.end];
        assert!(
            !span.contains(['\n', '\r']),
            "{text:?}: phrase crosses a line"
        );
    }
    // Word tokens are the words split at their apostrophes: joined back
    // with `'`, they are the words.
    let tokens = phrase::tokens(text, &words);
    let mut rejoined: Vec<String> = Vec::new();
    let mut last_word = None;
    for t in tokens.iter().filter(|t| t.word.is_some()) {
        if last_word == t.word {
            let word = rejoined.last_mut().expect("a word before");
            word.push('\'');
            word.push_str(&t.text);
        } else {
            rejoined.push(t.text.clone());
        }
        last_word = t.word;
    }
    let word_texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(rejoined, word_texts);
    assert_well_formed_key(&phrase::key(text), text);
});

fn assert_well_formed_key(key: &str, text: &str) {
    assert!(!key.contains("  "), "{text:?}: double space in {key:?}");
    assert!(
        !key.starts_with(' ') && !key.ends_with(' '),
        "{text:?}: {key:?}"
    );
    assert!(!key.contains(['\n', '\r', '\t']), "{text:?}: {key:?}");
}
