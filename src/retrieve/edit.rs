//! `edit`: misspellings by Damerau–Levenshtein distance, word by word.
//!
//! A phrase matches a key with as many words when every word of the phrase
//! matches the key's word at the same place: equal, equal after stemming,
//! or within the edit bound of the key word. The bound depends on the key
//! word's length in characters: none under `edit_one_from` (4), 1 from
//! there, 2 from `edit_two_from` (8). Distances are measured between the
//! words as written and between their stems (so `cofees` is one edit from
//! `coffee`), and the smaller is kept; between stems the bound is the key
//! stem's (`comp` is not two edits from `computer`'s stem `comput`), and
//! stems count only where they took an inflection off, not a derivation
//! ("superset" is not two edits from `superstition`'s stem `superstit`).
//! A word's typo readings are kept only at its nearest distance, and only
//! if there are at most two of them there: a typo has one obvious
//! correction, an unknown word near many key words is a word of its own
//! ("Zork" is not cork, fork, pork and work).
//! A key written in capitals (an acronym) is found only in capitals, and
//! neither it nor a name with a capital inside ("CoIP") by a typo: one
//! letter off is another name.
//!
//! Never read as a misspelling: a post word that is spelled correctly (an
//! English word, a word of the glossary or an inflection of one, see
//! [`super::known`]), a stop word, all digits or shorter than
//! `edit_one_from`, nor a key word that is a stop word or all digits (those
//! must be written as is or inflected). Except in a key of three words or
//! more whose other words are all written as in the glossary, two of them
//! not stop words: there one word one edit off is a typo even when it is a
//! word ("pain au chocolate" is `pain au chocolat`; "good to go" is not
//! `food to go`).
//!
//! Candidates come from a deletion-neighbourhood index (the SymSpell idea):
//! every string obtained from a key word by deleting up to its bound of
//! characters is hashed into a sorted table; a post word looks up its own
//! deletions. Two words within Damerau–Levenshtein distance d always share
//! such a string with at most d deletions on each side, so no candidate is
//! missed, and each one is then checked with `strsim::damerau_levenshtein`.
//! Nothing compares the post with every entry.

use super::keys::{self, Keyed};
use super::known::KnownWords;
use super::normalised::stem_keys;
use super::terms::capitals_allow;
use super::wordmap::WordMap;
use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::Glossary;
use crate::phrase::{self, MAX_PHRASE_WORDS};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "edit",
    summary: "misspelt words, word by word: Damerau-Levenshtein <= 1 from 4 characters, <= 2 from 8 (--edit-one-from, --edit-two-from)",
    build: |g, p: &Params| Ok(Box::new(EditOf::sources(g, p.edit_bounds()))),
    kinds: &[],
};

/// Words longer than this are never edited (their deletion sets grow fast).
const MAX_EDIT_CHARS: usize = 48;

/// The longest word ever indexed or looked up (`MAX_EDIT_CHARS` and its
/// bound), so per-word work fits in arrays on the stack.
const LONGEST_EDITED: usize = MAX_EDIT_CHARS + 2;

/// How many edits a key word tolerates, by its length in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EditBounds {
    /// Words of at least this many characters tolerate one edit.
    pub(crate) one_from: usize,
    /// Words of at least this many characters tolerate two edits.
    pub(crate) two_from: usize,
}

impl Default for EditBounds {
    fn default() -> Self {
        EditBounds {
            one_from: 4,
            two_from: 8,
        }
    }
}

impl EditBounds {
    /// Edits tolerated by a key word of `chars` characters.
    pub(crate) fn max_distance(&self, chars: usize) -> usize {
        if chars > MAX_EDIT_CHARS {
            0
        } else if chars >= self.two_from {
            2
        } else if chars >= self.one_from {
            1
        } else {
            0
        }
    }

    /// The largest bound any word can get.
    fn ceiling(&self) -> usize {
        if self.two_from <= MAX_EDIT_CHARS {
            2
        } else if self.one_from <= MAX_EDIT_CHARS {
            1
        } else {
            0
        }
    }
}

/// The base of the polynomial hash of a string of characters (odd, so
/// that multiplying by it modulo 2^64 loses nothing).
const BASE: u64 = 0x2545_F491_4F6C_DD1D;

/// Calls `each` with the hash of every string made by deleting at most
/// `max` (0, 1 or 2) characters from `word` (the word itself included), and
/// the number of characters deleted. A string made in two ways (a doubled
/// letter) comes twice.
///
/// The hash is polynomial, `H(s) = Σ (s[k] + 1)·BASE^(m−1−k)` over the `m`
/// characters, so deleting characters only subtracts terms: with prefix
/// hashes `P` and `d[i] = P[i] − P[i+1]`, deleting `i` gives
/// `P[n] + d[i]·BASE^(n−1−i)`, and deleting `i < j` gives
/// `P[n] + d[j]·BASE^(n−1−j) + d[i]·BASE^(n−2−i)`: one addition per
/// deletion, no string made.
fn for_each_deletion(
    word: &[char],
    max: usize,
    scratch: &mut DeletionScratch,
    mut each: impl FnMut(u64, usize),
) {
    debug_assert!(max <= 2);
    let n = word.len();
    if n > LONGEST_EDITED {
        return;
    }
    let power = &POWERS;
    let DeletionScratch { dropped, one } = scratch;
    // `dropped[i] = P[i] − P[i+1]`, made while the prefix hashes are.
    let mut whole = 0u64;
    for (i, &c) in word.iter().enumerate() {
        let next = whole.wrapping_mul(BASE).wrapping_add(u64::from(c) + 1);
        dropped[i] = whole.wrapping_sub(next);
        whole = next;
    }
    each(finish(whole, n), 0);
    if max == 0 || n == 0 {
        return;
    }
    // `one[j]`: what deleting `j` adds (in place of `dropped[j]`, which
    // the pairs below still read for the earlier deletion `i`).
    for j in 0..n {
        one[j] = dropped[j].wrapping_mul(power[n - 1 - j]);
        each(finish(whole.wrapping_add(one[j]), n - 1), 1);
    }
    if max == 1 {
        return;
    }
    for i in 0..n - 1 {
        let base = whole.wrapping_add(dropped[i].wrapping_mul(power[n - 2 - i]));
        for &term in &one[i + 1..n] {
            each(finish(base.wrapping_add(term), n - 2), 2);
        }
    }
}

/// The arrays [`for_each_deletion`] works in, made once for many words
/// (zeroing them for each word cost more than a few words' hashing).
struct DeletionScratch {
    dropped: [u64; LONGEST_EDITED],
    one: [u64; LONGEST_EDITED],
}

impl DeletionScratch {
    fn new() -> DeletionScratch {
        DeletionScratch {
            dropped: [0; LONGEST_EDITED],
            one: [0; LONGEST_EDITED],
        }
    }
}

