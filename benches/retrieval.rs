//! Micro-benchmarks of retrieval in process, on the synthetic workload of
//! `bench/gen_workload.rs` (100,000 entries, posts of about 25 words):
//! phrase enumeration, the exact tier, and the stem, trigram and
//! edit-distance indexes, each over the same 2,000 posts.
//!
//!   cargo bench --bench retrieval
//!
//! Throughput is printed in posts per second ("elem/s").

#[path = "../bench/gen_workload.rs"]
mod workload;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use glossa::glossary::Glossary;
use glossa::retrieve::{self, Params, PostView};
use std::hint::black_box;
use std::sync::Arc;

// The allocator of the `glossa` binary: scoring makes many small strings.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const ENTRIES: usize = 100_000;
const POSTS: usize = 2_000;

fn workload() -> (Arc<Glossary>, Vec<String>) {
    let (mut g, mut p, mut l) = (Vec::new(), Vec::new(), Vec::new());
    workload::generate(ENTRIES, POSTS, 42, &mut g, &mut p, &mut l).expect("in memory");
    let glossary = Glossary::parse("bench.json", "bench", &String::from_utf8(g).unwrap())
        .expect("the generator writes a valid glossary");
    let posts = String::from_utf8(p)
        .unwrap()
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            v["text"].as_str().unwrap().to_string()
        })
        .collect();
    (Arc::new(glossary), posts)
}

fn benches(c: &mut Criterion) {
    let (glossary, posts) = workload();
    let mut group = c.benchmark_group("retrieval");
    group.throughput(Throughput::Elements(posts.len() as u64));
    group.sample_size(10);

    group.bench_function("words", |b| {
        b.iter(|| {
            for text in &posts {
                black_box(PostView::new(text, None).words.len());
            }
        })
    });
    group.bench_function("phrases (1-4 words)", |b| {
        b.iter(|| {
            for text in &posts {
                black_box(PostView::new(text, None).phrases().len());
            }
        })
    });
    for spec in ["exact", "normalised", "fuzzy", "edit", "glossa"] {
        let retriever = retrieve::build(spec, &glossary, &Params::default()).unwrap();
        group.bench_function(format!("{spec} at 100k entries"), |b| {
            b.iter(|| {
                for text in &posts {
                    black_box(
                        retriever
                            .retrieve(&PostView::new(text, None))
                            .unwrap()
                            .len(),
                    );
                }
            })
        });
    }
    group.finish();
}

criterion_group!(retrieval, benches);
criterion_main!(retrieval);
