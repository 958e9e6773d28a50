//! A hashed key table: the section kind of a compiled glossary for keys
//! that are only ever looked up whole (`joined`, `keys`, `ids`), where an
//! `fst` map cost most of the build (its builder inserts every key node
//! by node, and these keys share few suffixes) and nothing of what it
//! offers beyond a look-up was used.
//!
//! Layout, little-endian: three u32s, the number of keys `n`, the width
//! of a value in bytes `w` (0 for a set, 4, or 8 when a value does not
//! fit in 4) and that of a key end `e` (4, or 8 past 4 GiB of text); the
//! keys' hashes ([`hash`], u32, ascending); their values (`w` bytes each,
//! in the same order); the keys' ends in the text (`e` bytes each, the
//! first key starting at 0); then the keys' text. A look-up is
//! a binary search of the hashes, then the key itself is compared, so
//! that keys of one hash are told apart.

use super::checksum;

/// A key's hash in the table: the top half of the file's [`checksum`] of
/// it. 32 bits keep the table small; keys that share one are told apart
/// by their text.
pub(super) fn hash(key: &[u8]) -> u64 {
    checksum(key) >> 32
}

/// The bytes of a table of `keys` (distinct, in ascending order of
/// [`hash`], then of the key: the order [`super::Grouped`] keeps when its
/// pairs are headed by the hash), each with its value; `values` false
/// for a set (the values are left out).
pub(super) fn bytes(keys: &[(&[u8], u64)], values: bool) -> Vec<u8> {
    let n = keys.len();
    let fits = |v: u64| v <= u64::from(u32::MAX);
    let width: usize = match values {
        false => 0,
        true if keys.iter().all(|&(_, v)| fits(v)) => 4,
        true => 8,
    };
    let text_len: usize = keys.iter().map(|(k, _)| k.len()).sum();
    let end_width: usize = if fits(text_len as u64) { 4 } else { 8 };
    let mut out = Vec::with_capacity(HEAD + (4 + width + end_width) * n + text_len);
    for head in [n, width, end_width] {
        out.extend_from_slice(&(head as u32).to_le_bytes());
    }
    for (key, _) in keys {
        out.extend_from_slice(&(hash(key) as u32).to_le_bytes());
    }
    for (_, value) in keys {
        out.extend_from_slice(&value.to_le_bytes()[..width]);
    }
    let mut end = 0u64;
    for (key, _) in keys {
        end += key.len() as u64;
        out.extend_from_slice(&end.to_le_bytes()[..end_width]);
    }
    for (key, _) in keys {
        out.extend_from_slice(key);
    }
    out
}

/// The three u32s in front.
const HEAD: usize = 12;

/// A table read from its section's bytes.
#[derive(Clone)]
pub(crate) struct Table<B> {
    bytes: B,
    n: usize,
    width: usize,
    end_width: usize,
}

impl<B: AsRef<[u8]>> Table<B> {
    /// The table in `bytes`, or why they do not hold one.
    pub(super) fn new(bytes: B) -> Result<Table<B>, &'static str> {
        if bytes.as_ref().len() < HEAD {
            return Err("it is shorter than its size");
        }
        let mut table = Table {
            n: 0,
            width: 0,
            end_width: 0,
            bytes,
        };
        let [n, width, end_width] = [0, 4, 8].map(|at| table.uint_at(at, 4) as usize);
        if ![0, 4, 8].contains(&width) || ![4, 8].contains(&end_width) {
            return Err("its numbers are of no known width");
        }
        let least = (4 + width + end_width)
            .checked_mul(n)
            .and_then(|x| x.checked_add(HEAD));
        if least.is_none_or(|least| table.bytes.as_ref().len() < least) {
            return Err("it is shorter than its keys");
        }
        (table.n, table.width, table.end_width) = (n, width, end_width);
        if n > 0 && table.end(n - 1) > table.text().len() {
            return Err("its keys run past its end");
        }
        Ok(table)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// The number of `width` bytes (at most 8) at `at`.
    fn uint_at(&self, at: usize, width: usize) -> u64 {
        let mut value = [0u8; 8];
        value[..width].copy_from_slice(&self.bytes.as_ref()[at..at + width]);
        u64::from_le_bytes(value)
    }

    fn hash_of(&self, i: usize) -> u64 {
        self.uint_at(HEAD + 4 * i, 4)
    }

    fn value(&self, i: usize) -> u64 {
        self.uint_at(HEAD + 4 * self.n + self.width * i, self.width)
    }

