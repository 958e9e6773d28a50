//! `glossa run`: the batch experiment over labelled posts. Live (every call
//! through the provider), or through the OpenAI Batch API: `--batch-out`
//! writes the requests, `--batch-in` checks the results; `--shard I/N`
//! takes one deterministic share of the calls. The run itself is
//! [`batch::orchestrate::run`]; this file turns the flags into its request,
//! prints what it tells, and reports.

use crate::cli::{CompiledArgs, CompiledMode, RunArgs};
use glossa::batch::api::{self as batch_api, Dialect};
use glossa::batch::orchestrate::{
    self, batch_dialect, batch_provider, End, Finished, HostError, Mode, Notice, RunHost,
    RunRequest, Start,
};
use glossa::batch::{CallProgress, Todo};
use glossa::dataset::{LabelledPost, Split};
use glossa::exit::Exit;
use glossa::generate::prices::Prices;
use glossa::generate::prompt::Template;
use glossa::generate::retry::Client;
use glossa::generate::simplify::Simplify;
use glossa::glossary::Glossary;
use glossa::report::{self, Format};
use glossa::retrieve::{expand_list, Params};
use glossa::run_dir::calls::CALLS_FILE;
use glossa::run_dir::config::{
    load_config, ProviderConfig, RunConfig, CONFIG_FILE, CONFIG_VERSION,
};
use glossa::run_dir::shard::{self, FromScheduler, Shard, ShardArg};
use glossa::run_dir::summary::save_summary;
use glossa::run_dir::summary::{Summary, SUMMARY_FILE};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub(crate) use glossa::batch::orchestrate::splits;

/// The glossary and the labelled posts a run covers (its split only).
pub(crate) fn load_posts(config: &RunConfig) -> anyhow::Result<(Arc<Glossary>, Vec<LabelledPost>)> {
    let (glossary, posts) = load_all_posts(config)?;
    Ok((glossary, orchestrate::keep_split(config, posts)?))
}

/// The glossary and every labelled post the run's files hold.
fn load_all_posts(config: &RunConfig) -> anyhow::Result<(Arc<Glossary>, Vec<LabelledPost>)> {
    let glossary = Arc::new(super::load_glossary(&config.glossary)?);
    let posts = super::load_labelled(&glossary, &config.posts, &config.labels)?;
    Ok((glossary, posts))
}

/// [`load_all_posts`], with the glossary's entries from the compiled
/// glossary when `compiled` says so: the candidates of every post (and of
/// its sentences, which retrieval sees under `--simplify rules`) and the
/// entries the labels name.
fn load_all_compiled(
    config: &RunConfig,
    compiled: &CompiledArgs,
) -> anyhow::Result<(Arc<Glossary>, Vec<LabelledPost>)> {
    let mut compiled = compiled.clone();
    if config.provider.simplify == Simplify::Llm {
        // A model rewrites the post before retrieval: its words are not known here.
        compiled.mode = CompiledMode::Never;
        compiled.index = None;
    }
    let posts = std::cell::OnceCell::new();
    let read = || super::load_posts(&config.posts);
    let opened = super::compiled::open_for(
        &config.glossary,
        &compiled,
        &config.provider.cache_dir,
        || posts.get_or_init(read).as_ref().map_or(0, Vec::len),
    )?;
    let Some(opened) = opened else {
        return load_all_posts(config);
    };
    let posts = match posts.into_inner() {
        Some(read) => read,
        None => read(),
    }?;
    let texts = posts.iter().flat_map(|p| {
        std::iter::once(p.text.clone()).chain(glossa::generate::simplify::sentences(&p.text))
    });
    let ids = glossa::compiled::label_ids(
        &config.labels.display().to_string(),
        super::open_input(&config.labels)?,
    );
    let specs: Vec<&str> = config.retrievers.iter().map(String::as_str).collect();
    let glossary = super::compiled::load(
        &opened,
        &specs,
        &config.params,
        texts,
        ids.iter().map(String::as_str),
        true,
    )?;
    let glossary = Arc::new(glossary);
    let posts = super::load_labelled(&glossary, &config.posts, &config.labels)?;
    Ok((glossary, posts))
}

/// Summarise `DIR/calls.jsonl`, save `summary.json`, print the tables.
pub(crate) fn report(
    dir: &Path,
    retrievers: &[String],
    split_of: &HashMap<String, Split>,
    format: Format,
    prices: Option<&Prices>,
) -> anyhow::Result<Summary> {
    report_with(dir, retrievers, split_of, format, prices, false)
}

/// [`report`], with the failing posts' table when `show_failing` (`--show failing`).
fn report_with(
    dir: &Path,
    retrievers: &[String],
    split_of: &HashMap<String, Split>,
    format: Format,
    prices: Option<&Prices>,
    show_failing: bool,
) -> anyhow::Result<Summary> {
    let summary = save_summary(dir, retrievers, prices)?;
    // Dev and test side by side when the posts carry both.
    let mut by_split = report::run_split::summarise(dir, retrievers, split_of)?;
    if let Some(prices) = prices {
        by_split.values_mut().for_each(|s| s.price(prices));
    }
    let failing = match show_failing {
        true => Some(report::failing::run_failing(
            &report::failing::latest_calls(&dir.join(CALLS_FILE))?,
        )),
        false => None,
    };
    let rendered = report::run_split::render_with(&summary, &by_split, failing.as_deref(), format);
    super::emit(&rendered)?;
    eprintln!(
        "calls: {}; summary: {}",
        dir.join(CALLS_FILE).display(),
        dir.join(SUMMARY_FILE).display()
    );
    Ok(summary)
}

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mode = mode(&args);
    let start = if let Some(dir) = &args.resume {
        Start::Resume(dir.clone())
    } else if let Some(dir) = &args.retry_errors {
        Start::RetryErrors(dir.clone())
    } else {
        new_start(&args, &mode)?
    };
    let mut host = Terminal {
        compiled: args.compiled.clone(),
        prices_file: args.prices.clone(),
        prices: None,
    };
    let finished = orchestrate::run(
        RunRequest {
            start,
            mode,
            max_calls: args.max_calls,
        },
        &mut host,
    )?;
    let Finished {
        dir,
        config,
        split_of,
        total,
        end,
    } = finished;
    let summarise = || {
        report_with(
            &dir,
            &config.retrievers,
            &split_of,
            args.format,
            host.prices.as_ref(),
            args.show.is_some(),
        )
    };
    match end {
        End::BatchOut {
            file,
            written,
            shape,
            todo,
        } => batch_out(&dir, &file, written, &shape, todo, batch_dialect(&config)),
        End::BatchIn {
            files,
            ingested,
            missing,
        } => {
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
            batch_in(&dir, &summarise()?, missing, total)
        }
        End::Live(outcome) => {
            let summary = summarise()?;
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
    }
}

