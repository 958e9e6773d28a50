//! `glossa run` as a library function: open the run folder (new, or the
//! one to resume), check its settings, build one pipeline per retriever,
//! plan the calls still to make, then make them live or through a batch
//! file. The caller ([`RunHost`]) reads the inputs, builds the model
//! client and hears every notice and the progress; this module prints
//! nothing. Summarising and reporting are the caller's, from [`Finished`].

use super::api::{self as batch_api, Dialect, IngestRun, Ingested, Sampling};
use super::{CallProgress, ExecuteError, Outcome, Todo};
use crate::dataset::{LabelledPost, Split};
use crate::generate::check::Checker;
use crate::generate::pipeline::Pipeline;
use crate::generate::prompt::Template;
use crate::generate::provider::{self, ProviderError, Settings};
use crate::generate::retry::{Client, RetryPolicy};
use crate::generate::simplify::Simplify;
use crate::glossary::Glossary;
use crate::limits::{self, TooManyCalls};
use crate::retrieve;
use crate::run_dir::calls::{self, call_status, CallsError, CALLS_FILE};
use crate::run_dir::config::{
    load_config, write_config, ConfigError, Inputs, ProviderConfig, RunConfig, CONFIG_FILE,
};
use crate::run_dir::shard::Shard;
use crate::runs;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An error of the caller's ([`RunHost`]): reading inputs, building the
/// client.
pub type HostError = Box<dyn std::error::Error + Send + Sync>;

/// Where the run's settings come from.
#[derive(Debug, Clone)]
pub enum Start {
    /// A new run with these settings, in `out` (default:
    /// `runs/<UTC timestamp>_<suite>[_shardIofN]_run`).
    New {
        config: Box<RunConfig>,
        out: Option<PathBuf>,
    },
    /// `--resume DIR`: the calls not yet made.
    Resume(PathBuf),
    /// `--retry-errors DIR`: the calls whose latest record failed.
    RetryErrors(PathBuf),
}

/// Where the calls' answers come from.
#[derive(Debug, Clone)]
pub enum Mode {
    /// Every call through the provider, `concurrency` at a time; stop
    /// after `stop_after_errors` identical errors in a row (0: never).
    Live {
        concurrency: usize,
        stop_after_errors: u32,
    },
    /// Write the calls as a batch input file of the run's service (OpenAI's
    /// Batch API, or Gemini's batch mode).
    BatchOut(PathBuf),
    /// Check and record a batch's results files.
    BatchIn(Vec<PathBuf>),
}

impl Mode {
    /// Through a batch file: no model is called.
    pub fn is_batch(&self) -> bool {
        !matches!(self, Mode::Live { .. })
    }
}

/// One `glossa run`.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub start: Start,
    pub mode: Mode,
    /// The most calls a run may plan (`--max-calls`).
    pub max_calls: u64,
}

/// Something the caller should tell the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    Warning(String),
    Note(String),
    /// Plain information (what the run does).
    Info(String),
}

/// What the caller of [`run`] supplies and hears.
pub trait RunHost {
    /// The run's glossary and labelled posts (every split: [`run`] keeps
    /// the run's own).
    fn load(&mut self, config: &RunConfig)
        -> Result<(Arc<Glossary>, Vec<LabelledPost>), HostError>;
    /// The translate template the provider settings name.
    fn template(&mut self, provider: &ProviderConfig) -> Result<Template, HostError>;
    /// The model client for a live run.
    fn client(&mut self, provider: &ProviderConfig) -> Result<Client, HostError>;
    fn notice(&mut self, notice: Notice);
    /// The progress of a live run of `calls` calls.
    fn progress(&mut self, calls: usize) -> Box<dyn CallProgress>;
}

/// What a run did, for the caller to summarise and report.
#[derive(Debug)]
pub struct Finished {
    pub dir: PathBuf,
    pub config: RunConfig,
    /// Each post's split (the run's posts only).
    pub split_of: HashMap<String, Split>,
    /// Calls the shard holds in all, done or not.
    pub total: usize,
    pub end: End,
}

