//! The limits that keep a bad input from exhausting memory: each is
//! refused with a message naming what was too large, instead of a machine
//! that swaps or a process the kernel kills. Documented in
//! docs/formats.md ("Limits").

/// Longest post text, in bytes (UTF-8): 1 MiB, a short book. Longer posts
/// are refused naming the file and line.
pub const MAX_POST_BYTES: usize = 1 << 20;

/// Largest model reply read, in bytes: 4 MiB. A larger reply fails its
/// call (not retried) instead of being read whole.
pub const MAX_REPLY_BYTES: usize = 4 << 20;

/// Most calls (retrievers × repeats × posts) `glossa run` plans without
/// `--max-calls`: a typo such as `--repeat 100000000` is refused before
/// anything is planned or paid for.
pub const DEFAULT_MAX_CALLS: u64 = 1_000_000;

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
    fn sizes_are_shown_in_the_largest_whole_unit() {
        assert_eq!(show_bytes(MAX_POST_BYTES), "1 MiB");
        assert_eq!(show_bytes(MAX_REPLY_BYTES), "4 MiB");
        assert_eq!(show_bytes(2048), "2 KiB");
        assert_eq!(show_bytes(1500), "1500 bytes");
    }
}
