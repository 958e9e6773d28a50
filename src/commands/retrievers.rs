//! `glossa retrievers`: what `--retriever` accepts.

use crate::retrieve::{REFERENCE, REGISTRY};
use std::fmt::Write as _;
use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    let width = REGISTRY.iter().map(|i| i.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for info in REGISTRY {
        writeln!(out, "{:width$}  {}", info.name, info.summary)?;
    }
    writeln!(
        out,
        "\nCombine with `+` for a union, e.g. normalised+fuzzy."
    )?;
    writeln!(
        out,
        "`all` (eval) runs the reference five: {}.",
        REFERENCE.join(", ")
    )?;
    super::emit(&out)?;
    Ok(ExitCode::SUCCESS)
}
