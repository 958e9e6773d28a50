//! A compiled glossary (docs/formats.md, "Compiled glossaries"): a file
//! built once from a glossary that later runs open without parsing it.
//! It holds each entry's JSON behind an offset table, so that one entry
//! parses on its own, and memory-mapped maps from lookup keys to the
//! entries holding them: `fst` maps for key words and their stems (which
//! `edit` walks within a distance) and alias trigrams, hashed tables
//! (`table.rs`) for space-less keys, every key and entry ids, which are
//! only looked up whole. A run loads only the entries a post could match
//! ([`Compiled::candidates`]) as a small glossary and runs the ordinary
//! retrievers on it; what they read across the whole glossary (its words,
//! stems and keys: [`crate::glossary::WholeGlossary`]) the file answers.
//!
//! Layout, little-endian: the magic `GLOSSAIX`, the format version (u32),
//! the header's length (u32), the header (JSON, [`Header`]), its checksum
//! (u64), then the sections the header lists, each at an offset that is a
//! multiple of 8 with its own checksum. Every section is checked when the
//! file is opened, except the entries' JSON, where each entry's checksum is
//! checked when it is read: a damaged file is an error, never a panic or a
//! wrong match.

mod candidates;
mod ids;
mod load;
mod search;
mod table;

pub(crate) use candidates::{supports, supports_labelled};
pub use load::{label_ids, post_texts, wanted, Loaded, Use, AUTO_BYTES, AUTO_BYTES_PER_POST};
pub(crate) use table::Table;

use crate::error::InputError;
use crate::glossary::{Entry, Glossary, WholeGlossary};
use crate::phrase;
use crate::retrieve::{stem_word, trigrams};
use fst::{Map, MapBuilder};
use memmap2::Mmap;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"GLOSSAIX";
/// The layout of the file.
/// 2: `joined`, `keys` and `ids` are hashed tables, no longer `fst`.
const FORMAT: u32 = 2;
/// What the sections mean to retrieval: raised whenever the candidate
/// rules or what they index change, so that older files are rebuilt.
/// 2: the `ids` section (entry id → index).
pub(crate) const INDEX_VERSION: u32 = 2;
/// The file name ending of a compiled glossary.
pub(crate) const EXTENSION: &str = "glossa-index";

/// A compiled glossary that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CompiledError {
    #[error("{path}: not a compiled glossary of this glossa ({reason}); delete it, or run `glossa compile -g GLOSSARY` to rebuild it")]
    Refused { path: PathBuf, reason: String },
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// `--index FILE` was not compiled from the glossary as it is now.
    #[error("{index}: compiled from another glossary or an earlier version of it ({from}), not from {glossary} as it is now; rebuild it with `glossa compile -g {glossary} -o {index}`")]
    NotOf {
        index: PathBuf,
        glossary: String,
        from: String,
    },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Write(#[from] crate::fsutil::WriteError),
}

impl CompiledError {
    fn refused(path: &Path, reason: impl Into<String>) -> CompiledError {
        CompiledError::Refused {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// A 64-bit checksum, also the hashed tables' key hash: each step is a
/// bijection of the running value, so any one changed 8-byte word changes
/// the result. The tail is read 8 bytes a step too (the last word padded
/// with zeros; the length is mixed in): keys are short, and a build hashes
/// millions of them.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut lanes = [0x243F_6A88_85A3_08D3u64, 1, 2, 3];
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, word) in lanes.iter_mut().zip(chunk.chunks_exact(8)) {
            let w = u64::from_le_bytes(word.try_into().unwrap_or_default());
            *lane = (lane.rotate_left(5) ^ w).wrapping_mul(K);
        }
    }
    let mut h = lanes.iter().fold(bytes.len() as u64, |h, l| {
        (h.rotate_left(5) ^ l).wrapping_mul(K)
    });
    for tail in chunks.remainder().chunks(8) {
        let mut word = [0u8; 8];
        word[..tail.len()].copy_from_slice(tail);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where a section lies in the file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Section {
    name: String,
    offset: u64,
    len: u64,
    checksum: u64,
}

/// The header: what the file was built from, the glossary-wide fields and
/// where the sections are.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Header {
    pub(crate) index_version: u32,
    pub(crate) glossa_version: String,
    /// SHA-256 of the glossary file's bytes, lower-case hex.
    pub(crate) sha256: String,
    /// The glossary file's size and modification time (nanoseconds since
    /// the epoch) when it was read: the quick freshness check.
    pub(crate) size: u64,
    pub(crate) mtime_ns: u64,
    pub(crate) name: String,
    pub(crate) source_lang: String,
    pub(crate) target_lang: String,
    pub(crate) forbidden: Vec<String>,
    pub(crate) entries: u64,
    /// Entries with a source or alias of symbols only (an empty key):
    /// `exact` finds them as written, so every post's candidates hold them.
    pub(crate) symbol_entries: Vec<u32>,
    sections: Vec<Section>,
}

/// The bytes of one section of a mapped file, for `fst`.
#[derive(Clone)]
pub(crate) struct Bytes {
    map: Arc<Mmap>,
    start: usize,
    end: usize,
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        &self.map[self.start..self.end]
    }
}

