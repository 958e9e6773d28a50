//! `glossa run`: the batch experiment over labelled posts. Live (every call
//! through the provider), or through the OpenAI Batch API: `--batch-out`
//! writes the requests, `--batch-in` checks the results; `--shard I/N`
//! takes one deterministic share of the calls.

use crate::batch::api::{self as batch_api, IngestRun, Sampling};
use crate::batch::{self, Todo};
use crate::cli::RunArgs;
use crate::dataset::{LabelledPost, Split};
use crate::exit::Exit;
use crate::generate::check::Checker;
use crate::generate::pipeline::Pipeline;
use crate::generate::prices::Prices;
use crate::generate::prompt::Template;
use crate::generate::provider::{self, Settings};
use crate::generate::retry::{Client, RetryPolicy};
use crate::generate::simplify::Simplify;
use crate::glossary::Glossary;
use crate::limits;
use crate::report::{self, Format};
use crate::retrieve::{self, expand_list, Params};
use crate::run_dir::calls;
use crate::run_dir::calls::{call_status, CALLS_FILE};
use crate::run_dir::config::{
    write_config, Inputs, ProviderConfig, RunConfig, CONFIG_FILE, CONFIG_VERSION,
};
use crate::run_dir::shard::{self, FromScheduler, Shard, ShardArg};
use crate::run_dir::summary::save_summary;
use crate::run_dir::summary::{Summary, SUMMARY_FILE};
use crate::runs;
use anyhow::Context as _;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use crate::run_dir::config::load_config;

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
    let summary = save_summary(dir, retrievers, prices)?;
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

impl Mode {
    fn of(args: &RunArgs) -> Mode {
        match (&args.batch_out, args.batch_in.is_empty()) {
            (Some(file), _) => Mode::BatchOut(file.clone()),
            (None, false) => Mode::BatchIn(args.batch_in.clone()),
            (None, true) => Mode::Live,
        }
    }

    /// Through a batch file: no model is called.
    fn is_batch(&self) -> bool {
        !matches!(self, Mode::Live)
    }
}

/// A run folder opened for this invocation.
struct Opened {
    dir: PathBuf,
    config: RunConfig,
    todo: Todo,
    /// A new run (not `--resume` or `--retry-errors`).
    fresh: bool,
}

/// The calls this invocation makes, out of the shard's `total`.
struct Planned {
    calls: Vec<(usize, u32, usize)>,
    total: usize,
    shard: Shard,
    /// "2 retrievers x 1 repeats x 12 posts; 3 already done", for messages.
    shape: String,
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mode = Mode::of(&args);
    let Opened {
        dir,
        mut config,
        todo,
        fresh,
    } = open(&args, &mode)?;
    check_config(&config, &mode, fresh, &dir)?;
    let prices = args.prices.as_deref().map(Prices::load).transpose()?;
    let (glossary, posts) = load_posts(&config)?;
    check_call_bound(&config, posts.len(), args.max_calls, fresh, &dir)?;
    let template = super::translate_template(&config.provider)?;
    check_inputs(&mut config, &template, &mode, fresh, &dir)?;
    let pipelines = pipelines(&config, &glossary, &template, mode.is_batch())?;
    prepare_folder(&dir, &config, fresh)?;
    let planned = plan(&dir, &config, &pipelines, &posts, &mode, todo)?;
    let split_of = splits(&posts);
    let finish = Finish {
        dir: &dir,
        config: &config,
        split_of: &split_of,
        format: args.format,
        prices: prices.as_ref(),
    };
    match mode {
        Mode::BatchOut(file) => batch_out(&file, &finish, &pipelines, &posts, &planned, todo),
        Mode::BatchIn(files) => batch_in(&files, &finish, &pipelines, &posts, planned),
        Mode::Live => live(&args, &finish, pipelines, posts, planned),
    }
}

