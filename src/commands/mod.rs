//! One module per subcommand; each returns the process exit code.

pub mod eval;
pub mod phrases;
pub mod retrieve;
pub mod retrievers;

use crate::cli::{Cli, Command};
use crate::dataset::{self, LabelledPost, Post};
use crate::demo;
use crate::error::{decode_text, read_text, InputError};
use crate::glossary::Glossary;
use anyhow::Context as _;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

/// Exit code for bad input or usage.
pub const EXIT_BAD_INPUT: u8 = 2;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Retrieve(args) => retrieve::run(args),
        Command::Phrases(args) => phrases::run(args),
        Command::Retrievers => retrievers::run(),
    }
}

/// Write command output to stdout. A closed pipe (`glossa eval | head`)
/// is not an error.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to standard output")
        }
        _ => Ok(()),
    }
}

/// The text argument, or standard input when it is absent or `-`.
pub fn text_or_stdin(text: Option<String>) -> anyhow::Result<String> {
    match text {
        Some(t) if t != "-" => Ok(t),
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            Ok(decode_text("<stdin>", bytes)?)
        }
    }
}

/// Read an input file; a missing demo file falls back to the built-in copy.
fn read_input(path: &Path) -> Result<String, InputError> {
    let shown = path.display().to_string();
    match demo::builtin(&shown) {
        Some(text) if !path.exists() => Ok(text.to_string()),
        _ => read_text(path),
    }
}

pub fn load_glossary(path: &Path) -> Result<Glossary, InputError> {
    let text = read_input(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Glossary::parse(&path.display().to_string(), &stem, &text)
}

pub fn load_posts(path: &Path) -> Result<Vec<Post>, InputError> {
    dataset::parse_posts(&path.display().to_string(), &read_input(path)?)
}

/// Labelled posts, warning on stderr about posts that have no label.
pub fn load_labelled(
    glossary: &Glossary,
    posts_path: &Path,
    labels_path: &Path,
) -> Result<Vec<LabelledPost>, InputError> {
    let posts = load_posts(posts_path)?;
    let total = posts.len();
    let text = read_input(labels_path)?;
    let labelled = dataset::join_labels(
        &labels_path.display().to_string(),
        &text,
        posts,
        &posts_path.display().to_string(),
        glossary,
    )?;
    if labelled.len() < total {
        eprintln!(
            "warning: {} of {total} posts in {} have no label in {} and are not scored",
            total - labelled.len(),
            posts_path.display(),
            labels_path.display()
        );
    }
    Ok(labelled)
}