/// An opened compiled glossary.
pub struct Compiled {
    path: PathBuf,
    /// The glossary's path, as given (messages name it).
    glossary_path: String,
    pub(crate) header: Header,
    map: Arc<Mmap>,
    /// Per entry `(offset, line, checksum)`, 16 bytes each, then the end.
    table: (usize, usize),
    blob: (usize, usize),
    /// Key word → entries holding it.
    pub(crate) words: Map<Bytes>,
    /// Stem of a key word → entries.
    pub(crate) stems: Map<Bytes>,
    /// Space-less keys and their stems → entries.
    pub(crate) joined: Table<Bytes>,
    /// Alias-key trigram (8 bytes, big-endian) → alias keys.
    pub(crate) grams: Map<Bytes>,
    /// Every source and alias key.
    keys: Table<Bytes>,
    /// Entry id → entry index ([`Compiled::by_ids`]).
    ids: Table<Bytes>,
    /// Posting lists: a length, then that many u32.
    postings: (usize, usize),
    /// Per alias key: its entry and its number of trigrams (u32 each).
    alias_keys: (usize, usize),
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Compiled({})", self.path.display())
    }
}

/// The file's size and modification time in nanoseconds.
fn stamp(meta: &std::fs::Metadata) -> (u64, u64) {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    (meta.len(), mtime)
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> CompiledError + '_ {
    move |cause| CompiledError::Io {
        path: path.to_path_buf(),
        cause,
    }
}

/// A key's first 8 bytes, big-endian and zero-padded: ordering by it, then
/// by the key, is ordering by the key, and most comparisons of a sort stop
/// at it rather than reading both keys, which lie scattered in memory.
fn prefix(key: &[u8]) -> u64 {
    let mut head = [0u8; 8];
    let n = key.len().min(8);
    head[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(head)
}

/// `(key, entry)` pairs with the key's [`prefix`] in front, for sorting.
type Pairs<'a> = Vec<(u64, &'a [u8], u32)>;

/// The pairs of one map sorted, de-duplicated and grouped by key: the
/// distinct keys in order, one after another in `text` (so that the `fst`
/// builder reads them in order), each with its end in `text` and the
/// offset of its posting list in `postings` (a length, then that many
/// entries).
#[derive(Default)]
struct Grouped {
    text: Vec<u8>,
    keys: Vec<(usize, u64)>,
    postings: Vec<u32>,
}

