//! `fuzzy`: an entry is retrieved when, for a phrase with the same number of
//! words, the Dice coefficient of the two keys' character-trigram sets is at
//! least the threshold. Trigrams are of Unicode characters over the whole
//! key, spaces included, unpadded; a key under 3 characters is its own gram.

use super::keys::{self, Keyed};
use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::{word_count, Glossary};
use crate::phrase::{Phrase, Span, MAX_PHRASE_WORDS};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "fuzzy",
    summary: "character-trigram Dice >= --threshold (default 0.75) against keys with as many words",
    build: |g, p: &Params| Ok(Box::new(Fuzzy::new(g, p.threshold))),
    kinds: &[],
};

/// One gram: up to three characters, 21 bits each (every `char` fits), in
/// one integer so grams hash and compare as fast as numbers. A missing
/// character is [`NO_CHAR`], which no `char` can be, so a short key's gram
/// never equals a trigram.
pub type Gram = u64;

const NO_CHAR: u64 = 0x1F_FFFF;
const GRAM_MASK: u64 = (1 << 63) - 1;

/// The sorted, de-duplicated trigram set of a key.
pub fn trigrams(key: &str) -> Vec<Gram> {
    let mut grams = Vec::new();
    trigrams_into(key, &mut grams);
    grams
}

/// [`trigrams`] into a buffer the caller reuses.
fn trigrams_into(key: &str, grams: &mut Vec<Gram>) {
    grams.clear();
    let (mut window, mut seen) = (0u64, 0usize);
    for c in key.chars() {
        window = ((window << 21) | u64::from(c)) & GRAM_MASK;
        seen += 1;
        if seen >= 3 {
            grams.push(window);
        }
    }
    if seen < 3 {
        // The key's characters, then NO_CHAR for each one missing.
        for _ in seen..3 {
            window = (window << 21) | NO_CHAR;
        }
        grams.push(window & GRAM_MASK);
    }
    grams.sort_unstable();
    grams.dedup();
}

/// Dice coefficient `2·|A∩B| / (|A|+|B|)` of two sorted gram sets.
pub fn dice(a: &[Gram], b: &[Gram]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * intersection(a, b) as f64 / (a.len() + b.len()) as f64
}

