//! The process exit codes, in one place: every command and `main` use
//! these (documented in README.md and `glossa --help`).

use std::process::ExitCode;

/// How a glossa process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Everything ran and passed.
    Ok = 0,
    /// It ran, but a result is not good enough: an evaluation gate was
    /// missed, a check or lint failed, calls of a run failed or are missing.
    Failed = 1,
    /// Bad input or usage (also the code a mistyped flag exits with).
    BadInput = 2,
    /// Stopped by Ctrl-C (128 + SIGINT, as shells report it).
    Interrupted = 130,
}

impl Exit {
    /// The code as a number.
    pub(crate) fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}
