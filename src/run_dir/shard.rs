//! Which part of a run's calls one machine makes (`--shard I/N`).

use serde::{Deserialize, Serialize};

/// One of N deterministic parts of a run's calls, for N machines (a job
/// array) sharing one experiment: `--shard I/N`, I counted from 0.
///
/// A call belongs to shard `I` of `N` when the first 8 bytes of the SHA-256
/// of its `custom_id` (see [`super::record::custom_id`]), read as a
/// big-endian integer, leave the remainder `I` when divided by `N`. That
/// depends only on the call's retriever, repeat and post: not on the order
/// of the posts file, on concurrency, on the machine or on the other
/// retrievers in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole run: shard 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The shard a call belongs to, among `count`.
    pub fn of(retriever: &str, repeat: u32, post: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        if count <= 1 {
            return 0;
        }
        let id = super::record::custom_id(retriever, repeat, post);
        let digest = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(count)) as u32
    }

    pub fn contains(&self, retriever: &str, repeat: u32, post: &str) -> bool {
        self.count <= 1 || Shard::of(retriever, repeat, post, self.count) == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Text that is not `I/N` with `0 <= I < N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a shard: expected I/N with 0 <= I < N, e.g. 0/4")]
pub struct NotAShard(String);

impl std::str::FromStr for Shard {
    type Err = NotAShard;

    fn from_str(s: &str) -> Result<Shard, NotAShard> {
        let bad = || NotAShard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}
