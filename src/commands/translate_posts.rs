//! `glossa translate --posts FILE`: a batch of unlabelled posts through
//! the translate pipeline, `-j` at a time (the batch loop of `glossa run`),
//! each checked; the translations in the input's order. The reply cache is
//! the resume: the same command again answers every call already answered
//! from it and makes only the rest.

use crate::cli::TranslateArgs;
use anyhow::Context as _;
use glossa::batch::{self, SameErrors, DEFAULT_STOP_AFTER};
use glossa::dataset;
use glossa::error::read_text;
use glossa::exit::Exit;
use glossa::report::translate_posts::{PostTranslation, Translations};
use glossa::report::{self, Format};
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: TranslateArgs) -> anyhow::Result<ExitCode> {
    let path = args.posts.as_deref().context("--posts names the file")?;
    let (posts, layout) =
        dataset::parse_unlabelled(&path.display().to_string(), &read_text(path)?)?;
    let texts: Vec<&str> = posts.iter().map(|p| p.text.as_str()).collect();
    let pipeline = Arc::new(super::translate::pipeline(&args, &texts)?);
    let posts = Arc::new(posts);
    let progress = indicatif::ProgressBar::new(posts.len() as u64);
    progress.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} posts, {per_sec}, ETA {eta}")
            .expect("valid progress template"),
    );
    let mut done: Vec<Option<PostTranslation>> = vec![None; posts.len()];
    let mut same = SameErrors::default();
    let mut stopped: Option<String> = None;
    let parent = opentelemetry::Context::current();
    let jobs = (0..posts.len()).map(|i| {
        let (pipeline, posts) = (Arc::clone(&pipeline), Arc::clone(&posts));
        let parent = parent.clone();
        async move {
            let trace = pipeline.run(&posts[i].text, None, 1).await;
            let now = std::time::SystemTime::now();
            pipeline.record_spans(&parent, &trace, &posts[i].id, None, now);
            (i, trace)
        }
    });
    let interrupted = super::runtime()?.block_on(batch::run_concurrently(
        jobs,
        args.concurrency,
        |(i, trace)| {
            let g = &trace.generate.output;
            // As `glossa run` stops: an error every call would get, again
            // and again, or one that stops runs (quota, key).
            let in_a_row = same.note(g.error.as_deref(), g.same_for_every_call);
            if stopped.is_none() && (g.stops_run || in_a_row >= DEFAULT_STOP_AFTER) {
                stopped = g.error.clone();
            }
            done[i] = Some(PostTranslation::of(&posts[i].id, &trace));
            progress.inc(1);
            Ok::<_, anyhow::Error>(stopped.is_some())
        },
        |in_flight| {
            progress.println(format!(
                "stopping: waiting for {in_flight} calls in flight (Ctrl-C again to abandon them)"
            ))
        },
    ))?;
    progress.finish_and_clear();

    let answered = done.iter().flatten().count();
    let again = "run the same command again: the calls answered are cached, only the rest are made";
    if interrupted {
        eprintln!(
            "interrupted after {answered} of {} posts; {again}",
            posts.len()
        );
        return Ok(Exit::Interrupted.into());
    }
    if let Some(reason) = stopped {
        eprintln!(
            "{}: stopped early after {answered} of {} posts: {reason}\nwhen that is fixed, {again}",
            super::style::error(),
            posts.len()
        );
        return Ok(Exit::Failed.into());
    }
    let translations = Translations {
        layout,
        posts: done.into_iter().flatten().collect(),
    };
    write(&translations, &args)?;
    Ok(tell(&translations, &args.provider.provider, args.invariants).into())
}

/// The translations, on stdout or in `--out`.
fn write(t: &Translations, args: &TranslateArgs) -> anyhow::Result<()> {
    let text = match args.format {
        Format::Table | Format::Markdown => t.lines(),
        format => report::to_string(t, format),
    };
    match &args.out {
        Some(out) => glossa::fsutil::write_atomic(out, text)
            .with_context(|| format!("cannot write {}", out.display())),
        None => super::emit(&text),
    }
}

/// Failed calls, missing targets and invariants not kept on stderr, then
/// the counts; the exit code: 1 when a call failed (or, with
/// `--invariants fail`, an invariant was not kept).
fn tell(t: &Translations, provider: &str, invariants: glossa::invariants::Mode) -> Exit {
    let (mut failed, mut missing, mut cached, mut lost) = (0, 0, 0, 0);
    for post in &t.posts {
        for issue in &post.invariants {
            eprintln!(
                "{}: invariant not kept: {}",
                t.place(post),
                issue.describe()
            );
        }
        lost += usize::from(!post.invariants.is_empty());
        if let Some(err) = &post.error {
            failed += 1;
            eprintln!("{}: no output: the call failed ({err})", t.place(post));
        } else if !post.missing.is_empty() {
            missing += 1;
            eprintln!(
                "{}: not in the output: {}",
                t.place(post),
                post.missing.join(", ")
            );
        }
        cached += usize::from(post.cached);
    }
    let offline = if provider.trim() == "offline" {
        " (offline: glossary words substituted, nothing translated)"
    } else {
        ""
    };
    let lost_note = match lost {
        0 => String::new(),
        n => format!(", {n} with an invariant not kept"),
    };
    eprintln!(
        "{} posts{offline}: {} answered ({cached} from the cache), {failed} failed, {missing} missing a glossary target{lost_note}",
        t.posts.len(),
        t.posts.len() - failed,
    );
    if failed > 0 || (lost > 0 && invariants == glossa::invariants::Mode::Fail) {
        Exit::Failed
    } else {
        Exit::Ok
    }
}