/// `|A∩B|` of two sorted gram sets.
fn intersection(a: &[Gram], b: &[Gram]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

/// One key as `fuzzy` sees it.
struct FuzzyKey {
    entry: usize,
    grams: Vec<Gram>,
    key: String,
    words: usize,
}

fn fuzzy_keys(keys: &[Keyed]) -> Vec<FuzzyKey> {
    keys.par_iter()
        .map(|k| FuzzyKey {
            entry: k.entry,
            grams: trigrams(k.key),
            key: k.key.to_string(),
            words: word_count(k.key),
        })
        // Keys of more than four words can never equal a phrase's size.
        .filter(|k| (1..=MAX_PHRASE_WORDS).contains(&k.words))
        .collect()
}

/// [`matched`] for the phrase at `span` of `post`.
fn matched_at(key: &FuzzyKey, post: &PostView, span: &Span, score: f64) -> Match {
    let m = Match::of_span(key.entry, MatchKind::Fuzzy, post, span, score);
    if key.key == m.phrase {
        Match {
            kind: MatchKind::Exact,
            ..m
        }
    } else {
        m
    }
}

fn matched(key: &FuzzyKey, phrase: &Phrase, score: f64) -> Match {
    let kind = if key.key == phrase.key {
        MatchKind::Exact
    } else {
        MatchKind::Fuzzy
    };
    Match::of_phrase(key.entry, kind, phrase, score)
}

/// Compares phrases with keys through a character-trigram inverted index
/// with the SimString bounds: for Dice ≥ t, a key with `b` grams can match
/// a phrase with `a` grams only when t·a/(2−t) ≤ b ≤ (2−t)·a/t, and then
/// it shares at least τ = ⌈t·(a+b)/2⌉ grams, so it appears in at least one
/// of any L−τ+1 of the phrase's L posting lists (the shortest are read).
/// A candidate's [`Signature`] rules most out unread; the rest are scored
/// with [`dice`]'s formula on their exact shared count, so the result
/// equals `fuzzy-brute`'s.
pub(crate) struct Fuzzy {
    threshold: f64,
    keys: Vec<FuzzyKey>,
    /// Gram → its slot; the slot's list for keys of `w` words is
    /// `postings.lists[slot * MAX_PHRASE_WORDS + w - 1]`. One look-up per
    /// gram serves every word count and every size.
    slots: FxHashMap<Gram, u32>,
    postings: PostingLists,
}

/// Every posting list in shared arrays. List `l` (a gram's slot ×
/// [`MAX_PHRASE_WORDS`] + the keys' word count − 1) holds the ids of the
/// keys with that gram and word count, sorted by (gram-set size, id), with
/// each key's signature beside its id so that the first check of a
/// candidate reads memory in order.
#[derive(Default)]
struct PostingLists {
    ids: Vec<u32>,
    signatures: Vec<Signature>,
    lists: Vec<List>,
    /// Per list, where each size starts within it: keys with `s` grams are
    /// at `size_starts[list.sizes + s]..size_starts[list.sizes + s + 1]`.
    size_starts: Vec<u32>,
}

#[derive(Clone, Copy, Default)]
struct List {
    start: u32,
    len: u32,
    sizes: u32,
    max_size: u32,
}

impl PostingLists {
    /// From each key's gram slots (`slots[at[id]..at[id + 1]]`).
    fn build(keys: &[FuzzyKey], slots: &[u32], at: &[usize], list_count: usize) -> PostingLists {
        let list_of = |id: usize, slot: u32| slot as usize * MAX_PHRASE_WORDS + keys[id].words - 1;
        let mut lists = vec![List::default(); list_count];
        for id in 0..keys.len() {
            for &slot in &slots[at[id]..at[id + 1]] {
                let list = &mut lists[list_of(id, slot)];
                list.len += 1;
                list.max_size = list.max_size.max(keys[id].grams.len() as u32);
            }
        }
        let (mut total, mut sizes) = (0u32, 0u32);
        for list in lists.iter_mut().filter(|l| l.len > 0) {
            list.start = total;
            total += list.len;
            list.sizes = sizes;
            sizes += list.max_size + 2;
        }
        let mut index = PostingLists {
            ids: vec![0; total as usize],
            signatures: vec![Signature(0); total as usize],
            size_starts: vec![0; sizes as usize],
            lists: Vec::new(),
        };
        // Filling in (size, id) order leaves every list sorted that way.
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&id| keys[id].grams.len());
        let mut filled = vec![0u32; list_count];
        for id in order {
            let size = keys[id].grams.len();
            let signature = Signature::of(&keys[id].grams);
            for &slot in &slots[at[id]..at[id + 1]] {
                let l = list_of(id, slot);
                let list = lists[l];
                let i = (list.start + filled[l]) as usize;
                index.ids[i] = id as u32;
                index.signatures[i] = signature;
                filled[l] += 1;
                index.size_starts[list.sizes as usize + size + 1] += 1;
            }
        }
        for list in lists.iter().filter(|l| l.len > 0) {
            let range = list.sizes as usize..(list.sizes + list.max_size + 2) as usize;
            let starts = &mut index.size_starts[range];
            for s in 1..starts.len() {
                starts[s] += starts[s - 1];
            }
        }
        index.lists = lists;
        index
    }

    /// Keys of `list` with `size` grams, sorted by id, and their signatures.
    fn of_size(&self, list: List, size: u32) -> (&[u32], &[Signature]) {
        if size > list.max_size {
            return (&[], &[]);
        }
        let at = (list.sizes + size) as usize;
        let range = (list.start + self.size_starts[at]) as usize
            ..(list.start + self.size_starts[at + 1]) as usize;
        (&self.ids[range.clone()], &self.signatures[range])
    }
}

/// A 64-bit summary of a key's gram set: one bit per gram, by hash. A
/// gram two sets share sets the same bit in both, which bounds their
/// overlap from above without reading either set (see [`Probe`]).
#[derive(Clone, Copy)]
struct Signature(u64);

fn signature_bit(gram: Gram) -> u64 {
    1 << (gram.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58)
}

impl Signature {
    fn of(grams: &[Gram]) -> Signature {
        Signature(grams.iter().fold(0, |sig, &g| sig | signature_bit(g)))
    }
}

