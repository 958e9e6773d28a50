//! A run folder (`glossa run`'s DIR) and its files: `run.json` (the
//! settings; see [`config`]), `calls.jsonl` (one [`record`] per call,
//! appended; see [`calls`]) and `summary.json` (see [`summary`]).

pub mod calls;
pub mod config;
pub mod latest;
pub(crate) mod record;
pub mod shard;
pub mod summary;
