//! Every key of an `fst` map within a Damerau–Levenshtein distance of a
//! word, by one walk of the map that extends a row of the distance table
//! per character and leaves a branch as soon as no key below it can come
//! within the bound.
//!
//! `edit` measures the unrestricted Damerau–Levenshtein distance, where a
//! character may be added or removed between two swapped ones ("ab" ↔
//! "bxa" is two edits, three by optimal string alignment). The table here
//! is optimal string alignment with those two moves added at cost 2, which
//! is the unrestricted distance whenever that is at most 2 (the bound
//! `edit` never exceeds): no key `edit` reads as a typo is missed.

use fst::raw::{Fst, Node, Output};

/// A key found: the map's value, the key's length in characters and its
/// distance from the word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) value: u64,
    pub(crate) chars: usize,
    pub(crate) distance: usize,
}

struct Walk<'f, D: AsRef<[u8]>> {
    fst: &'f Fst<D>,
    query: Vec<char>,
    bound: u8,
    /// One row per key character read, the first for none.
    rows: Vec<Vec<u8>>,
    chars: Vec<char>,
    hits: Vec<Hit>,
}

/// Every key of `fst` within `bound` (at most 2) of `word`.
pub(crate) fn within<D: AsRef<[u8]>>(fst: &Fst<D>, word: &str, bound: usize) -> Vec<Hit> {
    let query: Vec<char> = word.chars().collect();
    let first: Vec<u8> = (0..=query.len()).map(|i| i.min(250) as u8).collect();
    let mut walk = Walk {
        fst,
        query,
        bound: bound.min(2) as u8,
        rows: vec![first],
        chars: Vec::new(),
        hits: Vec::new(),
    };
    walk.go(fst.root(), Output::zero(), [0; 4], 0);
    walk.hits
}

impl<D: AsRef<[u8]>> Walk<'_, D> {
    fn go(&mut self, node: Node, out: Output, pending: [u8; 4], len: usize) {
        let m = self.query.len();
        if len == 0 && node.is_final() {
            let d = self.rows[self.rows.len() - 1][m];
            if d <= self.bound {
                self.hits.push(Hit {
                    value: out.cat(node.final_output()).value(),
                    chars: self.chars.len(),
                    distance: d as usize,
                });
            }
        }
        for t in node.transitions() {
            let mut bytes = pending;
            bytes[len] = t.inp;
            let next = self.fst.node(t.addr);
            let out = out.cat(t.out);
            match std::str::from_utf8(&bytes[..len + 1]) {
                Ok(s) => {
                    let Some(c) = s.chars().next() else { continue };
                    if self.push(c) {
                        self.go(next, out, [0; 4], 0);
                    }
                    self.rows.pop();
                    self.chars.pop();
                }
                Err(e) if e.error_len().is_none() && len + 1 < 4 => {
                    self.go(next, out, bytes, len + 1);
                }
                Err(_) => {}
            }
        }
    }

    /// Read key character `c`: its row of the table; whether a key going
    /// on from here may still come within the bound.
    fn push(&mut self, c: char) -> bool {
        let q = &self.query;
        let m = q.len();
        let j = self.rows.len(); // this character's place, from 1
        self.chars.push(c);
        let b = &self.chars;
        let prev = &self.rows[j - 1];
        let mut row = vec![0u8; m + 1];
        row[0] = j.min(250) as u8;
        for i in 1..=m {
            let mut v = (prev[i].saturating_add(1))
                .min(row[i - 1].saturating_add(1))
                .min(prev[i - 1].saturating_add(u8::from(q[i - 1] != c)));
            // A swap of neighbours.
            if i >= 2 && j >= 2 && q[i - 1] == b[j - 2] && q[i - 2] == c {
                v = v.min(self.rows[j - 2][i - 2].saturating_add(1));
            }
            // A swap with a character added between ("xy" ↔ "y?x").
            if i >= 2 && j >= 3 && q[i - 1] == b[j - 3] && q[i - 2] == c {
                v = v.min(self.rows[j - 3][i - 2].saturating_add(2));
            }
            // A swap with a character removed between ("x?y" ↔ "yx").
            if i >= 3 && j >= 2 && q[i - 1] == b[j - 2] && q[i - 3] == c {
                v = v.min(self.rows[j - 2][i - 3].saturating_add(2));
            }
            row[i] = v.min(250);
        }
        let least = |r: &Vec<u8>| r.iter().copied().min().unwrap_or(250);
        let alive = least(&row) <= self.bound
            || least(prev).saturating_add(1) <= self.bound
            || j >= 2 && least(&self.rows[j - 2]).saturating_add(2) <= self.bound;
        self.rows.push(row);
        alive
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn found(words: &[&str], query: &str, bound: usize) -> Vec<(String, usize)> {
        let mut sorted: Vec<&str> = words.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let map =
            fst::Map::from_iter(sorted.iter().enumerate().map(|(i, w)| (*w, i as u64))).unwrap();
        let mut out: Vec<(String, usize)> = within(map.as_fst(), query, bound)
            .into_iter()
            .map(|h| (sorted[h.value as usize].to_string(), h.distance))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn finds_swaps_and_swaps_with_a_letter_between() {
        let words = [
            "coffee", "cofee", "ocffee", "toffee", "ab", "bxa", "café", "cafe", "zzzzzz",
        ];
        let got = found(&words, "coffee", 2);
        let names: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(names, ["cofee", "coffee", "ocffee", "toffee"]);
        assert_eq!(
            found(&words, "ab", 2),
            [("ab".into(), 0), ("bxa".into(), 2)]
        );
        assert_eq!(
            found(&words, "cafe", 1),
            [("cafe".into(), 0), ("café".into(), 1)]
        );
    }

    proptest! {
        /// Every word within the bound by strsim's unrestricted
        /// Damerau–Levenshtein distance is found, and nothing beyond it.
        #[test]
        fn agrees_with_strsim(words in proptest::collection::vec("[abcé]{0,6}", 1..40), query in "[abcé]{0,6}", bound in 0usize..=2) {
            let got = found(&words.iter().map(String::as_str).collect::<Vec<_>>(), &query, bound);
            let mut want: Vec<(String, usize)> = words
                .iter()
                .map(|w| (w.clone(), strsim::damerau_levenshtein(w, &query)))
                .filter(|(_, d)| *d <= bound)
                .collect();
            want.sort();
            want.dedup();
            prop_assert_eq!(got, want);
        }
    }
}
