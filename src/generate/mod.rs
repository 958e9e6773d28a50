//! Generation: prompts, providers, the pipeline for one post, batch runs
//! and the output check.

pub(crate) mod ambiguity;
pub mod cache;
pub mod check;
pub(crate) mod echo;
pub(crate) mod highlight;
pub mod pipeline;
pub mod prices;
pub mod prompt;
pub mod provider;
pub mod reply;
pub mod retry;
pub(crate) mod secrets;
pub mod simplify;
pub(crate) mod spans;
pub(crate) mod target_stem;
pub(crate) mod term_figures;
