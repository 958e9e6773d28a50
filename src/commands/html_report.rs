//! `glossa report RESULT`: one offline HTML page of a saved result (an
//! eval JSON file, a run folder, a sweep JSON file).

use crate::cli::ReportArgs;
use glossa::diff::{self, Saved, SavedRun};
use glossa::error::{read_text, InputError};
use glossa::report::failing::latest_calls;
use glossa::report::html::{self, RunPage};
use glossa::run_dir::calls::CALLS_FILE;
use glossa::run_dir::config::load_config;
use glossa::run_dir::summary::summarise_file;
use glossa::sweep::SweepResult;
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let shown = diff::shown(&args.result);
    let page = match read_sweep(&args.result)? {
        Some(sweep) => html::sweep_page(&sweep, &shown),
        None => match diff::load(&args.result)? {
            Saved::Eval(result) => {
                let path = args
                    .posts
                    .clone()
                    .unwrap_or_else(|| result.posts_file.clone().into());
                let (texts, note) = post_texts(&path);
                html::eval_page(&result, &shown, &texts, note.as_deref())
            }
            Saved::Run(run) => run_page(&run, &shown, args.posts.as_deref())?,
        },
    };
    match &args.out {
        Some(path) => {
            glossa::runs::write_atomic(path, page.as_bytes())?;
            eprintln!("wrote {}", path.display());
        }
        None => super::emit(&page)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Each post's text by id from a posts file; when it cannot be read, none
/// and the note the page shows (said on stderr too).
pub(crate) fn post_texts(path: &Path) -> (HashMap<String, String>, Option<String>) {
    match super::load_posts(path) {
        Ok(posts) => (posts.into_iter().map(|p| (p.id, p.text)).collect(), None),
        Err(e) => (HashMap::new(), Some(unreadable(&e.to_string()))),
    }
}

/// Say on stderr that the posts cannot be read; the note the page shows.
fn unreadable(why: &str) -> String {
    eprintln!(
        "{}: the report shows no post texts: {why} (--posts FILE names the posts file)",
        super::style::warning()
    );
    format!("post texts not shown: {why}")
}

/// A sweep result (`runs/*_sweep.json`), or `None` for anything else.
fn read_sweep(path: &Path) -> anyhow::Result<Option<SweepResult>> {
    if path.is_dir() {
        return Ok(None);
    }
    let Ok(text) = read_text(path) else {
        return Ok(None);
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    if value.get("param").is_none() || value.get("rows").is_none() {
        return Ok(None);
    }
    let shown = path.display().to_string();
    let sweep = serde_json::from_str(&text).map_err(|e| InputError::json(&shown, 1, &e))?;
    Ok(Some(sweep))
}

fn run_page(run: &SavedRun, shown: &str, posts: Option<&Path>) -> anyhow::Result<String> {
    let calls = latest_calls(&run.dir.join(CALLS_FILE))?;
    let (summary, inputs, note) = match load_config(&run.dir) {
        Ok(mut config) => {
            if let Some(posts) = posts {
                config.posts = posts.to_path_buf();
            }
            let summary = summarise_file(&run.dir, &config.retrievers)?;
            match super::run::load_posts(&config) {
                Ok(loaded) => (summary, Some(loaded), None),
                Err(e) => (summary, None, Some(unreadable(&format!("{e:#}")))),
            }
        }
        Err(e) => {
            let summary = summarise_file(&run.dir, &run.retrievers)?;
            (summary, None, Some(unreadable(&e.to_string())))
        }
    };
    let (glossary, posts) = match &inputs {
        Some((g, p)) => (Some(&**g), p.as_slice()),
        None => (None, &[][..]),
    };
    Ok(html::run_page(&RunPage {
        shown,
        summary: &summary,
        calls: &calls,
        glossary,
        posts,
        note: note.as_deref(),
    }))
}