/// The run folder and its settings: a new one from the flags, or the one
/// `--resume` / `--retry-errors` names.
fn open(args: &RunArgs, mode: &Mode) -> anyhow::Result<Opened> {
    let resumed = |dir: &PathBuf, todo| -> anyhow::Result<Opened> {
        Ok(Opened {
            dir: dir.clone(),
            config: load_config(dir)?,
            todo,
            fresh: false,
        })
    };
    if let Some(dir) = &args.resume {
        return resumed(dir, Todo::Missing);
    }
    if let Some(dir) = &args.retry_errors {
        return resumed(dir, Todo::Failed);
    }
    let (shard, shard_dir) = match args.shard {
        None => (None, None),
        Some(ShardArg::Fixed(shard)) => (Some(shard), None),
        Some(ShardArg::Auto { count }) => {
            let found = shard::from_scheduler(count, |var| std::env::var(var).ok())?;
            let Some(out) = &args.out else {
                anyhow::bail!(
                    "--shard auto needs --out DIR: every task of the array writes DIR/shard-IofN, \
                     and a rerun of a task resumes its folder"
                );
            };
            let FromScheduler {
                shard,
                scheduler,
                vars,
            } = found;
            eprintln!("shard {shard} from {scheduler} ({vars})");
            let dir = out.join(format!("shard-{}of{}", shard.index, shard.count));
            if dir.join(CONFIG_FILE).exists() {
                let opened = resumed(&dir, Todo::Missing)?;
                if opened.config.shard.unwrap_or(Shard::WHOLE) != shard {
                    anyhow::bail!(
                        "{}: holds another shard's run ({}), not shard {shard}",
                        dir.display(),
                        opened.config.shard.unwrap_or(Shard::WHOLE)
                    );
                }
                eprintln!(
                    "{}: this task ran before; making the calls still missing",
                    dir.display()
                );
                return Ok(opened);
            }
            (Some(shard), Some(dir))
        }
    };
    let config = new_config(args, mode, shard)?;
    let dir = match shard_dir.or_else(|| args.out.clone()) {
        Some(dir) => dir,
        None => default_folder(&config)?,
    };
    Ok(Opened {
        dir,
        config,
        todo: Todo::Missing,
        fresh: true,
    })
}

/// A new run's settings, from its flags.
fn new_config(args: &RunArgs, mode: &Mode, shard: Option<Shard>) -> anyhow::Result<RunConfig> {
    let mut provider = ProviderConfig::from(&args.provider);
    if mode.is_batch() {
        provider.provider = batch_provider(&provider.provider)?;
    }
    Ok(RunConfig {
        version: CONFIG_VERSION,
        glossary: args.data.glossary.clone(),
        posts: args.data.posts.clone(),
        labels: args.data.labels.clone(),
        retrievers: expand_list(&args.retriever),
        params: Params::from(&args.params),
        split: args.split,
        repeat: args.repeat,
        provider,
        glossa_version: env!("CARGO_PKG_VERSION").to_string(),
        shard: shard.filter(|s| s.count > 1),
        inputs: None,
        merged_from: Vec::new(),
        check: args.check,
        repair: args.repair,
        invariants: args.invariants,
    })
}

/// `runs/<UTC timestamp>_<suite>[_shardIofN]_run`, never an existing one.
fn default_folder(config: &RunConfig) -> anyhow::Result<PathBuf> {
    let suite = runs::suite_name(&config.posts.display().to_string());
    let shard = config
        .shard
        .map(|s| format!("_shard{}of{}", s.index, s.count))
        .unwrap_or_default();
    let runs_dir = PathBuf::from(runs::RUNS_DIR);
    runs::unique_path(&runs_dir, &format!("{suite}{shard}_run"), "")
        .with_context(|| format!("cannot make a run folder in {}", runs_dir.display()))
}

