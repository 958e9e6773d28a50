//! `glossa retrievers`: what `--retriever` accepts.

use std::process::ExitCode;

pub fn run() -> anyhow::Result<ExitCode> {
    super::emit(&crate::report::retrievers::listing())?;
    Ok(ExitCode::SUCCESS)
}