impl Grouped {
    /// Group sorted, distinct `(key, entry)` pairs.
    fn of<'k>(pairs: impl Iterator<Item = (&'k [u8], u32)>) -> Grouped {
        let mut out = Grouped::default();
        let mut count_at = 0;
        let mut last: Option<&[u8]> = None;
        for (key, entry) in pairs {
            if last != Some(key) {
                last = Some(key);
                count_at = out.postings.len();
                out.text.extend_from_slice(key);
                out.keys.push((out.text.len(), count_at as u64));
                out.postings.push(0);
            }
            out.postings[count_at] += 1;
            out.postings.push(entry);
        }
        out
    }

    /// Add `key`, after every key so far, with its posting list.
    fn push(&mut self, key: &[u8], entries: &[u32]) {
        self.text.extend_from_slice(key);
        self.keys
            .push((self.text.len(), self.postings.len() as u64));
        self.postings.push(entries.len() as u32);
        self.postings.extend_from_slice(entries);
    }

    /// Sort, de-duplicate and group pairs of string keys.
    fn of_pairs(mut pairs: Pairs<'_>) -> Grouped {
        pairs.par_sort_unstable();
        pairs.dedup();
        Grouped::of(pairs.into_iter().map(|(_, key, entry)| (key, entry)))
    }

    /// The keys in order, each with the offset of its posting list.
    fn iter(&self) -> impl Iterator<Item = (&[u8], u64)> {
        let starts = std::iter::once(0).chain(self.keys.iter().map(|&(end, _)| end));
        starts
            .zip(&self.keys)
            .map(|(start, &(end, at))| (&self.text[start..end], at))
    }

    /// Each key's posting list: its entries.
    fn lists(&self) -> impl Iterator<Item = (&[u8], &[u32])> {
        self.iter().map(|(key, at)| {
            let at = at as usize;
            let len = self.postings[at] as usize;
            (key, &self.postings[at + 1..at + 1 + len])
        })
    }

    /// The [`Table`] of the keys (grouped from pairs headed by
    /// [`table::hash`]), their posting lists written from `base` on in the
    /// postings section.
    fn table(&self, base: usize) -> Vec<u8> {
        let keys: Vec<(&[u8], u64)> = self.iter().map(|(k, at)| (k, base as u64 + at)).collect();
        table::bytes(&keys, true)
    }

    /// The `fst` map of the keys, their posting lists written from `base`
    /// on in the postings section.
    fn map(&self, base: usize) -> Vec<u8> {
        // Room for the whole map at once (pages never written cost
        // nothing): growing it would copy it.
        let room = 2 * self.text.len() + 16 * self.keys.len();
        let Ok(mut builder) = MapBuilder::new(Vec::with_capacity(room)) else {
            return Vec::new();
        };
        for (key, at) in self.iter() {
            // Keys are sorted and distinct: insertion cannot fail.
            let _ = builder.insert(key, base as u64 + at);
        }
        builder.into_inner().unwrap_or_default()
    }
}

/// What [`build`] made.
#[derive(Debug)]
pub struct Built {
    pub path: PathBuf,
    pub entries: usize,
    pub bytes: u64,
}

/// Compile the glossary at `glossary_path` into `out` (written atomically).
pub fn build(glossary_path: &Path, out: &Path) -> Result<Built, CompiledError> {
    let shown = glossary_path.display().to_string();
    let meta = std::fs::metadata(glossary_path).map_err(io_error(glossary_path))?;
    let bytes = std::fs::read(glossary_path).map_err(io_error(glossary_path))?;
    const BOM: &[u8] = "\u{feff}".as_bytes();
    let bom = bytes.starts_with(BOM);
    let text = crate::error::decode_text(&shown, bytes)?;
    let stem = glossary_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The hash of the file's bytes (the text and the byte-order mark it
    // lost) while the text is parsed.
    let (sha256, glossary) = rayon::join(
        || {
            let mut sha = Sha256::new();
            sha.update(if bom { BOM } else { b"" });
            sha.update(text.as_bytes());
            hex(&sha.finalize())
        },
        || Glossary::parse(&shown, &stem, &text),
    );
    let glossary = glossary?;
    drop(text);
    let (size, mtime_ns) = stamp(&meta);
    build_from(&glossary, out, sha256, size, mtime_ns)
}

