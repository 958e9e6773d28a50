//! One module per subcommand; each returns the process exit code.

pub mod batch;
pub mod check;
pub mod compiled;
pub mod completions;
mod diagnostics;
pub mod diff;
pub mod eval;
pub mod export;
pub mod html_report;
pub mod import;
pub mod lint;
pub mod merge;
pub mod phrases;
pub mod progress;
pub mod retrieve;
pub mod retrievers;
pub mod run;
pub mod serve;
pub mod style;
pub mod sweep;
pub mod translate;
mod translate_posts;

use crate::cli::{Cli, Command, ProviderArgs};
use anyhow::Context as _;
use glossa::dataset::{self, LabelledPost, Post};
use glossa::demo;
use glossa::error::{decode_text, read_text, InputError};
use glossa::generate::cache::Cache;
use glossa::generate::prompt::Template;
use glossa::generate::provider::{self, Settings};
use glossa::generate::retry::{Client, RetryPolicy};
use glossa::glossary::Glossary;
use glossa::otel;
use glossa::report::{self, Format, Report};
use glossa::run_dir::config::ProviderConfig;
use glossa::telemetry::{self, OtlpConfig};
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    style::init(cli.color);
    diagnostics::install();
    refuse_demo_labels_for_own_glossary(&cli.command)?;
    announce_demo(&cli.command);
    let otlp = OtlpConfig::resolve(cli.otlp.as_deref(), cli.otlp_text, |v| {
        std::env::var(v).ok()
    })?;
    let Some(otlp) = otlp else {
        return dispatch(cli.command);
    };
    let exporter = telemetry::start(&otlp)?;
    // One trace per invocation; `serve` makes one per request.
    // Not the command line: it may hold the post.
    let parent = incoming_trace();
    let root = invocation_name(&cli.command)
        .map(|name| otel::invocation(name, Vec::new(), parent.as_ref()));
    if let Some(root) = &root {
        otel::set_root(root);
    }
    let result = {
        let _current = root.clone().map(opentelemetry::Context::attach);
        dispatch(cli.command)
    };
    if let Some(root) = &root {
        let error = result.as_ref().err().map(|e| format!("{e:#}"));
        otel::end_invocation(root, error.as_deref());
    }
    if let Err(e) = exporter.finish() {
        eprintln!("{}: {e}", style::warning());
    }
    result
}

/// The caller's span from `TRACEPARENT` (and `TRACESTATE`), the variables
/// OpenTelemetry passes a child process (docs/telemetry.md); a value that is
/// no traceparent costs a warning, not the run.
fn incoming_trace() -> Option<opentelemetry::Context> {
    let traceparent = std::env::var_os("TRACEPARENT")?;
    let tracestate = std::env::var("TRACESTATE").ok();
    let parsed = match traceparent.to_str() {
        Some(traceparent) => otel::parent(traceparent, tracestate.as_deref()),
        None => otel::parent(&traceparent.to_string_lossy(), None),
    };
    parsed
        .map_err(|e| eprintln!("{}: {e}", style::warning()))
        .ok()
}

/// The root span's name of a command that makes one trace per invocation.
fn invocation_name(command: &Command) -> Option<&'static str> {
    match command {
        Command::Eval(_) => Some("glossa eval"),
        Command::Translate(_) => Some("glossa translate"),
        Command::Run(_) => Some("glossa run"),
        Command::Check(_) => Some("glossa check"),
        _ => None,
    }
}

fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Eval(args) => eval::run(args),
        Command::Retrieve(args) => retrieve::run(args),
        Command::Phrases(args) => phrases::run(args),
        Command::Retrievers => retrievers::run(),
        Command::Lint(args) => lint::run(args),
        Command::Translate(args) if args.posts.is_some() => translate_posts::run(args),
        Command::Translate(args) => translate::run(args),
        Command::Compile(args) => compiled::run(args),
        Command::Run(args) => run::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Batch(args) => batch::run(args),
        Command::Check(args) => check::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Report(args) => html_report::run(args),
        Command::Import(args) => import::run(args),
        Command::Export(args) => export::run(args),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => completions::man(args),
    }
}