/// How each mode ended.
#[derive(Debug)]
pub enum End {
    Live(Outcome),
    BatchOut {
        file: PathBuf,
        written: usize,
        /// "2 retrievers x 1 repeats x 12 posts; 3 already done".
        shape: String,
        todo: Todo,
    },
    BatchIn {
        files: Vec<PathBuf>,
        ingested: Ingested,
        /// Calls of the shard that still have no record.
        missing: usize,
    },
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Host(HostError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Calls(#[from] CallsError),
    #[error(transparent)]
    Execute(#[from] ExecuteError),
    #[error(transparent)]
    Batch(#[from] batch_api::BatchError),
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// A retriever or its pipeline that cannot be built.
    #[error(transparent)]
    Pipeline(Box<dyn std::error::Error + Send + Sync>),
    #[error("cannot make a run folder in {}", dir.display())]
    DefaultFolder {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create {}", dir.display())]
    CreateFolder {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: cannot write the batch file", file.display())]
    WriteBatch {
        file: PathBuf,
        #[source]
        source: batch_api::BatchError,
    },
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("--retriever names no retriever")]
    NoRetriever,
    #[error("no labelled posts to run in {}", labels.display())]
    NoPosts { labels: PathBuf },
    /// `config`: the `run.json` of a continued run.
    #[error("{}{too_many}", config.as_ref().map(|c| format!("{}: ", c.display())).unwrap_or_default())]
    TooManyCalls {
        config: Option<PathBuf>,
        too_many: TooManyCalls,
    },
    #[error(
        "{changed} changed since the run in {} started: the batch's prompts were made from the old \
         inputs, so its outputs cannot be checked against the new ones; restore them, or start a new run",
        dir.display()
    )]
    InputsChanged { changed: String, dir: PathBuf },
    #[error("{} already holds a run; continue it with --resume {}", dir.display(), dir.display())]
    AlreadyARun { dir: PathBuf },
    #[error(
        "--batch-out and --batch-in use the OpenAI Batch API (--provider openai) or Gemini's batch \
         mode (--provider gemini); --provider {0} cannot be used with them"
    )]
    NotBatchProvider(String),
    #[error(
        "--repair needs a model call after each checked reply, so it cannot go through a batch \
         file; leave it out (the batch measures the first pass)"
    )]
    RepairInBatch,
    #[error(
        "--simplify llm needs a model call before each prompt exists, so it cannot go through a batch \
         file; use --simplify rules or none"
    )]
    LlmSimplifyInBatch,
    #[error(
        "the run in {} uses --provider {provider}; batch files hold OpenAI or Gemini requests, so only a \
         run with --provider openai or gemini can continue through them (start a new run folder with \
         --batch-out FILE --model M)",
        dir.display()
    )]
    NotABatchRun { dir: PathBuf, provider: String },
    /// `dir`: the continued run that has none.
    #[error("{}", match dir {
        None => "--batch-out needs --model (the model every request names)".to_string(),
        Some(dir) => format!("the run in {} has no --model, which --batch-out needs", dir.display()),
    })]
    BatchOutNeedsModel { dir: Option<PathBuf> },
}

/// The provider recorded for a new batch run: `openai` (the default, as
/// `offline` is the default of --provider, not a choice) or `gemini`.
pub fn batch_provider(given: &str) -> Result<String, RunError> {
    match given.trim() {
        "offline" => Ok(batch_api::PROVIDER.to_string()),
        other => match Dialect::of_provider(other) {
            Some(dialect) => Ok(dialect.provider().to_string()),
            None => Err(RunError::NotBatchProvider(other.to_string())),
        },
    }
}

/// The batch service of a run's provider, if it has one.
pub fn batch_dialect(config: &RunConfig) -> Option<Dialect> {
    Dialect::of_provider(&config.provider.provider)
}

