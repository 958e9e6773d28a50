//! `glossa run`: the batch experiment over labelled posts. Live (every call
//! through the provider), or through the OpenAI Batch API: `--batch-out`
//! writes the requests, `--batch-in` checks the results; `--shard I/N`
//! takes one deterministic share of the calls.

use crate::cli::{ProviderArgs, RetrieverArgs, RunArgs, SplitChoice};
use crate::dataset::{LabelledPost, Split};
use crate::fsutil::write_atomic;
use crate::generate::batch::{self, Shard, Summary, Todo, CALLS_FILE, SUMMARY_FILE};
use crate::generate::batch_api::{self, IngestRun, Sampling};
use crate::generate::check::{CheckMode, Checker};
use crate::generate::pipeline::Pipeline;
use crate::generate::prices::Prices;
use crate::generate::prompt::Template;
use crate::generate::provider::{self, Client, RetryPolicy, Settings};
use crate::generate::simplify::Simplify;
use crate::glossary::Glossary;
use crate::limits;
use crate::report::{self, Format};
use crate::retrieve::{self, expand_list, Params};
use crate::run_dir::calls;
use crate::runs;
use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub(crate) const CONFIG_FILE: &str = "run.json";

/// What a run was started with, saved as `DIR/run.json` so `--resume`
/// continues with exactly the same settings. Holds the name of the key's
/// environment variable, never the key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RunConfig {
    pub glossary: PathBuf,
    pub posts: PathBuf,
    pub labels: PathBuf,
    pub retrievers: Vec<String>,
    pub params: RetrieverArgs,
    pub split: SplitChoice,
    pub repeat: u32,
    pub provider: ProviderArgs,
    pub glossa_version: String,
    /// The share of the calls this folder holds (`--shard I/N`); absent:
    /// every call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// SHA-256 of the inputs' contents when the run started, so that a
    /// resumed run, a batch's results and merged shards are known to be
    /// about the same glossary, posts, labels and prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Inputs>,
    /// The run folders `glossa merge` made this one from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<PathBuf>,
    /// How the output check counts nested and shared targets (`--check`).
    #[serde(default, skip_serializing_if = "CheckMode::is_default")]
    pub check: CheckMode,
}

/// Content fingerprints (SHA-256, hex) of a run's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Inputs {
    pub glossary: String,
    pub posts: String,
    pub labels: String,
    /// Of the translate template's name, version and text.
    pub prompt: String,
}

impl Inputs {
    fn of(config: &RunConfig, template: &Template) -> anyhow::Result<Inputs> {
        use sha2::{Digest, Sha256};
        let mut prompt = Sha256::new();
        for part in [&template.name, &template.version, &template.body] {
            prompt.update(part.as_bytes());
            prompt.update([0]);
        }
        Ok(Inputs {
            glossary: fingerprint(&config.glossary)?,
            posts: fingerprint(&config.posts)?,
            labels: fingerprint(&config.labels)?,
            prompt: hex(&prompt.finalize()),
        })
    }

    /// The inputs that differ from `other`'s, by name.
    fn differences(&self, other: &Inputs) -> Vec<&'static str> {
        [
            ("glossary", self.glossary == other.glossary),
            ("posts", self.posts == other.posts),
            ("labels", self.labels == other.labels),
            ("prompt", self.prompt == other.prompt),
        ]
        .into_iter()
        .filter(|(_, same)| !same)
        .map(|(name, _)| name)
        .collect()
    }
}

