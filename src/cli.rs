//! Command-line definitions only (clap derive); behaviour lives in
//! `commands/`.

use crate::report::Format;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The bundled café demo, used when no files are named.
pub const DEMO_GLOSSARY: &str = "glossaries/cafe.json";
pub const DEMO_POSTS: &str = "posts/cafe.jsonl";
pub const DEMO_LABELS: &str = "labels/cafe.jsonl";

#[derive(Debug, Parser)]
#[command(
    name = "glossa",
    version,
    about = "Glossary-grounded translation: find the glossary entries a post needs, and measure whether they were found",
    long_about = "glossa looks up every 1-4-word phrase of an English post in a glossary \
                  (English term -> target term) through swappable retrievers, and scores \
                  those retrievers on labelled posts with no model and no API key.\n\n\
                  Start with `glossa eval` (the bundled cafe demo), then `glossa retrieve \"your post\"` \
                  and `glossa phrases \"your post\"` to see why something did or did not match.",
    after_help = "Exit codes: 0 ok, 1 an evaluation gate failed, 2 bad input or usage."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Score retrievers on labelled posts (recall, precision, wrong senses, complete posts)
    #[command(after_help = "Examples:\n  \
        glossa eval                                   # the bundled cafe demo, all five retrievers\n  \
        glossa eval --retriever exact,fuzzy --threshold 0.8 --by-tag\n  \
        glossa eval --glossary g.json --posts p.jsonl --labels l.jsonl --split test --format json\n\n\
        Results are saved to runs/<UTC timestamp>_<suite>_eval.json unless --no-save.")]
    Eval(EvalArgs),
    /// Show one post's glossary matches: entry, target, how it matched, phrase, score
    #[command(
        after_help = "Example:\n  glossa retrieve \"Free home delivry on weekends!\" --retriever fuzzy"
    )]
    Retrieve(RetrieveArgs),
    /// Show every phrase of a text, as retrievers see it (why didn't it match?)
    #[command(
        after_help = "Single words that are stop words, shorter than 3 characters or all digits \
        are listed but marked as skipped: they are never looked up on their own.\n\n\
        Example:\n  glossa phrases \"Free home delivry on week-ends!\" --format json"
    )]
    Phrases(PhrasesArgs),
    /// List the retrievers that --retriever accepts
    Retrievers,
}

/// Which labelled posts to score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitChoice {
    /// Posts labelled `dev`: use these for tuning.
    Dev,
    /// Posts labelled `test`: report these; never tune on them.
    Test,
    /// Every labelled post.
    All,
}

#[derive(Debug, Args)]
pub struct RetrieverArgs {
    /// Minimum character-trigram Dice coefficient for `fuzzy`, in [0, 1]
    #[arg(long, default_value_t = 0.75, value_parser = parse_unit)]
    pub threshold: f64,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Glossary JSON file
    #[arg(long, short = 'g', default_value = DEMO_GLOSSARY)]
    pub glossary: PathBuf,
    /// Posts JSONL file
    #[arg(long, short = 'p', default_value = DEMO_POSTS)]
    pub posts: PathBuf,
    /// Labels JSONL file
    #[arg(long, short = 'l', default_value = DEMO_LABELS)]
    pub labels: PathBuf,
    /// Retrievers to score, comma-separated; `a+b` is a union; `all` is the reference five
    #[arg(long, short = 'r', default_value = "all")]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Which labelled posts to score
    #[arg(long, value_enum, default_value_t = SplitChoice::All)]
    pub split: SplitChoice,
    /// Output format
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Add a table broken down by tag
    #[arg(long)]
    pub by_tag: bool,
    /// Do not save the JSON result under --runs-dir
    #[arg(long)]
    pub no_save: bool,
    /// Where results are saved
    #[arg(long, default_value = crate::runs::RUNS_DIR)]
    pub runs_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct RetrieveArgs {
    /// The post text; `-` or nothing reads standard input
    pub text: Option<String>,
    /// Glossary JSON file
    #[arg(long, short = 'g', default_value = DEMO_GLOSSARY)]
    pub glossary: PathBuf,
    /// Retriever; `a+b` is a union (see `glossa retrievers`)
    #[arg(long, short = 'r', default_value = "normalised+fuzzy")]
    pub retriever: String,
    #[command(flatten)]
    pub params: RetrieverArgs,
    /// Output format
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct PhrasesArgs {
    /// The text; `-` or nothing reads standard input
    pub text: Option<String>,
    /// Output format (json: an array of every phrase key, in order)
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

fn parse_unit(s: &str) -> Result<f64, String> {
    let v: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside [0, 1]"))
    }
}
