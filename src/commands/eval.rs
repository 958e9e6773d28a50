//! `glossa eval`: score retrievers on labelled posts.

use crate::cli::EvalArgs;
use anyhow::Context as _;
use glossa::dataset::LabelledStream;
use glossa::diff;
use glossa::eval::{evaluate_stream, EvalOptions, PerPost, Sources, Timing, PER_POST_AUTO_LIMIT};
use glossa::fsutil::AtomicFile;
use glossa::gate;
use glossa::report::eval::EvalReport;
use glossa::report::Format;
use glossa::retrieve::{expand_list, Params};
use glossa::runs;
use glossa::stats::TestSettings;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    // Everything from loading to scoring runs on these threads, so that
    // `--threads 1` is one core throughout.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| run_on_pool(args))
}

fn run_on_pool(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let glossary = Arc::new(glossary_of(&args)?);
    let split_name = args.split.name();
    let posts_file = args.data.posts.display().to_string();
    let labels_file = args.data.labels.display().to_string();
    let mut stream = LabelledStream::new(
        Arc::clone(&glossary),
        &posts_file,
        super::open_input(&args.data.posts)?,
        &labels_file,
        super::open_input(&args.data.labels)?,
    );
    let specs = expand_list(&args.retriever);
    if specs.is_empty() {
        anyhow::bail!("--retriever names no retriever");
    }
    super::note_missing_data(specs.iter().map(String::as_str));
    let bounds: Vec<gate::Bound> = args
        .fail_under
        .iter()
        .chain(&args.fail_over)
        .cloned()
        .collect();
    gate::check_names(&bounds, &specs)?;
    if args.compare && specs.len() < 2 {
        anyhow::bail!(
            "--compare needs at least two retrievers (e.g. --retriever exact,normalised)"
        );
    }
    let params = Params::from(&args.params);
    let sources = Sources {
        posts_file: &posts_file,
        labels_file: &labels_file,
        split: split_name,
    };
    let per_post_out = match &args.per_post_jsonl {
        Some(path) => Some(AtomicFile::create(path)?),
        None => None,
    };
    let options = EvalOptions {
        // The paired tests of --compare need every post.
        per_post: if args.compare {
            PerPost::On
        } else {
            args.per_post
        },
        per_post_out,
        exit_follows: true,
    };
    let started = Instant::now();
    let progress = super::progress::Progress::counter("posts read");
    let posts = stream
        .by_ref()
        .inspect(|_| progress.tick())
        .filter(|p| p.as_ref().map_or(true, |p| args.split.keeps(p.label.split)));
    let scored = evaluate_stream(&glossary, posts, &specs, &params, &sources, options);
    progress.finish();
    let (mut result, stats) = scored?;
    if stream.unlabelled > 0 {
        eprintln!(
            "{}: {} of {} posts in {posts_file} have no label in {labels_file} and are not scored",
            super::style::warning(),
            stream.unlabelled,
            stream.posts_read()
        );
    }
    if stats.posts == 0 {
        anyhow::bail!("no labelled post in {labels_file} is in the {split_name} split");
    }
    let seconds = started.elapsed().as_secs_f64();
    let stdin = |p: &std::path::Path| p.as_os_str() == "-";
    if !stdin(&args.data.posts) && !stdin(&args.data.labels) {
        result.inputs =
            glossa::eval::InputHashes::of(&args.data.glossary, &args.data.posts, &args.data.labels);
    }
    result.timing = Some(Timing {
        posts: stats.posts,
        index_seconds: stats.index_seconds,
        seconds,
        posts_per_second: stats.posts as f64 / seconds.max(1e-9),
    });
    if stats.per_post_dropped {
        eprintln!(
            "{}: per-post details are left out of the result above {PER_POST_AUTO_LIMIT} posts (--per-post on keeps them; --per-post-jsonl FILE streams them)",
            super::style::note()
        );
    }
    let compared = args.compare.then(|| {
        let test = TestSettings::new(args.resamples, args.seed);
        (test, diff::compare_all(&result, test))
    });
    let report = EvalReport {
        result: &result,
        by_tag: args.by_tag,
        compared: compared.as_ref().map(|(test, c)| (test, c.as_slice())),
        failing: args.show.is_some(),
    };
    super::emit_report(&report, args.format)?;
    if !args.no_save {
        let path = runs::save_json(
            &args.runs_dir,
            &runs::suite_name(&posts_file),
            "eval",
            &report.document()?,
        )?;
        eprintln!("saved {}", path.display());
    }
    if args.format == Format::Table && !args.by_tag && std::io::stderr().is_terminal() {
        eprintln!("(--by-tag for a breakdown by tag, --format json for per-post detail)");
    }
    if !bounds.is_empty() {
        let verdict = gate::check(&bounds, &result);
        for note in &verdict.undefined {
            eprintln!("gate: {note}; not checked");
        }
        if !verdict.passed() {
            for failure in &verdict.failures {
                eprintln!("gate {}: {failure}", super::style::bad("failed"));
            }
            eprintln!(
                "gate {}: {} of {} checked figures missed their bounds",
                super::style::bad("failed"),
                verdict.failures.len(),
                verdict.checked
            );
            return Ok(glossa::exit::Exit::Failed.into());
        }
        eprintln!(
            "gate {}: {} figure{} within {} bound{}",
            super::style::good("passed"),
            verdict.checked,
            if verdict.checked == 1 { "" } else { "s" },
            bounds.len(),
            if bounds.len() == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The glossary to score on: from the compiled glossary when
/// `--compiled`/`--index` say so, the candidates of every post and the
/// entries the labels name (read from the files once more, so not for
/// standard input); else the whole file.
fn glossary_of(args: &EvalArgs) -> anyhow::Result<glossa::glossary::Glossary> {
    let d = &args.data;
    let stdin = |p: &std::path::Path| p.as_os_str() == "-";
    let count = || {
        use std::io::BufRead;
        super::open_input(&d.posts).map_or(0, |r| {
            r.lines()
                .map_while(Result::ok)
                .filter(|l| !l.trim().is_empty())
                .count()
        })
    };
    let compiled = match stdin(&d.posts) || stdin(&d.labels) {
        true => None,
        false => super::compiled::open_for(
            &d.glossary,
            &args.compiled,
            std::path::Path::new(glossa::generate::cache::DEFAULT_DIR),
            count,
        )?,
    };
    let Some(compiled) = compiled else {
        return Ok(super::load_glossary(&d.glossary)?);
    };
    let specs = expand_list(&args.retriever);
    let specs: Vec<&str> = specs.iter().map(String::as_str).collect();
    let posts =
        glossa::compiled::post_texts(&d.posts.display().to_string(), super::open_input(&d.posts)?);
    let ids = glossa::compiled::label_ids(
        &d.labels.display().to_string(),
        super::open_input(&d.labels)?,
    );
    super::compiled::load(
        &compiled,
        &specs,
        &Params::from(&args.params),
        posts,
        ids.iter().map(String::as_str),
        true,
    )
}