/// A phrase's grams by signature bit, to bound `|A∩B|` for any key `B`
/// from B's [`Signature`] alone: a shared gram's bit is set in both, so
/// `|A∩B|` is at most the number of A's grams on bits set in B's signature.
/// `once` marks the bits holding a gram of A, `twice` those holding two,
/// and `more` counts A's grams beyond two on one bit.
#[derive(Default)]
struct Probe {
    once: u64,
    twice: u64,
    more: usize,
}

impl Probe {
    fn of(grams: &[Gram]) -> Probe {
        let mut probe = Probe::default();
        for &g in grams {
            let bit = signature_bit(g);
            if probe.once & bit == 0 {
                probe.once |= bit;
            } else if probe.twice & bit == 0 {
                probe.twice |= bit;
            } else {
                probe.more += 1;
            }
        }
        probe
    }

    fn overlap_bound(&self, key: Signature) -> usize {
        (self.once & key.0).count_ones() as usize
            + (self.twice & key.0).count_ones() as usize
            + self.more
    }
}

/// Buffers one post's phrases reuse, so the per-phrase work allocates
/// nothing.
#[derive(Default)]
struct Scratch {
    /// The phrase's grams, each with its slot ([`NO_SLOT`] when no key
    /// has it); then the grams alone.
    slotted: Vec<(Gram, u32)>,
    grams: Vec<Gram>,
    /// Per gram number of the post, the last phrase that had the gram.
    marks: Vec<u32>,
    mark: u32,
    lists: Vec<List>,
    candidates: Vec<u32>,
    /// τ for each key size from the phrase's smallest to its largest.
    taus: Vec<usize>,
    shared: Vec<(u32, usize)>,
}

impl Fuzzy {
    /// Over the glossary's source keys (the reference retriever).
    pub(crate) fn new(glossary: &Glossary, threshold: f64) -> Fuzzy {
        Fuzzy::over(&keys::sources(glossary), threshold)
    }

    /// Over any list of keys.
    pub(crate) fn over(keys: &[Keyed], threshold: f64) -> Fuzzy {
        let keys = fuzzy_keys(keys);
        let mut slots: FxHashMap<Gram, u32> = FxHashMap::default();
        let mut key_slots: Vec<u32> = Vec::new();
        let mut at = vec![0];
        for k in &keys {
            for g in &k.grams {
                let next = slots.len() as u32;
                key_slots.push(*slots.entry(*g).or_insert(next));
            }
            at.push(key_slots.len());
        }
        let postings = PostingLists::build(&keys, &key_slots, &at, slots.len() * MAX_PHRASE_WORDS);
        Fuzzy {
            threshold,
            keys,
            slots,
            postings,
        }
    }

    /// Into `scratch.shared`: `(key id, shared grams)` of every key of
    /// `words` words that shares at least τ grams with `scratch.grams`,
    /// sorted by id. Per size, every such key is in one of the L−τ+1
    /// shortest posting lists; each key found there is checked against its
    /// signature first and, when that cannot rule it out, counted exactly.
    fn shared_counts(&self, words: usize, scratch: &mut Scratch) {
        let Scratch {
            slotted,
            grams,
            lists,
            candidates,
            taus,
            shared,
            ..
        } = scratch;
        shared.clear();
        let t = self.threshold;
        let a = grams.len() as f64;
        // Bounds widened by a hair against rounding; the score is checked.
        let lo = ((t * a / (2.0 - t)) - 1e-9).floor().max(1.0) as u32;
        let hi = ((2.0 - t) * a / t + 1e-9).ceil() as u32;
        let tau_of =
            |size: u32| ((t * (a + f64::from(size)) / 2.0) - 1e-9).ceil().max(1.0) as usize;
        lists.clear();
        lists.extend(slotted.iter().filter_map(|&(_, slot)| {
            if slot == NO_SLOT {
                return None;
            }
            let list = self.postings.lists[slot as usize * MAX_PHRASE_WORDS + words - 1];
            (list.len > 0).then_some(list)
        }));
        // τ grows with the size: most phrases share too few grams for any.
        if lists.len() < tau_of(lo) {
            return;
        }
        // Any L−τ+1 of the L lists hold every key of a size whose τ it
        // shares, so list i (shortest first) is read for the sizes whose
        // τ ≤ L−i: a run of the smallest, as τ grows with the size. The
        // lists shortest overall are nearly always the shortest at each size.
        lists.sort_unstable_by_key(|l| l.len);
        let probe = Probe::of(grams);
        taus.clear();
        taus.extend((lo..=hi).map(tau_of));
        candidates.clear();
        for (i, list) in lists.iter().enumerate() {
            for (size, &tau) in (lo..).zip(taus.iter()) {
                if tau > lists.len() - i {
                    break;
                }
                if tau > grams.len().min(size as usize) {
                    continue;
                }
                let (ids, signatures) = self.postings.of_size(*list, size);
                for (&id, &other) in ids.iter().zip(signatures) {
                    if probe.overlap_bound(other) >= tau {
                        candidates.push(id);
                    }
                }
            }
        }
        if candidates.is_empty() {
            return;
        }
        candidates.sort_unstable();
        candidates.dedup();
        // The exact count merges two sorted sets.
        grams.sort_unstable();
        for &id in candidates.iter() {
            let key = &self.keys[id as usize].grams;
            let count = intersection(grams, key);
            if count >= tau_of(key.len() as u32) {
                shared.push((id, count));
            }
        }
    }
}

