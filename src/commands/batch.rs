//! `glossa batch submit|status|fetch`: a run's calls through the OpenAI
//! Batch API (or a compatible service) or Gemini's batch mode, from upload
//! to recorded results.
//! The ledger `DIR/batches.json` (src/batch/remote) records each step; the
//! results are checked and recorded by the same code as
//! `glossa run --batch-in`.

use super::run as run_cmd;
use crate::cli::{
    BatchAction, BatchArgs, BatchFetchArgs, BatchStatusArgs, BatchSubmitArgs, Choice, Cli, Command,
};
use anyhow::Context as _;
use clap::Parser;
use glossa::batch::api::{custom_id, Dialect, Limits, Sampling};
use glossa::batch::orchestrate::batch_dialect;
use glossa::batch::remote::{
    set_aside_unexecuted, unanswered, write_parts, Ledger, Part, Service, LEDGER_FILE, PARTS_DIR,
};
use glossa::batch::{self, Todo};
use glossa::exit::Exit;
use glossa::generate::simplify::Simplify;
use glossa::report::Format;
use glossa::run_dir::calls::{call_status, CALLS_FILE};
use glossa::run_dir::config::{load_config, Inputs, RunConfig};
use glossa::run_dir::shard::Shard;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

pub fn run(args: BatchArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        BatchAction::Submit(args) => submit(args),
        BatchAction::Status(args) => status(args),
        BatchAction::Fetch(args) => fetch(args),
    }
}

/// The run folder's settings and batch service, refused when its calls
/// cannot go through a batch of OpenAI chat or Gemini generateContent
/// requests.
fn open_run(dir: &Path) -> anyhow::Result<(RunConfig, Dialect)> {
    let config = load_config(dir)?;
    let p = &config.provider;
    let Some(dialect) = batch_dialect(&config) else {
        anyhow::bail!(
            "the run in {} uses --provider {}; the batch services take OpenAI chat or Gemini \
             generateContent requests, so only a run with --provider openai or gemini can go through \
             them (start one with: glossa run --batch-out FILE --model M --out DIR)",
            dir.display(),
            p.provider
        );
    };
    if p.settings.model.is_none() {
        anyhow::bail!(
            "the run in {} has no --model, which every request must name",
            dir.display()
        );
    }
    if config.repair > 0 || p.simplify == Simplify::Llm {
        anyhow::bail!(
            "the run in {} uses --repair or --simplify llm, which need model calls in between, so its \
             calls cannot go through a batch",
            dir.display()
        );
    }
    Ok((config, dialect))
}

/// The service: --base-url, else the one the ledger records, else
/// run.json's, else the provider's own; the key from run.json's variable.
fn service(
    config: &RunConfig,
    dialect: Dialect,
    flag: Option<&str>,
    ledger: Option<&Ledger>,
) -> anyhow::Result<Service> {
    let base = flag
        .map(str::to_string)
        .or_else(|| ledger.and_then(|l| l.base_url.clone()))
        .or_else(|| config.provider.settings.base_url.clone());
    Ok(Service::new(
        dialect,
        base.as_deref(),
        config.provider.settings.api_key_env.as_deref(),
    )?)
}

/// The ledger of a run that was submitted, and its batch service.
fn submitted(
    dir: &Path,
    config: &RunConfig,
    dialect: Dialect,
    flag: Option<&str>,
) -> anyhow::Result<(Ledger, Service)> {
    let ledger = Ledger::load(dir)?.with_context(|| {
        format!(
            "{}: no {LEDGER_FILE}: nothing was submitted from this run (glossa batch submit {})",
            dir.display(),
            dir.display()
        )
    })?;
    ledger.check_service(dir, dialect)?;
    let api = service(config, dialect, flag, Some(&ledger))?;
    Ok((ledger, api))
}

