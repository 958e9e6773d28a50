//! `split`: a word written split or joined. A phrase matches a key with a
//! different number of words when both are the same once their spaces are
//! removed (`sour dough` ↔ `sourdough`, `home made` ↔ `homemade`,
//! `coldcoffee` ↔ `cold coffee`), or when the joined forms have the same
//! stem (`sour doughs`). Looked up in a map from space-less key to entries,
//! so it costs one hash look-up per phrase whatever the glossary's size.
//!
//! Only words that can be half of a compound are joined or split off: not
//! stop words, not single characters (`for a` is not `fora`, `as a` not
//! `ASA`, `controls` not `control-S`), and a key with a name or an
//! acronym in it (a capital after a word's first letter: "ASA", "CoIP") is
//! never respelt. On FOLDOC, a computing dictionary of 15,216 terms,
//! such joins were over a third of the default's unsupported entries
//! (`bash bench/real.sh`).

use super::keys::{self, Keyed};
use super::normalised::{stem_keys, stem_word};
use super::wordmap::WordMap;
use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::{word_count, Glossary};
use crate::phrase::{self, Span};
use std::borrow::Cow;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "split",
    summary: "a word split or joined: `sour dough` = sourdough, `home made` = homemade (same letters, other spacing)",
    build: |g, _: &Params| Ok(Box::new(Split::new(g))),
    kinds: &[],
};

/// Entries by a space-less form.
type Joined = WordMap<Targets>;

/// The keys of one space-less form, each as (entry, number of words of
/// the key). Nearly every form has one: that one is kept in place, not in
/// a list of its own (two maps of some 100,000 forms each at 100k entries).
#[derive(Debug)]
enum Targets {
    /// Only while the maps are made.
    None,
    One(u32, u32),
    /// Boxed, so that `Targets` takes 16 bytes (a boxed slice would make
    /// it 24, a `Vec` 32).
    #[allow(clippy::box_collection)]
    Many(Box<Vec<(usize, usize)>>),
}

const _: () = assert!(std::mem::size_of::<Targets>() == 16);

impl Targets {
    /// Add `target` unless the form has it already.
    fn add(&mut self, target: (usize, usize)) {
        match self {
            Targets::None => *self = Targets::of(target),
            Targets::One(entry, words) => {
                let first = (*entry as usize, *words as usize);
                if first != target {
                    *self = Targets::Many(Box::new(vec![first, target]));
                }
            }
            Targets::Many(list) => {
                if !list.contains(&target) {
                    list.push(target);
                }
            }
        }
    }

    fn of(target: (usize, usize)) -> Targets {
        match (u32::try_from(target.0), u32::try_from(target.1)) {
            (Ok(entry), Ok(words)) => Targets::One(entry, words),
            _ => Targets::Many(Box::new(vec![target])),
        }
    }

    /// In the order they were added.
    fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (one, many) = match self {
            Targets::None => (None, &[][..]),
            Targets::One(entry, words) => (Some((*entry as usize, *words as usize)), &[][..]),
            Targets::Many(list) => (None, &list[..]),
        };
        one.into_iter().chain(many.iter().copied())
    }
}

/// The space-less forms, with hashes of the whole forms. A post's phrases
/// are read byte by byte from each word on (see [`Walk`]), and a form is
/// looked up in `targets` only where its hash is among `wholes` (a hash
/// collision only costs that look-up).
struct Forms {
    targets: Joined,
    /// FNV-1a hashes of the whole forms.
    wholes: HashBits,
}

/// A set of hashes that may answer yes wrongly, never no wrongly (a Bloom
/// filter): all a walk needs, in a fraction of a hash set's memory, so
/// that look-ups mostly stay in the cache.
struct HashBits {
    bits: Vec<u64>,
    /// How far to shift a mixed hash to get a bit's number.
    shift: u32,
    /// Bits set per hash: 1 for the per-byte prefix checks (a wrong yes
    /// only lets a walk go one byte further), 2 for whole forms (a wrong
    /// yes there costs a stemming).
    probes: u32,
}

impl HashBits {
    /// Room for `count` hashes at `bits_each` bits each (at least 64 bits).
    /// One probe at 16 bits a hash answers about one absent hash in
    /// twenty wrongly; two probes at 32 bits, about one in 250.
    fn with_room(count: usize, bits_each: usize, probes: u32) -> HashBits {
        let bits = (count.max(4) * bits_each).next_power_of_two().max(64);
        HashBits {
            bits: vec![0; bits / 64],
            shift: 64 - bits.trailing_zeros(),
            probes,
        }
    }