/// Marks a gram no key has.
const NO_SLOT: u32 = u32::MAX;

/// A post's words joined by single spaces, as the grams at each character
/// and their slots, each looked up once. A phrase's key is a stretch of
/// that string (its words, joined the same way), so its grams are the
/// grams of a stretch of positions.
struct PostGrams {
    /// Per position from `first`: the gram, its slot, and a number for the
    /// gram that is the same wherever it occurs in the post (to drop
    /// repeats unsorted).
    at: Vec<(Gram, u32, u32)>,
    /// The character position of `at[0]`.
    first: usize,
    /// Character range of each word in the joined string.
    words: Vec<(usize, usize)>,
    distinct: usize,
}

impl Fuzzy {
    fn slot(&self, gram: Gram) -> u32 {
        self.slots.get(&gram).copied().unwrap_or(NO_SLOT)
    }

    /// The post's grams from word `from` up to (not including) word `to`:
    /// only where the wanted phrases are (the alias typo pass wants the few
    /// around a misspelt word), as each costs two hash look-ups.
    fn post_grams(&self, post: &PostView, from: usize, to: usize) -> PostGrams {
        let mut chars: Vec<u32> = Vec::with_capacity(post.text.len());
        let mut words = Vec::with_capacity(post.words.len());
        for w in &post.words {
            if !chars.is_empty() {
                chars.push(u32::from(' '));
            }
            let start = chars.len();
            chars.extend(w.text.chars().map(u32::from));
            words.push((start, chars.len()));
        }
        let (first, end) = (words[from].0, words[to - 1].1);
        let mut numbers: FxHashMap<Gram, u32> = FxHashMap::default();
        let at = chars[first..end]
            .windows(3)
            .map(|w| {
                let gram = (u64::from(w[0]) << 42) | (u64::from(w[1]) << 21) | u64::from(w[2]);
                let next = numbers.len() as u32;
                let number = *numbers.entry(gram).or_insert(next);
                (gram, self.slot(gram), number)
            })
            .collect();
        PostGrams {
            at,
            first,
            words,
            distinct: numbers.len(),
        }
    }

    /// Fills `scratch.slotted` and `scratch.grams` with `phrase`'s grams,
    /// in no particular order.
    fn phrase_grams(
        &self,
        post: &PostGrams,
        view: &PostView,
        phrase: &Span,
        scratch: &mut Scratch,
    ) {
        let (start, _) = post.words[phrase.first_word];
        let (_, end) = post.words[phrase.first_word + phrase.len - 1];
        scratch.slotted.clear();
        scratch.grams.clear();
        if end - start >= 3 {
            // A new mark per phrase, so the marks never need clearing.
            scratch.mark += 1;
            scratch.marks.resize(post.distinct, 0);
            for &(gram, slot, number) in &post.at[start - post.first..end - 2 - post.first] {
                let mark = &mut scratch.marks[number as usize];
                if *mark != scratch.mark {
                    *mark = scratch.mark;
                    scratch.slotted.push((gram, slot));
                    scratch.grams.push(gram);
                }
            }
        } else {
            trigrams_into(
                &view.key_of(phrase.first_word, phrase.len),
                &mut scratch.grams,
            );
            let grams = scratch.grams.iter().map(|&g| (g, self.slot(g)));
            scratch.slotted.extend(grams);
        }
    }
}