/// The model client for `--provider` and friends: providers in failover
/// order, retries, and the reply cache (not for the offline provider, which
/// is cheaper to recompute than to cache).
pub fn build_client(args: &ProviderConfig) -> anyhow::Result<Client> {
    let settings = Settings {
        timeout: Some(
            Duration::try_from_secs_f64(args.timeout)
                .context("--timeout must be a positive number of seconds")?,
        ),
        ..args.settings.clone()
    };
    let names: Vec<&str> = args
        .provider
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if names.is_empty() {
        anyhow::bail!("--provider names no provider");
    }
    let providers = names
        .iter()
        .map(|name| provider::build(name, &settings))
        .collect::<Result<Vec<_>, _>>()?;
    let cache = (!args.no_cache && names.iter().any(|n| *n != "offline"))
        .then(|| Cache::new(&args.cache_dir));
    let retry = RetryPolicy {
        max_attempts: args.attempts.max(1),
        ..RetryPolicy::default()
    };
    Ok(Client::new(providers, retry, cache))
}

/// The provider flags as the library (and `run.json`) holds them.
impl From<&ProviderArgs> for ProviderConfig {
    fn from(args: &ProviderArgs) -> ProviderConfig {
        let (max_tokens, max_tokens_auto) = crate::cli::MaxTokens::settings(args.max_tokens);
        ProviderConfig {
            provider: args.provider.clone(),
            settings: Settings {
                model: args.model.clone(),
                base_url: args.base_url.clone(),
                api_key_env: args.api_key_env.clone(),
                temperature: args.temperature,
                seed: args.seed,
                max_tokens,
                max_tokens_auto,
                max_tokens_field: args.max_tokens_field,
                // Saved as `ProviderConfig::timeout`; set by `build_client`.
                timeout: None,
            },
            timeout: args.timeout,
            attempts: args.attempts,
            no_cache: args.no_cache,
            cache_dir: args.cache_dir.clone(),
            simplify: args.simplify,
            prompt: args.prompt.clone(),
        }
    }
}

/// The translate template: `--prompt FILE` or the built-in one.
pub fn translate_template(args: &ProviderConfig) -> Result<Template, InputError> {
    match &args.prompt {
        Some(path) => Template::load(path),
        None => Ok(Template::builtin("translate.v1")),
    }
}

/// A runtime for model calls.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Write command output to stdout. A closed pipe (`glossa eval | head`)
/// is not an error.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    closed_pipe_is_fine(out.write_all(text.as_bytes()).and_then(|_| out.flush()))
}

/// Print `report` in `format` on stdout (CSV's prose on stderr).
pub fn emit_report(report: &dyn Report, format: Format) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let written = report::render(report, format, &mut out, &mut std::io::stderr().lock());
    closed_pipe_is_fine(written.and_then(|_| out.flush()))
}

fn closed_pipe_is_fine(written: std::io::Result<()>) -> anyhow::Result<()> {
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to standard output")
        }
        _ => Ok(()),
    }
}

/// The text argument, or standard input when it is absent or `-`.
pub fn text_or_stdin(text: Option<String>) -> anyhow::Result<String> {
    let text = match text {
        Some(t) if t != "-" => t,
        _ => {
            // One byte past the cap is enough to refuse.
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(glossa::limits::MAX_POST_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            check_text_size(bytes.len())?;
            decode_text("<stdin>", bytes)?
        }
    };
    check_text_size(text.len())?;
    Ok(text)
}

/// A single text given on the command line, on standard input or in a
/// file is a post too: the same cap.
pub fn check_text_size(bytes: usize) -> anyhow::Result<()> {
    if bytes > glossa::limits::MAX_POST_BYTES {
        anyhow::bail!(
            "the text is longer than {}, the most glossa reads as one post; split it",
            glossa::limits::show_bytes(glossa::limits::MAX_POST_BYTES)
        );
    }
    Ok(())
}

/// The café demo's posts and labels fit only its glossary: a glossary of
/// one's own given without `--labels` (or `--posts`) is a forgotten flag,
/// not a wish to score the demo's labels against it. Posts and labels of
/// one's own against the built-in glossary stay allowed.
fn refuse_demo_labels_for_own_glossary(command: &Command) -> anyhow::Result<()> {
    let data = match command {
        Command::Eval(a) => &a.data,
        Command::Sweep(a) if !a.list_params => &a.data,
        Command::Run(a) if a.resume.is_none() && a.retry_errors.is_none() => &a.data,
        _ => return Ok(()),
    };
    if is_builtin(&data.glossary) {
        return Ok(());
    }
    match std::fs::read_to_string(&data.glossary) {
        // Loading it names the file and what is wrong.
        Err(_) => return Ok(()),
        // The demo glossary named by its path (glossaries/cafe.json) is the demo.
        Ok(text) if Some(text.as_str()) == builtin_copy(Path::new(glossa::demo::GLOSSARY)) => {
            return Ok(())
        }
        Ok(_) => {}
    }
    let missing: Vec<&str> = [("--posts", &data.posts), ("--labels", &data.labels)]
        .into_iter()
        .filter(|(_, path)| is_builtin(path))
        .map(|(flag, _)| flag)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "--glossary {} was given without {}: the built-in café demo's posts and labels fit \
         only the demo glossary; give your labelled posts with {}",
        data.glossary.display(),
        missing.join(" and "),
        missing
            .iter()
            .map(|flag| format!("{flag} FILE"))
            .collect::<Vec<_>>()
            .join(" and ")
    )
}