/// One entry's keys: its source key and alias keys, each once.
fn keys_of(e: &Entry) -> Vec<&str> {
    let mut keys: Vec<&str> = std::iter::once(e.key.as_str())
        .chain(e.alias_keys.iter().map(String::as_str))
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Entries are made ready for the file in chunks of this many, side by
/// side.
const CHUNK: usize = 4096;

/// What a chunk of entries gives the file.
#[derive(Default)]
struct Chunk {
    /// The entries' JSON one after another: each one's end and checksum.
    json: Vec<u8>,
    ends: Vec<usize>,
    sums: Vec<u32>,
    /// Space-less keys and their stems one after another: each one's end
    /// and entry.
    text: String,
    joined: Vec<(usize, u32)>,
    /// Each entry's distinct alias trigram sets, in order.
    aliases: Vec<(u32, Vec<u64>)>,
    /// Entries with a key of symbols only (an empty key).
    symbols: Vec<u32>,
}

/// The chunk of `entries`, the first of which is entry `first`.
fn chunk(first: usize, entries: &[Entry]) -> Chunk {
    let mut c = Chunk::default();
    let mut whole = String::new();
    for (j, e) in entries.iter().enumerate() {
        let i = (first + j) as u32;
        let start = c.json.len();
        if serde_json::to_writer(&mut c.json, e).is_err() {
            c.json.truncate(start);
        }
        c.ends.push(c.json.len());
        c.sums.push(checksum(&c.json[start..]) as u32);
        let keys = keys_of(e);
        for key in &keys {
            whole.clear();
            whole.extend(phrase::key_words(key));
            let stem = stem_word(&whole);
            if stem != whole {
                c.text.push_str(&stem);
                c.joined.push((c.text.len(), i));
            }
            c.text.push_str(&whole);
            c.joined.push((c.text.len(), i));
        }
        if keys.iter().any(|k| k.is_empty()) {
            c.symbols.push(i);
        }
        let mut aliases: Vec<Vec<u64>> = e.alias_keys.iter().map(|k| trigrams(k)).collect();
        aliases.sort_unstable();
        aliases.dedup();
        c.aliases
            .extend(aliases.into_iter().map(|grams| (i, grams)));
    }
    c
}

/// The table of entries (per entry its JSON's offset, line and checksum,
/// then the end) and their JSON.
fn table_and_blob(glossary: &Glossary, chunks: &[Chunk]) -> (Vec<u8>, Vec<u8>) {
    let n = glossary.entries.len();
    let mut table: Vec<u8> = Vec::with_capacity(16 * (n + 1));
    let mut blob: Vec<u8> = Vec::with_capacity(chunks.iter().map(|c| c.json.len()).sum());
    let mut entries = glossary.entries.iter();
    for c in chunks {
        let starts = std::iter::once(0).chain(c.ends.iter().copied());
        for ((start, sum), e) in starts.zip(&c.sums).zip(&mut entries) {
            table.extend_from_slice(&((blob.len() + start) as u64).to_le_bytes());
            table.extend_from_slice(&(e.line as u32).to_le_bytes());
            table.extend_from_slice(&sum.to_le_bytes());
        }
        blob.extend_from_slice(&c.json);
    }
    table.extend_from_slice(&(blob.len() as u64).to_le_bytes());
    table.extend_from_slice(&[0u8; 8]);
    (table, blob)
}

/// The lookup sections of a compiled glossary, each section's bytes.
struct Index {
    words: Vec<u8>,
    stems: Vec<u8>,
    joined: Vec<u8>,
    grams: Vec<u8>,
    keys: Vec<u8>,
    postings: Vec<u8>,
    alias_keys: Vec<u8>,
}

/// Little-endian bytes of the values of `lists`, one after another.
fn le_bytes(lists: &[&[u32]]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(4 * lists.iter().map(|l| l.len()).sum::<usize>());
    for value in lists.iter().copied().flatten() {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes
}

/// The words map's keys (each entry's key words) grouped, and the stems
/// map's (their stems, each distinct word stemmed once).
fn words_and_stems(glossary: &Glossary) -> (Grouped, Grouped) {
    let pairs: Pairs<'_> = glossary
        .entries
        .par_chunks(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, entries)| {
            let mut pairs = Vec::new();
            let mut words: Vec<&str> = Vec::new();
            for (j, e) in entries.iter().enumerate() {
                let i = (c * CHUNK + j) as u32;
                words.clear();
                words.extend(keys_of(e).into_iter().flat_map(phrase::key_words));
                words.sort_unstable();
                words.dedup();
                pairs.extend(
                    words
                        .iter()
                        .map(|w| (prefix(w.as_bytes()), w.as_bytes(), i)),
                );
            }
            pairs
        })
        .collect();
    let words = Grouped::of_pairs(pairs);
    let lists: Vec<(&[u8], &[u32])> = words.lists().collect();
    // Each distinct word stemmed once; the words sorted by their stems, so
    // that the entries of the words of one stem are merged, not sorted
    // again pair by pair.
    let stemmed: Vec<String> = lists
        .par_iter()
        // The words are keys' words: UTF-8.
        .map(|(word, _)| stem_word(std::str::from_utf8(word).unwrap_or_default()))
        .collect();
    let mut by_stem: Vec<(u64, &str, u32)> = stemmed
        .iter()
        .enumerate()
        .map(|(w, stem)| (prefix(stem.as_bytes()), stem.as_str(), w as u32))
        .collect();
    by_stem.par_sort_unstable();
    let mut stems = Grouped::default();
    let mut entries: Vec<u32> = Vec::new();
    for group in by_stem.chunk_by(|a, b| a.1 == b.1) {
        entries.clear();
        entries.extend(group.iter().flat_map(|&(_, _, w)| lists[w as usize].1));
        if group.len() > 1 {
            entries.sort_unstable();
            entries.dedup();
        }
        stems.push(group[0].1.as_bytes(), &entries);
    }
    (words, stems)
}

/// The lookup sections of `glossary`, made of its `chunks`. The maps'
/// posting lists lie in the postings section in the order words, stems,
/// joined, grams; the maps are built side by side once their lists'
/// places are known.
fn index(glossary: &Glossary, chunks: &[Chunk]) -> Index {
    let joined_pairs = || -> Pairs<'_> {
        chunks
            .par_iter()
            .flat_map_iter(|c| {
                let starts = std::iter::once(0).chain(c.joined.iter().map(|&(end, _)| end));
                starts.zip(&c.joined).map(|(start, &(end, i))| {
                    let key = &c.text.as_bytes()[start..end];
                    (table::hash(key), key, i)
                })
            })
            .collect()
    };
    // Alias keys are numbered in entry order, each entry's in its own.
    let mut alias_keys: Vec<u32> = Vec::new();
    let mut gram_pairs: Vec<(u64, u32)> = Vec::new();
    for (i, grams) in chunks.iter().flat_map(|c| &c.aliases) {
        let id = (alias_keys.len() / 2) as u32;
        alias_keys.push(*i);
        alias_keys.push(grams.len() as u32);
        gram_pairs.extend(grams.iter().map(|&g| (g, id)));
    }
    let grams = || {
        gram_pairs.par_sort_unstable();
        gram_pairs.dedup();
        let bytes: Vec<([u8; 8], u32)> = gram_pairs
            .into_iter()
            .map(|(g, id)| (g.to_be_bytes(), id))
            .collect();
        Grouped::of(bytes.iter().map(|(g, id)| (&g[..], *id)))
    };
    // Every source and alias key: a table (values unused).
    let keys = || {
        let mut keys: Vec<(u64, &[u8])> = glossary
            .entries
            .par_iter()
            .flat_map_iter(|e| {
                keys_of(e)
                    .into_iter()
                    .map(|k| (table::hash(k.as_bytes()), k.as_bytes()))
            })
            .collect();
        keys.par_sort_unstable();
        keys.dedup();
        let keys: Vec<(&[u8], u64)> = keys.into_iter().map(|(_, k)| (k, 0)).collect();
        table::bytes(&keys, false)
    };
    let (((words, stems), joined), (grams, keys)) = rayon::join(
        || {
            rayon::join(
                || words_and_stems(glossary),
                || Grouped::of_pairs(joined_pairs()),
            )
        },
        || rayon::join(grams, keys),
    );
    let bases = [
        0,
        words.postings.len(),
        words.postings.len() + stems.postings.len(),
        words.postings.len() + stems.postings.len() + joined.postings.len(),
    ];
    let ((words_map, stems_map), (joined_map, grams_map)) = rayon::join(
        || rayon::join(|| words.map(bases[0]), || stems.map(bases[1])),
        || rayon::join(|| joined.table(bases[2]), || grams.map(bases[3])),
    );
    let postings = le_bytes(&[
        &words.postings,
        &stems.postings,
        &joined.postings,
        &grams.postings,
    ]);
    Index {
        words: words_map,
        stems: stems_map,
        joined: joined_map,
        grams: grams_map,
        keys,
        postings,
        alias_keys: le_bytes(&[&alias_keys]),
    }
}