/// SHA-256 of a file's bytes, streamed (a missing demo file: of the
/// built-in copy).
fn fingerprint(path: &Path) -> anyhow::Result<String> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    match std::fs::File::open(path) {
        Ok(mut file) => {
            use std::io::Read as _;
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = file
                    .read(&mut buf)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
        }
        Err(e) => match crate::demo::builtin(&path.display().to_string()) {
            Some(text) if e.kind() == std::io::ErrorKind::NotFound => {
                hasher.update(text.as_bytes())
            }
            _ => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        },
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn load_config(dir: &Path) -> anyhow::Result<RunConfig> {
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

pub(crate) fn write_config(dir: &Path, config: &RunConfig) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(config)? + "\n";
    Ok(write_atomic(&dir.join(CONFIG_FILE), json)?)
}

/// Why two run folders cannot be merged: the settings that decide the
/// calls or their answers, where they differ. `None` when they agree.
pub(crate) fn incompatibility(a: &RunConfig, b: &RunConfig) -> Option<String> {
    let mut diffs: Vec<String> = Vec::new();
    match (&a.inputs, &b.inputs) {
        (Some(x), Some(y)) => diffs.extend(
            x.differences(y)
                .into_iter()
                .map(|name| format!("{name} (different contents)")),
        ),
        // Folders from before fingerprints: compare the paths.
        _ => {
            for (name, x, y) in [
                ("glossary", &a.glossary, &b.glossary),
                ("posts", &a.posts, &b.posts),
                ("labels", &a.labels, &b.labels),
            ] {
                if x != y {
                    diffs.push(format!("{name} ({} vs {})", x.display(), y.display()));
                }
            }
            if a.provider.prompt != b.provider.prompt {
                diffs.push("prompt".to_string());
            }
        }
    }
    let mut differ = |name: &str, same: bool, x: String, y: String| {
        if !same {
            diffs.push(format!("{name} ({x} vs {y})"));
        }
    };
    differ(
        "retrievers",
        a.retrievers == b.retrievers,
        a.retrievers.join(","),
        b.retrievers.join(","),
    );
    let params = |c: &RunConfig| serde_json::to_string(&c.params).unwrap_or_default();
    differ(
        "retriever parameters",
        params(a) == params(b),
        params(a),
        params(b),
    );
    differ(
        "split",
        a.split == b.split,
        a.split.name().to_string(),
        b.split.name().to_string(),
    );
    differ(
        "check",
        a.check == b.check,
        a.check.name().to_string(),
        b.check.name().to_string(),
    );
    differ(
        "repeat",
        a.repeat == b.repeat,
        a.repeat.to_string(),
        b.repeat.to_string(),
    );
    let (p, q) = (&a.provider, &b.provider);
    differ(
        "provider",
        p.provider == q.provider,
        p.provider.clone(),
        q.provider.clone(),
    );
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_string());
    differ("model", p.model == q.model, opt(&p.model), opt(&q.model));
    // Settings compared as they are shown.
    for (name, x, y) in [
        (
            "temperature",
            format!("{:?}", p.temperature),
            format!("{:?}", q.temperature),
        ),
        ("seed", format!("{:?}", p.seed), format!("{:?}", q.seed)),
        (
            "max tokens",
            format!("{:?}", p.max_tokens),
            format!("{:?}", q.max_tokens),
        ),
        (
            "max tokens field",
            format!("{:?}", p.max_tokens_field),
            format!("{:?}", q.max_tokens_field),
        ),
        (
            "simplify",
            format!("{:?}", p.simplify),
            format!("{:?}", q.simplify),
        ),
    ] {
        differ(name, x == y, x, y);
    }
    (!diffs.is_empty()).then(|| diffs.join("; "))
}

/// The glossary and the labelled posts a run covers (its split only).
pub(crate) fn load_posts(config: &RunConfig) -> anyhow::Result<(Arc<Glossary>, Vec<LabelledPost>)> {
    let glossary = Arc::new(super::load_glossary(&config.glossary)?);
    let mut posts = super::load_labelled(&glossary, &config.posts, &config.labels)?;
    posts.retain(|p| config.split.keeps(p.label.split));
    if posts.is_empty() {
        anyhow::bail!("no labelled posts to run in {}", config.labels.display());
    }
    Ok((glossary, posts))
}

/// Each post's split.
pub(crate) fn splits(posts: &[LabelledPost]) -> HashMap<String, Split> {
    posts
        .iter()
        .map(|p| (p.post.id.clone(), p.label.split))
        .collect()
}

