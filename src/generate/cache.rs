//! The reply cache: one file per answered request, named by a hash of
//! everything that decides the answer, so reruns cost nothing and a crash
//! loses no paid-for reply.

use crate::generate::provider::Request;
use crate::generate::reply::Completion;
use sha2::{Digest, Sha256};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Where replies are cached unless told otherwise.
pub const DEFAULT_DIR: &str = "runs/cache";

/// Bumped whenever the key recipe changes, so old entries stop matching.
const KEY_VERSION: &str = "glossa-cache-v1";

/// Cached replies under `dir`, as `dir/ab/abcd….json`: the first two hex
/// digits shard the directory, the file holds the reply (text, finish
/// reason, served model, whether a `<think>` block was stripped; never the
/// usage: a cached reply costs nothing). Entries written before replies
/// carried more than text are `abcd….txt`, the text alone, and still read.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Default for Cache {
    fn default() -> Cache {
        Cache::new(DEFAULT_DIR)
    }
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// SHA-256 (hex) of the provider identity and the whole request: the
    /// full prompt, the repeat number (repeats are distinct samples) and the
    /// text and substitutions the offline provider works from. Hashing the
    /// latter for model providers too costs at most a miss, never a wrong hit.
    pub fn key(identity: &str, req: &Request) -> String {
        // A JSON array keeps the fields apart: no concatenation of two
        // different requests can produce the same bytes.
        let framed = serde_json::to_vec(&(
            KEY_VERSION,
            identity,
            &req.prompt,
            &req.text,
            &req.substitutions,
            req.repeat,
        ))
        .expect("strings and numbers always serialise");
        hex(&Sha256::digest(&framed))
    }

    /// The cached reply for `key`, if any. An unreadable entry is a miss.
    pub fn get_reply(&self, key: &str) -> Option<Completion> {
        let json = self.path(key, "json")?;
        match fs::read(&json) {
            Ok(bytes) => serde_json::from_slice(&bytes).ok(),
            Err(_) => self.get(key).map(|text| Completion {
                text,
                ..Completion::default()
            }),
        }
    }

    /// Store a reply under `key`, without its usage.
    pub(crate) fn put_reply(&self, key: &str, reply: &Completion) -> io::Result<()> {
        let mut stored = reply.clone();
        stored.meta.usage = None;
        let bytes = serde_json::to_vec(&stored).expect("a reply always serialises");
        self.write(self.checked(key, "json")?, &bytes)
    }

    /// The cached text for `key` in the text-only layout, if any.
    pub fn get(&self, key: &str) -> Option<String> {
        fs::read_to_string(self.path(key, "txt")?).ok()
    }

    /// Store `text` under `key` in the text-only layout.
    pub fn put(&self, key: &str, text: &str) -> io::Result<()> {
        self.write(self.checked(key, "txt")?, text.as_bytes())
    }

    fn checked(&self, key: &str, ext: &str) -> io::Result<PathBuf> {
        self.path(key, ext).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not a cache key: {key:?}"),
            )
        })
    }

    /// Written atomically (see [`crate::fsutil`]), so a reader (or a
    /// crash) never sees half a reply; concurrent writers of the same key
    /// each rename a complete file, and the last one wins.
    fn write(&self, path: PathBuf, bytes: &[u8]) -> io::Result<()> {
        crate::fsutil::write_atomic(&path, bytes).map_err(|e| io::Error::new(e.cause.kind(), e))
    }

    /// Keys are hex digests; anything else could escape the directory.
    fn path(&self, key: &str, ext: &str) -> Option<PathBuf> {
        let valid = key.len() >= 3 && key.bytes().all(|b| b.is_ascii_hexdigit());
        valid.then(|| self.dir.join(&key[..2]).join(format!("{key}.{ext}")))
    }
}

/// Lower-case hex of `bytes` (digests as file names and fingerprints).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_of_a_known_digest() {
        assert_eq!(
            hex(&Sha256::digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn keys_that_are_not_hex_are_refused() {
        let cache = Cache::new("unused");
        assert!(cache.path("../../etc/passwd", "txt").is_none());
        assert!(cache.get_reply("../x").is_none());
        assert!(cache.get("../x").is_none());
        assert!(cache.put("ab/cd", "x").is_err());
    }
}
