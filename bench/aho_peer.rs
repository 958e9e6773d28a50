//! The Aho-Corasick peer of `glossa`'s `exact` (README "Speed", `exact`
//! beside an automaton): the same job with no glossa code — read a glossary
//! and posts, find every source written in a post (case-insensitively,
//! whitespace runs equal, `’` equal to `'`, not inside a longer word),
//! write each post's entries — with one automaton over the sources (the
//! aho-corasick crate), matched overlapping, each match's ends checked.
//! On stderr: the build's seconds and the query loop's, wall and CPU
//! (posts in memory to the lines in a buffer).
//!
//!   cargo run --release --example aho_peer -- GLOSSARY.json POSTS.jsonl > pairs.tsv
//!
//! Output: `post<TAB>entry id` per entry found, entries in glossary order;
//! `bench/exact_loop.rs` writes the same lines with glossa's `exact`.

use aho_corasick::{AhoCorasick, MatchKind};
use std::io::Write;
use std::time::Instant;

#[derive(serde::Deserialize)]
struct Glossary {
    entries: Vec<Entry>,
}
#[derive(serde::Deserialize)]
struct Entry {
    id: String,
    source: String,
}
#[derive(serde::Deserialize)]
struct Post {
    id: String,
    text: String,
}

/// `text` lower-cased into `out`, `’` as `'`, runs of spaces and tabs as one space.
fn normalise(text: &str, out: &mut String) {
    out.clear();
    let mut space = false;
    for c in text.chars() {
        let blank = c == ' ' || c == '\t';
        if !(blank && space) {
            match c {
                ' ' | '\t' => out.push(' '),
                '’' => out.push('\''),
                c if c.is_ascii() => out.push(c.to_ascii_lowercase()),
                c => out.extend(c.to_lowercase()),
            }
        }
        space = blank;
    }
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
    let [glossary, posts] = &args[..] else {
        return Err("usage: aho_peer GLOSSARY.json POSTS.jsonl".into());
    };
    let glossary: Glossary = serde_json::from_str(&std::fs::read_to_string(glossary)?)?;
    let posts: Vec<Post> = std::fs::read_to_string(posts)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let started = Instant::now();
    let mut key = String::new();
    let keys: Vec<String> = (glossary.entries.iter())
        .map(|e| (normalise(e.source.trim(), &mut key), key.clone()).1)
        .collect();
    let automaton = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(&keys)?;
    let built = started.elapsed().as_secs_f64();
    let (started, cpu) = (Instant::now(), cpu_seconds());
    let (mut out, mut text, mut found) = (Vec::new(), String::new(), Vec::new());
    for post in &posts {
        normalise(&post.text, &mut text);
        let word = |at: Option<char>| at.is_some_and(char::is_alphanumeric);
        found.clear();
        for m in automaton.find_overlapping_iter(&text) {
            let (before, after) = (
                text[..m.start()].chars().next_back(),
                text[m.end()..].chars().next(),
            );
            if !word(before) && !word(after) {
                found.push(m.pattern().as_usize());
            }
        }
        found.sort_unstable();
        found.dedup();
        for &e in &found {
            writeln!(out, "{}\t{}", post.id, glossary.entries[e].id)?;
        }
    }
    let (looped, cpu) = (started.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    std::io::stdout().lock().write_all(&out)?;
    eprintln!(
        "aho-corasick build {built:.4} s, loop {looped:.4} s (cpu {cpu:.4} s), {} posts",
        posts.len()
    );
    Ok(())
}
