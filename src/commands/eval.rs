//! `glossa eval`: score retrievers on labelled posts.

use crate::cli::{EvalArgs, SplitChoice};
use crate::dataset::Split;
use crate::eval::{evaluate, Sources};
use crate::report::{self, Format};
use crate::retrieve::{expand_list, Params};
use crate::runs;
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
    let params = Params {
        threshold: args.params.threshold,
    };
    let posts_file = args.posts.display().to_string();
    let labels_file = args.labels.display().to_string();
    let sources = Sources {
        posts_file: &posts_file,
        labels_file: &labels_file,
        split: split_name,
    };
    let result = evaluate(&glossary, &posts, &specs, &params, &sources)?;

    super::emit(&report::eval::render(&result, args.format, args.by_tag))?;
    if !args.no_save {
        let path = runs::save_json(
            &args.runs_dir,
            &runs::suite_name(&posts_file),
            "eval",
            &result,
        )?;
        eprintln!("saved {}", path.display());
    }
    if args.format == Format::Table && !args.by_tag && std::io::stderr().is_terminal() {
        eprintln!("(--by-tag for a breakdown by tag, --format json for per-post detail)");
    }
    Ok(ExitCode::SUCCESS)
}