fn submit(args: BatchSubmitArgs) -> anyhow::Result<ExitCode> {
    let dir = args.service.dir.as_path();
    let (config, dialect) = open_run(dir)?;
    let (glossary, posts) = run_cmd::load_posts(&config)?;
    let template = super::translate_template(&config.provider)?;
    if let Some(saved) = &config.inputs {
        let changed = saved.differences(&Inputs::of(&config, &template)?);
        if !changed.is_empty() {
            anyhow::bail!(
                "{} changed since the run in {} started: its results could not be checked against \
                 the new inputs; restore them, or start a new run",
                changed.join(", "),
                dir.display()
            );
        }
    }
    let pipelines = glossa::batch::orchestrate::batch_pipelines(&config, &glossary, &template)?;
    let mut ledger = Ledger::load(dir)?.unwrap_or_else(|| Ledger::new(dialect.provider()));
    ledger.check_service(dir, dialect)?;
    let api = service(
        &config,
        dialect,
        args.service.base_url.as_deref(),
        Some(&ledger),
    )?;
    ledger.base_url = Some(api.base_shown());

    let in_flight = ledger.in_flight(dir)?;
    let status = call_status(&dir.join(CALLS_FILE))?;
    let todo = if args.retry_errors {
        Todo::Failed
    } else {
        Todo::Missing
    };
    let shard = config.shard.unwrap_or(Shard::WHOLE);
    let (calls, total) = batch::plan(&pipelines, &posts, config.repeat, shard, &status, todo);
    let wanted = calls.len();
    let new: Vec<_> = calls
        .into_iter()
        .filter(|&(ri, repeat, pi)| {
            !in_flight.contains(&custom_id(
                &pipelines[ri].retriever_name,
                repeat,
                &posts[pi].post.id,
            ))
        })
        .collect();
    if wanted > new.len() {
        eprintln!(
            "{} of the calls are in batches not yet fetched: not sent again (glossa batch fetch {})",
            wanted - new.len(),
            dir.display()
        );
    }
    if !new.is_empty() {
        let sampling = Sampling::of(&config.provider.settings).in_dialect(dialect);
        let own = dialect.limits();
        let limits = Limits {
            requests: args
                .max_requests
                .map_or(own.requests, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            bytes: args
                .max_mb
                .map_or(own.bytes, |mb| mb.saturating_mul(1_000_000)),
        };
        let mut parts = write_parts(
            dir,
            ledger.next_part(),
            &pipelines,
            &posts,
            &new,
            &sampling,
            limits,
        )?;
        for part in &mut parts {
            part.retry_errors = args.retry_errors;
        }
        eprintln!(
            "{}: {} of {total} calls to send, in {} request file{} under {}",
            dir.display(),
            new.len(),
            parts.len(),
            if parts.len() == 1 { "" } else { "s" },
            dir.join(PARTS_DIR).display()
        );
        ledger.parts.extend(parts);
    } else if wanted == 0 {
        eprintln!(
            "{}: no call to send ({} of {total} calls to make)",
            dir.display(),
            wanted
        );
    }
    ledger.save(dir)?;
    let model = config.provider.settings.model.clone().unwrap_or_default();
    super::runtime()?.block_on(send_parts(&api, &model, dir, &mut ledger))?;
    super::emit(&render(&ledger, Format::Table))?;
    eprintln!(
        "follow them with: glossa batch status {}; record the results with: glossa batch fetch {} (--wait to wait)",
        dir.display(),
        dir.display()
    );
    Ok(Exit::Ok.into())
}

/// Upload and create every part without a batch, saving after each step.
async fn send_parts(
    api: &Service,
    model: &str,
    dir: &Path,
    ledger: &mut Ledger,
) -> anyhow::Result<()> {
    let run_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().chars().take(100).collect::<String>())
        .unwrap_or_default();
    for i in 0..ledger.parts.len() {
        if ledger.parts[i].batch_id.is_some() || ledger.parts[i].done {
            continue;
        }
        let file = dir.join(&ledger.parts[i].requests_file);
        let input = match ledger.parts[i].input_file_id.clone() {
            Some(id) => id,
            None => {
                let id = api
                    .upload(&file)
                    .await
                    .with_context(|| format!("cannot upload {}", file.display()))?;
                eprintln!("uploaded {} as {id}", file.display());
                ledger.parts[i].input_file_id = Some(id.clone());
                ledger.save(dir)?;
                id
            }
        };
        if ledger.parts[i].create_sent {
            // The answer to an earlier create was lost: the batch may exist.
            if let Some(found) = api.find_by_input(&input).await? {
                eprintln!("found batch {} of {input}, created before", found.id);
                ledger.parts[i].record(&found);
                ledger.save(dir)?;
                continue;
            }
        }
        ledger.parts[i].create_sent = true;
        ledger.save(dir)?;
        let part = ledger.parts[i].part;
        let created = api
            .create(&input, model, &run_name, part)
            .await
            .with_context(|| format!("cannot create the batch of {}", file.display()))?;
        eprintln!(
            "created batch {} ({} requests)",
            created.id, ledger.parts[i].requests
        );
        ledger.parts[i].record(&created);
        ledger.save(dir)?;
    }
    Ok(())
}