/// Say on stderr which inputs are the built-in demo because no file was
/// named (a named file is always read from disk, or is an error).
fn announce_demo(command: &Command) {
    let data = |d: &crate::cli::LabelledSetArgs| {
        vec![
            ("--glossary", d.glossary.clone()),
            ("--posts", d.posts.clone()),
            ("--labels", d.labels.clone()),
        ]
    };
    let inputs = match command {
        Command::Eval(a) => data(&a.data),
        Command::Sweep(a) if !a.list_params => data(&a.data),
        // A resumed run reads the files its run.json names.
        Command::Run(a) if a.resume.is_none() && a.retry_errors.is_none() => data(&a.data),
        Command::Retrieve(a) => vec![("--glossary", a.glossary.clone())],
        Command::Translate(a) => vec![("--glossary", a.glossary.clone())],
        Command::Lint(a) => vec![("glossary file", a.glossary.clone())],
        Command::Export(a) => vec![("glossary file", a.glossary.clone())],
        _ => Vec::new(),
    };
    let defaulted: Vec<&str> = inputs
        .iter()
        .filter(|(_, path)| is_builtin(path))
        .map(|(flag, _)| *flag)
        .collect();
    if !defaulted.is_empty() {
        eprintln!(
            "no {} given: using the built-in café demo",
            defaulted.join(", ")
        );
    }
}

fn is_builtin(path: &Path) -> bool {
    builtin_copy(path).is_some()
}

/// Read an input file (a demo marker: the built-in copy).
fn read_input(path: &Path) -> Result<String, InputError> {
    match builtin_copy(path) {
        Some(text) => Ok(text.to_string()),
        None => read_text(path),
    }
}

/// An input file as a line reader (a demo marker: the built-in copy).
pub fn open_input(path: &Path) -> Result<Box<dyn std::io::BufRead + Send>, InputError> {
    if let Some(text) = builtin_copy(path) {
        return Ok(Box::new(text.as_bytes()));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| InputError::file(&path.display().to_string(), format!("cannot read: {e}")))?;
    Ok(Box::new(std::io::BufReader::with_capacity(1 << 16, file)))
}

/// The built-in copy of the demo file that `path` marks, if it marks one.
fn builtin_copy(path: &Path) -> Option<&'static str> {
    path.to_str().and_then(demo::builtin)
}

pub fn load_glossary(path: &Path) -> Result<Glossary, InputError> {
    let text = read_input(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Glossary::parse(&path.display().to_string(), &stem, &text)
}

pub fn load_posts(path: &Path) -> Result<Vec<Post>, InputError> {
    dataset::parse_posts(&path.display().to_string(), &read_input(path)?)
}

/// Labelled posts, warning on stderr about posts that have no label.
pub fn load_labelled(
    glossary: &Glossary,
    posts_path: &Path,
    labels_path: &Path,
) -> Result<Vec<LabelledPost>, InputError> {
    let posts = load_posts(posts_path)?;
    let total = posts.len();
    let text = read_input(labels_path)?;
    let labelled = dataset::join_labels(
        &labels_path.display().to_string(),
        &text,
        posts,
        &posts_path.display().to_string(),
        glossary,
    )?;
    if labelled.len() < total {
        eprintln!(
            "{}: {} of {total} posts in {} have no label in {} and are not scored",
            style::warning(),
            total - labelled.len(),
            posts_path.display(),
            labels_path.display()
        );
    }
    Ok(labelled)
}

/// A note on stderr when a retriever of `specs` lacks data that is not
/// installed (WordNet's exception lists for `irregular`, which the default
/// uses): what it then finds less of, and how to install it.
pub fn note_missing_data<'s>(specs: impl IntoIterator<Item = &'s str>) {
    if let Some(note) = specs.into_iter().find_map(glossa::retrieve::missing_data) {
        eprintln!("{}: {note}", style::note());
    }
}
