//! Maps keyed by words. Most words fit in 15 bytes: those are packed in a
//! `u128` with their length, so that a look-up follows no pointer and
//! compares no bytes in memory (the maps of a 100k-entry glossary are far
//! larger than the processor's caches, and every post word is looked up).

use rustc_hash::FxHashMap;

/// `word` packed with its length, if it has at most 15 bytes (the length
/// keeps `ab` apart from `ab\0`): its bytes in order from the lowest,
/// zeros, then the length in the top byte.
fn pack(word: &str) -> Option<u128> {
    let bytes = word.as_bytes();
    let n = bytes.len();
    // Two loads that overlap cover any length: OR-ing a byte with itself
    // changes nothing, and a copy of a variable length was a call to
    // `memcpy` on every look-up.
    let packed = match n {
        0 => 0,
        1..=3 => {
            u128::from(bytes[0])
                | u128::from(bytes[n / 2]) << (8 * (n / 2))
                | u128::from(bytes[n - 1]) << (8 * (n - 1))
        }
        4..=7 => {
            let word = |at: usize| u128::from(u32::from_le_bytes(fixed(&bytes[at..at + 4])));
            word(0) | word(n - 4) << (8 * (n - 4))
        }
        8..=15 => {
            let word = |at: usize| u128::from(u64::from_le_bytes(fixed(&bytes[at..at + 8])));
            word(0) | word(n - 8) << (8 * (n - 8))
        }
        _ => return None,
    };
    Some(packed | (n as u128) << 120)
}

/// A slice of a known length as an array.
fn fixed<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes.try_into().expect("sliced to N bytes")
}

/// A map from words to `V`.
#[derive(Debug)]
pub(crate) struct WordMap<V> {
    packed: FxHashMap<u128, V>,
    other: FxHashMap<Box<str>, V>,
}

impl<V> Default for WordMap<V> {
    fn default() -> Self {
        WordMap {
            packed: FxHashMap::default(),
            other: FxHashMap::default(),
        }
    }
}

impl<V> WordMap<V> {
    /// Room for `words` words without growing (most are short).
    pub(crate) fn with_capacity(words: usize) -> Self {
        WordMap {
            packed: FxHashMap::with_capacity_and_hasher(words, Default::default()),
            other: FxHashMap::default(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.packed.len() + self.other.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn get(&self, word: &str) -> Option<&V> {
        match pack(word) {
            Some(key) => self.packed.get(&key),
            None => self.other.get(word),
        }
    }

    /// Calls `each` with every word and its value, in no set order.
    pub(crate) fn for_each(&self, mut each: impl FnMut(&str, &V)) {
        for (key, value) in &self.packed {
            let bytes = key.to_le_bytes();
            let word = &bytes[..usize::from(bytes[15])];
            each(std::str::from_utf8(word).expect("packed from a str"), value);
        }
        for (word, value) in &self.other {
            each(word, value);
        }
    }

    /// Calls `each` with every value, in no set order.
    pub(crate) fn values_mut(&mut self, mut each: impl FnMut(&mut V)) {
        self.packed.values_mut().for_each(&mut each);
        self.other.values_mut().for_each(each);
    }

    pub(crate) fn contains(&self, word: &str) -> bool {
        self.get(word).is_some()
    }

    /// The value of `word`, made by `new` if missing.
    pub(crate) fn get_or_insert_with(&mut self, word: &str, new: impl FnOnce() -> V) -> &mut V {
        match pack(word) {
            Some(key) => self.packed.entry(key).or_insert_with(new),
            None => self.other.entry(word.into()).or_insert_with(new),
        }
    }

    pub(crate) fn insert(&mut self, word: &str, value: V) {
        match pack(word) {
            Some(key) => {
                self.packed.insert(key, value);
            }
            None => {
                self.other.insert(word.into(), value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_words_keep_their_length() {
        assert_ne!(pack("ab"), pack("ab\0"));
        assert_eq!(pack(&"x".repeat(16)), None);
        assert_ne!(pack("café"), pack("cafe"));
    }

    proptest::proptest! {
        /// Packed: the bytes in order from the lowest, zeros, the length on top.
        #[test]
        fn packing_is_bytes_then_length(word in "[a-zé0-9']{0,17}") {
            let bytes = word.as_bytes();
            let plain = (bytes.len() < 16).then(|| {
                let mut buf = [0u8; 16];
                buf[..bytes.len()].copy_from_slice(bytes);
                buf[15] = bytes.len() as u8;
                u128::from_le_bytes(buf)
            });
            proptest::prop_assert_eq!(pack(&word), plain);
        }
    }

    proptest::proptest! {
        /// A word map is a map of strings, short words or long.
        #[test]
        fn a_word_map_is_a_map(words in proptest::collection::vec("[a-cé]{0,18}", 0..30)) {
            let mut map = WordMap::with_capacity(4);
            let mut plain = std::collections::HashMap::new();
            for (i, w) in words.iter().enumerate() {
                if i % 2 == 0 {
                    map.insert(w, i);
                    plain.insert(w.clone(), i);
                } else {
                    *map.get_or_insert_with(w, || i) += 100;
                    *plain.entry(w.clone()).or_insert(i) += 100;
                }
            }
            // Every value once.
            map.values_mut(|v| *v += 1);
            plain.values_mut().for_each(|v| *v += 1);
            let mut listed = std::collections::HashMap::new();
            map.for_each(|w, &v| {
                listed.insert(w.to_string(), v);
            });
            proptest::prop_assert_eq!(&listed, &plain);
            for w in &words {
                proptest::prop_assert_eq!(map.get(w), plain.get(w));
                let longer = format!("{w}x");
                proptest::prop_assert_eq!(map.contains(&longer), plain.contains_key(&longer));
            }
        }
    }
}
