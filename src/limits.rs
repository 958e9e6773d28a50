//! The limits that keep a bad input from exhausting memory: each is
//! refused with a message naming what was too large, instead of a machine
//! that swaps or a process the kernel kills. Documented in
//! docs/formats.md ("Limits").

/// Longest post text, in bytes (UTF-8): 1 MiB, a short book. Longer posts
/// are refused naming the file and line.
pub const MAX_POST_BYTES: usize = 1 << 20;

/// Longest source or target text of one segment read by `glossa check`
/// (TMX, XLIFF, PO, line pairs, JSONL), in bytes: 1 MiB, as a post.
pub const MAX_SEGMENT_BYTES: usize = MAX_POST_BYTES;

/// Most glossary entries: 2^30. The matchers number keys in 32 bits with a
/// flag in the top one; a glossary this large (tens of gigabytes of JSON)
/// is refused by name rather than mis-numbered.
pub(crate) const MAX_GLOSSARY_ENTRIES: usize = 1 << 30;

/// Largest model reply read, in bytes: 4 MiB. A larger reply fails its
/// call (not retried) instead of being read whole.
pub const MAX_REPLY_BYTES: usize = 4 << 20;

/// Most calls (retrievers × repeats × posts) `glossa run` plans without
/// `--max-calls`: a typo such as `--repeat 100000000` is refused before
/// anything is planned or paid for.
pub const DEFAULT_MAX_CALLS: u64 = 1_000_000;

/// A run larger than its `--max-calls`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{retrievers} retrievers x {repeats} repeats x {posts} posts = {calls} calls, more than \
     --max-calls {max}; lower --repeat, or raise --max-calls if you mean it"
)]
pub struct TooManyCalls {
    pub(crate) retrievers: usize,
    pub(crate) repeats: u32,
    pub(crate) posts: usize,
    pub(crate) calls: u128,
    pub(crate) max: u64,
}

/// Refuse a run of more than `max` calls, before anything is planned.
pub fn check_calls(
    retrievers: usize,
    repeats: u32,
    posts: usize,
    max: u64,
) -> Result<u64, TooManyCalls> {
    let calls = (retrievers as u128)
        .saturating_mul(u128::from(repeats))
        .saturating_mul(posts as u128);
    u64::try_from(calls)
        .ok()
        .filter(|&n| n <= max)
        .ok_or(TooManyCalls {
            retrievers,
            repeats,
            posts,
            calls,
            max,
        })
}

/// A size in bytes as people read it: `1 MiB`, `4 MiB`, `512 bytes`.
pub fn show_bytes(bytes: usize) -> String {
    const MIB: usize = 1 << 20;
    const KIB: usize = 1 << 10;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_past_the_call_bound_are_refused_without_overflow() {
        assert_eq!(check_calls(2, 3, 4, 24), Ok(24));
        let err = check_calls(2, 100_000_000, 24, DEFAULT_MAX_CALLS).unwrap_err();
        assert_eq!(err.calls, 4_800_000_000);
        assert!(err.to_string().contains("--max-calls 1000000"), "{err}");
        assert!(check_calls(usize::MAX, u32::MAX, usize::MAX, u64::MAX).is_err());
    }

    #[test]
    fn sizes_are_shown_in_the_largest_whole_unit() {
        assert_eq!(show_bytes(MAX_POST_BYTES), "1 MiB");
        assert_eq!(show_bytes(MAX_REPLY_BYTES), "4 MiB");
        assert_eq!(show_bytes(2048), "2 KiB");
        assert_eq!(show_bytes(1500), "1500 bytes");
    }
}
