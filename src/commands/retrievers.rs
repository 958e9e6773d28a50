//! `glossa retrievers`: what `--retriever` accepts.

use crate::retrieve::{COMPOSITIONS, FILTERS, REFERENCE, REGISTRY};
use std::fmt::Write as _;
use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    let width = REGISTRY
        .iter()
        .map(|i| i.name.len())
        .chain(FILTERS.iter().map(|i| i.name.len() + 1))
        .chain(COMPOSITIONS.iter().map(|c| c.name.len()))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    writeln!(out, "Retrievers:")?;
    for info in REGISTRY {
        writeln!(out, "  {:width$}  {}", info.name, info.summary)?;
    }
    writeln!(out, "\nFilters (after `|`, applied left to right):")?;
    for info in FILTERS {
        writeln!(
            out,
            "  {:width$}  {}",
            format!("|{}", info.name),
            info.summary
        )?;
    }
    writeln!(out, "\nNamed compositions:")?;
    for c in COMPOSITIONS {
        writeln!(out, "  {:width$}  {} = {}", c.name, c.summary, c.spec)?;
    }
    writeln!(
        out,
        "\nCombine with `+` for a union and `|` for a filter, e.g. normalised+fuzzy+edit+alias|sense|longest."
    )?;
    writeln!(
        out,
        "`all` (eval) runs the reference five: {}; `all,glossa` adds the recommended one.",
        REFERENCE.join(", ")
    )?;
    super::emit(&out)?;
    Ok(ExitCode::SUCCESS)
}