/// `BASE^k` for every exponent a word of the index needs.
const POWERS: [u64; LONGEST_EDITED + 1] = {
    let mut powers = [1u64; LONGEST_EDITED + 1];
    let mut k = 1;
    while k < powers.len() {
        powers[k] = powers[k - 1].wrapping_mul(BASE);
        k += 1;
    }
    powers
};

/// Mixes a string's polynomial hash with its length (strings of other
/// lengths must not agree by accident of the polynomial) so that the top
/// bits, which pick the bucket, depend on every input bit.
fn finish(hash: u64, len: usize) -> u64 {
    (hash ^ (len as u64).wrapping_mul(0xff51_afd7_ed55_8ccd)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The distinct hashes of [`for_each_deletion`], sorted, each with the
/// fewest deletions that make it.
fn deletion_hashes(word: &[char], max: usize) -> Vec<(u64, usize)> {
    let n = word.len();
    let mut out = Vec::with_capacity(1 + n + n * n.saturating_sub(1) / 2);
    let mut scratch = DeletionScratch::new();
    for_each_deletion(word, max, &mut scratch, |h, deleted| out.push((h, deleted)));
    out.sort_unstable();
    out.dedup_by_key(|(h, _)| *h);
    out
}

/// The flag on a word id, while words are collected, for a word that
/// tolerates two edits: a post word's string with two deletions finds
/// only such words (a word of bound 1 is never two deletions away from a
/// neighbour). In the finished index the flag sits right above the id.
const TOLERATES_TWO: u32 = 1 << 31;

/// Every word's deletion hashes, bucketed by the hash's top bits so that a
/// look-up reads a bucket of a few entries rather than searching millions.
/// Words are collected first and bucketed once in [`DeletionIndex::finish`].
#[derive(Default)]
struct DeletionIndex {
    /// The characters of every word added, one after another.
    chars: Vec<char>,
    /// Per word: where its characters start in `chars`, how many, its
    /// bound and its id (with the flag).
    words: Vec<(u32, u32, u32, u32)>,
    /// Per deletion, one `u32` (a 1M-entry glossary has some 70 million
    /// deletions): from the top, 31 − `id_bits` bits of the hash right after
    /// the bucket's bits, the flag, then the word id in `id_bits`. The
    /// fingerprint only thins a bucket: a rare false match adds a
    /// candidate, and every candidate's distance is computed.
    entries: Vec<u32>,
    /// `entries[directory[b]..directory[b + 1]]` have `b` as their top bits.
    directory: Vec<u32>,
    bits: u32,
    id_bits: u32,
}

/// The bucketing is done in two steps (the SymSpell index of a 100k-entry
/// glossary has millions of deletions): first into `2^PARTITION_BITS`
/// partitions by the bucket's leading bits, then each partition into its
/// buckets. Each step writes to few places at a time, so the build runs
/// from the cache, not from memory, and needs no second array of entries
/// (deletions are hashed again rather than kept: that is cheaper).
const PARTITION_BITS: u32 = 10;

impl DeletionIndex {
    fn add(&mut self, word: &str, max: usize, id: u32) {
        debug_assert!(id < TOLERATES_TWO);
        let flag = if max == 2 { TOLERATES_TWO } else { 0 };
        let start = self.chars.len();
        self.chars.extend(word.chars());
        let len = self.chars.len() - start;
        self.words
            .push((start as u32, len as u32, max as u32, id | flag));
    }

    /// The words added: (characters, bound, id with flag).
    fn added(&self) -> impl Iterator<Item = (&[char], usize, u32)> {
        self.words.iter().map(|&(start, len, max, id)| {
            let start = start as usize;
            (&self.chars[start..start + len as usize], max as usize, id)
        })
    }

    /// The top bits of an entry that hold the fingerprint (none when the
    /// ids take every bit).
    fn fingerprint_mask(&self) -> u32 {
        !0u32 << self.id_bits << 1
    }

    /// The hash's bits right after the bucket's, as an entry holds them
    /// (at the top of the `u32`).
    fn fingerprint(&self, hash: u64) -> u32 {
        (((hash << self.bits) >> 32) as u32) & self.fingerprint_mask()
    }

    /// The flag's bit in an entry.
    fn flag(&self) -> u32 {
        1 << self.id_bits
    }

    fn finish(&mut self) {
        // At most 1 + n + n(n−1)/2 deletions per word: a few entries per
        // bucket, and a directory a fraction of their size.
        let most: usize = self
            .added()
            .map(|(w, _, _)| 1 + w.len() * (w.len() + 1) / 2)
            .sum();
        self.bits = (most.max(8).ilog2() - 2).clamp(1, 24);
        let largest_id = self
            .words
            .iter()
            .map(|&(_, _, _, id)| id & !TOLERATES_TWO)
            .max()
            .unwrap_or(0);
        self.id_bits = u32::BITS - largest_id.leading_zeros();
        let spread = self.bits.min(PARTITION_BITS);
        let partition_of = |h: u64| (h >> (64 - spread)) as usize;
        // The bucket inside its partition: at most 24 − 10 bits.
        // (Shifted in two steps so that 0 bits give 0, with no branch.)
        let local = self.bits - spread;
        let local_of = |h: u64| ((h << spread) >> 1 >> (63 - local)) as u16;
        // Where each partition starts in `entries`.
        let mut starts = vec![0u32; (1 << spread) + 1];
        let mut scratch = DeletionScratch::new();
        for (word, max, _) in self.added() {
            for_each_deletion(word, max, &mut scratch, |h, _| {
                starts[partition_of(h) + 1] += 1;
            });
        }
        for p in 1..starts.len() {
            starts[p] += starts[p - 1];
        }
        let total = starts[1 << spread] as usize;
        let mut entries = vec![0u32; total];
        // Each entry's bucket inside its partition, until it is in place.
        let mut locals = vec![0u16; total];
        let mut next = starts.clone();
        let (bits, fingerprint_mask) = (self.bits, self.fingerprint_mask());
        let fingerprint = |h: u64| (((h << bits) >> 32) as u32) & fingerprint_mask;
        for (word, max, id) in self.added() {
            let entry = (id & !TOLERATES_TWO)
                | if id & TOLERATES_TWO != 0 {
                    self.flag()
                } else {
                    0
                };
            for_each_deletion(word, max, &mut scratch, |h, _| {
                let at = &mut next[partition_of(h)];
                entries[*at as usize] = fingerprint(h) | entry;
                locals[*at as usize] = local_of(h);
                *at += 1;
            });
        }
        // The words are hashed for the last time: their memory serves the
        // directory (a build's peak is what a 1M-entry glossary pays).
        self.chars = Vec::new();
        self.words = Vec::new();
        let per_partition = 1usize << (self.bits - spread);
        let mut directory = vec![0u32; (1 << self.bits) + 1];
        let mut partition = Vec::new();
        let mut slot = vec![0u32; per_partition];
        for p in 0..1usize << spread {
            let (from, to) = (starts[p] as usize, starts[p + 1] as usize);
            partition.clear();
            partition.extend(
                entries[from..to]
                    .iter()
                    .copied()
                    .zip(locals[from..to].iter().copied()),
            );
            let first_bucket = p * per_partition;
            slot.fill(0);
            for &(_, local) in &partition {
                slot[local as usize] += 1;
            }
            let mut at = from as u32;
            for (b, count) in slot.iter_mut().enumerate() {
                directory[first_bucket + b] = at;
                (*count, at) = (at, at + *count);
            }
            for &(entry, local) in &partition {
                let s = &mut slot[local as usize];
                entries[*s as usize] = entry;
                *s += 1;
            }
        }
        directory[1 << self.bits] = entries.len() as u32;
        self.entries = entries;
        self.directory = directory;
    }

    fn bucket_of(&self, hash: u64) -> usize {
        (hash >> (64 - self.bits)) as usize
    }

    /// Ids of words sharing a deletion string with `word` (at most `max`
    /// deletions on the query side, and no more than the word tolerates); a
    /// superset of the true neighbours.
    fn candidates(&self, word: &[char], max: usize, out: &mut Vec<u32>) {
        let fingerprint_mask = self.fingerprint_mask();
        let (flag, id_mask) = (self.flag(), !(!0u32 << self.id_bits));
        for (h, deleted) in deletion_hashes(word, max) {
            let b = self.bucket_of(h);
            let bucket = &self.entries[self.directory[b] as usize..self.directory[b + 1] as usize];
            let fingerprint = self.fingerprint(h);
            out.extend(
                bucket
                    .iter()
                    .filter(|&&e| {
                        e & fingerprint_mask == fingerprint && (deleted < 2 || e & flag != 0)
                    })
                    .map(|&e| e & id_mask),
            );
        }
    }
}

/// One word of the key vocabulary: where the word and then its stem sit
/// in [`Edit::vocab_text`], their lengths in bytes and in characters, and
/// the next word with the same stem ([`END`] if none). Numbers are `u32`:
/// a 100k-entry glossary has some 200,000 of these.
struct VocabWord {
    start: u32,
    bytes: u32,
    stem_bytes: u32,
    chars: u32,
    stem_chars: u32,
    same_stem: u32,
}

/// One key: its entry, where its words (as vocabulary ids) start in
/// [`Edit::key_words`] and how many there are, its length, whether it is
/// written in capitals, and the next key with the same first word and
/// word count ([`END`] if none).
struct EditKey {
    entry: usize,
    first_word: u32,
    words: u32,
    chars: u32,
    /// An acronym ("IT", "ISDN"): found only in capitals.
    capitals: bool,
    /// Written as a name or an acronym ("ISDN", "CoIP"): never by a typo,
    /// as one letter off is another name ("ISBN", "comp").
    name: bool,
    same_start: u32,
}

/// The end of a list threaded through [`VocabWord::same_stem`] or
/// [`EditKey::same_start`].
const END: u32 = u32::MAX;

/// The first and last item of such a list (items are appended, so a list
/// keeps the order they were added in).
#[derive(Clone, Copy)]
struct Chain {
    first: u32,
    last: u32,
}

impl Chain {
    const EMPTY: Chain = Chain {
        first: END,
        last: END,
    };
}

/// Append `item` to the list `chain` of `items`, linked through `link`.
fn append<T>(chain: &mut Chain, item: u32, items: &mut [T], link: fn(&mut T) -> &mut u32) {
    match chain.last {
        END => chain.first = item,
        last => *link(&mut items[last as usize]) = item,
    }
    chain.last = item;
}

/// The items of the list that starts at `first`, in order.
fn chain(first: u32, next: impl Fn(u32) -> u32) -> impl Iterator<Item = u32> {
    std::iter::successors((first != END).then_some(first), move |&i| {
        let n = next(i);
        (n != END).then_some(n)
    })
}

/// How a post word matches a vocabulary word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WordHit {
    word: u32,
    distance: usize,
    /// Written exactly as the key word.
    exact: bool,
}

pub(crate) struct Edit {
    bounds: EditBounds,
    vocab: Vec<VocabWord>,
    /// The vocabulary's words and stems, one after another.
    vocab_text: String,
    by_word: WordMap<u32>,
    /// Stem → the vocabulary words with it (through `same_stem`).
    by_stem: WordMap<Chain>,
    /// The deletions of every key word and of its stem (where it differs).
    deletions: DeletionIndex,
    keys: Vec<EditKey>,
    /// The words of every key, one key after another.
    key_words: Vec<u32>,
    /// (first word, number of words) → indexes into `keys` (through
    /// `same_start`).
    by_first: HashMap<(u32, u32), Chain>,
    /// (second word, number of words) → the keys of at least
    /// [`NEAR_KEY_WORDS`] words: where a post's first word is one edit off
    /// a key's, the key is reached through its second ([`Edit::retrieve`]).
    by_second: HashMap<(u32, u32), Vec<u32>>,
    /// Words never read as misspellings (`None`: every word may be).
    known: Option<Arc<KnownWords>>,
}

/// The Damerau–Levenshtein distance of `a` and `b` where it is at most
/// `bound` (at most 2), `usize::MAX` where it is more.
///
/// The optimal string alignment distance (OSA: no substring edited twice)
/// costs a fraction of the unrestricted distance (no map of last positions,
/// and a bounded one stops early) and equals it up to 2: a distance of 0 or
/// 1 is the same single edit either way, so OSA 2 is distance 2. Where OSA
/// is more the distance may still be 2 (a transposition with an insertion
/// between: `ca` → `abc`), and only where that can be is it computed in
/// full (`the_bounded_distance_is_damerau_levenshtein` checks all this).
fn distance_within(a: &str, b: &str, bound: usize) -> usize {
    debug_assert!(bound <= 2);
    let (Some(x), Some(y)) = (Letters::of(a), Letters::of(b)) else {
        // Longer than any word the index holds: measured in full.
        let distance = strsim::damerau_levenshtein(a, b);
        return if distance <= bound {
            distance
        } else {
            usize::MAX
        };
    };
    let osa = bounded_osa(x.get(), y.get(), bound);
    if osa <= bound {
        return osa;
    }
    if bound == 2 && may_transpose_across(x.get(), y.get()) {
        let distance = strsim::damerau_levenshtein(a, b);
        if distance <= bound {
            return distance;
        }
    }
    usize::MAX
}

/// A word's characters on the stack (`None` for words longer than any
/// word the index holds).
struct Letters {
    chars: [char; LONGEST_EDITED],
    len: usize,
}

impl Letters {
    fn of(word: &str) -> Option<Letters> {
        let mut letters = Letters {
            chars: ['\0'; LONGEST_EDITED],
            len: 0,
        };
        for c in word.chars() {
            *letters.chars.get_mut(letters.len)? = c;
            letters.len += 1;
        }
        Some(letters)
    }

    fn get(&self) -> &[char] {
        &self.chars[..self.len]
    }
}

/// Whether Damerau–Levenshtein can be 2 where OSA is more: only through a
/// transposition with one character deleted or inserted between (`xzy` ↔
/// `yx`, `xy` ↔ `yzx`) and nothing else changed, so one word holds `x?y`
/// where the other holds `yx`, at the same place. Most pairs do not.
fn may_transpose_across(a: &[char], b: &[char]) -> bool {
    let across = |p: &[char], q: &[char]| {
        (0..p.len().saturating_sub(2).min(q.len().saturating_sub(1)))
            .any(|i| p[i] == q[i + 1] && p[i + 2] == q[i])
    };
    across(a, b) || across(b, a)
}

/// The OSA distance of `a` and `b` where it is at most `max`, else
/// `max + 1`. The usual dynamic programme (as `strsim::osa_distance`), on
/// the stack, with every cell capped at `max + 1`: so only the band of
/// cells within `max` of the diagonal is computed (the others are at least
/// their distance from it), and the programme stops as soon as a whole row
/// exceeds `max` (later rows are never smaller than a row's least cell).
fn bounded_osa(x: &[char], y: &[char], max: usize) -> usize {
    const WIDTH: usize = LONGEST_EDITED + 2;
    let (n, m) = (x.len(), y.len());
    if n.abs_diff(m) > max {
        return max + 1;
    }
    debug_assert!(n <= LONGEST_EDITED && m <= LONGEST_EDITED);
    // Callers bound by at most 3; cells are bytes.
    debug_assert!(max < usize::from(u8::MAX));
    let cap = (max + 1) as u8;
    let capped = |v: usize| v.min(usize::from(cap)) as u8;
    // Rows i − 2, i − 1 and i, taken in turn; each row's band is
    // `lo..=hi`, with capped cells kept on either side of it for the next
    // row to read.
    let mut rows = [[cap; WIDTH]; 3];
    for (j, cell) in rows[0].iter_mut().enumerate().take((max + 1).min(m) + 1) {
        *cell = capped(j);
    }
    for i in 1..=n {
        let (now, last, before) = (i % 3, (i + 2) % 3, (i + 1) % 3);
        let (lo, hi) = (i.saturating_sub(max).max(1), (i + max).min(m));
        rows[now][0] = capped(i);
        rows[now][lo - 1] = if lo == 1 { capped(i) } else { cap };
        let mut least = rows[now][lo - 1];
        for j in lo..=hi {
            let cost = u8::from(x[i - 1] != y[j - 1]);
            let mut d = (rows[last][j] + 1)
                .min(rows[now][j - 1] + 1)
                .min(rows[last][j - 1] + cost);
            if i > 1 && j > 1 && cost == 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] {
                d = d.min(rows[before][j - 2] + 1);
            }
            rows[now][j] = d.min(cap);
            least = least.min(rows[now][j]);
        }
        rows[now][hi + 1] = cap;
        if least >= cap {
            return max + 1;
        }
    }
    usize::from(rows[n % 3][m])
}

