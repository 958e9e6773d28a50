//! glossa: glossary-grounded translation. The library holds the pipeline
//! (phrases → retrieval → scoring → reports); `main.rs` is a thin CLI.

pub mod cli;
pub mod commands;
pub mod dataset;
pub mod demo;
pub mod error;
pub mod eval;
pub mod glossary;
pub mod phrase;
pub mod report;
pub mod retrieve;
pub mod runs;
pub mod score;
