//! `glossa run`: the batch experiment over labelled posts.

use crate::cli::{ProviderArgs, RetrieverArgs, RunArgs, SplitChoice};
use crate::dataset::Split;
use crate::generate::batch::{self, Todo, CALLS_FILE, SUMMARY_FILE};
use crate::generate::pipeline::Pipeline;
use crate::generate::prompt::Template;
use crate::report;
use crate::retrieve::{self, expand_list, Params};
use crate::runs;
use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

const CONFIG_FILE: &str = "run.json";

/// What a run was started with, saved as `DIR/run.json` so `--resume`
/// continues with exactly the same settings. Holds the name of the key's
/// environment variable, never the key.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunConfig {
    glossary: PathBuf,
    posts: PathBuf,
    labels: PathBuf,
    retrievers: Vec<String>,
    params: RetrieverArgs,
    split: SplitChoice,
    repeat: u32,
    provider: ProviderArgs,
    glossa_version: String,
}

fn load_config(dir: &Path) -> anyhow::Result<RunConfig> {
    let path = dir.join(CONFIG_FILE);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "{}: cannot read; is {} a run folder made by `glossa run`?",
            path.display(),
            dir.display()
        )
    })?;
    serde_json::from_str(&text)
        .with_context(|| format!("{}: not a run configuration", path.display()))
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let (dir, config, todo) = match (&args.resume, &args.retry_errors) {
        (Some(dir), _) => (dir.clone(), load_config(dir)?, Todo::Missing),
        (_, Some(dir)) => (dir.clone(), load_config(dir)?, Todo::Failed),
        _ => {
            let config = RunConfig {
                glossary: args.glossary.clone(),
                posts: args.posts.clone(),
                labels: args.labels.clone(),
                retrievers: expand_list(&args.retriever),
                params: args.params.clone(),
                split: args.split,
                repeat: args.repeat,
                provider: args.provider.clone(),
                glossa_version: env!("CARGO_PKG_VERSION").to_string(),
            };
            let dir = args.out.clone().unwrap_or_else(|| {
                let suite = runs::suite_name(&config.posts.display().to_string());
                PathBuf::from(runs::RUNS_DIR).join(format!("{}_{suite}_run", runs::utc_timestamp()))
            });
            (dir, config, Todo::Missing)
        }
    };
    if config.retrievers.is_empty() {
        anyhow::bail!("--retriever names no retriever");
    }

    let glossary = Arc::new(super::load_glossary(&config.glossary)?);
    let mut posts = super::load_labelled(&glossary, &config.posts, &config.labels)?;
    match config.split {
        SplitChoice::All => {}
        SplitChoice::Dev => posts.retain(|p| p.label.split == Split::Dev),
        SplitChoice::Test => posts.retain(|p| p.label.split == Split::Test),
    }
    if posts.is_empty() {
        anyhow::bail!("no labelled posts to run in {}", config.labels.display());
    }
    let params = Params::from(&config.params);
    let template = super::translate_template(&config.provider)?;
    let client = Arc::new(super::build_client(&config.provider)?);
    let pipelines = config
        .retrievers
        .iter()
        .map(|spec| {
            Ok(Arc::new(Pipeline {
                glossary: Arc::clone(&glossary),
                retriever_name: spec.clone(),
                retriever: Arc::from(retrieve::build(spec, &glossary, &params)?),
                template: template.clone(),
                simplify: config.provider.simplify,
                simplify_template: Template::builtin("simplify.v1"),
                client: Arc::clone(&client),
            }))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;

    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if args.resume.is_none() && args.retry_errors.is_none() {
        if dir.join(CALLS_FILE).exists() {
            anyhow::bail!(
                "{} already holds a run; continue it with --resume {}",
                dir.display(),
                dir.display()
            );
        }
        std::fs::write(
            dir.join(CONFIG_FILE),
            serde_json::to_string_pretty(&config)? + "\n",
        )
        .with_context(|| format!("cannot write {}", dir.join(CONFIG_FILE).display()))?;
    }
    let status = batch::call_status(&dir.join(CALLS_FILE))?;
    let calls = batch::plan(&pipelines, &posts, config.repeat, &status, todo);
    drop(status);
    let total = pipelines.len() * posts.len() * config.repeat as usize;
    eprintln!(
        "{}: {} calls to make ({} retrievers x {} repeats x {} posts{}), {} at a time",
        dir.display(),
        calls.len(),
        pipelines.len(),
        config.repeat,
        posts.len(),
        if calls.len() < total {
            format!("; {} already done", total - calls.len())
        } else {
            String::new()
        },
        args.concurrency
    );

    let progress = indicatif::ProgressBar::new(calls.len() as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} calls, {msg}, {per_sec}, ETA {eta}",
        )
        .expect("valid progress template"),
    );
    progress.set_message("0 failed");
    let split_of: std::collections::HashMap<String, Split> = posts
        .iter()
        .map(|p| (p.post.id.clone(), p.label.split))
        .collect();
    let outcome = super::runtime()?.block_on(batch::execute(
        &dir,
        pipelines,
        Arc::new(posts),
        calls,
        args.concurrency,
        &progress,
    ))?;
    progress.finish_and_clear();

    let summary = batch::summarise_file(&dir, &config.retrievers)?;
    std::fs::write(
        dir.join(SUMMARY_FILE),
        serde_json::to_string_pretty(&summary)? + "\n",
    )
    .with_context(|| format!("cannot write {}", dir.join(SUMMARY_FILE).display()))?;
    // Dev and test side by side when the posts carry both.
    let by_split = report::run_split::summarise(&dir, &config.retrievers, &split_of)?;
    let rendered = report::run_split::render(&summary, &by_split, args.format);
    super::emit(&rendered)?;
    eprintln!(
        "calls: {}; summary: {}",
        dir.join(CALLS_FILE).display(),
        dir.join(SUMMARY_FILE).display()
    );

    if outcome.interrupted {
        eprintln!(
            "interrupted after {} calls this time; continue with: glossa run --resume {}",
            outcome.done,
            dir.display()
        );
        return Ok(ExitCode::from(130));
    }
    if let Some(reason) = outcome.stopped {
        eprintln!(
            "stopped early: {reason}\nwhen that is fixed, continue with: glossa run --retry-errors {} and then --resume {}",
            dir.display(),
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    if summary.failed > 0 {
        eprintln!(
            "{} calls failed (their errors are in {}); redo them with: glossa run --retry-errors {}",
            summary.failed,
            dir.join(CALLS_FILE).display(),
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