fn build_from(
    glossary: &Glossary,
    out: &Path,
    sha256: String,
    size: u64,
    mtime_ns: u64,
) -> Result<Built, CompiledError> {
    let n = glossary.entries.len();
    let chunks: Vec<Chunk> = glossary
        .entries
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, entries)| chunk(c * CHUNK, entries))
        .collect();
    let (
        Index {
            words,
            stems,
            joined,
            grams,
            keys,
            postings,
            alias_keys,
        },
        ((table, blob), ids),
    ) = rayon::join(
        || index(glossary, &chunks),
        || {
            rayon::join(
                || table_and_blob(glossary, &chunks),
                || ids::section(glossary),
            )
        },
    );
    let symbol_entries: Vec<u32> = chunks
        .iter()
        .flat_map(|c| c.symbols.iter().copied())
        .collect();
    drop(chunks);
    let sections: Vec<(&str, Vec<u8>)> = vec![
        ("table", table),
        ("entries", blob),
        ("words", words),
        ("stems", stems),
        ("joined", joined),
        ("grams", grams),
        ("keys", keys),
        // Not last: the file ends with a section of whole 8-byte words, so
        // that a file cut short always misses bytes of a section.
        ("ids", ids),
        ("postings", postings),
        ("alias_keys", alias_keys),
    ];
    let mut header = Header {
        index_version: INDEX_VERSION,
        glossa_version: env!("CARGO_PKG_VERSION").to_string(),
        sha256,
        size,
        mtime_ns,
        name: glossary.name.clone(),
        source_lang: glossary.source_lang.clone(),
        target_lang: glossary.target_lang.clone(),
        forbidden: glossary.forbidden.clone(),
        entries: n as u64,
        symbol_entries,
        sections: Vec::new(),
    };
    // Offsets count from the first section, which starts at a multiple of 8
    // after the header.
    let mut at = 0u64;
    for (name, bytes) in &sections {
        header.sections.push(Section {
            name: name.to_string(),
            offset: at,
            len: bytes.len() as u64,
            checksum: if *name == "entries" {
                0
            } else {
                checksum(bytes)
            },
        });
        at += (bytes.len() as u64).div_ceil(8) * 8;
    }
    let head = serde_json::to_vec(&header).unwrap_or_default();
    let mut file = crate::fsutil::AtomicFile::create(out)?;
    let werr = |e| CompiledError::Io {
        path: out.to_path_buf(),
        cause: e,
    };
    let mut first = Vec::with_capacity(16 + head.len() + 16);
    first.extend_from_slice(MAGIC);
    first.extend_from_slice(&FORMAT.to_le_bytes());
    first.extend_from_slice(&(head.len() as u32).to_le_bytes());
    first.extend_from_slice(&head);
    let sum = checksum(&first);
    first.extend_from_slice(&sum.to_le_bytes());
    first.resize(first.len().div_ceil(8) * 8, 0);
    let mut total = first.len() as u64;
    file.write_all(&first).map_err(werr)?;
    for (_, bytes) in &sections {
        file.write_all(bytes).map_err(werr)?;
        let pad = bytes.len().div_ceil(8) * 8 - bytes.len();
        file.write_all(&[0u8; 8][..pad]).map_err(werr)?;
        total += (bytes.len() + pad) as u64;
    }
    file.commit_unsynced()?;
    Ok(Built {
        path: out.to_path_buf(),
        entries: n,
        bytes: total,
    })
}

