use clap::Parser;
use glossa::cli::Cli;
use glossa::commands;
use glossa::exit::Exit;
use std::process::ExitCode;

// Scoring makes and drops many small strings per post (words, phrases,
// matches); mimalloc serves them markedly faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("{}: {err:#}", commands::style::error());
            Exit::BadInput.into()
        }
    }
}
