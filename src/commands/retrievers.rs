//! `glossa retrievers`: what `--retriever` accepts.

use crate::retrieve::{REFERENCE, REGISTRY};
use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    let width = REGISTRY.iter().map(|i| i.name.len()).max().unwrap_or(0);
    for info in REGISTRY {
        println!("{:width$}  {}", info.name, info.summary);
    }
    println!();
    println!("Combine with `+` for a union, e.g. normalised+fuzzy.");
    println!(
        "`all` (eval) runs the reference five: {}.",
        REFERENCE.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}