/// Add `hit`, or keep the better of it and an earlier hit on the same word.
fn add(hit: WordHit, hits: &mut Vec<WordHit>) {
    match hits.iter_mut().find(|h| h.word == hit.word) {
        Some(h) if (hit.distance, !hit.exact) < (h.distance, !h.exact) => *h = hit,
        Some(_) => {}
        None => hits.push(hit),
    }
}

/// An [`Edit`] over every key of a glossary, sources and aliases (numbered
/// as [`keys::sources_and_aliases`] does), that gives the matches of one
/// kind of key: a post word's typo readings are counted among all keys,
/// so `edit` and `alias` read a word as `glossa`'s shared index does.
pub(crate) struct EditOf {
    edit: Edit,
    /// The glossary's entry count: keys numbered from here are aliases.
    entries: usize,
    aliases: bool,
}

impl EditOf {
    /// The `edit` retriever: source matches.
    pub(crate) fn sources(glossary: &Glossary, bounds: EditBounds) -> EditOf {
        EditOf::of(glossary, bounds, Arc::new(KnownWords::new(glossary)), false)
    }

    /// `alias`'s typo part: alias matches, numbered by their entries.
    pub(crate) fn aliases(
        glossary: &Glossary,
        bounds: EditBounds,
        known: Arc<KnownWords>,
    ) -> EditOf {
        EditOf::of(glossary, bounds, known, true)
    }

