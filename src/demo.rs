//! The bundled café demo, compiled in so that `glossa eval` works from any
//! folder. Commands use it only when no file is named: its paths are
//! markers (`built-in:...`) that no file on disk shadows, and saved runs
//! that name them resume anywhere.

/// The demo's glossary, posts and labels, as commands name them.
pub const GLOSSARY: &str = "built-in:glossaries/cafe.json";
pub const POSTS: &str = "built-in:posts/cafe.jsonl";
pub const LABELS: &str = "built-in:labels/cafe.jsonl";

const FILES: [(&str, &str); 3] = [
    (GLOSSARY, include_str!("../glossaries/cafe.json")),
    (POSTS, include_str!("../posts/cafe.jsonl")),
    (LABELS, include_str!("../labels/cafe.jsonl")),
];

/// The built-in contents of a demo path, if `path` is one.
pub fn builtin(path: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_markers_are_built_in() {
        assert!(builtin(GLOSSARY).is_some_and(|t| t.contains("cold-coffee")));
        assert!(builtin(POSTS).is_some());
        assert!(builtin(LABELS).is_some());
        assert_eq!(builtin("glossaries/cafe.json"), None);
    }
}
