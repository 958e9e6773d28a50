//! Every integration test in one binary: one link instead of fourteen, and
//! one copy of the shared helpers (`support`). Each module is the set of
//! tests it names; `cargo test --test it cli::` runs one of them.

mod support;

mod batch_gemini;
mod batch_remote;
mod case_keep;
mod check;
mod check_real;
mod cli;
mod compiled;
mod compiled_use;
mod conventions;
mod engine_export;
mod forbidden;
mod generate;
mod import_layouts;
mod import_real;
mod invariants;
mod languages;
mod lint;
mod nolost;
mod outputs;
mod promptfoo;
mod properties;
mod providers;
mod real_data;
mod real_model;
mod reliability;
mod repair;
mod replies;
mod reply_cap;
mod report;
mod research;
mod retrieval;
mod scale_out;
mod secrets;
mod segments_real;
mod serve;
mod tbx_export;
mod telemetry;
mod tms_export;
mod translate_posts;
mod workbook;
