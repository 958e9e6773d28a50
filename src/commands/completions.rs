//! `glossa completions SHELL` and `glossa man`: generated from the clap
//! definitions, so they never drift from the real flags.

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use anyhow::Context as _;
use clap::CommandFactory;
use std::process::ExitCode;

pub fn completions(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = with_retriever_names(Cli::command());
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "glossa", &mut script);
    super::emit(&String::from_utf8(script).context("the completion script is not UTF-8")?)?;
    Ok(ExitCode::SUCCESS)
}

/// `--retriever` takes a spec (`a+b|filter`, lists), so clap parses it as
/// free text and the shells would offer file names. For the completion
/// scripts only, the flag lists the names a spec is made of: every
/// registered retriever and filter, the named compositions and `all`.
fn with_retriever_names(command: clap::Command) -> clap::Command {
    use clap::builder::PossibleValue;
    use glossa::retrieve::{COMPOSITIONS, FILTERS, REGISTRY};
    let value = |name: &'static str, summary: &'static str| PossibleValue::new(name).help(summary);
    let mut names = vec![value("all", "the five reference retrievers")];
    names.extend(COMPOSITIONS.iter().map(|c| value(c.name, c.summary)));
    names.extend(REGISTRY.iter().map(|r| value(r.name, r.summary)));
    names.extend(FILTERS.iter().map(|f| value(f.name, f.summary)));
    let subcommands: Vec<String> = command
        .get_subcommands()
        .filter(|c| c.get_arguments().any(|a| a.get_id() == "retriever"))
        .map(|c| c.get_name().to_string())
        .collect();
    subcommands.into_iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| {
            sub.mut_arg("retriever", |arg| {
                arg.value_parser(clap::builder::PossibleValuesParser::new(names.clone()))
            })
        })
    })
}

pub fn man(args: ManArgs) -> anyhow::Result<ExitCode> {
    let top = Cli::command();
    let command = match &args.command {
        None => top,
        Some(name) => subcommand_page(&top, name)?,
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .context("cannot render the manual page")?;
    super::emit(&String::from_utf8(page).context("the manual page is not UTF-8")?)?;
    Ok(ExitCode::SUCCESS)
}

/// `name`'s command as a page of its own, titled glossa-NAME as the
/// top page's list of commands refers to it.
fn subcommand_page(top: &clap::Command, name: &str) -> anyhow::Result<clap::Command> {
    let Some(sub) = top.find_subcommand(name) else {
        let names: Vec<&str> = top.get_subcommands().map(|c| c.get_name()).collect();
        anyhow::bail!("no command `{name}`; commands: {}", names.join(", "));
    };
    let title = format!("glossa-{}", sub.get_name());
    Ok(sub
        .clone()
        .name(title.clone())
        .bin_name(format!("glossa {}", sub.get_name()))
        .display_name(title)
        .version(env!("CARGO_PKG_VERSION")))
}
