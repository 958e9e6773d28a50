//! Where the memory of the retrieval indexes goes: loads a glossary, then
//! builds each retriever alone and reports the bytes it keeps (live heap
//! after the build, counted by a wrapping allocator), the peak during its
//! build and the build time.
//!
//!   cargo run --release --example footprint -- GLOSSARY [SPEC...]
//!
//! Default specs: exact normalised fuzzy edit split alias glossa.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
            PEAK.fetch_max(now, Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: footprint GLOSSARY [SPEC...]");
        std::process::exit(2);
    };
    let specs: Vec<&str> = if args.len() > 1 {
        args[1..].iter().map(String::as_str).collect()
    } else {
        vec![
            "exact",
            "normalised",
            "fuzzy",
            "edit",
            "split",
            "alias",
            "glossa",
        ]
    };
    let before = LIVE.load(Relaxed);
    let started = Instant::now();
    let glossary = Arc::new(glossa::glossary::Glossary::load(std::path::Path::new(path)).unwrap());
    println!(
        "{:<12} {:>10.1} MB kept {:>10.1} MB peak {:>8.3} s",
        "glossary",
        mb(LIVE.load(Relaxed) - before),
        mb(PEAK.load(Relaxed) - before),
        started.elapsed().as_secs_f64()
    );
    let params = glossa::retrieve::Params::default();
    for spec in specs {
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        let started = Instant::now();
        let r = glossa::retrieve::build(spec, &glossary, &params).unwrap();
        let took = started.elapsed().as_secs_f64();
        println!(
            "{:<12} {:>10.1} MB kept {:>10.1} MB peak {:>8.3} s",
            spec,
            mb(LIVE.load(Relaxed) - before),
            mb(PEAK.load(Relaxed) - before),
            took
        );
        drop(r);
    }
}
