//! `glossa eval`: score retrievers on labelled posts.

use crate::cli::{EvalArgs, SplitChoice};
use crate::dataset::Split;
use crate::diff;
use crate::eval::{evaluate, Sources};
use crate::gate;
use crate::report::{self, Format};
use crate::retrieve::{expand_list, Params};
use crate::runs;
use crate::stats::TestSettings;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let glossary = Arc::new(super::load_glossary(&args.glossary)?);
    let mut posts = super::load_labelled(&glossary, &args.posts, &args.labels)?;
    let (split_name, keep) = match args.split {
        SplitChoice::All => ("all", None),
        SplitChoice::Dev => ("dev", Some(Split::Dev)),
        SplitChoice::Test => ("test", Some(Split::Test)),
    };
    if let Some(split) = keep {
        posts.retain(|p| p.label.split == split);
        if posts.is_empty() {
            anyhow::bail!(
                "no labelled post in {} is in the {split} split",
                args.labels.display()
            );
        }
    }
    let specs = expand_list(&args.retriever);
    if specs.is_empty() {
        anyhow::bail!("--retriever names no retriever");
    }
    let bounds: Vec<gate::Bound> = args
        .fail_under
        .iter()
        .chain(&args.fail_over)
        .cloned()
        .collect();
    gate::check_names(&bounds, &specs).map_err(anyhow::Error::msg)?;
    if args.compare && specs.len() < 2 {
        anyhow::bail!(
            "--compare needs at least two retrievers (e.g. --retriever exact,normalised)"
        );
    }
    let params = Params::from(&args.params);
    let posts_file = args.posts.display().to_string();
    let labels_file = args.labels.display().to_string();
    let sources = Sources {
        posts_file: &posts_file,
        labels_file: &labels_file,
        split: split_name,
    };
    let result = evaluate(&glossary, &posts, &specs, &params, &sources)?;

    let compared = args.compare.then(|| {
        let test = TestSettings::new(args.resamples, args.seed);
        (test, diff::compare_all(&result, test))
    });
    let saved = match &compared {
        // The result with the comparisons beside it.
        Some((test, comparisons)) => {
            let mut v = serde_json::to_value(&result)?;
            v["test"] = serde_json::to_value(test)?;
            v["comparisons"] = serde_json::to_value(comparisons)?;
            v
        }
        None => serde_json::to_value(&result)?,
    };
    match (&compared, args.format) {
        (Some(_), Format::Json) => super::emit(&(serde_json::to_string_pretty(&saved)? + "\n"))?,
        (Some((test, comparisons)), format) => {
            let mut out = report::eval::render(&result, format, args.by_tag);
            let table = report::diff::comparison_table(comparisons, test);
            out.push('\n');
            out.push_str(&report::exporter(format).expect("not JSON").render(&[table]));
            super::emit(&out)?;
        }
        (None, format) => super::emit(&report::eval::render(&result, format, args.by_tag))?,
    }
    if !args.no_save {
        let path = runs::save_json(
            &args.runs_dir,
            &runs::suite_name(&posts_file),
            "eval",
            &saved,
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
                eprintln!("gate failed: {failure}");
            }
            eprintln!(
                "gate failed: {} of {} checked figures missed their bounds",
                verdict.failures.len(),
                verdict.checked
            );
            return Ok(ExitCode::from(gate::EXIT_GATE_FAILED));
        }
        eprintln!(
            "gate passed: {} figure{} within {} bound{}",
            verdict.checked,
            if verdict.checked == 1 { "" } else { "s" },
            bounds.len(),
            if bounds.len() == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
