//! Generation: prompts, providers, the pipeline for one post, batch runs
//! and the output check.

pub mod ambiguity;
pub mod cache;
pub mod check;
pub mod echo;
pub mod highlight;
pub mod pipeline;
pub mod prices;
pub mod prompt;
pub mod provider;
pub mod reply;
pub mod retry;
pub mod secrets;
pub mod simplify;
pub mod spans;
pub mod target_stem;
pub mod term_figures;