/// Settings refused before anything is loaded, and a warning about a
/// seed that makes repeats the same sample.
fn check_config(config: &RunConfig, mode: &Mode, fresh: bool, dir: &Path) -> anyhow::Result<()> {
    if config.retrievers.is_empty() {
        anyhow::bail!("--retriever names no retriever");
    }
    super::note_missing_data(config.retrievers.iter().map(String::as_str));
    if let (Some(seed), true) = (config.provider.settings.seed, config.repeat > 1) {
        eprintln!(
            "warning: --seed {seed} with --repeat {}: every repeat sends the same seed, so where the \
             provider honours it the repeats are the same sample, not independent ones (leave out \
             --seed to measure variation)",
            config.repeat
        );
    }
    let offline = config
        .provider
        .provider
        .split(',')
        .all(|p| crate::generate::provider::is_offline(p.trim()));
    if offline && config.repeat > 1 {
        eprintln!(
            "{}: the offline provider writes the same output every time: --repeat {} makes {} \
             identical calls per post and measures no variation (use --repeat 1, or a model)",
            super::style::warning(),
            config.repeat,
            config.repeat
        );
    }
    if offline
        && config
            .retrievers
            .iter()
            .any(|r| r.split(['+', '|']).any(|p| p == "oracle"))
    {
        eprintln!(
            "{}: offline, `oracle` is not a ceiling: the offline provider can put in only the \
             entries found at a phrase of the post, and the oracle gives the labelled entries \
             without one; with a model it is the upper bound",
            super::style::note()
        );
    }
    if mode.is_batch() {
        check_batch_config(config, mode, fresh, dir)?;
    }
    if config.repair > 0 {
        eprintln!(
            "repair: up to {} follow-up turn{} per call when the check finds a problem; \
             the summary shows first pass and after repair",
            config.repair,
            if config.repair == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// Before anything is planned: a typo'd --repeat (or a run.json edited
/// by hand) must not plan billions of calls.
fn check_call_bound(
    config: &RunConfig,
    posts: usize,
    max_calls: u64,
    fresh: bool,
    dir: &Path,
) -> anyhow::Result<()> {
    let checked = limits::check_calls(config.retrievers.len(), config.repeat, posts, max_calls);
    match checked {
        Ok(_) => Ok(()),
        Err(e) if fresh => anyhow::bail!("{e}"),
        Err(e) => anyhow::bail!("{}: {e}", dir.join(CONFIG_FILE).display()),
    }
}

/// Fingerprint the inputs: saved for a new run; for a continued one,
/// compared with the saved ones (a batch's results cannot be checked
/// against changed inputs; live calls can be made, with a warning).
fn check_inputs(
    config: &mut RunConfig,
    template: &Template,
    mode: &Mode,
    fresh: bool,
    dir: &Path,
) -> anyhow::Result<()> {
    let inputs = Inputs::of(config, template)?;
    if fresh {
        config.inputs = Some(inputs);
        return Ok(());
    }
    let Some(saved) = &config.inputs else {
        return Ok(());
    };
    let changed = saved.differences(&inputs);
    if changed.is_empty() {
        return Ok(());
    }
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
    Ok(())
}

/// One pipeline per retriever, sharing the glossary and the client.
pub(crate) fn pipelines(
    config: &RunConfig,
    glossary: &Arc<Glossary>,
    template: &Template,
    batch: bool,
) -> anyhow::Result<Vec<Arc<Pipeline>>> {
    // Batch modes make no model call: the pipeline's client is never used.
    let client = Arc::new(if batch {
        let offline = provider::build("offline", &Settings::default())?;
        Client::new(vec![offline], RetryPolicy::default(), None)
    } else {
        super::build_client(&config.provider)?
    });

    config
        .retrievers
        .iter()
        .map(|spec| {
            let retriever = Arc::from(retrieve::build(spec, glossary, &config.params)?);
            let client = Arc::clone(&client);
            Ok(Arc::new(Pipeline {
                template: template.clone(),
                simplify: config.provider.simplify,
                check: Checker::new(config.check, &glossary.target_lang)?,
                repair: config.repair,
                invariants: config.invariants,
                ..Pipeline::new(Arc::clone(glossary), spec, retriever, client, true)?
            }))
        })
        .collect()
}

/// Create the folder; a new run saves its settings there (and refuses a
/// folder that already holds a run).
fn prepare_folder(dir: &Path, config: &RunConfig, fresh: bool) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if fresh {
        if dir.join(CALLS_FILE).exists() {
            anyhow::bail!(
                "{} already holds a run; continue it with --resume {}",
                dir.display(),
                dir.display()
            );
        }
        write_config(dir, config)?;
    }
    if !config.check.is_default() {
        eprintln!(
            "output check: {} (not the default; see docs/formats.md, \"Generation check\")",
            config.check.name()
        );
    }
    Ok(())
}

/// The calls still to make, from what `calls.jsonl` holds.
fn plan(
    dir: &Path,
    config: &RunConfig,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    mode: &Mode,
    todo: Todo,
) -> anyhow::Result<Planned> {
    let shard = config.shard.unwrap_or(Shard::WHOLE);
    if !matches!(mode, Mode::BatchOut(_)) {
        // This run appends: a torn last line is cut away now, so its call
        // counts as not made.
        calls::repair_tail(&dir.join(CALLS_FILE))?;
    }
    let status = call_status(&dir.join(CALLS_FILE))?;
    let (calls, total) = batch::plan(pipelines, posts, config.repeat, shard, &status, todo);
    let sharded = if shard.count > 1 {
        format!(", shard {shard}: {total} calls")
    } else {
        String::new()
    };
    let done = if calls.len() < total {
        format!("; {} already done", total - calls.len())
    } else {
        String::new()
    };
    let shape = format!(
        "{} retrievers x {} repeats x {} posts{sharded}{done}",
        pipelines.len(),
        config.repeat,
        posts.len(),
    );
    Ok(Planned {
        calls,
        total,
        shard,
        shape,
    })
}

/// What every mode needs at its end: where the run is, and how to report.
struct Finish<'a> {
    dir: &'a Path,
    config: &'a RunConfig,
    split_of: &'a HashMap<String, Split>,
    format: Format,
    prices: Option<&'a Prices>,
}

impl Finish<'_> {
    /// Summarise the folder, save and print it.
    fn report(&self) -> anyhow::Result<Summary> {
        report(
            self.dir,
            &self.config.retrievers,
            self.split_of,
            self.format,
            self.prices,
        )
    }
}

