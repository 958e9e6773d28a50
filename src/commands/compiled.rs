//! `glossa compile`, and the glossary a command loads: the entries its
//! posts could match from the compiled glossary, or the whole file
//! (docs/formats.md, "Compiled glossaries").

use crate::cli::{CompileArgs, CompiledMode};
use glossa::compiled::{self, Compiled, Freshness};
use glossa::glossary::Glossary;
use glossa::retrieve::Params;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Glossary files from this size on are compiled under `--compiled auto`:
/// below it, parsing the JSON takes a few tens of milliseconds.
pub const AUTO_BYTES: u64 = 4 << 20;

/// Under `--compiled auto`, at most one post per this many bytes of
/// glossary: finding a post's candidates costs about a millisecond at 100k
/// entries, building the indexes in memory 4 µs per entry, so a large
/// batch is faster in memory (bench/compiled.sh).
pub const AUTO_BYTES_PER_POST: u64 = 20_000;

/// `glossa compile`.
pub fn run(args: CompileArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let out = match &args.out {
        Some(out) => out.clone(),
        None => compiled::cache_path(&args.cache_dir, &args.glossary),
    };
    let built = compiled::build(&args.glossary, &out)?;
    println!(
        "{}: {} entries compiled into {} ({:.1} MB) in {:.2} s",
        args.glossary.display(),
        built.entries,
        built.path.display(),
        built.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// Whether `mode` compiles the glossary at `path` for `posts` posts.
fn wanted(mode: CompiledMode, path: &Path, posts: usize) -> bool {
    match mode {
        CompiledMode::Never => false,
        // The built-in demo is no file to compile.
        CompiledMode::Always => path.is_file(),
        CompiledMode::Auto => std::fs::metadata(path)
            .is_ok_and(|m| m.len() >= AUTO_BYTES && posts as u64 <= m.len() / AUTO_BYTES_PER_POST),
    }
}

/// The glossary for retrieving with `spec` and `params` on `texts` (of
/// `posts` posts): from
/// the compiled file (kept fresh under `cache_dir`) the entries the texts
/// could match, when `mode` says so and the spec allows it; else the whole
/// glossary. Built or rebuilt files, and a spec that needs the whole
/// glossary, are said in a note on stderr.
pub fn glossary_for(
    path: &Path,
    mode: CompiledMode,
    cache_dir: &Path,
    spec: &str,
    params: &Params,
    texts: &[&str],
    posts: usize,
) -> anyhow::Result<Glossary> {
    if !wanted(mode, path, posts) {
        return Ok(super::load_glossary(path)?);
    }
    let file = compiled::cache_path(cache_dir, path);
    let (compiled, how) = compiled::open_fresh(path, &file)?;
    match how {
        Freshness::Fresh => {}
        Freshness::Built => eprintln!(
            "{}: compiled {} into {}",
            super::style::note(),
            path.display(),
            file.display()
        ),
        Freshness::Rebuilt(why) => eprintln!(
            "{}: rebuilt the compiled glossary: {why}",
            super::style::note()
        ),
    }
    part_for(&compiled, spec, params, texts)
}

/// The candidates' part of `compiled` for `texts`, or all of it when
/// `spec` needs the whole glossary (said in a note).
pub fn part_for(
    compiled: &Arc<Compiled>,
    spec: &str,
    params: &Params,
    texts: &[&str],
) -> anyhow::Result<Glossary> {
    if let Err(why) = compiled::supports(spec, params) {
        eprintln!(
            "{}: `{spec}` reads the whole glossary ({why}): all {} entries are loaded from {}",
            super::style::note(),
            compiled.len(),
            compiled.path().display()
        );
        return Ok(compiled.whole()?);
    }
    let ids = compiled.candidates(texts.iter().copied(), params)?;
    Ok(compiled.part(&ids)?)
}