/// Summarise `DIR/calls.jsonl`, save `summary.json`, print the tables.
pub(crate) fn report(
    dir: &Path,
    retrievers: &[String],
    split_of: &HashMap<String, Split>,
    format: Format,
    prices: Option<&Prices>,
) -> anyhow::Result<Summary> {
    let mut summary = batch::summarise_file(dir, retrievers)?;
    if let Some(prices) = prices {
        summary.price(prices);
    }
    write_atomic(
        &dir.join(SUMMARY_FILE),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;
    // Dev and test side by side when the posts carry both.
    let mut by_split = report::run_split::summarise(dir, retrievers, split_of)?;
    if let Some(prices) = prices {
        by_split.values_mut().for_each(|s| s.price(prices));
    }
    let rendered = report::run_split::render(&summary, &by_split, format);
    super::emit(&rendered)?;
    eprintln!(
        "calls: {}; summary: {}",
        dir.join(CALLS_FILE).display(),
        dir.join(SUMMARY_FILE).display()
    );
    Ok(summary)
}

/// Where the calls' answers come from.
enum Mode {
    Live,
    BatchOut(PathBuf),
    BatchIn(Vec<PathBuf>),
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mode = match (&args.batch_out, args.batch_in.is_empty()) {
        (Some(file), _) => Mode::BatchOut(file.clone()),
        (None, false) => Mode::BatchIn(args.batch_in.clone()),
        (None, true) => Mode::Live,
    };
    let batch = !matches!(mode, Mode::Live);
    let fresh = args.resume.is_none() && args.retry_errors.is_none();
    let (dir, mut config, todo) = match (&args.resume, &args.retry_errors) {
        (Some(dir), _) => (dir.clone(), load_config(dir)?, Todo::Missing),
        (_, Some(dir)) => (dir.clone(), load_config(dir)?, Todo::Failed),
        _ => {
            let mut provider = args.provider.clone();
            if batch {
                provider.provider = batch_provider(&provider.provider)?;
            }
            let config = RunConfig {
                glossary: args.data.glossary.clone(),
                posts: args.data.posts.clone(),
                labels: args.data.labels.clone(),
                retrievers: expand_list(&args.retriever),
                params: args.params.clone(),
                split: args.split,
                repeat: args.repeat,
                provider,
                glossa_version: env!("CARGO_PKG_VERSION").to_string(),
                shard: args.shard.filter(|s| s.count > 1),
                inputs: None,
                merged_from: Vec::new(),
                check: args.check,
            };
            let dir = match args.out.clone() {
                Some(dir) => dir,
                None => {
                    let suite = runs::suite_name(&config.posts.display().to_string());
                    let shard = config
                        .shard
                        .map(|s| format!("_shard{}of{}", s.index, s.count))
                        .unwrap_or_default();
                    let runs_dir = PathBuf::from(runs::RUNS_DIR);
                    runs::unique_path(&runs_dir, &format!("{suite}{shard}_run"), "").with_context(
                        || format!("cannot make a run folder in {}", runs_dir.display()),
                    )?
                }
            };
            (dir, config, Todo::Missing)
        }
    };
    if config.retrievers.is_empty() {
        anyhow::bail!("--retriever names no retriever");
    }
    let prices = args.prices.as_deref().map(Prices::load).transpose()?;
    if let (Some(seed), true) = (config.provider.seed, config.repeat > 1) {
        eprintln!(
            "warning: --seed {seed} with --repeat {}: every repeat sends the same seed, so where the \
             provider honours it the repeats are the same sample, not independent ones (leave out \
             --seed to measure variation)",
            config.repeat
        );
    }
    if batch {
        check_batch_config(&config, &mode, fresh, &dir)?;
    }

    let (glossary, posts) = load_posts(&config)?;
    // Before anything is planned: a typo'd --repeat (or a run.json edited
    // by hand) must not plan billions of calls.
    if let Err(e) = limits::check_calls(
        config.retrievers.len(),
        config.repeat,
        posts.len(),
        args.max_calls,
    ) {
        if fresh {
            anyhow::bail!("{e}");
        }
        anyhow::bail!("{}: {e}", dir.join(CONFIG_FILE).display());
    }
    let params = Params::from(&config.params);
    let template = super::translate_template(&config.provider)?;
    let inputs = Inputs::of(&config, &template)?;
    if fresh {
        config.inputs = Some(inputs);
    } else if let Some(saved) = &config.inputs {
        {
            let changed = saved.differences(&inputs);
            if !changed.is_empty() {
                let what = format!(
                    "{} changed since the run in {} started",
                    changed.join(", "),
                    dir.display()
                );
                if matches!(mode, Mode::BatchIn(_)) {
                    anyhow::bail!(
                        "{what}: the batch's prompts were made from the old inputs, so its outputs \
                         cannot be checked against the new ones; restore them, or start a new run"
                    );
                }
                eprintln!("warning: {what}; the new calls will not be comparable with the old");
            }
        }
    }
    // Batch modes make no model call: the pipeline's client is never used.
    let client = Arc::new(if batch {
        let offline = provider::build("offline", &Settings::default())?;
        Client::new(vec![offline], RetryPolicy::default(), None)
    } else {
        super::build_client(&config.provider)?
    });
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
                check: Checker::new(config.check, &glossary.target_lang)?,
            }))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;

    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if fresh {
        if dir.join(CALLS_FILE).exists() {
            anyhow::bail!(
                "{} already holds a run; continue it with --resume {}",
                dir.display(),
                dir.display()
            );
        }
        write_config(&dir, &config)?;
    }
    if !config.check.is_default() {
        eprintln!(
            "output check: {} (not the default; see docs/formats.md, \"Generation check\")",
            config.check.name()
        );
    }
    let shard = config.shard.unwrap_or(Shard::WHOLE);
    if !matches!(mode, Mode::BatchOut(_)) {
        // This run appends: a torn last line is cut away now, so its call
        // counts as not made.
        calls::repair_tail(&dir.join(CALLS_FILE))?;
    }
    let status = batch::call_status(&dir.join(CALLS_FILE))?;
    let (calls, total) = batch::plan(&pipelines, &posts, config.repeat, shard, &status, todo);
    drop(status);
    let shape = format!(
        "{} retrievers x {} repeats x {} posts{}{}",
        pipelines.len(),
        config.repeat,
        posts.len(),
        if shard.count > 1 {
            format!(", shard {shard}: {total} calls")
        } else {
            String::new()
        },
        if calls.len() < total {
            format!("; {} already done", total - calls.len())
        } else {
            String::new()
        }
    );

    let split_of = splits(&posts);
    match mode {
        Mode::BatchOut(file) => batch_out(
            &file, &dir, &config, &pipelines, &posts, &calls, &shape, todo,
        ),
        Mode::BatchIn(files) => {
            let ingested = batch_api::ingest(
                &files,
                &IngestRun {
                    dir: &dir,
                    pipelines: &pipelines,
                    posts: &posts,
                    repeats: config.repeat,
                    shard,
                    wanted: &calls,
                    model: config.provider.model.as_deref(),
                },
            )?;
            drop(calls);
            let files_shown = files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            eprintln!(
                "{}: {} result lines in {files_shown}; {} calls checked and recorded ({} failed){}",
                dir.display(),
                ingested.lines,
                ingested.recorded,
                ingested.failed,
                if ingested.skipped > 0 {
                    format!(
                        ", {} skipped (already recorded in {})",
                        ingested.skipped,
                        dir.display()
                    )
                } else {
                    String::new()
                }
            );
            let summary = report(
                &dir,
                &config.retrievers,
                &split_of,
                args.format,
                prices.as_ref(),
            )?;
            let status = batch::call_status(&dir.join(CALLS_FILE))?;
            let (missing, _) = batch::plan(
                &pipelines,
                &posts,
                config.repeat,
                shard,
                &status,
                Todo::Missing,
            );
            let mut code = ExitCode::SUCCESS;
            if summary.failed > 0 {
                eprintln!(
                    "{} calls failed (their errors are in {}); write a batch of them with: \
                     glossa run --batch-out FILE --retry-errors {} (or redo them live with --retry-errors {})",
                    summary.failed,
                    dir.join(CALLS_FILE).display(),
                    dir.display(),
                    dir.display()
                );
                code = ExitCode::from(1);
            }
            if !missing.is_empty() {
                eprintln!(
                    "{} of {total} calls have no result yet; write a batch of them with: \
                     glossa run --batch-out FILE --resume {} (or make them live with --resume {})",
                    missing.len(),
                    dir.display(),
                    dir.display()
                );
                code = ExitCode::from(1);
            }
            Ok(code)
        }
        Mode::Live => live(
            &args,
            &dir,
            pipelines,
            posts,
            calls,
            &shape,
            &config,
            &split_of,
            prices.as_ref(),
        ),
    }
}

