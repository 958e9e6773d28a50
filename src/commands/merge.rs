//! `glossa merge DIR... --out DIR`: the run folders of shards
//! (`glossa run --shard I/N`) into one run, with its summary and table.

use super::run::{load_posts, report, splits};
use crate::cli::MergeArgs;
use anyhow::Context as _;
use glossa::dataset::LabelledPost;
use glossa::dataset::Split;
use glossa::fsutil::AtomicFile;
use glossa::generate::prices::Prices;
use glossa::glossary::Glossary;
use glossa::limits;
use glossa::run_dir::calls::{for_each_call, CALLS_FILE};
use glossa::run_dir::config::CONFIG_FILE;
use glossa::run_dir::config::{incompatibility, load_config, write_config, RunConfig};
use glossa::run_dir::latest::Latest;
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let dirs = &args.dirs;
    let out = &args.out;
    let prices = args.prices.as_deref().map(Prices::load).transpose()?;
    let configs = dirs
        .iter()
        .map(|d| load_config(d))
        .collect::<Result<Vec<_>, _>>()?;
    check_folders(dirs, out, &configs)?;
    // The posts are read once, before anything is written: their number
    // bounds the run, as `glossa run` bounds it.
    let posts = load_posts(&configs[0]);
    let count = posts.as_ref().map_or(1, |(_, p)| p.len());
    for (dir, config) in dirs.iter().zip(&configs) {
        let checked = limits::check_calls(
            config.retrievers.len(),
            config.repeat,
            count,
            args.max_calls,
        );
        if let Err(e) = checked {
            anyhow::bail!("{}: {e}", dir.join(CONFIG_FILE).display());
        }
    }
    let (latest, seq) = latest_records(dirs)?;
    let path = out.join(CALLS_FILE);
    let written = write_latest(dirs, &latest, &path)?;

    let mut merged = configs[0].clone();
    merged.shard = None;
    merged.merged_from = dirs.iter().map(PathBuf::clone).collect();
    write_config(out, &merged)?;
    eprintln!(
        "{}: {written} calls from {} run folders{}",
        out.display(),
        dirs.len(),
        if seq > written {
            format!(
                " ({} repeated records dropped: the later folder's record wins)",
                seq - written
            )
        } else {
            String::new()
        }
    );
    warn_absent_shards(&configs);
    let (split_of, missing) = splits_and_missing(&merged, posts, &latest);
    drop(latest);

    let summary = report(
        out,
        &merged.retrievers,
        &split_of,
        args.format,
        prices.as_ref(),
    )?;
    let mut code = ExitCode::SUCCESS;
    if summary.failed > 0 {
        eprintln!(
            "{} calls failed (their errors are in {}); redo them with: glossa run --retry-errors {}",
            summary.failed,
            path.display(),
            out.display()
        );
        code = glossa::exit::Exit::Failed.into();
    }
    if let Some(missing) = missing.filter(|&m| m > 0) {
        eprintln!(
            "{missing} calls are in no folder; make them with: glossa run --resume {}",
            out.display()
        );
        code = glossa::exit::Exit::Failed.into();
    }
    Ok(code)
}

/// The folders are shards of one run, and `out` is a new folder.
fn check_folders(dirs: &[PathBuf], out: &Path, configs: &[RunConfig]) -> anyhow::Result<()> {
    for (dir, config) in dirs.iter().zip(configs).skip(1) {
        if let Some(why) = incompatibility(&configs[0], config) {
            anyhow::bail!(
                "cannot merge {} with {}: they differ in {why}; only shards of one run can be merged",
                dirs[0].display(),
                dir.display()
            );
        }
    }
    if let Some(d) = dirs.iter().find(|d| same_folder(d, out)) {
        anyhow::bail!(
            "--out {} is one of the folders to merge ({}); merge into a new folder",
            out.display(),
            d.display()
        );
    }
    if out.join(CALLS_FILE).exists() {
        anyhow::bail!(
            "{} already holds a run; merge into a new folder",
            out.display()
        );
    }
    Ok(())
}

/// Pass 1: which record of each call is the latest (later folders win,
/// and within a folder later lines, as the summary reads them), by its
/// place among all records; and how many records there are.
fn latest_records(dirs: &[PathBuf]) -> anyhow::Result<(Latest<usize>, usize)> {
    let mut latest: Latest<usize> = Latest::default();
    let mut seq = 0usize;
    for dir in dirs {
        let before = seq;
        for_each_call(&dir.join(CALLS_FILE), |r| {
            latest.record(&r, seq);
            seq += 1;
        })?;
        if seq == before {
            eprintln!(
                "warning: {} holds no calls (a --batch-out folder whose results were never read in?)",
                dir.display()
            );
        }
    }
    Ok((latest, seq))
}

/// Pass 2: write the latest records to `path`, atomically; how many.
fn write_latest(dirs: &[PathBuf], latest: &Latest<usize>, path: &Path) -> anyhow::Result<usize> {
    let mut writer = AtomicFile::create(path)?;
    let mut at = 0usize;
    let mut written = 0usize;
    let mut failure: Option<std::io::Error> = None;
    for dir in dirs {
        for_each_call(&dir.join(CALLS_FILE), |r| {
            if failure.is_none() && latest.get(&r.key()) == Some(&at) {
                let line = serde_json::to_string(&r).expect("a record serialises") + "\n";
                match writer.write_all(line.as_bytes()) {
                    Ok(()) => written += 1,
                    Err(e) => failure = Some(e),
                }
            }
            at += 1;
        })?;
    }
    if let Some(e) = failure {
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    writer.commit()?;
    Ok(written)
}

/// Shards of one split that are not among the folders.
fn warn_absent_shards(configs: &[RunConfig]) {
    let counts: BTreeSet<Option<u32>> = configs.iter().map(|c| c.shard.map(|s| s.count)).collect();
    if let [Some(count)] = counts.iter().copied().collect::<Vec<_>>()[..] {
        let have: BTreeSet<u32> = configs
            .iter()
            .filter_map(|c| c.shard)
            .map(|s| s.index)
            .collect();
        let absent: Vec<String> = (0..count)
            .filter(|i| !have.contains(i))
            .map(|i| format!("{i}/{count}"))
            .collect();
        if !absent.is_empty() {
            eprintln!("warning: no folder holds shard {}", absent.join(", "));
        }
    }
}

/// Each post's split, and how many of the run's calls no folder holds
/// (`None` when the posts cannot be read).
fn splits_and_missing(
    merged: &RunConfig,
    posts: anyhow::Result<(Arc<Glossary>, Vec<LabelledPost>)>,
    latest: &Latest<usize>,
) -> (HashMap<String, Split>, Option<usize>) {
    match posts {
        Ok((_, posts)) => {
            let mut missing = 0usize;
            for retriever in &merged.retrievers {
                for repeat in 1..=merged.repeat {
                    for p in &posts {
                        let key = (retriever.clone(), repeat, p.post.id.clone());
                        if !latest.contains(&key) {
                            missing += 1;
                        }
                    }
                }
            }
            (splits(&posts), Some(missing))
        }
        Err(e) => {
            eprintln!(
                "warning: cannot read the run's posts and labels ({e:#}); no dev/test tables, and missing calls are not counted"
            );
            (HashMap::new(), None)
        }
    }
}