    /// The bit of the `probe`th look-up: the top bits of a multiple of the
    /// hash (FNV's low bits are its weakest), a different multiplier each.
    fn at(&self, hash: u64, probe: u32) -> (usize, u64) {
        const MIX: [u64; 2] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F];
        let n = (hash.wrapping_mul(MIX[probe as usize]) >> self.shift) as usize;
        (n / 64, 1 << (n % 64))
    }

    fn insert(&mut self, hash: u64) {
        for probe in 0..self.probes {
            let (word, bit) = self.at(hash, probe);
            self.bits[word] |= bit;
        }
    }

    fn contains(&self, hash: u64) -> bool {
        (0..self.probes).all(|probe| {
            let (word, bit) = self.at(hash, probe);
            self.bits[word] & bit != 0
        })
    }
}

/// How far into a form a walk checks that it is still on some form's path.
/// Random phrases leave every form within a few bytes; longer prefixes
/// would only make the set larger (it is built for every glossary word).
const PREFIX_BYTES: usize = 8;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv_step(hash: u64, byte: u8) -> u64 {
    (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
}

/// FNV-1a hashes of each form's prefixes up to [`PREFIX_BYTES`], then of
/// the whole form.
fn for_each_prefix_hash(form: &str, mut each: impl FnMut(u64)) -> u64 {
    let mut hash = FNV_OFFSET;
    for (i, &b) in form.as_bytes().iter().enumerate() {
        hash = fnv_step(hash, b);
        if i < PREFIX_BYTES {
            each(hash);
        }
    }
    hash
}

impl Forms {
    /// The forms `targets`, their prefixes added to `prefixes` (in the
    /// same pass over their bytes as their whole hashes).
    fn new(targets: Joined, prefixes: &mut HashBits) -> Forms {
        let mut wholes = HashBits::with_room(targets.len(), 32, 2);
        targets.for_each(|form, _| {
            wholes.insert(for_each_prefix_hash(form, |hash| prefixes.insert(hash)));
        });
        Forms { targets, wholes }
    }

    fn get(&self, form: &str) -> Option<&Targets> {
        self.targets.get(form)
    }
}

/// A walk along a phrase's space-less bytes, while they may still be the
/// beginning of some form (as written or stemmed: one set of prefixes for
/// both, as a stem mostly begins as its word does, so each byte costs one
/// look-up, not two).
struct Walk<'f> {
    prefixes: &'f HashBits,
    /// The hash of each prefix read while still (as far as checked) on a
    /// path of some form.
    hashes: Vec<u64>,
    dead: bool,
}

impl<'f> Walk<'f> {
    fn new(prefixes: &'f HashBits) -> Walk<'f> {
        Walk {
            prefixes,
            hashes: Vec::new(),
            dead: false,
        }
    }

    fn restart(&mut self) {
        self.hashes.clear();
        self.dead = false;
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.dead {
                return;
            }
            let hash = fnv_step(self.hashes.last().copied().unwrap_or(FNV_OFFSET), b);
            if self.hashes.len() < PREFIX_BYTES && !self.prefixes.contains(hash) {
                self.dead = true;
                return;
            }
            self.hashes.push(hash);
        }
    }

    /// Bytes read while still on a path of some form.
    fn alive(&self) -> usize {
        self.hashes.len()
    }

    /// Whether the first `len` bytes read may be a whole form of `forms`.
    fn whole_at(&self, forms: &Forms, len: usize) -> bool {
        len >= 1 && len <= self.alive() && forms.wholes.contains(self.hashes[len - 1])
    }
}

pub(crate) struct Split {
    joined: Forms,
    /// By stem of the joined form; its targets are indices in `stemmed_keys`.
    joined_stem: Forms,
    stemmed_keys: Vec<StemmedKey>,
    /// The prefixes of both kinds of form, for [`Walk`].
    prefixes: HashBits,
}

impl Split {
    /// Over the glossary's source keys.
    pub(crate) fn new(glossary: &Glossary) -> Split {
        let keys = keys::sources(glossary);
        Split::over(&keys, &stem_keys(&keys))
    }

