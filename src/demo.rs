//! The bundled café demo, compiled in so that `glossa eval` works from any
//! folder. Files on disk at the same paths take precedence.

use crate::cli::{DEMO_GLOSSARY, DEMO_LABELS, DEMO_POSTS};

const FILES: [(&str, &str); 3] = [
    (DEMO_GLOSSARY, include_str!("../glossaries/cafe.json")),
    (DEMO_POSTS, include_str!("../posts/cafe.jsonl")),
    (DEMO_LABELS, include_str!("../labels/cafe.jsonl")),
];

/// The built-in contents of a demo path, if `path` is one.
pub fn builtin(path: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, text)| *text)
}
