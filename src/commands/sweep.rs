//! `glossa sweep`: score one retriever over a range of one parameter's
//! values, with a table, a JSON result and an SVG chart.

use crate::cli::SweepArgs;
use glossa::eval::Sources;
use glossa::report::{self, chart};
use glossa::retrieve::{expand_list, Params};
use glossa::runs;
use glossa::sweep::{self, format_value};
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    if args.list_params {
        super::emit_report(&report::sweep::ParamsReport, args.format)?;
        return Ok(ExitCode::SUCCESS);
    }
    let param = sweep::tunable(&args.param)?.number()?;
    let values = if !args.values.is_empty() {
        args.values.clone()
    } else {
        match (args.from, args.to, args.step) {
            (Some(from), Some(to), Some(step)) => sweep::steps(from, to, step)?,
            (None, None, None) => {
                let (from, to, step) = param.range;
                sweep::steps(from, to, step)?
            }
            _ => anyhow::bail!("give --from, --to and --step together (or --values, or none of them for the default range)"),
        }
    };
    for &v in &values {
        param.check(v)?;
    }
    let specs = expand_list(&args.retriever);
    if specs.len() != 1 {
        anyhow::bail!(
            "sweep scores one retriever at a time; --retriever gives {} ({})",
            specs.len(),
            specs.join(", ")
        );
    }

    let glossary = Arc::new(super::load_glossary(&args.data.glossary)?);
    let mut posts = super::load_labelled(&glossary, &args.data.posts, &args.data.labels)?;
    let split_name = args.split.name();
    posts.retain(|p| args.split.keeps(p.label.split));
    if posts.is_empty() {
        anyhow::bail!(
            "no labelled post in {} is in the {split_name} split",
            args.data.labels.display()
        );
    }
    let posts_file = args.data.posts.display().to_string();
    let labels_file = args.data.labels.display().to_string();
    let sources = Sources {
        posts_file: &posts_file,
        labels_file: &labels_file,
        split: split_name,
    };
    let base = Params::from(&args.params);
    let mut result = sweep_with_progress(
        &glossary, &posts, &specs[0], param, &values, &base, &sources,
    )?;

    let svg = chart::sweep_svg(&result)?;
    let mut written = Vec::new();
    if let Some(path) = &args.svg {
        runs::write_atomic(path, &svg)?;
        written.push(path.display().to_string());
    }
    if !args.no_save {
        let name = format!("{}_sweep", runs::suite_name(&posts_file));
        let json_path = runs::unique_path(&args.runs_dir, &name, ".json")?;
        let svg_path = json_path.with_extension("svg");
        if let Err(e) = runs::write_atomic(&svg_path, &svg) {
            // Release the reserved name: no 0-byte result is left.
            let _ = std::fs::remove_file(&json_path);
            return Err(e.into());
        }
        result.chart = Some(svg_path.display().to_string());
        let json = report::pretty_json(&result)?;
        if let Err(e) = runs::fill_reserved(&json_path, json) {
            // The chart alone is no result.
            let _ = std::fs::remove_file(&svg_path);
            return Err(e.into());
        }
        written.push(json_path.display().to_string());
        written.push(svg_path.display().to_string());
    } else if let Some(path) = &args.svg {
        result.chart = Some(path.display().to_string());
    }

    super::emit_report(&result, args.format)?;
    if !written.is_empty() {
        eprintln!("saved {}", written.join(", "));
    }
    if result.flat() && result.rows.len() > 1 {
        eprintln!(
            "{}: no figure changed over the range; does `{}` read `{}`? (see glossa sweep --help)",
            super::style::note(),
            result.retriever,
            result.param
        );
    } else if let Some(best) = result.suggested() {
        eprintln!(
            "suggested on {}: {} = {} ({} of {} posts complete, {} extra, {} wrong sense: \
             the fewest extras within one point of the most complete posts); \
             report it once on test with\n  {}",
            result.split,
            result.param,
            format_value(best.value),
            best.counts.complete,
            best.counts.posts,
            best.counts.extra,
            best.counts.wrong_sense,
            eval_command(&args, &base, param, best.value),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The `glossa eval` that scores the suggested value on test: the same
/// files (none named when they are the demo's), retriever and parameters,
/// ready to copy.
fn eval_command(args: &SweepArgs, base: &Params, swept: &sweep::Tunable, value: f64) -> String {
    let mut words = vec!["glossa".to_string(), "eval".to_string()];
    for (flag, path, demo) in [
        ("-g", &args.data.glossary, crate::cli::DEMO_GLOSSARY),
        ("-p", &args.data.posts, crate::cli::DEMO_POSTS),
        ("-l", &args.data.labels, crate::cli::DEMO_LABELS),
    ] {
        if path.as_os_str() != demo {
            words.push(flag.to_string());
            words.push(shell_word(&path.display().to_string()));
        }
    }
    words.push("-r".to_string());
    words.push(shell_word(&args.retriever));
    for t in glossa::retrieve::TUNABLE {
        if let Some(text) = base.text(t.name) {
            words.push(format!(
                "--{} {}",
                t.name.replace('_', "-"),
                shell_word(text)
            ));
        }
        if !t.kind.is_number() {
            continue;
        }
        let v = if t.name == swept.name {
            value
        } else {
            (t.get)(base)
        };
        if (v - t.default).abs() > 1e-9 || t.name == swept.name {
            words.push(format!(
                "--{} {}",
                t.name.replace('_', "-"),
                format_value(v)
            ));
        }
    }
    words.push("--split test".to_string());
    words.join(" ")
}

/// A word as a POSIX shell reads it back: bare when it holds only safe
/// characters, else in single quotes.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:,+=@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `sweep::sweep`, one value at a time so that a terminal sees progress.
fn sweep_with_progress(
    glossary: &Arc<glossa::glossary::Glossary>,
    posts: &[glossa::dataset::LabelledPost],
    spec: &str,
    param: &sweep::Tunable,
    values: &[f64],
    base: &Params,
    sources: &Sources,
) -> anyhow::Result<sweep::SweepResult> {
    let progress = super::progress::Progress::steps(values.len(), "values");
    let mut result: Option<sweep::SweepResult> = None;
    for value in values.chunks(1) {
        let part = sweep::sweep(glossary, posts, spec, param, value, base, sources)?;
        match &mut result {
            Some(r) => r.rows.extend(part.rows),
            None => result = Some(part),
        }
        progress.tick();
    }
    progress.finish();
    result.ok_or_else(|| anyhow::anyhow!("no value to sweep"))
}
