use clap::Parser;
use glossa::cli::Cli;
use glossa::commands::{self, EXIT_BAD_INPUT};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}