    /// Over any list of keys, given stemmed ([`stem_keys`]: a one-word
    /// key's stem is its joined form's).
    pub(crate) fn over(keys: &[Keyed], stemmed: &[String]) -> Split {
        debug_assert_eq!(keys.len(), stemmed.len());
        let mut joined = Joined::with_capacity(keys.len());
        let mut joined_stem = Joined::with_capacity(keys.len());
        let mut stemmed_keys = Vec::with_capacity(keys.len());
        for (k, stems) in keys.iter().zip(stemmed) {
            let words = word_count(k.key);
            if phrase::has_name_or_acronym(k.written)
                || words > 1 && !phrase::key_words(k.key).all(is_compound_part)
            {
                continue;
            }
            let value = (k.entry, words);
            // A one-word key is its own joined form, and its stem is given.
            let (j, stem): (Cow<str>, Cow<str>) = if words == 1 {
                (Cow::Borrowed(k.key), Cow::Borrowed(stems))
            } else {
                let j: String = phrase::key_words(k.key).collect();
                let stem = stem_word(&j);
                (Cow::Owned(j), Cow::Owned(stem))
            };
            joined.get_or_insert_with(&j, || Targets::None).add(value);
            joined_stem
                .get_or_insert_with(&stem, || Targets::None)
                .add((stemmed_keys.len(), words));
            let last_word = phrase::key_words(k.key).last().unwrap_or_default();
            stemmed_keys.push(StemmedKey {
                entry: k.entry,
                last_word_at: j.len() - last_word.len(),
                joined: j.into_owned().into_boxed_str(),
            });
        }
        // Most prefixes are shared (by forms, and by a form and its stem):
        // 8 bits per form's prefix keep wrong yeses rare in a set small
        // enough to stay in the cache.
        let mut prefixes = HashBits::with_room(PREFIX_BYTES * joined.len(), 8, 1);
        Split {
            joined: Forms::new(joined, &mut prefixes),
            joined_stem: Forms::new(joined_stem, &mut prefixes),
            stemmed_keys,
            prefixes,
        }
    }
}

/// A key reached through the stem of its joined form: what [`ends_alike`]
/// needs to check that only the last word is inflected.
struct StemmedKey {
    entry: usize,
    joined: Box<str>,
    /// Where the key's last word starts in `joined`.
    last_word_at: usize,
}

/// Whether a phrase's joined form and a key's, whose stems are equal,
/// differ only in the ending of the word that ends last in both: the parts
/// before the later of the two last words' starts are the same letters,
/// and what follows has one stem ("sour|doughs" and "sour|dough",
/// "ice|creams" and "ice|cream"). Porter2 on a joined form strips endings
/// that are words of their own: "read miss" stems as `readmission`
/// ("-ion"), "toilette" as `toilet table` ("-able").
fn ends_alike(joined: &str, last_word_at: usize, key: &StemmedKey) -> bool {
    let at = last_word_at.max(key.last_word_at);
    at <= joined.len()
        && at <= key.joined.len()
        && joined.is_char_boundary(at)
        && key.joined.is_char_boundary(at)
        && joined[..at] == key.joined[..at]
        && stem_word(&joined[at..]) == stem_word(&key.joined[at..])
}

/// Whether a word may be one part of a word written split or joined:
/// not a stop word, not a single character.
fn is_compound_part(word: &str) -> bool {
    word.chars().nth(1).is_some() && !phrase::is_stopword(word)
}

/// The most bytes Porter2 strips from an English word's end ("-ousness" →
/// "-ous" is 4, "-ization" → "-ize" 4, with step 1's "-s"/"-es" and the
/// final "-e" 7 at most); a margin beyond.
const MAX_STRIPPED: usize = 10;

impl Split {
    /// Whether some key's stem may equal the stem of `joined`, from a walk
    /// over `joined`. Stemming (the costly step) only strips or rewrites an
    /// ending, so such a stem is a prefix of `joined` missing at most
    /// [`MAX_STRIPPED`] bytes, except where Porter2 turns a final `y` into
    /// `i` (`happy` → `happi`), checked as well.
    fn may_stem_like_a_key(&self, walk: &Walk, joined: &str) -> bool {
        let len = joined.len();
        (len.saturating_sub(MAX_STRIPPED)..=len).any(|at| walk.whole_at(&self.joined_stem, at))
            || joined.ends_with('y') && walk.alive() + 1 >= len && {
                let mut i_form = joined[..len - 1].to_string();
                i_form.push('i');
                self.joined_stem.get(&i_form).is_some()
            }
    }

    /// The entries whose space-less key is the phrase's, or stems alike
    /// with only the last word inflected ([`ends_alike`]); `last_word_at`
    /// is where the phrase's last word starts in `joined`.
    fn found<'s>(
        &'s self,
        phrase: &Span,
        post: &PostView,
        walk: &Walk<'s>,
        joined: &'s str,
        last_word_at: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 's {
        // Looked up only where the walk says that some key (or key stem)
        // may be the phrase's; a single word's stem is the post's, a longer
        // phrase is stemmed here.
        let exact = walk
            .whole_at(&self.joined, joined.len())
            .then(|| self.joined.get(joined))
            .flatten();
        let stem = self
            .may_stem_like_a_key(walk, joined)
            .then(|| {
                if phrase.len == 1 {
                    self.joined_stem.get(&post.stems()[phrase.first_word])
                } else {
                    self.joined_stem.get(&stem_word(joined))
                }
            })
            .flatten();
        let phrase_len = phrase.len;
        let stem = stem
            .into_iter()
            .flat_map(Targets::iter)
            .filter_map(move |(k, words)| {
                // A key of as many words is no split (the caller skips it):
                // not worth two stemmings.
                let key = &self.stemmed_keys[k];
                (words == phrase_len || ends_alike(joined, last_word_at, key))
                    .then_some((key.entry, words))
            });
        exact.into_iter().flat_map(Targets::iter).chain(stem)
    }
}