/// Where the calls' answers come from.
fn mode(args: &RunArgs) -> Mode {
    match (&args.batch_out, args.batch_in.is_empty()) {
        (Some(file), _) => Mode::BatchOut(file.clone()),
        (None, false) => Mode::BatchIn(args.batch_in.clone()),
        (None, true) => Mode::Live {
            concurrency: args.concurrency,
            stop_after_errors: args.stop_after_errors,
        },
    }
}

/// A new run from the flags; under `--shard auto`, the task's shard from
/// its scheduler and its folder `--out DIR/shard-IofN`, resumed when the
/// task ran before.
fn new_start(args: &RunArgs, mode: &Mode) -> anyhow::Result<Start> {
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
                let config = load_config(&dir)?;
                if config.shard.unwrap_or(Shard::WHOLE) != shard {
                    anyhow::bail!(
                        "{}: holds another shard's run ({}), not shard {shard}",
                        dir.display(),
                        config.shard.unwrap_or(Shard::WHOLE)
                    );
                }
                eprintln!(
                    "{}: this task ran before; making the calls still missing",
                    dir.display()
                );
                return Ok(Start::Resume(dir));
            }
            (Some(shard), Some(dir))
        }
    };
    Ok(Start::New {
        config: Box::new(new_config(args, mode, shard)?),
        out: shard_dir.or_else(|| args.out.clone()),
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

/// The run's side on the terminal: files read as every command reads
/// them, notices on stderr, a progress bar.
struct Terminal {
    /// `--compiled` and `--index`.
    compiled: CompiledArgs,
    prices_file: Option<PathBuf>,
    /// Read with the posts, so a bad price table is refused where it was.
    prices: Option<Prices>,
}

impl RunHost for Terminal {
    fn load(
        &mut self,
        config: &RunConfig,
    ) -> Result<(Arc<Glossary>, Vec<LabelledPost>), HostError> {
        self.prices = self.prices_file.as_deref().map(Prices::load).transpose()?;
        Ok(load_all_compiled(config, &self.compiled)?)
    }

    fn template(&mut self, provider: &ProviderConfig) -> Result<Template, HostError> {
        Ok(super::translate_template(provider)?)
    }

    fn client(&mut self, provider: &ProviderConfig) -> Result<Client, HostError> {
        Ok(super::build_client(provider)?)
    }

    fn notice(&mut self, notice: Notice) {
        match notice {
            Notice::Warning(text) => eprintln!("{}: {text}", super::style::warning()),
            Notice::Note(text) => eprintln!("{}: {text}", super::style::note()),
            Notice::Info(text) => eprintln!("{text}"),
        }
    }

    fn progress(&mut self, calls: usize) -> Box<dyn CallProgress> {
        let bar = indicatif::ProgressBar::new(calls as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} calls, {msg}, {per_sec}, ETA {eta}",
            )
            .expect("valid progress template"),
        );
        bar.set_message("0 failed");
        Box::new(Bar(bar))
    }
}

/// The live run's bar (on a terminal only).
struct Bar(indicatif::ProgressBar);

impl CallProgress for Bar {
    fn message(&self, line: String) {
        self.0.println(line);
    }

    fn call_finished(&self, failed: usize) {
        self.0.set_message(format!("{failed} failed"));
        self.0.inc(1);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// What a batch's results left: exit 1 when calls failed or still have
/// no result.
fn batch_in(
    dir: &Path,
    summary: &Summary,
    missing: usize,
    total: usize,
) -> anyhow::Result<ExitCode> {
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
    if missing > 0 {
        eprintln!(
            "{missing} of {total} calls have no result yet; write a batch of them with: \
             glossa run --batch-out FILE --resume {} (or make them live with --resume {})",
            dir.display(),
            dir.display()
        );
        code = Exit::Failed;
    }
    Ok(code.into())
}

/// What a written batch file is and how to continue.
fn batch_out(
    dir: &Path,
    file: &Path,
    written: usize,
    shape: &str,
    todo: Todo,
    dialect: Option<Dialect>,
) -> anyhow::Result<ExitCode> {
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
        let service = match dialect {
            Some(Dialect::Gemini) => {
                "Gemini's batch mode (upload it with the Files API, then models/MODEL:batchGenerateContent)"
                    .to_string()
            }
            _ => format!("the OpenAI Batch API (endpoint {})", batch_api::ENDPOINT),
        };
        eprintln!(
            "submit it to {service} (or let `glossa batch submit {}` do it), then check the output \
             file with:\n  glossa run --batch-in RESULTS.jsonl {again} {}",
            dir.display(),
            dir.display()
        );
    }
    Ok(Exit::Ok.into())
}