impl Compiled {
    /// Open and check `path`, compiled from the glossary at
    /// `glossary_path` (named in messages).
    pub(crate) fn open(path: &Path, glossary_path: &str) -> Result<Compiled, CompiledError> {
        let file = std::fs::File::open(path).map_err(io_error(path))?;
        // SAFETY: the file is only read; glossa replaces compiled files by
        // renaming a new file over them, never by writing into one.
        let map = Arc::new(unsafe { Mmap::map(&file) }.map_err(io_error(path))?);
        let refuse = |reason: &str| CompiledError::refused(path, reason);
        if map.len() < 16 || &map[..8] != MAGIC {
            return Err(refuse("it does not start as one"));
        }
        let format = u32::from_le_bytes(map[8..12].try_into().unwrap_or_default());
        if format != FORMAT {
            return Err(refuse(&format!(
                "file format {format}, this glossa reads {FORMAT}"
            )));
        }
        let head_len = u32::from_le_bytes(map[12..16].try_into().unwrap_or_default()) as usize;
        let head_end = 16usize.saturating_add(head_len);
        if map.len() < head_end.saturating_add(8) {
            return Err(refuse("it is cut short (truncated)"));
        }
        let sum = u64::from_le_bytes(map[head_end..head_end + 8].try_into().unwrap_or_default());
        if checksum(&map[..head_end]) != sum {
            return Err(refuse("its header is damaged (checksum)"));
        }
        let header: Header = serde_json::from_slice(&map[16..head_end])
            .map_err(|e| refuse(&format!("its header does not read: {e}")))?;
        if header.index_version != INDEX_VERSION {
            return Err(refuse(&format!(
                "index version {}, this glossa uses {INDEX_VERSION}",
                header.index_version
            )));
        }
        let base = (head_end + 8).div_ceil(8) * 8;
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for name in [
            "table",
            "entries",
            "words",
            "stems",
            "joined",
            "grams",
            "keys",
            "postings",
            "alias_keys",
            "ids",
        ] {
            let s = header
                .sections
                .iter()
                .find(|s| s.name == name)
                .ok_or_else(|| refuse(&format!("section `{name}` is missing")))?;
            let start = (base as u64).checked_add(s.offset);
            let end = start.and_then(|st| st.checked_add(s.len));
            let (Some(start), Some(end)) = (start, end) else {
                return Err(refuse(&format!("section `{name}` lies outside the file")));
            };
            if end > map.len() as u64 {
                return Err(refuse("it is cut short (truncated)"));
            }
            let (start, end) = (start as usize, end as usize);
            if name != "entries" && checksum(&map[start..end]) != s.checksum {
                return Err(refuse(&format!("section `{name}` is damaged (checksum)")));
            }
            ranges.push((start, end));
        }
        let n = header.entries as usize;
        if ranges[0].1 - ranges[0].0 != 16 * (n + 1)
            || !(ranges[7].1 - ranges[7].0).is_multiple_of(4)
            || !(ranges[8].1 - ranges[8].0).is_multiple_of(8)
            || header.symbol_entries.iter().any(|&e| e as usize >= n)
        {
            return Err(refuse("its tables do not fit its entries"));
        }
        let bytes = |(start, end): (usize, usize)| Bytes {
            map: map.clone(),
            start,
            end,
        };
        let fst_map = |r, name: &str| {
            Map::new(bytes(r)).map_err(|e| refuse(&format!("section `{name}`: {e}")))
        };
        let table = |r, name: &str| {
            Table::new(bytes(r)).map_err(|e| refuse(&format!("section `{name}`: {e}")))
        };
        Ok(Compiled {
            path: path.to_path_buf(),
            glossary_path: glossary_path.to_string(),
            words: fst_map(ranges[2], "words")?,
            stems: fst_map(ranges[3], "stems")?,
            joined: table(ranges[4], "joined")?,
            grams: fst_map(ranges[5], "grams")?,
            keys: table(ranges[6], "keys")?,
            ids: table(ranges[9], "ids")?,
            table: ranges[0],
            blob: ranges[1],
            postings: ranges[7],
            alias_keys: ranges[8],
            header,
            map,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of entries of the whole glossary.
    pub fn len(&self) -> usize {
        self.header.entries as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn u32_at(&self, (start, end): (usize, usize), i: usize) -> Option<u32> {
        let at = start.checked_add(i.checked_mul(4)?)?;
        (at + 4 <= end)
            .then(|| u32::from_le_bytes(self.map[at..at + 4].try_into().unwrap_or_default()))
    }

    /// The posting list at `at` (a value of a map), its ids checked
    /// against `limit`.
    pub(crate) fn posting(
        &self,
        at: u64,
        limit: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), CompiledError> {
        let bad = || CompiledError::refused(&self.path, "a posting list lies outside its section");
        let at = usize::try_from(at).map_err(|_| bad())?;
        let len = self.u32_at(self.postings, at).ok_or_else(bad)? as usize;
        for i in 0..len {
            let id = self.u32_at(self.postings, at + 1 + i).ok_or_else(bad)?;
            if id as usize >= limit {
                return Err(bad());
            }
            out.push(id);
        }
        Ok(())
    }

    /// Number of alias keys.
    pub(crate) fn alias_key_count(&self) -> usize {
        (self.alias_keys.1 - self.alias_keys.0) / 8
    }

    /// An alias key's entry and number of trigrams.
    pub(crate) fn alias_key(&self, id: u32) -> Option<(u32, u32)> {
        let i = id as usize * 2;
        Some((
            self.u32_at(self.alias_keys, i)?,
            self.u32_at(self.alias_keys, i + 1)?,
        ))
    }

    /// Entry `i`, parsed on its own (not yet validated).
    fn entry(&self, i: usize) -> Result<Entry, CompiledError> {
        let bad =
            |what: &str| CompiledError::refused(&self.path, format!("entry {}: {what}", i + 1));
        if i >= self.len() {
            return Err(bad("no such entry"));
        }
        let row = self.table.0 + 16 * i;
        let read_u64 =
            |at: usize| u64::from_le_bytes(self.map[at..at + 8].try_into().unwrap_or_default());
        let start = read_u64(row) as usize;
        let line = u32::from_le_bytes(self.map[row + 8..row + 12].try_into().unwrap_or_default());
        let sum = u32::from_le_bytes(self.map[row + 12..row + 16].try_into().unwrap_or_default());
        let end = read_u64(row + 16) as usize;
        let len = self.blob.1 - self.blob.0;
        if start > end || end > len {
            return Err(bad("its place lies outside the file"));
        }
        let json = &self.map[self.blob.0 + start..self.blob.0 + end];
        if checksum(json) as u32 != sum {
            return Err(bad("damaged (checksum)"));
        }
        let mut entry: Entry =
            serde_json::from_slice(json).map_err(|e| bad(&format!("does not read: {e}")))?;
        entry.line = line as usize;
        Ok(entry)
    }

    /// A glossary of the entries `ids` (sorted, distinct) in their order,
    /// answering for the whole glossary what retrieval reads across it.
    pub(crate) fn part(self: &Arc<Self>, ids: &[u32]) -> Result<Glossary, CompiledError> {
        let entries = ids
            .par_iter()
            .map(|&i| self.entry(i as usize))
            .collect::<Result<Vec<Entry>, CompiledError>>()?;
        let mut glossary = self.glossary_of(entries)?;
        glossary.whole = Some(self.clone() as Arc<dyn WholeGlossary>);
        Ok(glossary)
    }

    /// The whole glossary, every entry read from the file.
    pub(crate) fn whole(&self) -> Result<Glossary, CompiledError> {
        let entries = (0..self.len())
            .into_par_iter()
            .map(|i| self.entry(i))
            .collect::<Result<Vec<Entry>, CompiledError>>()?;
        self.glossary_of(entries)
    }

    fn glossary_of(&self, entries: Vec<Entry>) -> Result<Glossary, CompiledError> {
        Ok(Glossary::validated(
            &self.glossary_path,
            self.header.name.clone(),
            self.header.source_lang.clone(),
            self.header.target_lang.clone(),
            entries,
        )?
        .with_forbidden(self.header.forbidden.clone()))
    }
}

impl WholeGlossary for Compiled {
    fn has_word(&self, word: &str) -> bool {
        self.words.contains_key(word)
    }

    fn has_stem(&self, stem: &str) -> bool {
        self.stems.contains_key(stem)
    }

    fn has_key(&self, key: &str) -> bool {
        self.keys.contains(key)
    }
}

/// Where the compiled file of the glossary at `glossary` is kept under the
/// cache folder `cache`: `compiled/NAME-HASH.glossa-index`, HASH from the
/// glossary's absolute path (the file says which bytes it was built from).
pub fn cache_path(cache: &Path, glossary: &Path) -> PathBuf {
    let absolute = std::fs::canonicalize(glossary).unwrap_or_else(|_| glossary.to_path_buf());
    let hash = hex(&Sha256::digest(absolute.to_string_lossy().as_bytes()));
    let stem = glossary
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    cache
        .join("compiled")
        .join(format!("{stem}-{}.{EXTENSION}", &hash[..16]))
}

/// How [`open_fresh`] came by its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// The file was fresh (size and time, or the glossary's hash, agree).
    Fresh,
    /// Built now: there was none, or the glossary changed.
    Built,
    /// Built now in place of a file that could not be used (the reason).
    Rebuilt(String),
}

/// The compiled file of the glossary at `glossary`, kept at `path`: opened
/// when it is fresh, built (atomically) when missing, stale, damaged or
/// from another version.
pub fn open_fresh(
    glossary: &Path,
    path: &Path,
) -> Result<(Arc<Compiled>, Freshness), CompiledError> {
    let shown = glossary.display().to_string();
    let meta = std::fs::metadata(glossary).map_err(io_error(glossary))?;
    let (size, mtime) = stamp(&meta);
    let mut why = Freshness::Built;
    if path.exists() {
        match Compiled::open(path, &shown) {
            Ok(c) => {
                let fresh = c.header.size == size
                    && (c.header.mtime_ns == mtime
                        || crate::fsutil::sha256_file(glossary).ok().as_deref()
                            == Some(c.header.sha256.as_str()));
                if fresh {
                    return Ok((Arc::new(c), Freshness::Fresh));
                }
            }
            Err(e) => why = Freshness::Rebuilt(e.to_string()),
        }
    }
    build(glossary, path)?;
    Ok((Arc::new(Compiled::open(path, &shown)?), why))
}

#[cfg(test)]
mod tests;