impl Infallible for Split {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        let mut seen: Vec<usize> = Vec::new();
        let mut joined = String::new();
        let mut walk = Walk::new(&self.prefixes);
        // Phrases come by first word, then by length: each first word's
        // phrases extend one walk, a word at a time.
        for from_one_word in post.spans().chunk_by(|a, b| a.first_word == b.first_word) {
            walk.restart();
            joined.clear();
            let mut first_is_part = false;
            for phrase in from_one_word {
                let last = &post.words[phrase.first_word + phrase.len - 1].text;
                if phrase.len == 1 {
                    first_is_part = is_compound_part(last);
                } else if !(first_is_part && is_compound_part(last)) {
                    break; // no longer phrase from here is a compound either
                }
                joined.push_str(last);
                walk.feed(last.as_bytes());
                if phrase.len > 1 && walk.dead && walk.alive() + MAX_STRIPPED < joined.len() {
                    break; // no longer phrase from here can match either way
                }
                if !phrase.lookup {
                    continue;
                }
                seen.clear();
                let last_word_at = joined.len() - last.len();
                for (entry, words) in self.found(phrase, post, &walk, &joined, last_word_at) {
                    if words != phrase.len && !seen.contains(&entry) {
                        seen.push(entry);
                        out.push(Match::of_span(entry, MatchKind::Split, post, phrase, 1.0));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind;

    #[test]
    fn hash_bits_never_answer_no_wrongly_and_seldom_yes() {
        let hash = |i: u64| super::fnv_step(super::FNV_OFFSET, (i % 251) as u8) ^ (i << 20);
        // (bits a hash, probes, most wrong yeses of 10,000 absent hashes)
        for (bits_each, probes, most) in [(16, 1, 1_000), (32, 2, 100)] {
            let mut bits = super::HashBits::with_room(10_000, bits_each, probes);
            (0..10_000).for_each(|i| bits.insert(hash(i)));
            assert!((0..10_000).all(|i| bits.contains(hash(i))));
            let wrong = (10_000..20_000).filter(|&i| bits.contains(hash(i))).count();
            assert!(
                wrong < most,
                "{wrong} of 10,000 absent hashes found with {probes} probes"
            );
        }
    }

    #[test]
    fn joined_and_split_words_match_also_inflected() {
        let g = glossary(&[
            ("sourdough", "sourdough"),
            ("berry-pie", "berry pie"),
            ("ice", "ice cream"),
        ]);
        for (text, id) in [
            ("sour dough loaves", "sourdough"),
            ("two sour doughs", "sourdough"),
            ("berrypies", "berry-pie"),
            ("icecreams", "ice"),
        ] {
            let got: Vec<(String, MatchKind)> = run("split", &g, text)
                .into_iter()
                .map(|(id, kind, _)| (id, kind))
                .collect();
            assert_eq!(got, [(id.to_string(), MatchKind::Split)], "{text}");
        }
        assert!(run("split", &g, "sour cream").is_empty());
    }

    /// Only the last word is inflected: stemming a joined form strips
    /// endings that are words of their own ("read miss" stems as
    /// `readmission`, "toilette" as `toilet table`).
    #[test]
    fn a_stem_match_inflects_the_last_word_only() {
        let g = glossary(&[
            ("readmission", "readmission"),
            ("toilet-table", "toilet table"),
            ("sourdough", "sourdough"),
        ]);
        assert!(run("split", &g, "read miss").is_empty());
        assert!(run("split", &g, "her toilette").is_empty());
        let phrases = |text| {
            run("split", &g, text)
                .into_iter()
                .map(|(_, _, phrase)| phrase)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            phrases("toilettables, sour doughs"),
            ["toilettables", "sour doughs"]
        );
    }

    /// Stop words and single characters glue to anything ("for a" →
    /// `fora`), and acronyms are no compounds: neither is joined or split.
    #[test]
    fn only_compound_parts_are_joined_or_split() {
        let g = glossary(&[
            ("fora", "fora"),
            ("asa", "ASA"),
            ("control-s", "control-S"),
            ("on-line", "on-line"),
            ("email", "email"),
            ("dataflow", "data flow"),
        ]);
        assert!(run(
            "split",
            &g,
            "for a while, as a rule: controls, online, e mail"
        )
        .is_empty());
        assert!(run("split", &g, "ASA in capitals is exact, not a split: AS A").is_empty());
        let got = run("split", &g, "dataflow");
        assert_eq!(
            got,
            [("dataflow".into(), MatchKind::Split, "dataflow".into())]
        );
    }
}
