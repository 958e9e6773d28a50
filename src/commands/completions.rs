//! `glossa completions SHELL` and `glossa man`: generated from the clap
//! definitions, so they never drift from the real flags.

use crate::cli::{Cli, CompletionsArgs};
use anyhow::Context as _;
use clap::CommandFactory;
use std::process::ExitCode;

pub fn completions(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "glossa", &mut script);
    super::emit(&String::from_utf8(script).context("the completion script is not UTF-8")?)?;
    Ok(ExitCode::SUCCESS)
}

pub fn man() -> anyhow::Result<ExitCode> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .context("cannot render the manual page")?;
    super::emit(&String::from_utf8(page).context("the manual page is not UTF-8")?)?;
    Ok(ExitCode::SUCCESS)
}