/// The provider recorded for a new batch run: the Batch API is OpenAI's.
fn batch_provider(given: &str) -> anyhow::Result<String> {
    match given.trim() {
        // `offline` is the default of --provider: not a choice.
        "offline" | "openai" => Ok(batch_api::PROVIDER.to_string()),
        other => anyhow::bail!(
            "--batch-out and --batch-in use the OpenAI Batch API; --provider {other} cannot be used with them"
        ),
    }
}

fn check_batch_config(
    config: &RunConfig,
    mode: &Mode,
    fresh: bool,
    dir: &Path,
) -> anyhow::Result<()> {
    if config.provider.simplify == Simplify::Llm {
        anyhow::bail!(
            "--simplify llm needs a model call before each prompt exists, so it cannot go through a batch \
             file; use --simplify rules or none"
        );
    }
    if !fresh && config.provider.provider != batch_api::PROVIDER {
        anyhow::bail!(
            "the run in {} uses --provider {}; batch files hold OpenAI requests, so only a run with \
             --provider openai can continue through them (start a new run folder with --batch-out FILE --model M)",
            dir.display(),
            config.provider.provider
        );
    }
    if matches!(mode, Mode::BatchOut(_)) && config.provider.model.is_none() {
        anyhow::bail!(if fresh {
            "--batch-out needs --model (the model every request names)".to_string()
        } else {
            format!(
                "the run in {} has no --model, which --batch-out needs",
                dir.display()
            )
        });
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn batch_out(
    file: &Path,
    dir: &Path,
    config: &RunConfig,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    calls: &[(usize, u32, usize)],
    shape: &str,
    todo: Todo,
) -> anyhow::Result<ExitCode> {
    let p = &config.provider;
    let sampling = Sampling {
        model: p.model.clone().unwrap_or_default(),
        temperature: p.temperature,
        seed: p.seed,
        max_tokens: p.max_tokens,
        max_tokens_field: p.max_tokens_field,
    };
    let written = batch_api::write_requests(
        file,
        pipelines,
        posts,
        calls,
        &sampling,
        batch_api::Limits::OPENAI,
    )
    .with_context(|| format!("{}: cannot write the batch file", file.display()))?;
    eprintln!(
        "{}: wrote {written} requests ({shape}) to {}",
        dir.display(),
        file.display()
    );
    let again = match todo {
        Todo::Missing => "--resume",
        Todo::Failed => "--retry-errors",
    };
    if written > 0 {
        eprintln!(
            "submit it to the OpenAI Batch API (endpoint {}), then check the output file with:\n  \
             glossa run --batch-in RESULTS.jsonl {again} {}",
            batch_api::ENDPOINT,
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments)]
fn live(
    args: &RunArgs,
    dir: &Path,
    pipelines: Vec<Arc<Pipeline>>,
    posts: Vec<LabelledPost>,
    calls: Vec<(usize, u32, usize)>,
    shape: &str,
    config: &RunConfig,
    split_of: &HashMap<String, Split>,
    prices: Option<&Prices>,
) -> anyhow::Result<ExitCode> {
    eprintln!(
        "{}: {} calls to make ({shape}), {} at a time",
        dir.display(),
        calls.len(),
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
    let outcome = super::runtime()?.block_on(batch::execute(
        dir,
        pipelines,
        Arc::new(posts),
        calls,
        args.concurrency,
        args.stop_after_errors,
        &progress,
    ))?;
    progress.finish_and_clear();

    let summary = report(dir, &config.retrievers, split_of, args.format, prices)?;

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
