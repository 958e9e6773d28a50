//! glossa: glossary-grounded translation. The library holds the pipeline
//! (phrases → retrieval → scoring → reports); the command line (`cli`,
//! `commands`) belongs to the binary, `main.rs`, and reaches the library only
//! through what it makes public.

pub mod batch;
pub mod compiled;
pub mod dataset;
pub mod demo;
pub mod diff;
pub mod error;
pub mod eval;
pub mod exit;
pub mod fsutil;
pub mod gate;
pub mod generate;
pub mod glossary;
pub mod interchange;
pub mod invariants;
pub mod language;
pub mod limits;
pub mod lint;
pub mod otel;
pub mod phrase;
pub mod qa;
pub mod report;
pub mod retrieve;
pub mod run_dir;
pub mod runs;
pub mod score;
pub mod serve;
pub mod stats;
pub mod sweep;
pub mod target_match;
pub mod telemetry;
