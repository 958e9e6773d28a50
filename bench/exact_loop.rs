//! glossa's side of `bench/aho_peer.rs`: the same job (read a glossary and
//! posts, find each post's entries, write them) through glossa's retriever
//! `exact` (or any SPEC), the same input and output code around it. On
//! stderr: the index build's seconds and the query loop's, wall and CPU (posts in memory
//! to the lines in a buffer: `PostView::new`, `retrieve`, one match per
//! entry, the lines).
//!
//!   cargo run --release --example exact_loop -- GLOSSARY.json POSTS.jsonl [SPEC] > pairs.tsv

use glossa::glossary::Glossary;
use glossa::retrieve::{self, best_per_entry, Params, PostView};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

// The allocator of the `glossa` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(serde::Deserialize)]
struct Post {
    id: String,
    text: String,
}

/// This thread's CPU seconds: on a shared machine the wall clock also
/// counts the turns of other processes.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (glossary, posts, spec) = match &args[..] {
        [g, p] => (g, p, "exact"),
        [g, p, s] => (g, p, s.as_str()),
        _ => return Err("usage: exact_loop GLOSSARY.json POSTS.jsonl [SPEC]".into()),
    };
    let glossary = Arc::new(Glossary::load(std::path::Path::new(glossary))?);
    let posts: Vec<Post> = std::fs::read_to_string(posts)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let started = Instant::now();
    let retriever = retrieve::build(spec, &glossary, &Params::default())?;
    let built = started.elapsed().as_secs_f64();
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let mut out = Vec::new();
    for post in &posts {
        for m in best_per_entry(retriever.retrieve(&PostView::new(&post.text, None))?) {
            writeln!(out, "{}\t{}", post.id, glossary.entries[m.entry].id)?;
        }
    }
    let (looped, cpu) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    std::io::stdout().lock().write_all(&out)?;
    eprintln!(
        "glossa {spec} build {built:.4} s, loop {looped:.4} s (cpu {cpu:.4} s), {} posts",
        posts.len()
    );
    Ok(())
}