/// Ask the service about every batch not yet done; save.
async fn refresh(api: &Service, dir: &Path, ledger: &mut Ledger) -> anyhow::Result<()> {
    for i in 0..ledger.parts.len() {
        let part = &ledger.parts[i];
        let Some(id) = part.batch_id.clone().filter(|_| !part.done) else {
            continue;
        };
        let batch = api.get(&id).await?;
        ledger.parts[i].record(&batch);
        ledger.save(dir)?;
    }
    Ok(())
}

fn status(args: BatchStatusArgs) -> anyhow::Result<ExitCode> {
    let dir = args.service.dir.as_path();
    let config = load_config(dir)?;
    let dialect = batch_dialect(&config).unwrap_or_default();
    let (mut ledger, api) = submitted(dir, &config, dialect, args.service.base_url.as_deref())?;
    super::runtime()?.block_on(refresh(&api, dir, &mut ledger))?;
    super::emit(&render(&ledger, args.format))?;
    Ok(Exit::Ok.into())
}

/// A part's state in words.
fn state(part: &Part) -> String {
    match (&part.status, &part.input_file_id, part.done) {
        (Some(s), _, true) => format!("{s}, recorded"),
        (Some(s), _, false) => s.clone(),
        (None, Some(_), _) => "uploaded, not created".to_string(),
        (None, None, _) => "written, not uploaded".to_string(),
    }
}

/// The parts as a table, or the ledger as JSON.
fn render(ledger: &Ledger, format: Format) -> String {
    if format == Format::Json {
        return serde_json::to_string_pretty(ledger).expect("a ledger always serialises") + "\n";
    }
    let head = ["part", "batch", "state", "requests", "completed", "failed"];
    let rows: Vec<[String; 6]> = ledger
        .parts
        .iter()
        .map(|p| {
            let counts = p.request_counts.unwrap_or_default();
            [
                p.part.to_string(),
                p.batch_id.clone().unwrap_or_else(|| "-".into()),
                state(p),
                p.requests.to_string(),
                counts.completed.to_string(),
                counts.failed.to_string(),
            ]
        })
        .collect();
    let (sep, edge) = match format {
        Format::Markdown => (" | ", "| "),
        Format::Csv => (",", ""),
        _ => ("  ", ""),
    };
    let mut widths = head.map(str::len);
    if format == Format::Table {
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<String>| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| match format {
                Format::Table => format!("{c:<w$}"),
                _ => c.clone(),
            })
            .collect();
        let end = if edge.is_empty() { "" } else { " |" };
        format!("{edge}{}{end}", padded.join(sep))
            .trim_end()
            .to_string()
            + "\n"
    };
    let mut out = line(head.iter().map(|h| h.to_string()).collect());
    if format == Format::Markdown {
        out.push_str(&line(head.iter().map(|_| "---".to_string()).collect()));
    }
    for row in rows {
        out.push_str(&line(row.to_vec()));
    }
    out
}

