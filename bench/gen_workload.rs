//! Deterministic synthetic workload for benchmarks: a glossary of N entries
//! (1–3-word sources of invented words, invented targets, some aliases) and
//! M labelled posts of about 25 words, each with 1–3 planted entries, some
//! inflected or misspelled.
//!
//!   cargo run --release --example gen_workload -- OUT_DIR ENTRIES POSTS [SEED]
//!
//! writes OUT_DIR/glossary.json, OUT_DIR/posts.jsonl, OUT_DIR/labels.jsonl.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// splitmix64: small, seeded, good enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const ONSETS: [&str; 20] = [
    "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st", "tr", "pl",
    "gr", "sh",
];
const VOWELS: [&str; 8] = ["a", "e", "i", "o", "u", "ai", "ou", "ee"];
const CODAS: [&str; 8] = ["", "n", "r", "l", "s", "k", "m", "t"];
const FILLER: [&str; 24] = [
    "our", "the", "new", "fresh", "today", "with", "every", "and", "for", "you", "come", "try",
    "now", "this", "week", "best", "open", "from", "all", "great", "taste", "made", "local",
    "just",
];

/// An invented word of 2–3 syllables.
fn word(rng: &mut Rng) -> String {
    let syllables = 2 + rng.below(2);
    let mut w = String::new();
    for _ in 0..syllables {
        w.push_str(ONSETS[rng.below(ONSETS.len())]);
        w.push_str(VOWELS[rng.below(VOWELS.len())]);
        w.push_str(CODAS[rng.below(CODAS.len())]);
    }
    w
}

/// One character replaced or dropped, away from the first letter.
fn misspell(rng: &mut Rng, w: &str) -> String {
    let mut chars: Vec<char> = w.chars().collect();
    if chars.len() < 5 {
        return w.to_string();
    }
    let at = 1 + rng.below(chars.len() - 2);
    if rng.chance(50) {
        chars.remove(at);
    } else {
        chars[at] = if chars[at] == 'e' { 'a' } else { 'e' };
    }
    chars.into_iter().collect()
}

#[allow(dead_code)] // the criterion benches include this file for `generate` only
fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: gen_workload OUT_DIR ENTRIES POSTS [SEED]");
        std::process::exit(2);
    }
    let out = PathBuf::from(&args[0]);
    let entries: usize = args[1].parse().expect("ENTRIES is a number");
    let posts: usize = args[2].parse().expect("POSTS is a number");
    let seed = args
        .get(3)
        .map_or(42, |s| s.parse().expect("SEED is a number"));
    std::fs::create_dir_all(&out)?;
    let mut g = BufWriter::new(File::create(out.join("glossary.json"))?);
    let mut p = BufWriter::new(File::create(out.join("posts.jsonl"))?);
    let mut l = BufWriter::new(File::create(out.join("labels.jsonl"))?);
    generate(entries, posts, seed, &mut g, &mut p, &mut l)?;
    g.flush()?;
    p.flush()?;
    l.flush()
}

/// Writes the glossary JSON to `g`, the posts to `p`, the labels to `l`.
pub fn generate(
    entries: usize,
    posts: usize,
    seed: u64,
    g: &mut impl Write,
    p: &mut impl Write,
    l: &mut impl Write,
) -> std::io::Result<()> {
    let mut rng = Rng(seed);

    let vocabulary: Vec<String> = {
        let mut seen = HashSet::new();
        let mut v = Vec::new();
        while v.len() < (entries * 2).max(1000) {
            let w = word(&mut rng);
            if seen.insert(w.clone()) {
                v.push(w);
            }
        }
        v
    };
    let mut sources: Vec<String> = Vec::with_capacity(entries);
    let mut seen = HashSet::new();
    while sources.len() < entries {
        let n = 1 + rng.below(3);
        let s = (0..n)
            .map(|_| vocabulary[rng.below(vocabulary.len())].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if seen.insert(s.clone()) {
            sources.push(s);
        }
    }

    writeln!(g, "{{\"name\": \"synthetic\", \"source_lang\": \"en\", \"target_lang\": \"x-synth\", \"entries\": [")?;
    for (i, source) in sources.iter().enumerate() {
        let alias = if rng.chance(10) {
            format!(", \"aliases\": [\"{}\"]", word(&mut rng))
        } else {
            String::new()
        };
        let comma = if i + 1 < sources.len() { "," } else { "" };
        writeln!(
            g,
            "  {{\"id\": \"e{i}\", \"source\": \"{source}\", \"target\": \"{}\"{alias}}}{comma}",
            word(&mut rng)
        )?;
    }
    writeln!(g, "]}}")?;

    for i in 0..posts {
        let mut planted: Vec<usize> = (0..1 + rng.below(3)).map(|_| rng.below(entries)).collect();
        planted.sort_unstable();
        planted.dedup();
        // Units, so a planted entry is never inserted inside another one.
        let mut units: Vec<Vec<String>> = (0..22)
            .map(|_| vec![FILLER[rng.below(FILLER.len())].to_string()])
            .collect();
        let mut tags = vec!["as-is"];
        for &e in &planted {
            let mut parts: Vec<String> = sources[e].split(' ').map(str::to_string).collect();
            let last = parts.len() - 1;
            match rng.below(10) {
                0 | 1 => {
                    parts[last].push('s');
                    tags = vec!["plural-tense"];
                }
                2 => {
                    parts[last] = misspell(&mut rng, &parts[last]);
                    tags = vec!["typo"];
                }
                _ => {}
            }
            let at = rng.below(units.len());
            units.insert(at, parts);
        }
        let needed: Vec<String> = planted.iter().map(|e| format!("\"e{e}\"")).collect();
        let split = if i % 2 == 0 { "dev" } else { "test" };
        writeln!(
            p,
            "{{\"id\": \"s{i}\", \"text\": \"{}.\"}}",
            units.concat().join(" ")
        )?;
        writeln!(
            l,
            "{{\"post\": \"s{i}\", \"needed\": [{}], \"tags\": [\"{}\"], \"split\": \"{split}\"}}",
            needed.join(", "),
            tags[0]
        )?;
    }
    Ok(())
}