    fn of(
        glossary: &Glossary,
        bounds: EditBounds,
        known: Arc<KnownWords>,
        aliases: bool,
    ) -> EditOf {
        let keys = keys::sources_and_aliases(glossary);
        EditOf {
            edit: Edit::over(&keys, &stem_keys(&keys), bounds, Some(known)),
            entries: glossary.entries.len(),
            aliases,
        }
    }
}

impl Infallible for EditOf {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        let mut out = self.edit.matches(post);
        out.retain(|m| (m.entry >= self.entries) == self.aliases);
        if self.aliases {
            out.iter_mut().for_each(|m| m.entry -= self.entries);
        }
        out
    }
}

/// The most key words a misspelling may be read as, at its nearest
/// distance. A typo has one obvious correction ("cofee": coffee); an
/// unknown word with more is a word of its own, mostly a name ("Zork":
/// cork, fork, pork, work; "Langs": lang, long, lung, ...).
const MAX_TYPO_READINGS: usize = 2;

/// Keep a post word's typo readings only at their nearest distance, and
/// none if the word is a key word as written or by stem, or if it has more
/// than [`MAX_TYPO_READINGS`] of them there.
fn keep_one_reading(hits: &mut Vec<WordHit>) {
    let Some(nearest) = hits.iter().map(|h| h.distance).filter(|&d| d > 0).min() else {
        return;
    };
    let readings = hits.iter().filter(|h| h.distance == nearest).count();
    let typo_allowed = readings <= MAX_TYPO_READINGS && hits.iter().all(|h| h.distance > 0);
    hits.retain(|h| h.distance == 0 || typo_allowed && h.distance == nearest);
}