/// The model a batch run records for each call: as named, without the
/// `models/` Gemini's own docs put before it (as a live Gemini call).
fn recorded_model(config: &RunConfig) -> Option<&str> {
    let model = config.provider.settings.model.as_deref()?;
    Some(match batch_dialect(config) {
        Some(Dialect::Gemini) => model.strip_prefix("models/").unwrap_or(model),
        _ => model,
    })
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

/// Make a run: every retriever × repeat × labelled post of its split, each
/// call appended to `DIR/calls.jsonl` as it finishes (docs/formats.md,
/// "Run folders"). The summary is left to the caller.
pub fn run(request: RunRequest, host: &mut dyn RunHost) -> Result<Finished, RunError> {
    let RunRequest {
        start,
        mode,
        max_calls,
    } = request;
    let Opened {
        dir,
        mut config,
        todo,
        fresh,
    } = open(start)?;
    check_config(&config, &mode, fresh, &dir, host)?;
    let (glossary, posts) = host.load(&config).map_err(RunError::Host)?;
    let posts = keep_split(&config, posts)?;
    check_call_bound(&config, posts.len(), max_calls, fresh, &dir)?;
    let template = host.template(&config.provider).map_err(RunError::Host)?;
    check_inputs(&mut config, &template, &mode, fresh, &dir, host)?;
    let pipelines = pipelines(&config, &glossary, &template, mode.is_batch(), host)?;
    prepare_folder(&dir, &config, fresh, host)?;
    let planned = plan(&dir, &config, &pipelines, &posts, &mode, todo, host)?;
    let total = planned.total;
    let split_of = splits(&posts);
    let end = match mode {
        Mode::BatchOut(file) => batch_out(file, &config, &pipelines, &posts, planned, todo)?,
        Mode::BatchIn(files) => batch_in(files, &dir, &config, &pipelines, &posts, planned)?,
        Mode::Live {
            concurrency,
            stop_after_errors,
        } => live(
            &dir,
            pipelines,
            posts,
            planned,
            concurrency,
            stop_after_errors,
            host,
        )?,
    };
    Ok(Finished {
        dir,
        config,
        split_of,
        total,
        end,
    })
}

/// The posts of the run's split; refused when there are none.
pub fn keep_split(
    config: &RunConfig,
    mut posts: Vec<LabelledPost>,
) -> Result<Vec<LabelledPost>, RunError> {
    posts.retain(|p| config.split.keeps(p.label.split));
    if posts.is_empty() {
        return Err(RunError::NoPosts {
            labels: config.labels.clone(),
        });
    }
    Ok(posts)
}

/// Each post's split.
pub fn splits(posts: &[LabelledPost]) -> HashMap<String, Split> {
    posts
        .iter()
        .map(|p| (p.post.id.clone(), p.label.split))
        .collect()
}

/// The run folder and its settings: a new one, or the one `--resume` /
/// `--retry-errors` names.
fn open(start: Start) -> Result<Opened, RunError> {
    let resumed = |dir: PathBuf, todo| -> Result<Opened, RunError> {
        Ok(Opened {
            config: load_config(&dir)?,
            dir,
            todo,
            fresh: false,
        })
    };
    let (config, out) = match start {
        Start::Resume(dir) => return resumed(dir, Todo::Missing),
        Start::RetryErrors(dir) => return resumed(dir, Todo::Failed),
        Start::New { config, out } => (*config, out),
    };
    let dir = match out {
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

/// `runs/<UTC timestamp>_<suite>[_shardIofN]_run`, never an existing one.
fn default_folder(config: &RunConfig) -> Result<PathBuf, RunError> {
    let suite = runs::suite_name(&config.posts.display().to_string());
    let shard = config
        .shard
        .map(|s| format!("_shard{}of{}", s.index, s.count))
        .unwrap_or_default();
    let runs_dir = PathBuf::from(runs::RUNS_DIR);
    runs::unique_path(&runs_dir, &format!("{suite}{shard}_run"), "").map_err(|source| {
        RunError::DefaultFolder {
            dir: runs_dir,
            source,
        }
    })
}

/// Settings refused before anything is loaded, and a warning about a
/// seed that makes repeats the same sample.
fn check_config(
    config: &RunConfig,
    mode: &Mode,
    fresh: bool,
    dir: &Path,
    host: &mut dyn RunHost,
) -> Result<(), RunError> {
    if config.retrievers.is_empty() {
        return Err(RunError::NoRetriever);
    }
    if let Some(note) = config
        .retrievers
        .iter()
        .find_map(|spec| retrieve::missing_data(spec))
    {
        host.notice(Notice::Note(note));
    }
    if let (Some(seed), true) = (config.provider.settings.seed, config.repeat > 1) {
        host.notice(Notice::Warning(format!(
            "--seed {seed} with --repeat {}: every repeat sends the same seed, so where the \
             provider honours it the repeats are the same sample, not independent ones (leave out \
             --seed to measure variation)",
            config.repeat
        )));
    }
    let offline = config
        .provider
        .provider
        .split(',')
        .all(|p| provider::is_offline(p.trim()));
    if offline && config.repeat > 1 {
        host.notice(Notice::Warning(format!(
            "the offline provider writes the same output every time: --repeat {} makes {} \
             identical calls per post and measures no variation (use --repeat 1, or a model)",
            config.repeat, config.repeat
        )));
    }
    if offline
        && config
            .retrievers
            .iter()
            .any(|r| r.split(['+', '|']).any(|p| p == "oracle"))
    {
        host.notice(Notice::Note(
            "offline, `oracle` is not a ceiling: the offline provider can put in only the \
             entries found at a phrase of the post, and the oracle gives the labelled entries \
             without one; with a model it is the upper bound"
                .to_string(),
        ));
    }
    if mode.is_batch() {
        check_batch_config(config, mode, fresh, dir)?;
    }
    if config.repair > 0 {
        host.notice(Notice::Info(format!(
            "repair: up to {} follow-up turn{} per call when the check finds a problem; \
             the summary shows first pass and after repair",
            config.repair,
            if config.repair == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}

fn check_batch_config(
    config: &RunConfig,
    mode: &Mode,
    fresh: bool,
    dir: &Path,
) -> Result<(), RunError> {
    if config.repair > 0 {
        return Err(RunError::RepairInBatch);
    }
    if config.provider.simplify == Simplify::Llm {
        return Err(RunError::LlmSimplifyInBatch);
    }
    if !fresh && batch_dialect(config).is_none() {
        return Err(RunError::NotABatchRun {
            dir: dir.to_path_buf(),
            provider: config.provider.provider.clone(),
        });
    }
    if matches!(mode, Mode::BatchOut(_)) && config.provider.settings.model.is_none() {
        return Err(RunError::BatchOutNeedsModel {
            dir: (!fresh).then(|| dir.to_path_buf()),
        });
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
) -> Result<(), RunError> {
    limits::check_calls(config.retrievers.len(), config.repeat, posts, max_calls)
        .map(drop)
        .map_err(|too_many| RunError::TooManyCalls {
            config: (!fresh).then(|| dir.join(CONFIG_FILE)),
            too_many,
        })
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
    host: &mut dyn RunHost,
) -> Result<(), RunError> {
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
    if matches!(mode, Mode::BatchIn(_)) {
        return Err(RunError::InputsChanged {
            changed: changed.join(", "),
            dir: dir.to_path_buf(),
        });
    }
    host.notice(Notice::Warning(format!(
        "{} changed since the run in {} started; the new calls will not be comparable with the old",
        changed.join(", "),
        dir.display()
    )));
    Ok(())
}

/// A retriever or pipeline that cannot be built, whatever its error type.
fn failed(e: impl std::error::Error + Send + Sync + 'static) -> RunError {
    RunError::Pipeline(Box::new(e))
}

/// One pipeline per retriever, sharing the glossary and the client.
fn pipelines(
    config: &RunConfig,
    glossary: &Arc<Glossary>,
    template: &Template,
    batch: bool,
    host: &mut dyn RunHost,
) -> Result<Vec<Arc<Pipeline>>, RunError> {
    let client = if batch {
        offline_client()?
    } else {
        Arc::new(host.client(&config.provider).map_err(RunError::Host)?)
    };
    pipelines_with(config, glossary, template, client)
}

/// Batch modes make no model call: the pipelines' client is never used.
fn offline_client() -> Result<Arc<Client>, RunError> {
    let offline = provider::build("offline", &Settings::default())?;
    Ok(Arc::new(Client::new(
        vec![offline],
        RetryPolicy::default(),
        None,
    )))
}

/// The pipelines of a run whose answers come from a provider's batch
/// service (`glossa batch`): no model is called.
pub fn batch_pipelines(
    config: &RunConfig,
    glossary: &Arc<Glossary>,
    template: &Template,
) -> Result<Vec<Arc<Pipeline>>, RunError> {
    pipelines_with(config, glossary, template, offline_client()?)
}

fn pipelines_with(
    config: &RunConfig,
    glossary: &Arc<Glossary>,
    template: &Template,
    client: Arc<Client>,
) -> Result<Vec<Arc<Pipeline>>, RunError> {
    config
        .retrievers
        .iter()
        .map(|spec| {
            let retriever =
                Arc::from(retrieve::build(spec, glossary, &config.params).map_err(failed)?);
            let client = Arc::clone(&client);
            Ok(Arc::new(Pipeline {
                template: template.clone(),
                simplify: config.provider.simplify,
                check: Checker::new(config.check, &glossary.target_lang).map_err(failed)?,
                repair: config.repair,
                invariants: config.invariants,
                ..Pipeline::new(Arc::clone(glossary), spec, retriever, client, true)
                    .map_err(failed)?
            }))
        })
        .collect()
}

/// Create the folder; a new run saves its settings there (and refuses a
/// folder that already holds a run).
fn prepare_folder(
    dir: &Path,
    config: &RunConfig,
    fresh: bool,
    host: &mut dyn RunHost,
) -> Result<(), RunError> {
    std::fs::create_dir_all(dir).map_err(|source| RunError::CreateFolder {
        dir: dir.to_path_buf(),
        source,
    })?;
    if fresh {
        if dir.join(CALLS_FILE).exists() {
            return Err(RunError::AlreadyARun {
                dir: dir.to_path_buf(),
            });
        }
        write_config(dir, config)?;
    }
    if !config.check.is_default() {
        host.notice(Notice::Info(format!(
            "output check: {} (not the default; see docs/formats.md, \"Generation check\")",
            config.check.name()
        )));
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
    host: &mut dyn RunHost,
) -> Result<Planned, RunError> {
    let shard = config.shard.unwrap_or(Shard::WHOLE);
    if !matches!(mode, Mode::BatchOut(_)) {
        // This run appends: a torn last line is cut away now, so its call
        // counts as not made.
        let path = dir.join(CALLS_FILE);
        if let Some(torn) = calls::repair_tail(&path)? {
            host.notice(Notice::Warning(torn.describe(&path)));
        }
    }
    let status = call_status(&dir.join(CALLS_FILE))?;
    let (calls, total) = super::plan(pipelines, posts, config.repeat, shard, &status, todo);
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

/// Check a batch's results and record them; count the calls still without
/// a record.
fn batch_in(
    files: Vec<PathBuf>,
    dir: &Path,
    config: &RunConfig,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    planned: Planned,
) -> Result<End, RunError> {
    let ingested = batch_api::ingest(
        &files,
        &IngestRun {
            dir,
            pipelines,
            posts,
            repeats: config.repeat,
            shard: planned.shard,
            wanted: &planned.calls,
            model: recorded_model(config),
            dialect: batch_dialect(config).unwrap_or_default(),
        },
    )?;
    let status = call_status(&dir.join(CALLS_FILE))?;
    let (missing, _) = super::plan(
        pipelines,
        posts,
        config.repeat,
        planned.shard,
        &status,
        Todo::Missing,
    );
    Ok(End::BatchIn {
        files,
        ingested,
        missing: missing.len(),
    })
}

/// Write the calls as a batch input file of the run's service; no call is
/// made.
fn batch_out(
    file: PathBuf,
    config: &RunConfig,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    planned: Planned,
    todo: Todo,
) -> Result<End, RunError> {
    let dialect = batch_dialect(config).unwrap_or_default();
    let sampling = Sampling::of(&config.provider.settings).in_dialect(dialect);
    let written = batch_api::write_requests(
        &file,
        pipelines,
        posts,
        &planned.calls,
        &sampling,
        dialect.limits(),
    );
    let written = match written {
        Ok(written) => written,
        Err(source) => return Err(RunError::WriteBatch { file, source }),
    };
    Ok(End::BatchOut {
        file,
        written,
        shape: planned.shape,
        todo,
    })
}

/// Make the calls through the provider.
fn live(
    dir: &Path,
    pipelines: Vec<Arc<Pipeline>>,
    posts: Vec<LabelledPost>,
    planned: Planned,
    concurrency: usize,
    stop_after_errors: u32,
    host: &mut dyn RunHost,
) -> Result<End, RunError> {
    let Planned { calls, shape, .. } = planned;
    host.notice(Notice::Info(format!(
        "{}: {} calls to make ({shape}), {concurrency} at a time",
        dir.display(),
        calls.len(),
    )));
    let progress = host.progress(calls.len());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(RunError::Runtime)?;
    let outcome = runtime.block_on(super::execute(
        dir,
        pipelines,
        Arc::new(posts),
        calls,
        concurrency,
        stop_after_errors,
        progress.as_ref(),
    ))?;
    progress.finish();
    Ok(End::Live(outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{dataset, demo};

    /// Reads the built-in demo, offline, and keeps what it is told.
    #[derive(Default)]
    struct Quiet {
        notices: Vec<Notice>,
    }

    impl RunHost for Quiet {
        fn load(
            &mut self,
            config: &RunConfig,
        ) -> Result<(Arc<Glossary>, Vec<LabelledPost>), HostError> {
            let text = |p: &Path| demo::builtin(p.to_str().unwrap()).unwrap();
            let glossary = Arc::new(Glossary::parse(
                demo::GLOSSARY,
                "cafe",
                text(&config.glossary),
            )?);
            let posts = dataset::parse_posts(demo::POSTS, text(&config.posts))?;
            let labelled = dataset::join_labels(
                demo::LABELS,
                text(&config.labels),
                posts,
                demo::POSTS,
                &glossary,
            )?;
            Ok((glossary, labelled))
        }

        fn template(&mut self, _: &ProviderConfig) -> Result<Template, HostError> {
            Ok(Template::builtin("translate.v1"))
        }

        fn client(&mut self, _: &ProviderConfig) -> Result<Client, HostError> {
            let offline = provider::build("offline", &Settings::default())?;
            Ok(Client::new(vec![offline], RetryPolicy::default(), None))
        }

        fn notice(&mut self, notice: Notice) {
            self.notices.push(notice);
        }

        fn progress(&mut self, _: usize) -> Box<dyn CallProgress> {
            Box::new(())
        }
    }

    fn demo_config(repeat: u32) -> RunConfig {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/run-v1/demo/run.json"
        );
        let mut config: RunConfig =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        config.retrievers = vec!["exact".into()];
        config.repeat = repeat;
        config.inputs = None;
        config
    }

    #[test]
    fn a_live_run_records_every_call_and_a_resumed_one_makes_none_again() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let live = Mode::Live {
            concurrency: 2,
            stop_after_errors: 3,
        };
        let mut host = Quiet::default();
        let request = RunRequest {
            start: Start::New {
                config: Box::new(demo_config(2)),
                out: Some(out.clone()),
            },
            mode: live.clone(),
            max_calls: 1_000,
        };
        let finished = run(request, &mut host).unwrap();
        let posts = finished.split_of.len();
        assert!(posts > 1);
        assert_eq!(finished.total, 2 * posts);
        let End::Live(outcome) = finished.end else {
            panic!("a live run ends live");
        };
        assert_eq!((outcome.done, outcome.failed), (2 * posts, 0));
        let lines = std::fs::read_to_string(out.join(CALLS_FILE)).unwrap();
        assert_eq!(lines.lines().count(), 2 * posts);
        // Offline repeats are told, not printed.
        assert!(host.notices.iter().any(
            |n| matches!(n, Notice::Warning(w) if w.contains("--repeat 2 makes 2 identical calls"))
        ));
        assert!(host
            .notices
            .iter()
            .any(|n| matches!(n, Notice::Info(i) if i.contains("calls to make"))));

        let resume = || RunRequest {
            start: Start::Resume(out.clone()),
            mode: live.clone(),
            max_calls: 1_000,
        };
        let finished = run(resume(), &mut Quiet::default()).unwrap();
        let End::Live(outcome) = finished.end else {
            panic!("a live run ends live");
        };
        assert_eq!(outcome.done, 0);

        // A last line torn mid-write is cut away, said as a notice, and
        // its call made again.
        let whole = lines.len() - lines.lines().last().unwrap().len() - 1;
        std::fs::write(out.join(CALLS_FILE), &lines[..whole + 40]).unwrap();
        let mut host = Quiet::default();
        let finished = run(resume(), &mut host).unwrap();
        let End::Live(outcome) = finished.end else {
            panic!("a live run ends live");
        };
        assert_eq!(outcome.done, 1);
        let torn = format!(
            "calls.jsonl:{}: removed a torn last line (40 bytes",
            2 * posts
        );
        assert!(
            host.notices
                .iter()
                .any(|n| matches!(n, Notice::Warning(w) if w.contains(&torn))),
            "{:?}",
            host.notices
        );
    }

    #[test]
    fn a_new_run_refuses_a_folder_that_holds_one() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CALLS_FILE), "").unwrap();
        let request = RunRequest {
            start: Start::New {
                config: Box::new(demo_config(1)),
                out: Some(dir.path().to_path_buf()),
            },
            mode: Mode::Live {
                concurrency: 1,
                stop_after_errors: 0,
            },
            max_calls: 1_000,
        };
        let err = run(request, &mut Quiet::default()).unwrap_err();
        assert!(matches!(err, RunError::AlreadyARun { .. }), "{err}");
    }

    #[test]
    fn a_batch_runs_through_openai_or_gemini_only() {
        assert_eq!(batch_provider(" offline ").unwrap(), "openai");
        assert_eq!(batch_provider("openai").unwrap(), "openai");
        assert_eq!(batch_provider("gemini").unwrap(), "gemini");
        let err = batch_provider("openai,gemini").unwrap_err().to_string();
        assert!(
            err.contains("--provider openai,gemini cannot be used"),
            "{err}"
        );
    }

    #[test]
    fn a_continued_run_names_its_run_json_when_it_plans_too_many_calls() {
        let too_many = limits::check_calls(2, 3, 10, 5).unwrap_err();
        let fresh = RunError::TooManyCalls {
            config: None,
            too_many: limits::check_calls(2, 3, 10, 5).unwrap_err(),
        };
        assert_eq!(fresh.to_string(), too_many.to_string());
        let resumed = RunError::TooManyCalls {
            config: Some(PathBuf::from("runs/x/run.json")),
            too_many,
        };
        assert!(resumed.to_string().starts_with("runs/x/run.json: "));
    }
}
