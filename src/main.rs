mod cli;
mod commands;

use clap::Parser;
use cli::Cli;
use glossa::exit::Exit;
use std::process::ExitCode;

// Scoring makes and drops many small strings per post (words, phrases,
// matches); mimalloc serves them markedly faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the 16th of `mi_option_e` in its
/// `mimalloc.h`; the sys crate names only some options).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// A command that runs and exits keeps the memory it freed: by default
/// mimalloc hands freed pages back to the system after a second, and an `eval`
/// at 100k entries then faults (and the kernel zeroes) its whole index
/// again while scoring (353 MiB purged, about 0.5 s of system time). The
/// long-running `serve` keeps the default and gives memory back.
fn keep_freed_memory() {
    // SAFETY: sets one documented runtime option; no memory is involved.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !matches!(cli.command, cli::Command::Serve(_)) {
        keep_freed_memory();
    }
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("{}: {err:#}", commands::style::error());
            Exit::BadInput.into()
        }
    }
}

#[cfg(test)]
mod tests {
    /// The option number is mimalloc's purge delay: its default is 1000 ms
    /// (no other option of the first 20 defaults to 1000).
    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        let read = || unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(read(), 1000);
        }
        super::keep_freed_memory();
        assert_eq!(read(), -1);
    }
}
