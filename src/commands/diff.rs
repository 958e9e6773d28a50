//! `glossa diff A B`: what changed between two saved results, and whether
//! it is more than chance.

use crate::cli::DiffArgs;
use glossa::diff::{self, parse_pairing, shown};
use glossa::stats::TestSettings;
use std::process::ExitCode;

pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    let (a, b) = diff::load_both(&args.a, &args.b)?;
    let pairing = args.retriever.as_deref().and_then(parse_pairing);
    let test = TestSettings::new(args.resamples, args.seed);
    let d = diff::diff(&a, &shown(&args.a), &b, &shown(&args.b), &pairing, test)?;
    match args.format.table_format() {
        Some(format) => super::emit_report(&d, format)?,
        None => {
            let texts = match &a {
                diff::Saved::Eval(result) => {
                    super::html_report::post_texts(std::path::Path::new(&result.posts_file)).0
                }
                diff::Saved::Run(_) => Default::default(),
            };
            super::emit(&glossa::report::html::diff_page(&d, &a, &b, &texts))?
        }
    }
    for change in &d.settings_changed {
        eprintln!("{}: changed: {change}", super::style::note());
    }
    if !d.inputs_differ.is_empty() {
        eprintln!(
            "{}: A and B differ in their {} (by SHA-256): the figures are about different data",
            super::style::warning(),
            d.inputs_differ.join(", ")
        );
    }
    if !d.unpaired_a.is_empty() {
        eprintln!(
            "{}: only in A, not compared: {}",
            super::style::note(),
            d.unpaired_a.join(", ")
        );
    }
    if !d.unpaired_b.is_empty() {
        eprintln!(
            "{}: only in B, not compared: {}",
            super::style::note(),
            d.unpaired_b.join(", ")
        );
    }
    for r in &d.retrievers {
        let name = if r.a == r.b {
            r.a.clone()
        } else {
            format!("{} → {}", r.a, r.b)
        };
        if !r.only_in_a.is_empty() {
            eprintln!(
                "{}: {name}: {} posts only in A, not compared: {}",
                super::style::note(),
                r.only_in_a.len(),
                r.only_in_a.join(", ")
            );
        }
        if !r.only_in_b.is_empty() {
            eprintln!(
                "{}: {name}: {} posts only in B, not compared: {}",
                super::style::note(),
                r.only_in_b.len(),
                r.only_in_b.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
