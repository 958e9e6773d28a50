//! Every registered retriever and the recommended composition on an
//! arbitrary glossary and post: matches name entries of the glossary,
//! phrases of the post and scores in [0, 1]. The input is the post, then
//! glossary terms, separated by 0xFF bytes (which UTF-8 never holds).
#![no_main]

use glossa::glossary::Glossary;
use glossa::retrieve::{self, Params, PostView, RECOMMENDED, REGISTRY};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use std::sync::Arc;

/// Terms beyond these are ignored, to keep each run fast.
const MAX_TERMS: usize = 12;

fuzz_target!(
    init: {
        // One thread: indexes of a few entries gain nothing from a pool.
        rayon::ThreadPoolBuilder::new().num_threads(1).build_global().ok();
    },
    |data: &[u8]| check(data)
);

fn check(data: &[u8]) {
    let mut parts = data.split(|&b| b == 0xFF).map(std::str::from_utf8);
    let Some(Ok(post)) = parts.next() else {
        return;
    };
    let Ok(terms) = parts.take(MAX_TERMS).collect::<Result<Vec<&str>, _>>() else {
        return;
    };
    let Some(glossary) = glossary(&terms) else {
        return;
    };
    let needed = [0];
    let view = PostView::new(post, Some(&needed));
    let specs = REGISTRY.iter().map(|info| info.name).chain([RECOMMENDED]);
    for spec in specs {
        // A retriever that needs a file (`lemmas`) is not built without it.
        let Ok(retriever) = retrieve::build(spec, &glossary, &Params::default()) else {
            continue;
        };
        for m in retriever.retrieve(&view).expect("built-in retrievers never fail") {
            assert!(
                m.entry < glossary.len(),
                "{spec}: entry {} of {}",
                m.entry,
                glossary.len()
            );
            assert!((0.0..=1.0).contains(&m.score), "{spec}: score {}", m.score);
            if let Some((first, len)) = m.words {
                assert!(
                    first + len <= view.words.len(),
                    "{spec}: words {first}+{len}"
                );
            }
        }
    }
}

/// One entry per term; every second entry takes the next term as an
/// alias, every third as context, so alias and sense paths run too.
fn glossary(terms: &[&str]) -> Option<Arc<Glossary>> {
    let entries: Vec<_> = terms
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let next = terms.get(i + 1).copied().unwrap_or("coffee");
            let mut entry = json!({ "id": format!("e{i}"), "source": source, "target": "t" });
            if i % 2 == 1 {
                entry["aliases"] = json!([next]);
            }
            if i % 3 == 0 {
                entry["context"] = json!({ "any": [next], "not": [source] });
            }
            entry
        })
        .collect();
    let text = json!({ "entries": entries }).to_string();
    Glossary::parse("fuzz.json", "fuzz", &text)
        .ok()
        .map(Arc::new)
}