/// Whether Porter2 took only an inflection off `word` to get `stem` (`cofees`
/// → `cofe`, `happy` → `happi`, `hoping` → `hope`), not a derivation
/// (`superstition` → `superstit`, `wavetable` → `wavet`): typos are
/// measured between stems only then, or an unknown word jumps to another
/// word of the same root ("superset" was two edits from `superstition`,
/// "wavetable" one from `wave`, "compilable" from `compel`).
fn only_inflected(word: &str, stem: &str) -> bool {
    const INFLECTIONS: [&str; 17] = [
        "", "e", "s", "es", "ed", "d", "ing", "ings", "ly", "y", "ies", "ied", "er", "ers", "est",
        "'s", "s'",
    ];
    let common: usize = word
        .chars()
        .zip(stem.chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    // Porter2 rewrites at most a final letter of the stem (y → i, an e added).
    let (ending, rewritten) = (&word[common..], &stem[common..]);
    matches!(rewritten, "" | "i" | "e") && INFLECTIONS.contains(&ending)
}

/// Whether a word may be read as (or be the target of) a misspelling.
fn editable(word: &str) -> bool {
    !phrase::is_stopword(word) && !word.chars().all(char::is_numeric)
}

impl Edit {
    /// Over any list of keys, given stemmed ([`stem_keys`]); words in
    /// `known` are taken as spelled right.
    pub(crate) fn over(
        keys: &[Keyed],
        stemmed: &[String],
        bounds: EditBounds,
        known: Option<Arc<KnownWords>>,
    ) -> Edit {
        debug_assert_eq!(keys.len(), stemmed.len());
        let mut edit = Edit {
            bounds,
            vocab: Vec::with_capacity(keys.len()),
            vocab_text: String::new(),
            by_word: WordMap::with_capacity(keys.len()),
            by_stem: WordMap::with_capacity(keys.len()),
            deletions: DeletionIndex::default(),
            keys: Vec::with_capacity(keys.len()),
            key_words: Vec::with_capacity(2 * keys.len()),
            by_first: HashMap::with_capacity_and_hasher(keys.len(), Default::default()),
            by_second: HashMap::default(),
            known,
        };
        for (k, stems) in keys.iter().zip(stemmed) {
            let first_word = edit.key_words.len();
            for (w, stem) in phrase::key_words(k.key).zip(phrase::key_words(stems)) {
                let id = edit.word_id(w, stem);
                edit.key_words.push(id);
            }
            let words = edit.key_words.len() - first_word;
            if words == 0 || words > MAX_PHRASE_WORDS {
                edit.key_words.truncate(first_word);
                continue;
            }
            let id = edit.keys.len() as u32;
            let start = (edit.key_words[first_word], words as u32);
            let same = edit.by_first.entry(start).or_insert(Chain::EMPTY);
            append(same, id, &mut edit.keys, |k| &mut k.same_start);
            if words >= NEAR_KEY_WORDS {
                let second = (edit.key_words[first_word + 1], words as u32);
                edit.by_second.entry(second).or_default().push(id);
            }
            edit.keys.push(EditKey {
                entry: k.entry,
                first_word: first_word as u32,
                words: words as u32,
                chars: k.key.chars().count() as u32,
                capitals: phrase::is_capitals(k.written),
                name: phrase::has_name_or_acronym(k.written),
                same_start: END,
            });
        }
        edit.deletions.finish();
        edit
    }

    /// The vocabulary id of a key word whose stem is `stem`, adding it (and
    /// its deletions) once.
    fn word_id(&mut self, word: &str, stem: &str) -> u32 {
        if let Some(&id) = self.by_word.get(word) {
            return id;
        }
        let id = self.vocab.len() as u32;
        let chars = word.chars().count();
        let bound = if editable(word) {
            self.bounds.max_distance(chars)
        } else {
            0
        };
        if bound > 0 {
            self.deletions.add(word, bound, id);
            // A word that is its own stem is found by the post word's stem
            // too (see `hits`): indexed once, not twice.
            if stem != word {
                self.deletions.add(stem, bound, id);
            }
        }
        let same = self.by_stem.get_or_insert_with(stem, || Chain::EMPTY);
        append(same, id, &mut self.vocab, |w| &mut w.same_stem);
        self.by_word.insert(word, id);
        let start = self.vocab_text.len() as u32;
        self.vocab_text.push_str(word);
        self.vocab_text.push_str(stem);
        self.vocab.push(VocabWord {
            start,
            bytes: word.len() as u32,
            stem_bytes: stem.len() as u32,
            chars: chars as u32,
            stem_chars: stem.chars().count() as u32,
            same_stem: END,
        });
        id
    }

    /// A vocabulary word's text and stem.
    fn text_of(&self, v: &VocabWord) -> (&str, &str) {
        let start = v.start as usize;
        let stem_start = start + v.bytes as usize;
        (
            &self.vocab_text[start..stem_start],
            &self.vocab_text[stem_start..stem_start + v.stem_bytes as usize],
        )
    }

    /// Every vocabulary word that `word` (a post word, whose stem is
    /// `stem`) matches; none by a typo if it is `spelled_right`.
    fn hits(&self, word: &str, stem: &str, spelled_right: bool) -> Vec<WordHit> {
        self.hits_among(word, stem, spelled_right, false)
    }

    /// [`Edit::hits`], with candidates from the deletion indexes or, when
    /// `every_word`, from the whole vocabulary (the plain definition).
    fn hits_among(
        &self,
        word: &str,
        stem: &str,
        spelled_right: bool,
        every_word: bool,
    ) -> Vec<WordHit> {
        let mut hits = self.all_readings(word, stem, spelled_right, every_word);
        keep_one_reading(&mut hits);
        hits
    }

    /// A spelled-right post word's readings one edit off a key word as
    /// written, for a
    /// key of [`NEAR_KEY_WORDS`] or more whose other words are written as
    /// in the glossary ("chocolate" in "pain au chocolate"); none when
    /// there are more than [`MAX_TYPO_READINGS`].
    fn near_readings(&self, word: &str, stem: &str) -> Vec<WordHit> {
        if word.chars().count() < self.bounds.one_from.max(1) {
            return Vec::new();
        }
        let mut near = self.all_readings(word, stem, false, false);
        // As written, not between stems: "kilobytes" is two edits from
        // "kilobits", though "kilobyt" is one from "kilobit".
        near.retain(|h| {
            h.distance == 1
                && distance_within(word, self.text_of(&self.vocab[h.word as usize]).0, 1) == 1
        });
        if near.len() > MAX_TYPO_READINGS {
            near.clear();
        }
        near
    }

    /// Every reading of `word` within the bounds, before
    /// [`keep_one_reading`].
    fn all_readings(
        &self,
        word: &str,
        stem: &str,
        spelled_right: bool,
        every_word: bool,
    ) -> Vec<WordHit> {
        let mut hits: Vec<WordHit> = Vec::new();
        if let Some(&id) = self.by_word.get(word) {
            add(
                WordHit {
                    word: id,
                    distance: 0,
                    exact: true,
                },
                &mut hits,
            );
        }
        let same_stem = self.by_stem.get(stem).map_or(END, |c| c.first);
        for id in chain(same_stem, |w| self.vocab[w as usize].same_stem) {
            add(
                WordHit {
                    word: id,
                    distance: 0,
                    exact: false,
                },
                &mut hits,
            );
        }
        let ceiling = self.bounds.ceiling();
        let length = word.chars().count();
        if ceiling == 0
            || length < self.bounds.one_from
            || length > MAX_EDIT_CHARS + ceiling
            || !editable(word)
            || spelled_right
        {
            return hits;
        }
        let chars: Vec<char> = word.chars().collect();
        let stem_chars: Vec<char> = stem.chars().collect();
        // Key words and key stems share one index: the post word and its
        // stem each find both (a candidate too many is only measured).
        let mut candidates = Vec::new();
        self.deletions.candidates(&chars, ceiling, &mut candidates);
        if stem_chars != chars {
            self.deletions
                .candidates(&stem_chars, ceiling, &mut candidates);
        }
        if every_word {
            candidates = (0..self.vocab.len() as u32).collect();
        }
        candidates.sort_unstable();
        candidates.dedup();
        let word_only_inflected = only_inflected(word, stem);
        for id in candidates {
            let v = &self.vocab[id as usize];
            let (text, v_stem) = self.text_of(v);
            let (v_chars, v_stem_chars) = (v.chars as usize, v.stem_chars as usize);
            let bound = self.bounds.max_distance(v_chars);
            if bound == 0 {
                continue;
            }
            let surface = if chars.len().abs_diff(v_chars) <= bound {
                distance_within(word, text, bound)
            } else {
                usize::MAX
            };
            // The stems' distance counts only where it can be the smaller:
            // not when both words are their own stems (it is the same
            // distance), nor when their lengths already differ by as much.
            // Its bound is the key stem's own: two edits between `comp` and
            // `comput` (of `computer`) are half the stem, not a typo.
            let stem_bound = self.bounds.max_distance(v_stem_chars).min(bound);
            let stem_gap = stem_chars.len().abs_diff(v_stem_chars);
            let same_pair = stem == word && v_stem == text;
            let stemmed = if stem_bound > 0
                && stem_gap <= stem_bound
                && stem_gap < surface
                && !same_pair
                && word_only_inflected
                && only_inflected(text, v_stem)
            {
                distance_within(stem, v_stem, stem_bound)
            } else {
                usize::MAX
            };
            let distance = surface.min(stemmed);
            if distance <= bound {
                add(
                    WordHit {
                        word: id,
                        distance,
                        exact: false,
                    },
                    &mut hits,
                );
            }
        }
        hits
    }

    /// The match of `key` on `span`, its words' total distance `distance`.
    fn key_match(
        &self,
        key: &EditKey,
        post: &PostView,
        span: &phrase::Span,
        distance: usize,
        exact: bool,
    ) -> Option<Match> {
        let first = span.first_word;
        if key.name && distance > 0 || !capitals_allow(key.capitals, post.span(first, span.len)) {
            return None;
        }
        let (kind, score) = match (distance, exact) {
            (0, true) => (MatchKind::Exact, 1.0),
            (0, false) => (MatchKind::Stem, 1.0),
            (d, _) => {
                let phrase_chars = span.len - 1
                    + post.words[first..first + span.len]
                        .iter()
                        .map(|w| w.text.chars().count())
                        .sum::<usize>();
                let longest = (key.chars as usize).max(phrase_chars).max(1);
                (MatchKind::Edit, 1.0 - d as f64 / longest as f64)
            }
        };
        Some(Match::of_span(key.entry, kind, post, span, score))
    }
}

/// Keys of at least this many words may have one word one edit off even
/// where the post's word is spelled right, when every other word is
/// written as in the glossary: "pain au chocolate" is `pain au chocolat`
/// (docs/formats.md, `edit`).
const NEAR_KEY_WORDS: usize = 3;

impl Infallible for Edit {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        // Hits per distinct word, then per word position.
        let stems = post.stems();
        let spelled_right = self.known.as_ref().map(|k| post.spelled_right(k));
        let mut by_text: HashMap<&str, Vec<WordHit>> =
            HashMap::with_capacity_and_hasher(post.words.len(), Default::default());
        for (i, (w, stem)) in post.words.iter().zip(stems).enumerate() {
            if !by_text.contains_key(w.text.as_str()) {
                let right = spelled_right.as_ref().is_some_and(|r| r[i]);
                by_text.insert(&w.text, self.hits(&w.text, stem, right));
            }
        }
        let hits: Vec<&[WordHit]> = post
            .words
            .iter()
            .map(|w| by_text[w.text.as_str()].as_slice())
            .collect();
        // Readings one edit off of spelled-right words, worked out only
        // where a long key needs them.
        let mut near: HashMap<usize, Vec<WordHit>> = HashMap::default();
        let mut near_of = |i: usize| -> Vec<WordHit> {
            near.entry(i)
                .or_insert_with(|| {
                    let w = &post.words[i];
                    let right = spelled_right.as_ref().is_some_and(|r| r[i]);
                    let typo_read = hits[i].iter().any(|h| h.distance > 0);
                    if right && !typo_read && editable(&w.text) {
                        self.near_readings(&w.text, &stems[i])
                    } else {
                        Vec::new()
                    }
                })
                .clone()
        };
        let as_written = |i: usize, word: u32| {
            hits[i]
                .iter()
                .any(|h| h.word == word && h.distance == 0 && h.exact)
        };
        // The other words hold at least two that are not stop words: "good
        // to go" is not a misspelt "food to go".
        let content_words = |first: usize, len: usize, off: usize| {
            (first..first + len)
                .filter(|&i| i != off && !phrase::is_stopword(&post.words[i].text))
                .count()
                >= 2
        };
        let mut out = Vec::new();
        for span in post.spans().iter().filter(|s| s.lookup) {
            let first = span.first_word;
            let long = span.len >= NEAR_KEY_WORDS;
            for h0 in hits[first] {
                let Some(found) = self.by_first.get(&(h0.word, span.len as u32)) else {
                    continue;
                };
                'keys: for k in chain(found.first, |k| self.keys[k as usize].same_start) {
                    let key = &self.keys[k as usize];
                    let (mut distance, mut exact) = (h0.distance, h0.exact);
                    let start = key.first_word as usize;
                    let words = &self.key_words[start..start + key.words as usize];
                    let mut off = None;
                    for (j, &word) in words.iter().enumerate().skip(1) {
                        match hits[first + j].iter().find(|h| h.word == word) {
                            Some(h) => {
                                distance += h.distance;
                                exact &= h.exact;
                            }
                            None if long && off.is_none() => off = Some(j),
                            None => continue 'keys,
                        }
                    }
                    if let Some(j) = off {
                        // One word one edit off, every other as written.
                        let others_written = words
                            .iter()
                            .enumerate()
                            .all(|(i, &w)| i == j || as_written(first + i, w));
                        if !others_written
                            || !content_words(first, span.len, first + j)
                            || !near_of(first + j).iter().any(|h| h.word == words[j])
                        {
                            continue;
                        }
                        (distance, exact) = (1, false);
                    }
                    out.extend(self.key_match(key, post, span, distance, exact));
                }
            }
            // The first word one edit off: the key is reached through its
            // second, written as in the glossary.
            if !long {
                continue;
            }
            for h1 in hits[first + 1]
                .iter()
                .filter(|h| h.distance == 0 && h.exact)
            {
                let Some(found) = self.by_second.get(&(h1.word, span.len as u32)) else {
                    continue;
                };
                for &k in found {
                    let key = &self.keys[k as usize];
                    let start = key.first_word as usize;
                    let words = &self.key_words[start..start + key.words as usize];
                    let reached = hits[first].iter().any(|h| h.word == words[0]);
                    if reached
                        || !content_words(first, span.len, first)
                        || !words
                            .iter()
                            .enumerate()
                            .skip(2)
                            .all(|(i, &w)| as_written(first + i, w))
                        || !near_of(first).iter().any(|h| h.word == words[0])
                    {
                        continue;
                    }
                    out.extend(self.key_match(key, post, span, 1, false));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::normalised::stem_word;

    #[test]
    fn deletion_sets_are_complete_and_distinct() {
        let w: Vec<char> = "abc".chars().collect();
        // abc; ab ac bc; a b c
        assert_eq!(deletion_hashes(&w, 2).len(), 7);
        let w: Vec<char> = "aab".chars().collect();
        // aab; ab aa; a b
        assert_eq!(deletion_hashes(&w, 2).len(), 5);
    }

    #[test]
    fn ids_that_take_every_bit_leave_no_fingerprint_and_lose_no_neighbour() {
        // Ids of 31 bits leave the entry no bits of hash: every entry of a
        // bucket is a candidate, and the ids and flags still read back.
        let mut index = DeletionIndex::default();
        let big = TOLERATES_TWO - 1;
        index.add("bread", 2, big);
        index.add("bran", 1, 3);
        index.finish();
        assert_eq!((index.id_bits, index.fingerprint_mask()), (31, 0));
        let mut found = Vec::new();
        // Two deletions from "breads": only the word that tolerates two.
        index.candidates(&"brads".chars().collect::<Vec<_>>(), 2, &mut found);
        assert!(found.contains(&big) && found.iter().all(|&id| id == big || id == 3));
        found.clear();
        index.candidates(&"brab".chars().collect::<Vec<_>>(), 1, &mut found);
        assert!(found.contains(&3), "{found:?}");
        // Small ids leave most bits to the fingerprint.
        let mut index = DeletionIndex::default();
        index.add("bread", 2, 5);
        index.finish();
        assert_eq!(
            (index.id_bits, index.fingerprint_mask().count_ones()),
            (3, 28)
        );
        found.clear();
        index.candidates(&"bred".chars().collect::<Vec<_>>(), 2, &mut found);
        assert_eq!(found.first(), Some(&5));
    }

    proptest::proptest! {
        /// Two words within distance d share a deletion string with at
        /// most d deletions on each side: the index misses no neighbour.
        #[test]
        fn the_deletion_index_misses_no_neighbour(a in "[abc]{0,7}", b in "[abc]{0,7}") {
            let cb: Vec<char> = b.chars().collect();
            let mut index = DeletionIndex::default();
            index.add(&a, 2, 7);
            index.finish();
            let mut found = Vec::new();
            index.candidates(&cb, 2, &mut found);
            found.dedup();
            if strsim::damerau_levenshtein(&a, &b) <= 2 {
                proptest::prop_assert_eq!(found, vec![7]);
            }
        }
    }

    proptest::proptest! {
        /// Whatever the ids' width (and so the fingerprint's: 31 bits for
        /// id 0, none for ids of 31 bits), every neighbour is found under
        /// its own id, and a word of bound 1 never by two deletions.
        #[test]
        fn no_neighbour_is_lost_whatever_the_id_width(
            a in "[abc]{1,7}",
            b in "[abc]{0,7}",
            c in "[abc]{1,7}",
            id in 0u32..TOLERATES_TWO,
        ) {
            let mut index = DeletionIndex::default();
            index.add(&a, 2, id);
            let other = if id == 0 { 1 } else { id - 1 };
            index.add(&c, 1, other);
            index.finish();
            let mut found = Vec::new();
            index.candidates(&b.chars().collect::<Vec<_>>(), 2, &mut found);
            proptest::prop_assert!(found.iter().all(|&f| f == id || f == other));
            if strsim::damerau_levenshtein(&a, &b) <= 2 {
                proptest::prop_assert!(found.contains(&id));
            }
            if strsim::damerau_levenshtein(&c, &b) <= 1 {
                proptest::prop_assert!(found.contains(&other));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The indexes find exactly the words that comparing the post word
        /// with every key word finds (surface and stems, both bounds).
        #[test]
        fn the_index_equals_comparing_every_key_word(
            keys in proptest::collection::vec("[abcdes]{3,9}( [abcdes]{3,9})?", 1..40),
            words in proptest::collection::vec("[abcdes]{2,10}", 1..20),
        ) {
            let keyed: Vec<Keyed> = keys
                .iter()
                .enumerate()
                .map(|(entry, k)| Keyed { entry, key: k, written: k })
                .collect();
            let edit = Edit::over(&keyed, &stem_keys(&keyed), EditBounds::default(), None);
            for w in &words {
                let stem = stem_word(w);
                let mut indexed = edit.hits_among(w, &stem, false, false);
                let mut plain = edit.hits_among(w, &stem, false, true);
                indexed.sort_by_key(|h| h.word);
                plain.sort_by_key(|h| h.word);
                proptest::prop_assert_eq!(indexed, plain, "{}", w);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// Within every bound, the bounded distance is Damerau–Levenshtein's.
        #[test]
        fn the_bounded_distance_is_damerau_levenshtein(a in "[abc]{0,7}", b in "[abc]{0,7}") {
            let full = strsim::damerau_levenshtein(&a, &b);
            for bound in 0..=2 {
                let expected = if full <= bound { full } else { usize::MAX };
                proptest::prop_assert_eq!(distance_within(&a, &b, bound), expected, "{} {} {}", a, b, bound);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        /// The bounded OSA is strsim's, cut at the bound.
        #[test]
        fn the_bounded_osa_is_strsims(a in "[abcé]{0,9}", b in "[abcé]{0,9}", max in 0usize..5) {
            let (x, y) = (Letters::of(&a).unwrap(), Letters::of(&b).unwrap());
            proptest::prop_assert_eq!(bounded_osa(x.get(), y.get(), max), strsim::osa_distance(&a, &b).min(max + 1));
        }
    }

    #[test]
    fn words_longer_than_any_edited_word_are_measured_too() {
        let long = "a".repeat(LONGEST_EDITED + 5);
        assert!(Letters::of(&long).is_none());
        assert_eq!(distance_within(&long, &long[1..], 2), 1);
        assert_eq!(distance_within(&long, "b", 2), usize::MAX);
    }

    #[test]
    fn a_transposition_with_an_insertion_between_is_two_edits() {
        assert_eq!(strsim::osa_distance("ca", "abc"), 3);
        assert_eq!(distance_within("ca", "abc", 2), 2);
        assert_eq!(distance_within("ca", "abc", 1), usize::MAX);
    }

    /// The ids `edit` retrieves from `text`.
    fn edit_ids(g: &std::sync::Arc<Glossary>, text: &str) -> Vec<String> {
        crate::retrieve::test_support::run("edit", g, text)
            .into_iter()
            .map(|m| m.0)
            .collect()
    }

    /// Stems undo inflections for a typo, not derivations: "cofees" is a
    /// misspelt plural of `coffee`, "superset" no misspelt `superstition`
    /// (stems `superset`, `superstit`), "wavetable" no `wave` (`wavet`).
    #[test]
    fn typos_are_measured_between_stems_of_inflections_only() {
        use crate::retrieve::test_support::glossary;
        let g = glossary(&[
            ("coffee", "coffee"),
            ("superstition", "superstition"),
            ("wave", "wave"),
            ("happy", "happy"),
        ]);
        assert_eq!(
            edit_ids(&g, "cofees, superset, wavetable, hapyness, hapy"),
            ["coffee", "happy"]
        );
        for (word, stem, inflected) in [
            ("cofees", "cofe", true),
            ("happy", "happi", true),
            ("hoping", "hope", true),
            ("baker's", "baker", true),
            ("superstition", "superstit", false),
            ("wavetable", "wavet", false),
            ("happiness", "happi", false),
        ] {
            assert_eq!(super::only_inflected(word, stem), inflected, "{word}");
        }
    }

    /// Two edits are allowed from 8 characters, but between stems the
    /// key stem's length counts: `comp` is not `computer` (stem `comput`),
    /// nor `intl` `isolated` (stem `isol`).
    #[test]
    fn stems_are_edited_within_their_own_bound() {
        use crate::retrieve::test_support::{glossary, run};
        let g = glossary(&[("computer", "computer"), ("isolated", "isolated")]);
        assert!(run("edit", &g, "comp langs, intl conf").is_empty());
        // A typo of the whole word is still found.
        let got = run("edit", &g, "a new computre, isloated");
        let kinds: Vec<(&str, MatchKind)> =
            got.iter().map(|(id, k, _)| (id.as_str(), *k)).collect();
        assert_eq!(
            kinds,
            [("computer", MatchKind::Edit), ("isolated", MatchKind::Edit)]
        );
    }

    /// In a key of three or more words one word may be one edit off even
    /// when the post's word is itself a word, if every other word is
    /// written as in the glossary; in shorter keys, or with a second word
    /// off, a spelled-right word stays itself.
    #[test]
    fn a_long_key_takes_one_real_word_one_edit_off() {
        use crate::retrieve::test_support::{glossary, run};
        let g = glossary(&[
            ("pac", "pain au chocolat"),
            ("choc", "chocolat"),
            ("rot", "rule of thumb"),
            ("kbps", "kilobits per second"),
        ]);
        let found = |text: &str| -> Vec<(String, MatchKind)> {
            run("edit", &g, text)
                .into_iter()
                .map(|(id, kind, _)| (id, kind))
                .collect()
        };
        assert_eq!(
            found("Pain au chocolate today"),
            [("pac".to_string(), MatchKind::Edit)]
        );
        // The first word off, reached through the second.
        assert_eq!(
            found("paint au chocolat"),
            [
                ("pac".to_string(), MatchKind::Edit),
                ("choc".to_string(), MatchKind::Exact)
            ]
        );
        // The other words must hold two that are not stop words.
        assert!(found("a rule of thump").is_empty());
        // Two words off, or a short key: no typo.
        assert!(found("paint au chocolate").is_empty());
        assert!(found("a mule of thumb").is_empty());
        assert!(found("chocolate").is_empty());
        // A stop word or a short word is never the word off.
        assert_eq!(
            found("pain an chocolat"),
            [("choc".to_string(), MatchKind::Exact)]
        );
        assert!(found("rule if thumb").is_empty());
        // One edit as written, not between stems ("kilobyt", "kilobit").
        assert!(found("kilobytes per second").is_empty());
    }

    /// A key in capitals is an acronym: found as written in capitals only,
    /// never by a typo ("ISBN" is not a misspelt "ISDN"); nor is a name
    /// with a capital inside ("comp" is not `CoIP`).
    #[test]
    fn acronyms_are_never_respelt() {
        use crate::retrieve::test_support::{glossary, run};
        let g = glossary(&[
            ("isdn", "ISDN"),
            ("ads", "ADS"),
            ("coip", "CoIP"),
            ("coffee", "coffee"),
        ]);
        assert_eq!(run("edit", &g, "ADS via ISDN and coip").len(), 3);
        assert!(run("edit", &g, "an ISBN, cheap ads, isdn, comp").is_empty());
        assert_eq!(run("edit", &g, "cofee")[0].1, MatchKind::Edit);
    }

    /// A post word with a capital after its first letter is a name or an
    /// acronym, not a typo, unless the whole post is in capitals; so is an
    /// unknown capitalised word inside a sentence
    /// ([`crate::phrase::mark_names`]).
    #[test]
    fn names_and_acronyms_in_the_post_are_not_typos() {
        use crate::retrieve::test_support::{glossary, run};
        let g = glossary(&[("poll", "poll"), ("coffee", "coffee"), ("sunset", "sunset")]);
        assert!(run("edit", &g, "at POPL 1985, by SunSett").is_empty());
        assert_eq!(edit_ids(&g, "a popl, a sunsett"), ["poll", "sunset"]);
        assert_eq!(edit_ids(&g, "Popl at sunsett"), ["poll", "sunset"]);
        assert!(edit_ids(&g, "drinks at Sunsett, then Popl").is_empty());
        assert_eq!(edit_ids(&g, "FRESH COFEE TODAY"), ["coffee"]);
        let g = glossary(&[("croissants", "croissants")]);
        assert_eq!(edit_ids(&g, "fresh CROISANTS today"), ["croissants"]);
    }

    /// A typo is read as its nearest key words only, and not at all when
    /// there are more than two of them: "zork" is no typo of cork, fork,
    /// pork and work.
    #[test]
    fn a_word_near_many_keys_is_no_typo() {
        use crate::retrieve::test_support::{glossary, run};
        let g = glossary(&[
            ("cork", "cork"),
            ("fork", "fork"),
            ("pork", "pork"),
            ("coffee", "coffee"),
            ("toffee", "toffee"),
            ("cart", "cart"),
            ("card", "card"),
        ]);
        assert!(run("edit", &g, "zork").is_empty());
        // `toffee` is two edits away, `coffee` one.
        assert_eq!(edit_ids(&g, "cofee"), ["coffee"]);
        // Two readings at one edit are both kept.
        assert_eq!(edit_ids(&g, "carx"), ["cart", "card"]);
    }

    #[test]
    fn bounds_by_length() {
        let b = EditBounds::default();
        assert_eq!(
            (3..=9).map(|n| b.max_distance(n)).collect::<Vec<_>>(),
            [0, 1, 1, 1, 1, 2, 2]
        );
    }
}