impl Infallible for Fuzzy {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        self.retrieve_where(post, |_| true)
    }
}

impl Fuzzy {
    /// The matches of the phrases that `wanted` accepts (the others are not
    /// looked up at all).
    pub(crate) fn retrieve_where(
        &self,
        post: &PostView,
        wanted: impl Fn(&Span) -> bool,
    ) -> Vec<Match> {
        let mut out = Vec::new();
        let mut scratch = Scratch::default();
        let spans: Vec<&Span> = post
            .spans()
            .iter()
            .filter(|s| s.lookup && wanted(s))
            .collect();
        let (Some(from), Some(to)) = (
            spans.iter().map(|s| s.first_word).min(),
            spans.iter().map(|s| s.first_word + s.len).max(),
        ) else {
            return out;
        };
        let post_grams = self.post_grams(post, from, to);
        for phrase in spans {
            self.phrase_grams(&post_grams, post, phrase, &mut scratch);
            if self.threshold <= 0.0 {
                scratch.grams.sort_unstable();
                // Every key with as many words passes a threshold of 0.
                for key in self.keys.iter().filter(|k| k.words == phrase.len) {
                    out.push(matched_at(
                        key,
                        post,
                        phrase,
                        dice(&scratch.grams, &key.grams),
                    ));
                }
                continue;
            }
            self.shared_counts(phrase.len, &mut scratch);
            for &(k, count) in &scratch.shared {
                let key = &self.keys[k as usize];
                // The formula of `dice`, on the same exact count.
                let score = 2.0 * count as f64 / (scratch.grams.len() + key.grams.len()) as f64;
                if score >= self.threshold {
                    out.push(matched_at(key, post, phrase, score));
                }
            }
        }
        out
    }
}

pub(crate) const BRUTE_INFO: RetrieverInfo = RetrieverInfo {
    name: "fuzzy-brute",
    summary: "`fuzzy` by comparing every phrase with every key: the plain definition, for tests and benchmarks",
    build: |g, p: &Params| Ok(Box::new(FuzzyBrute::over(&keys::sources(g), p.threshold))),
    kinds: &[],
};

/// docs/formats.md's fuzzy rule, literally: every phrase against every key with as
/// many words.
pub(crate) struct FuzzyBrute {
    threshold: f64,
    keys: Vec<FuzzyKey>,
}

impl FuzzyBrute {
    pub(crate) fn over(keys: &[Keyed], threshold: f64) -> FuzzyBrute {
        FuzzyBrute {
            threshold,
            keys: fuzzy_keys(keys),
        }
    }
}

