//! The posts and labels loaders on arbitrary bytes, in memory and
//! streamed: the input is a posts file, then (after the first 0xFF byte,
//! which UTF-8 never holds) a labels file. Both paths agree on whether the
//! files are good.
#![no_main]

use glossa::dataset::{self, LabelledStream, Post};
use glossa::glossary::Glossary;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

const BOM: &[u8] = "\u{feff}".as_bytes();

/// Entry ids the labels can name: `a`, `b`, `c`.
fn glossary() -> &'static Arc<Glossary> {
    static GLOSSARY: OnceLock<Arc<Glossary>> = OnceLock::new();
    GLOSSARY.get_or_init(|| {
        let text = r#"{"entries": [
            {"id": "a", "source": "cold coffee", "target": "x"},
            {"id": "b", "source": "date", "target": "y"},
            {"id": "c", "source": "tea", "target": "z"}]}"#;
        Arc::new(Glossary::parse("g.json", "g", text).expect("a valid glossary"))
    })
}

fuzz_target!(|data: &[u8]| {
    let (posts_bytes, labels_bytes) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b""[..]),
    };
    let in_memory = load_in_memory(posts_bytes, labels_bytes);
    let stream = LabelledStream::new(
        glossary().clone(),
        "posts.jsonl",
        posts_bytes,
        "labels.jsonl",
        labels_bytes,
    );
    let streamed: Result<Vec<_>, _> = stream.collect();
    // The stream drops a byte-order mark that the in-memory loaders refuse.
    let bom = posts_bytes.starts_with(BOM) || labels_bytes.starts_with(BOM);
    match (&in_memory, &streamed) {
        (Some(Ok(joined)), Ok(streamed)) => assert_eq!(joined.len(), streamed.len()),
        (Some(joined), streamed) if !bom => assert_eq!(
            joined.is_ok(),
            streamed.is_ok(),
            "in memory: {joined:?}\nstreamed: {streamed:?}"
        ),
        _ => {}
    }
    let entries = glossary().len();
    for post in streamed.iter().flatten() {
        let label = &post.label;
        assert!(label
            .needed
            .iter()
            .chain(&label.wrong_sense)
            .all(|&e| e < entries));
    }
});

/// `None` when the bytes are not UTF-8 (the in-memory loaders take text).
fn load_in_memory(
    posts: &[u8],
    labels: &[u8],
) -> Option<Result<Vec<dataset::LabelledPost>, glossa::error::InputError>> {
    let posts = std::str::from_utf8(posts).ok()?;
    let labels = std::str::from_utf8(labels).ok()?;
    Some(
        dataset::parse_posts("posts.jsonl", posts).and_then(|posts: Vec<Post>| {
            dataset::join_labels("labels.jsonl", labels, posts, "posts.jsonl", glossary())
        }),
    )
}