fn fetch(args: BatchFetchArgs) -> anyhow::Result<ExitCode> {
    let dir = args.service.dir.as_path();
    let (config, dialect) = open_run(dir)?;
    let (mut ledger, api) = submitted(dir, &config, dialect, args.service.base_url.as_deref())?;
    let poll = Duration::try_from_secs_f64(args.poll)
        .ok()
        .filter(|d| !d.is_zero())
        .context("--poll must be a positive number of seconds")?;
    let runtime = super::runtime()?;
    runtime.block_on(async {
        loop {
            refresh(&api, dir, &mut ledger).await?;
            let running = ledger
                .parts
                .iter()
                .filter(|p| p.batch_id.is_some() && !p.done && !p.is_terminal())
                .count();
            if !args.wait || running == 0 {
                return anyhow::Ok(());
            }
            eprintln!(
                "{running} batches still running; asking again in {:.0?}",
                poll
            );
            tokio::time::sleep(poll).await;
        }
    })?;

    // Download what the finished batches returned.
    let ready: Vec<usize> = (0..ledger.parts.len())
        .filter(|&i| {
            let p = &ledger.parts[i];
            p.batch_id.is_some() && !p.done && p.is_terminal()
        })
        .collect();
    for &i in &ready {
        let part = ledger.parts[i].clone();
        let stem = format!("{PARTS_DIR}/part-{:03}", part.part);
        let mut results = Vec::new();
        for (id, kind) in [
            (&part.output_file_id, "output"),
            (&part.error_file_id, "errors"),
        ] {
            let Some(id) = id else { continue };
            let name = format!("{stem}.{kind}.jsonl");
            let bytes = runtime
                .block_on(api.download(id, &dir.join(&name)))
                .with_context(|| {
                    format!(
                        "cannot download the {kind} of batch {}",
                        part.batch_id.as_deref().unwrap_or("")
                    )
                })?;
            eprintln!("downloaded {} ({bytes} bytes)", dir.join(&name).display());
            if kind == "errors" {
                let aside = format!("{stem}.unexecuted.jsonl");
                let count = set_aside_unexecuted(&dir.join(&name), &dir.join(&aside))?;
                if count > 0 {
                    eprintln!(
                        "{count} requests of batch {} were never executed (the batch {} first; listed in {}): \
                         their calls stay missing, and `glossa batch submit {}` sends them again",
                        part.batch_id.as_deref().unwrap_or(""),
                        part.status.as_deref().unwrap_or("stopped"),
                        dir.join(&aside).display(),
                        dir.display()
                    );
                }
            }
            results.push(name);
        }
        for error in &part.errors {
            eprintln!("batch {}: {error}", part.batch_id.as_deref().unwrap_or(""));
        }
        ledger.parts[i].results = results;
        ledger.save(dir)?;
        let unanswered = unanswered(dir, &ledger.parts[i])?;
        if dialect == Dialect::Gemini && unanswered > 0 {
            eprintln!(
                "{unanswered} requests of batch {} have no result (the batch {} first): their calls \
                 stay missing, and `glossa batch submit {}` sends them again",
                part.batch_id.as_deref().unwrap_or(""),
                part.status.as_deref().unwrap_or("stopped"),
                dir.display()
            );
        }
    }

    // Record them as `run --batch-in` does: first new calls, then retries.
    let mut code: Option<ExitCode> = None;
    for retry in [false, true] {
        let group: Vec<usize> = ready
            .iter()
            .copied()
            .filter(|&i| ledger.parts[i].retry_errors == retry)
            .collect();
        let files: Vec<PathBuf> = group
            .iter()
            .flat_map(|&i| ledger.parts[i].results.iter().map(|f| dir.join(f)))
            .collect();
        if !files.is_empty() {
            code = Some(ingest(dir, &files, retry, &args)?);
        }
        for i in group {
            ledger.parts[i].done = true;
        }
        ledger.save(dir)?;
    }

    let running = ledger.parts.iter().filter(|p| !p.done).count();
    if ledger.parts.iter().any(|p| p.batch_id.is_none() && !p.done) {
        eprintln!(
            "some request files have no batch yet: glossa batch submit {} creates them",
            dir.display()
        );
    }
    if running > 0 {
        eprintln!(
            "{running} batches not finished yet ({}); fetch again later, or with --wait",
            ledger
                .parts
                .iter()
                .filter(|p| !p.done)
                .map(|p| format!("part {}: {}", p.part, state(p)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(Exit::Failed.into());
    }
    match code {
        Some(code) => {
            if code != ExitCode::from(Exit::Ok) {
                eprintln!(
                    "to send the calls still missing as a new batch: glossa batch submit {} \
                     (failed calls: glossa batch submit --retry-errors {})",
                    dir.display(),
                    dir.display()
                );
            }
            Ok(code)
        }
        None if !ready.is_empty() => {
            eprintln!(
                "the finished batches returned no results; their calls are still missing: send them \
                 again with: glossa batch submit {}",
                dir.display()
            );
            super::emit(&render(&ledger, Format::Table))?;
            Ok(Exit::Failed.into())
        }
        None => {
            eprintln!(
                "{}: every batch was fetched before; nothing new to record",
                dir.display()
            );
            super::emit(&render(&ledger, Format::Table))?;
            Ok(Exit::Ok.into())
        }
    }
}

/// `glossa run --batch-in FILE... --resume DIR` (or `--retry-errors DIR`).
fn ingest(
    dir: &Path,
    files: &[PathBuf],
    retry: bool,
    args: &BatchFetchArgs,
) -> anyhow::Result<ExitCode> {
    let mut argv: Vec<OsString> = vec!["glossa".into(), "run".into()];
    for file in files {
        argv.push("--batch-in".into());
        argv.push(file.into());
    }
    argv.push(if retry { "--retry-errors" } else { "--resume" }.into());
    argv.push(dir.into());
    argv.push("--format".into());
    argv.push(args.format.word().into());
    if let Some(prices) = &args.prices {
        argv.push("--prices".into());
        argv.push(prices.into());
    }
    let cli = Cli::try_parse_from(argv).context("cannot read the batch results")?;
    let Command::Run(run_args) = cli.command else {
        anyhow::bail!("cannot read the batch results");
    };
    run_cmd::run(run_args)
}