/// Check a batch's results, record them, report; exit 1 when calls
/// failed or still have no result.
fn batch_in(
    files: &[PathBuf],
    finish: &Finish,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    planned: Planned,
) -> anyhow::Result<ExitCode> {
    let (dir, config) = (finish.dir, finish.config);
    let ingested = batch_api::ingest(
        files,
        &IngestRun {
            dir,
            pipelines,
            posts,
            repeats: config.repeat,
            shard: planned.shard,
            wanted: &planned.calls,
            model: config.provider.settings.model.as_deref(),
        },
    )?;
    let files_shown = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let skipped = if ingested.skipped > 0 {
        format!(
            ", {} skipped (already recorded in {})",
            ingested.skipped,
            dir.display()
        )
    } else {
        String::new()
    };
    eprintln!(
        "{}: {} result lines in {files_shown}; {} calls checked and recorded ({} failed){skipped}",
        dir.display(),
        ingested.lines,
        ingested.recorded,
        ingested.failed,
    );
    let summary = finish.report()?;
    let status = call_status(&dir.join(CALLS_FILE))?;
    let (missing, _) = batch::plan(
        pipelines,
        posts,
        config.repeat,
        planned.shard,
        &status,
        Todo::Missing,
    );
    let mut code = Exit::Ok;
    if summary.failed > 0 {
        eprintln!(
            "{} calls failed (their errors are in {}); write a batch of them with: \
             glossa run --batch-out FILE --retry-errors {} (or redo them live with --retry-errors {})",
            summary.failed,
            dir.join(CALLS_FILE).display(),
            dir.display(),
            dir.display()
        );
        code = Exit::Failed;
    }
    if !missing.is_empty() {
        eprintln!(
            "{} of {} calls have no result yet; write a batch of them with: \
             glossa run --batch-out FILE --resume {} (or make them live with --resume {})",
            missing.len(),
            planned.total,
            dir.display(),
            dir.display()
        );
        code = Exit::Failed;
    }
    Ok(code.into())
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
    if config.repair > 0 {
        anyhow::bail!(
            "--repair needs a model call after each checked reply, so it cannot go through a batch \
             file; leave it out (the batch measures the first pass)"
        );
    }
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
    if matches!(mode, Mode::BatchOut(_)) && config.provider.settings.model.is_none() {
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

/// Write the calls as an OpenAI Batch API input file; no call is made.
fn batch_out(
    file: &Path,
    finish: &Finish,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    planned: &Planned,
    todo: Todo,
) -> anyhow::Result<ExitCode> {
    let (dir, config, shape) = (finish.dir, finish.config, &planned.shape);
    let p = &config.provider.settings;
    let sampling = Sampling {
        model: p.model.clone().unwrap_or_default(),
        temperature: p.temperature,
        seed: p.seed,
        max_tokens: p.max_tokens,
        max_tokens_auto: p.max_tokens_auto,
        max_tokens_field: p.max_tokens_field,
    };
    let written = batch_api::write_requests(
        file,
        pipelines,
        posts,
        &planned.calls,
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
    Ok(Exit::Ok.into())
}

/// Make the calls through the provider, then report; the exit code says
/// whether every call succeeded, or how the run stopped.
fn live(
    args: &RunArgs,
    finish: &Finish,
    pipelines: Vec<Arc<Pipeline>>,
    posts: Vec<LabelledPost>,
    planned: Planned,
) -> anyhow::Result<ExitCode> {
    let dir = finish.dir;
    let Planned { calls, shape, .. } = planned;
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

    let summary = finish.report()?;

    if outcome.interrupted {
        eprintln!(
            "interrupted after {} calls this time; continue with: glossa run --resume {}",
            outcome.done,
            dir.display()
        );
        return Ok(Exit::Interrupted.into());
    }
    if let Some(reason) = outcome.stopped {
        eprintln!(
            "stopped early: {reason}\nwhen that is fixed, continue with: glossa run --retry-errors {} and then --resume {}",
            dir.display(),
            dir.display()
        );
        return Ok(Exit::Failed.into());
    }
    if summary.failed > 0 {
        eprintln!(
            "{} calls failed (their errors are in {}); redo them with: glossa run --retry-errors {}",
            summary.failed,
            dir.join(CALLS_FILE).display(),
            dir.display()
        );
        return Ok(Exit::Failed.into());
    }
    Ok(Exit::Ok.into())
}
