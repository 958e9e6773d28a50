//! A run folder (`glossa run`'s DIR): `run.json` (the settings, still in
//! `commands/run.rs` because they are made of CLI option types),
//! `calls.jsonl` (one record per call, appended; see [`calls`]) and
//! `summary.json`.

pub mod calls;
