//! Coloured status words on stderr (`--color`). `auto` colours a terminal
//! unless NO_COLOR is set (CLICOLOR_FORCE forces it), as anstream decides.

use anstyle::{AnsiColor, Style};
use std::sync::atomic::{AtomicBool, Ordering};

static COLOUR: AtomicBool = AtomicBool::new(false);

/// Decide once, before anything is printed, whether stderr gets colour.
pub fn init(choice: clap::ColorChoice) {
    let on = match choice {
        clap::ColorChoice::Always => true,
        clap::ColorChoice::Never => false,
        clap::ColorChoice::Auto => {
            anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
        }
    };
    COLOUR.store(on, Ordering::Relaxed);
}

fn paint(word: &str, colour: AnsiColor) -> String {
    if !COLOUR.load(Ordering::Relaxed) {
        return word.to_string();
    }
    let style = Style::new().bold().fg_color(Some(colour.into()));
    format!("{style}{word}{style:#}")
}

/// `error`, red.
pub fn error() -> String {
    paint("error", AnsiColor::Red)
}

/// `warning`, yellow.
pub fn warning() -> String {
    paint("warning", AnsiColor::Yellow)
}

/// `note`, cyan.
pub fn note() -> String {
    paint("note", AnsiColor::Cyan)
}

/// A word that reports success (`passed`, `ok`), green.
pub fn good(word: &str) -> String {
    paint(word, AnsiColor::Green)
}

/// A word that reports failure (`failed`), red.
pub fn bad(word: &str) -> String {
    paint(word, AnsiColor::Red)
}
