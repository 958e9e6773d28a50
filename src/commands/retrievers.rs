//! `glossa retrievers`: what `--retriever` accepts.

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    super::emit(&glossa::report::retrievers::listing())?;
    Ok(ExitCode::SUCCESS)
}
