//! `glossa compile`, and the glossary a command loads: the entries its
//! posts could match from the compiled glossary, or the whole file
//! (docs/formats.md, "Compiled glossaries").

use crate::cli::{CompileArgs, CompiledArgs, CompiledMode};
use glossa::compiled::{self, Compiled, Freshness};
use glossa::glossary::Glossary;
use glossa::retrieve::Params;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

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

/// The library's [`compiled::Use`] of `--compiled`.
pub fn mode(mode: CompiledMode) -> compiled::Use {
    match mode {
        CompiledMode::Auto => compiled::Use::Auto,
        CompiledMode::Always => compiled::Use::Always,
        CompiledMode::Never => compiled::Use::Never,
    }
}

/// The compiled glossary to read the glossary at `path` from, if any: the
/// `--index` file (refused unless compiled from the glossary as it is
/// now), or the cache folder's when `args` say so for `posts()` posts
/// (opened fresh, or built or rebuilt: said on stderr).
pub fn open_for(
    path: &Path,
    args: &CompiledArgs,
    cache_dir: &Path,
    posts: impl FnOnce() -> usize,
) -> anyhow::Result<Option<Arc<Compiled>>> {
    if let Some(index) = &args.index {
        return Ok(Some(Compiled::open_for(path, index)?));
    }
    if !compiled::wanted(mode(args.mode), path, posts) {
        return Ok(None);
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
    Ok(Some(compiled))
}

/// The glossary for retrieving with `spec` and `params` on `texts` (of
/// `posts` posts): from the compiled file the entries the texts could
/// match, when `args` say so; else the whole glossary.
pub fn glossary_for(
    path: &Path,
    args: &CompiledArgs,
    cache_dir: &Path,
    spec: &str,
    params: &Params,
    texts: &[&str],
    posts: usize,
) -> anyhow::Result<Glossary> {
    match open_for(path, args, cache_dir, || posts)? {
        Some(compiled) => load(&compiled, &[spec], params, texts, [], false),
        None => Ok(super::load_glossary(path)?),
    }
}

/// [`Compiled::load`]: the candidates of `texts` and the entries `ids`, or
/// all of the glossary when a spec needs it (said in a note).
pub fn load<'i, S: AsRef<str>>(
    compiled: &Arc<Compiled>,
    specs: &[&str],
    params: &Params,
    texts: impl IntoIterator<Item = S>,
    ids: impl IntoIterator<Item = &'i str>,
    labelled: bool,
) -> anyhow::Result<Glossary> {
    let loaded = compiled.load(specs, params, texts, ids, labelled)?;
    if let Some(why) = loaded.whole {
        eprintln!(
            "{}: {why}: all {} entries are loaded from {}",
            super::style::note(),
            compiled.len(),
            compiled.path().display()
        );
    }
    Ok(loaded.glossary)
}