    fn end(&self, i: usize) -> usize {
        let at = HEAD + (4 + self.width) * self.n + self.end_width * i;
        self.uint_at(at, self.end_width) as usize
    }

    fn text(&self) -> &[u8] {
        let start = HEAD + (4 + self.width + self.end_width) * self.n;
        self.bytes.as_ref().get(start..).unwrap_or_default()
    }

    /// Key `i`; empty when its ends are out of order (a damaged file,
    /// which the section's checksum refuses first).
    fn key(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.end(i - 1) };
        self.text().get(start..self.end(i)).unwrap_or_default()
    }

    /// The value of `key` (0 in a set), if the table holds it.
    pub(crate) fn get(&self, key: impl AsRef<[u8]>) -> Option<u64> {
        let key = key.as_ref();
        self.find(key, hash(key))
    }

    /// The value of `key`, whose hash is `h`.
    fn find(&self, key: &[u8], h: u64) -> Option<u64> {
        // The first key whose hash is not below `h`.
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.hash_of(mid) < h {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.n)
            .take_while(|&i| self.hash_of(i) == h)
            .find(|&i| self.key(i) == key)
            .map(|i| self.value(i))
    }

    pub(crate) fn contains(&self, key: impl AsRef<[u8]>) -> bool {
        self.get(key).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn table_of(keys: &[String]) -> Table<Vec<u8>> {
        let mut sorted: Vec<(u64, &[u8])> = keys
            .iter()
            .map(|k| (hash(k.as_bytes()), k.as_bytes()))
            .collect();
        sorted.sort_unstable();
        sorted.dedup();
        let values: Vec<(&[u8], u64)> = sorted
            .iter()
            .map(|&(_, k)| (k, k.len() as u64 * 7))
            .collect();
        Table::new(bytes(&values, true)).unwrap()
    }

    proptest! {
        /// Every key is found with its value, and nothing else is.
        #[test]
        fn finds_its_keys_and_no_other(keys in proptest::collection::vec("[abcé ]{0,6}", 0..60), other in "[abcé ]{0,6}") {
            let table = table_of(&keys);
            let distinct: std::collections::BTreeSet<&String> = keys.iter().collect();
            prop_assert_eq!(table.len(), distinct.len());
            for k in &keys {
                prop_assert_eq!(table.get(k), Some(k.len() as u64 * 7));
            }
            prop_assert_eq!(table.contains(&other), distinct.contains(&other));
        }
    }

    #[test]
    fn keys_of_one_hash_are_told_apart() {
        // Two keys forced under one hash: the table compares the keys.
        let keys: [&[u8]; 2] = [b"left", b"right"];
        let mut b = bytes(&keys.map(|k| (k, k.len() as u64)), true);
        b[HEAD..HEAD + 8].fill(7);
        let table = Table::new(b).unwrap();
        let h = u64::from(u32::from_le_bytes([7; 4]));
        assert_eq!(table.find(b"left", h), Some(4));
        assert_eq!(table.find(b"right", h), Some(5));
        assert_eq!(table.find(b"lefts", h), None);
        assert_eq!(table.get(b"left"), None, "its hash is not in the table");
    }

    #[test]
    fn refuses_a_table_cut_short() {
        let keys: [&[u8]; 2] = [b"alpha", b"beta"];
        let b = bytes(&keys.map(|k| (k, 1)), true);
        assert!(Table::new(&b[..b.len() - 1]).is_err());
        assert!(Table::new(&b[..20]).is_err());
        assert!(Table::new(&b[..3]).is_err());
        assert_eq!(Table::new(&b[..]).map(|t| t.len()), Ok(2));
    }

    #[test]
    fn values_take_the_width_they_need() {
        let keys: [&[u8]; 2] = [b"a", b"b"];
        let set = Table::new(bytes(&keys.map(|k| (k, 9)), false)).unwrap();
        assert_eq!((set.get(b"a"), set.get(b"c")), (Some(0), None));
        let big = 1u64 << 40;
        let wide = Table::new(bytes(&keys.map(|k| (k, big + u64::from(k[0]))), true)).unwrap();
        assert_eq!(wide.get(b"b"), Some(big + u64::from(b'b')));
        let narrow = bytes(&keys.map(|k| (k, 5)), true);
        assert_eq!(narrow.len(), HEAD + 12 * 2 + 2);
        assert_eq!(Table::new(narrow).unwrap().get(b"a"), Some(5));
    }
}