impl Infallible for FuzzyBrute {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        let mut out = Vec::new();
        for phrase in post.lookup_phrases() {
            let grams = trigrams(&phrase.key);
            for key in self.keys.iter().filter(|k| k.words == phrase.len) {
                let score = dice(&grams, &key.grams);
                if score >= self.threshold {
                    out.push(matched(key, phrase, score));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::super::MatchKind::{Exact, Fuzzy};
    use super::super::{best_per_entry, build, Params, PostView};
    use super::*;

    #[test]
    fn trigram_sets_include_spaces_and_dedup() {
        assert_eq!(trigrams("aaaa").len(), 1);
        assert_eq!(trigrams("a b").len(), 1);
        let ab = (u64::from('a') << 42) | (u64::from('b') << 21) | NO_CHAR;
        assert_eq!(trigrams("ab"), vec![ab]);
        assert_eq!(
            trigrams("abc"),
            vec![(u64::from('a') << 42) | (u64::from('b') << 21) | u64::from('c')]
        );
        assert_eq!(trigrams("cold tea").len(), 6);
    }

    #[test]
    fn dice_of_known_pairs() {
        // focacia / focaccia: {foc,oca,cac,aci,cia} vs {foc,oca,cac,acc,cci,cia}: 2·4/11.
        let d = dice(&trigrams("focacia"), &trigrams("focaccia"));
        assert!((d - 8.0 / 11.0).abs() < 1e-12, "{d}");
        assert_eq!(dice(&trigrams("tea"), &trigrams("tea")), 1.0);
        assert_eq!(dice(&trigrams("ab"), &trigrams("abc")), 0.0);
    }

    #[test]
    fn fuzzy_matches_one_typo_and_reports_the_score() {
        let g = glossary(&[("home-delivery", "home delivery"), ("delivery", "delivery")]);
        // "delivry" alone shares 3 of 5 + 6 trigrams with "delivery" (0.545);
        // with "home " in front, 8 of 10 + 11 (0.762).
        let got = run("fuzzy", &g, "Free home delivry");
        assert_eq!(
            got,
            [("home-delivery".into(), Fuzzy, "home delivry".into())]
        );
        let r = build("fuzzy", &g, &Params::default()).unwrap();
        let m = best_per_entry(r.retrieve(&PostView::new("home delivry", None)).unwrap());
        assert!((m[0].score - 16.0 / 21.0).abs() < 1e-12, "{}", m[0].score);
    }

    #[test]
    fn threshold_is_inclusive_and_configurable() {
        let g = glossary(&[("focaccia", "focaccia")]);
        let at = |t: f64| {
            let r = build(
                "fuzzy",
                &g,
                &Params {
                    threshold: t,
                    ..Params::default()
                },
            )
            .unwrap();
            r.retrieve(&PostView::new("focacia", None)).unwrap().len()
        };
        assert_eq!(at(8.0 / 11.0), 1);
        assert_eq!(at(0.73), 0);
        assert_eq!(at(0.7), 1);
    }

    proptest::proptest! {
        /// The indexed retriever gives exactly what comparing every key does.
        #[test]
        fn the_index_equals_comparing_every_key(
            keys in proptest::collection::vec("[abc ]{1,12}", 1..12),
            text in "[abc ,]{0,24}",
            threshold in proptest::sample::select(vec![0.0, 0.1, 0.3, 0.5, 0.6, 0.75, 0.8, 0.9, 1.0]),
        ) {
            let phrase_keys: Vec<String> = keys
                .iter()
                .map(|k| crate::phrase::key(k))
                .filter(|k| !k.is_empty())
                .collect();
            let keyed: Vec<Keyed> = phrase_keys
                .iter()
                .enumerate()
                .map(|(entry, key)| Keyed { entry, written: key, key })
                .collect();
            let post = PostView::new(&text, None);
            let got = super::Fuzzy::over(&keyed, threshold).matches(&post);
            let want = super::FuzzyBrute::over(&keyed, threshold).matches(&post);
            proptest::prop_assert_eq!(got, want);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The same on bigger glossaries of longer, multi-word keys, where
        /// signature bits are crowded and candidates span many sizes.
        #[test]
        fn the_index_equals_comparing_every_key_on_larger_glossaries(
            keys in proptest::collection::vec("[a-f]{2,7}( [a-f]{2,7}){0,2}", 50..300),
            text in "([a-f]{1,7}[ ,.]){5,30}",
            threshold in proptest::sample::select(vec![0.4, 0.5, 0.6, 0.75, 0.9]),
        ) {
            let phrase_keys: Vec<String> = keys.iter().map(|k| crate::phrase::key(k)).collect();
            let keyed: Vec<Keyed> = keys
                .iter()
                .zip(&phrase_keys)
                .enumerate()
                .map(|(entry, (k, key))| Keyed { entry, key, written: k })
                .collect();
            let post = PostView::new(&text, None);
            let got = super::Fuzzy::over(&keyed, threshold).matches(&post);
            let want = super::FuzzyBrute::over(&keyed, threshold).matches(&post);
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn compares_only_phrases_with_the_same_word_count() {
        let g = glossary(&[("cold-coffee", "cold coffee")]);
        assert!(run("fuzzy", &g, "coldcoffee").is_empty());
        assert_eq!(run("fuzzy", &g, "cold coffee")[0].1, Exact);
        assert_eq!(run("fuzzy", &g, "cold cofee")[0].1, Fuzzy);
    }
}
