//! Where each run of `n` words of a post stands: the post's phrases of one
//! length indexed once, so that finding a phrase (a `context` phrase of
//! `sense`) is a lookup and a binary search rather than a scan of every
//! word, which made retrieval quadratic in post length.
//!
//! Runs are indexed by a hash of their words (stems or the words as
//! written) and only inside one segment, as phrases never span two
//! (docs/formats.md, phrase rules). A hit is a candidate: callers still
//! compare the words, so a hash collision cannot make a false match.

use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

/// The runs of `n` words of one post, by hash, each hash's first words in
/// ascending order.
#[derive(Debug)]
pub(crate) struct Windows {
    /// `(hash of the run's words, first word)`, sorted.
    runs: Vec<(u64, usize)>,
}

/// The hash [`Windows`] files a run of words under.
pub(crate) fn hash_words<S: AsRef<str>>(words: &[S]) -> u64 {
    let mut h = FxHasher::default();
    for w in words {
        w.as_ref().hash(&mut h);
    }
    h.finish()
}

impl Windows {
    /// Every run of `n` words (`n >= 1`) of `words` that lies in one
    /// segment.
    pub(crate) fn of<S: AsRef<str>>(words: &[S], segments: &[usize], n: usize) -> Windows {
        let last = (words.len() + 1).saturating_sub(n);
        let mut runs: Vec<(u64, usize)> = (0..last)
            .filter(|&i| n > 0 && segments[i] == segments[i + n - 1])
            .map(|i| (hash_words(&words[i..i + n]), i))
            .collect();
        runs.sort_unstable();
        Windows { runs }
    }

    /// The first words of the runs filed under `hash`, ascending, from
    /// the first at or after `from`.
    pub(crate) fn at(&self, hash: u64, from: usize) -> impl Iterator<Item = usize> + '_ {
        let start = self.runs.partition_point(|&r| r < (hash, from));
        self.runs[start..]
            .iter()
            .take_while(move |&&(h, _)| h == hash)
            .map(|&(_, i)| i)
    }
}

/// A post's [`Windows`], made on first use for each length and for stems
/// or words as written.
#[derive(Debug, Default)]
pub(crate) struct WindowCache {
    made: Mutex<FxHashMap<(usize, bool), Arc<Windows>>>,
}

impl WindowCache {
    /// The runs of `n` words, by stem or as written, made by `make` the
    /// first time they are asked.
    pub(crate) fn get(
        &self,
        n: usize,
        by_stem: bool,
        make: impl FnOnce() -> Windows,
    ) -> Arc<Windows> {
        // A panic while another thread held the lock leaves the map whole.
        let mut made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        made.entry((n, by_stem))
            .or_insert_with(|| Arc::new(make()))
            .clone()
    }
}

impl Clone for WindowCache {
    fn clone(&self) -> WindowCache {
        let made = self.made.lock().unwrap_or_else(PoisonError::into_inner);
        WindowCache {
            made: Mutex::new(made.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_found_inside_one_segment_only() {
        let words = ["save", "the", "date", "save", "the", "date"];
        // A segment boundary between the fifth and sixth words.
        let segments = [0, 0, 0, 0, 0, 1];
        let w = Windows::of(&words, &segments, 3);
        let h = hash_words(&["save", "the", "date"]);
        assert_eq!(w.at(h, 0).collect::<Vec<_>>(), [0]);
        let w = Windows::of(&words, &segments, 2);
        let h = hash_words(&["save", "the"]);
        assert_eq!(w.at(h, 0).collect::<Vec<_>>(), [0, 3]);
        assert_eq!(w.at(h, 1).collect::<Vec<_>>(), [3]);
        assert_eq!(w.at(h, 4).count(), 0);
        assert_eq!(Windows::of(&words, &segments, 7).at(h, 0).count(), 0);
    }
}
