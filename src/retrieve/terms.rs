//! Glossary terms found in a post at any length: the matching behind
//! `exact` and `normalised` (docs/formats.md "v2: real glossaries", "written as in the glossary ⇒
//! found").
//!
//! Two matchers share one [`KeyForm`] per key:
//!
//! - [`WordTrie`]: keys as sequences of words (docs/formats.md phrase rules), a
//!   trie over word ids. For `exact` words are split at their apostrophes
//!   (an apostrophe is not a letter: "year" is written in "year's"). A post is walked from each word while the trie has
//!   a branch, so a key of 20 words costs nothing until a post holds its
//!   first 19, and no phrase strings are made (typos' split between
//!   tokenising and looking up).
//! - [`Literal`]: keys with punctuation that ends a phrase inside them
//!   ("systemic sclerosis (SSc)", "July 29, 2021", "Mt. Yellow's"), matched
//!   token by token as written: the same words and characters, whitespace
//!   runs equal, `’` equal to `'`.
//!
//! Either way a key written in capitals ("IT") matches only capitals, and a
//! key that is one lower-case stop word is never looked up.

use super::keys::Keyed;
use super::wordmap::WordMap;
use super::{Match, MatchKind, PostView};
use crate::phrase::{self, Gap, Token, MAX_KEY_WORDS};
use rustc_hash::FxHashMap;

/// What matching needs to know of one key besides its words.
#[derive(Debug, Clone)]
pub(crate) struct KeyForm {
    pub(crate) entry: usize,
    /// The phrase key (words joined by one space).
    pub(crate) key: String,
    /// Written in capitals: matches only capitals in the post.
    pub(crate) capitals: bool,
    /// One lower-case stop word: never looked up.
    pub(crate) lone_stop_word: bool,
    /// The key as tokens when punctuation inside it ends a phrase, so only
    /// [`Literal`] can find it.
    pub(crate) literal: Option<Vec<(String, Gap)>>,
}

impl KeyForm {
    pub(crate) fn of(k: &Keyed) -> KeyForm {
        let capitals = phrase::is_capitals(k.written);
        // Plain keys (letters, digits, spaces: most) are one segment.
        let (word_count, literal) = match phrase::plain_words(k.written) {
            Some(words) => (words.count(), None),
            None => {
                let words = phrase::words(k.written);
                // A key of symbols only ("±") has no words to walk a trie
                // over: it too is matched as written.
                let crosses_a_boundary = words
                    .first()
                    .zip(words.last())
                    .is_none_or(|(a, b)| a.segment != b.segment);
                let literal = crosses_a_boundary.then(|| {
                    phrase::tokens(k.written, &words)
                        .into_iter()
                        .map(|t| (t.text, t.gap))
                        .collect()
                });
                (words.len(), literal)
            }
        };
        let lone_stop_word = !capitals && word_count == 1 && phrase::is_stopword(k.key);
        KeyForm {
            entry: k.entry,
            key: k.key.to_string(),
            capitals,
            lone_stop_word,
            literal,
        }
    }

    /// Whether the key may match the post's text `span`.
    pub(crate) fn allows(&self, span: &str) -> bool {
        capitals_allow(self.capitals, span)
    }
}

/// A key written in capitals ("IT") matches only capitals in the post.
pub(crate) fn capitals_allow(capitals: bool, span: &str) -> bool {
    !capitals || phrase::written_in_capitals(span)
}

/// What a match of a whole-word key needs, packed in the number that
/// `exact`'s trie keeps for the key: the entry, and in the top bit whether
/// the key is written in capitals. A match then reads nothing more (at
/// 100k keys, reading the key's [`KeyForm`] for every key found missed the
/// cache).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WordTarget(u32);

const CAPITALS: u32 = 1 << 31;

impl WordTarget {
    pub(crate) fn of(form: &KeyForm) -> WordTarget {
        let entry = u32::try_from(form.entry)
            .ok()
            .filter(|&e| e < CAPITALS)
            .expect("glossaries hold at most limits::MAX_GLOSSARY_ENTRIES < 2^31 entries");
        WordTarget(if form.capitals {
            entry | CAPITALS
        } else {
            entry
        })
    }

    pub(crate) fn number(self) -> u32 {
        self.0
    }

    fn from_number(number: u32) -> WordTarget {
        WordTarget(number)
    }

    pub(crate) fn entry(self) -> usize {
        (self.0 & !CAPITALS) as usize
    }

    /// Whether the key may match the post's text `span` ([`KeyForm::allows`]).
    fn allows(self, span: &str) -> bool {
        capitals_allow(self.0 & CAPITALS != 0, span)
    }
}

/// Keys as word sequences, in a trie over word ids.
///
/// A walk reads only the two maps: each node's keys are kept with the
/// entry that leads to it (the vocabulary's for a key's first word, an
/// edge's below), so no array of nodes is visited. At 100k keys every
/// table is larger than the processor's caches, and each read of another
/// one was a miss.
#[derive(Debug, Default)]
pub(crate) struct WordTrie {
    /// Every word of every key: its id and the node it leads to from the
    /// root (`node` [`NONE`] if no key starts with it). One look-up per
    /// post word then both tells whether any key has the word and starts
    /// the walk.
    vocab: Vocab,
    /// (node, word) → the step to the child node, below the root (node 0).
    edges: FxHashMap<(u32, u32), Step>,
    /// The keys of nodes where several end (caller's numbering), one run
    /// per node.
    keys: Vec<u32>,
}

/// No node: a word that starts no key.
const NONE: u32 = u32::MAX;

/// A step of a walk: the node reached and what ends there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    node: u32,
    ends: Ends,
}

/// The keys that end at a node.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Ends {
    /// The one key when `count` is 1 (most nodes: no second read), else
    /// where the node's run in [`WordTrie::keys`] starts.
    key_or_from: u32,
    /// How many keys end here, and in the top bit whether any edge leaves
    /// the node (a walk stops at a leaf without a look-up).
    count_and_children: u32,
}

const CHILDREN: u32 = 1 << 31;

impl Ends {
    fn count(self) -> u32 {
        self.count_and_children & !CHILDREN
    }

    fn has_children(self) -> bool {
        self.count_and_children & CHILDREN != 0
    }
}

impl Step {
    const NONE: Step = Step {
        node: NONE,
        ends: Ends {
            key_or_from: 0,
            count_and_children: 0,
        },
    };
}

/// Words to their id and the step from the root. Most post words are in
/// no key and are looked up once each: a [`WordMap`] keeps short words
/// packed, so a look-up follows no pointer to the heap.
type Vocab = WordMap<(u32, Step)>;

/// Keys found at one place: words `first..first + len`, keys `keys`.
pub(crate) struct Found<'t> {
    pub(crate) first: usize,
    pub(crate) len: usize,
    pub(crate) keys: &'t [u32],
}

impl WordTrie {
    /// A trie of `keys`, each given as its words and the caller's number.
    /// Keys longer than [`MAX_KEY_WORDS`] are left out.
    pub(crate) fn new<'a>(keys: impl IntoIterator<Item = (u32, Vec<&'a str>)>) -> WordTrie {
        let keys = keys.into_iter();
        // Sized up front: growing maps of a 100k-entry glossary by doubling
        // copies them and touches twice the memory.
        // (The upper bound: a filtered list of keys gives 0 as its lower.)
        let expected = keys.size_hint().1.unwrap_or(keys.size_hint().0);
        let mut vocab = Vocab::with_capacity(expected);
        let mut edges: FxHashMap<(u32, u32), Step> = FxHashMap::default();
        edges.reserve(expected);
        // Per node, the keys that end there: one in place, or the list of
        // the few nodes where several end.
        let mut ends: Vec<Ends> = Vec::with_capacity(2 * expected + 1);
        let mut several: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        ends.push(Ends::default());
        for (id, words) in keys {
            if words.is_empty() || words.len() > MAX_KEY_WORDS {
                continue;
            }
            let mut node = 0;
            for word in words {
                let next_word = vocab.len() as u32;
                let (word, root_step) = vocab.get_or_insert_with(word, || (next_word, Step::NONE));
                let next_node = ends.len() as u32;
                let child = if node == 0 {
                    if root_step.node == NONE {
                        root_step.node = next_node;
                    }
                    root_step.node
                } else {
                    let step = Step {
                        node: next_node,
                        ..Step::NONE
                    };
                    edges.entry((node, *word)).or_insert(step).node
                };
                ends[node as usize].count_and_children |= CHILDREN;
                if child == next_node {
                    ends.push(Ends::default());
                }
                node = child;
            }
            let here = &mut ends[node as usize];
            match here.count() {
                0 => {
                    (here.key_or_from, here.count_and_children) = (id, here.count_and_children + 1)
                }
                1 if here.key_or_from == id => {}
                1 => {
                    several.insert(node, vec![here.key_or_from, id]);
                    here.count_and_children += 1;
                }
                _ => {
                    let keys = several.get_mut(&node).expect("listed at its second key");
                    if !keys.contains(&id) {
                        keys.push(id);
                        here.count_and_children += 1;
                    }
                }
            }
        }
        // The lists of several keys, in one array in node order.
        let mut flat = Vec::new();
        for (i, here) in ends.iter_mut().enumerate() {
            if here.count() > 1 {
                here.key_or_from = flat.len() as u32;
                flat.extend(&several[&(i as u32)]);
            }
        }
        // Each node's ends go with the entry that leads to it.
        let fill = |step: &mut Step| {
            if step.node != NONE {
                step.ends = ends[step.node as usize];
            }
        };
        vocab.values_mut(|(_, root_step)| fill(root_step));
        edges.values_mut().for_each(fill);
        WordTrie {
            vocab,
            edges,
            keys: flat,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.vocab.is_empty()
    }

    /// Every place where a key's words stand in `words` (one segment each,
    /// see [`phrase::Word::segment`]), by first word, then length.
    pub(crate) fn find<'w>(
        &self,
        words: impl Iterator<Item = (&'w str, usize)>,
        mut f: impl FnMut(Found<'_>),
    ) {
        // Each word's id, step from the root and segment, looked up once.
        let ids: Vec<(u32, Step, usize)> = words
            .map(|(w, segment)| {
                let (id, root) = self.vocab.get(w).copied().unwrap_or((NONE, Step::NONE));
                (id, root, segment)
            })
            .collect();
        for (first, &(_, root, segment)) in ids.iter().enumerate() {
            let mut step = root;
            let mut at = first;
            while step.node != NONE {
                let one;
                let keys = match step.ends.count() {
                    0 => &[],
                    1 => {
                        one = [step.ends.key_or_from];
                        &one[..]
                    }
                    n => {
                        let from = step.ends.key_or_from as usize;
                        &self.keys[from..from + n as usize]
                    }
                };
                if !keys.is_empty() {
                    f(Found {
                        first,
                        len: at - first + 1,
                        keys,
                    });
                }
                at += 1;
                step = match ids.get(at) {
                    Some(&(word, _, s))
                        if step.ends.has_children() && s == segment && word != NONE =>
                    {
                        self.edges
                            .get(&(step.node, word))
                            .copied()
                            .unwrap_or(Step::NONE)
                    }
                    _ => Step::NONE,
                };
            }
        }
    }
}

/// Keys with phrase-ending punctuation inside, matched token by token.
#[derive(Debug, Default)]
pub(crate) struct Literal {
    /// Key numbers by their first token.
    by_first: FxHashMap<String, Vec<u32>>,
}

impl Literal {
    /// Over the keys of `forms` that need it.
    pub(crate) fn new(forms: &[KeyForm]) -> Literal {
        let mut by_first: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        for (i, form) in forms.iter().enumerate() {
            let Some(tokens) = &form.literal else {
                continue;
            };
            // A key spanning a line break can never be written "as in the
            // glossary" inside one phrase; nothing to look up.
            if tokens.iter().skip(1).any(|(_, gap)| *gap == Gap::Break) {
                continue;
            }
            if let Some((first, _)) = tokens.first() {
                by_first.entry(first.clone()).or_default().push(i as u32);
            }
        }
        Literal { by_first }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_first.is_empty()
    }

    /// Every occurrence of a literal key in the post: (key number, first
    /// token, token count).
    pub(crate) fn find(&self, forms: &[KeyForm], tokens: &[Token]) -> Vec<(u32, usize, usize)> {
        let mut out = Vec::new();
        for (at, token) in tokens.iter().enumerate() {
            let Some(keys) = self.by_first.get(&token.text) else {
                continue;
            };
            for &k in keys {
                let key = forms[k as usize].literal.as_deref().unwrap_or_default();
                if literal_at(key, tokens, at) {
                    out.push((k, at, key.len()));
                }
            }
        }
        out
    }
}

/// Whether `key` stands at token `at` of the post, not inside a longer
/// word: a symbol at either end must not touch a word.
fn literal_at(key: &[(String, Gap)], tokens: &[Token], at: usize) -> bool {
    let Some(window) = tokens.get(at..at + key.len()) else {
        return false;
    };
    let same = window
        .iter()
        .zip(key)
        .enumerate()
        .all(|(i, (t, (text, gap)))| t.text == *text && (i == 0 || t.gap == *gap));
    if !same {
        return false;
    }
    let touches_word = |t: Option<&Token>| t.is_some_and(|t| t.word.is_some());
    let first = &window[0];
    let last = &window[window.len() - 1];
    let before_ok = first.word.is_some()
        || first.gap != Gap::None
        || !touches_word(at.checked_sub(1).and_then(|i| tokens.get(i)));
    let after = tokens.get(at + key.len());
    let after_ok =
        last.word.is_some() || after.is_none_or(|t| t.gap != Gap::None || t.word.is_none());
    before_ok && after_ok
}

/// `exact`'s matches of `forms` in `post`, by first word then length:
/// whole-word keys through `trie` (numbered by [`WordTarget`], lone stop
/// words left out), punctuated keys through `literal`.
pub(crate) fn exact_matches(
    forms: &[KeyForm],
    trie: &WordTrie,
    literal: &Literal,
    post: &PostView,
) -> Vec<Match> {
    let mut out = Vec::new();
    if !trie.is_empty() {
        // Words split at apostrophes only where a word has one (rare), so
        // most posts are walked over their words as they are; a text
        // without an apostrophe has no such word, checked in one scan.
        let split = (post.text.as_bytes().contains(&b'\'') || post.text.contains('’'))
            && post.words.iter().any(|w| w.text.contains('\''));
        let whole: Vec<phrase::Part>;
        let parts = if split {
            post.parts()
        } else {
            whole = Vec::new();
            &whole[..]
        };
        let part = |i: usize| -> (usize, usize, usize, &str) {
            if split {
                let p = &parts[i];
                (p.word, p.start, p.end, p.text(&post.words))
            } else {
                let w = &post.words[i];
                (i, w.start, w.end, w.text.as_str())
            }
        };
        let count = if split { parts.len() } else { post.words.len() };
        let segments = post.segments();
        let items = (0..count).map(|i| {
            let (word, _, _, text) = part(i);
            (text, segments[word])
        });
        trie.find(items, |found| {
            let (first_word, start, _, _) = part(found.first);
            let (last_word, _, end, _) = part(found.first + found.len - 1);
            let span = &post.text[start..end];
            let mut allowed = found
                .keys
                .iter()
                .map(|&k| WordTarget::from_number(k))
                .filter(|target| target.allows(span))
                .peekable();
            if allowed.peek().is_none() {
                return;
            }
            // The phrase is made once for all the keys found here.
            let mut phrase = String::with_capacity(span.len());
            let mut previous_word = None;
            for i in found.first..found.first + found.len {
                let (word, _, _, text) = part(i);
                if let Some(previous) = previous_word {
                    phrase.push(if previous == word { '\'' } else { ' ' });
                }
                phrase.push_str(text);
                previous_word = Some(word);
            }
            while let Some(target) = allowed.next() {
                let phrase = if allowed.peek().is_some() {
                    phrase.clone()
                } else {
                    std::mem::take(&mut phrase)
                };
                out.push(Match {
                    entry: target.entry(),
                    kind: MatchKind::Exact,
                    phrase,
                    score: 1.0,
                    words: Some((first_word, last_word - first_word + 1)),
                });
            }
        });
    }
    if !literal.is_empty() {
        let tokens = post.tokens();
        for (k, at, n) in literal.find(forms, tokens) {
            let window = &tokens[at..at + n];
            let form = &forms[k as usize];
            if !form.allows(&post.text[window[0].start..window[n - 1].end]) {
                continue;
            }
            // A key of symbols only spans no word.
            let mut words = window.iter().filter_map(|t| t.word);
            let span = words
                .next()
                .map(|first| (first, words.next_back().map_or(1, |last| last - first + 1)));
            out.push(Match {
                entry: form.entry,
                kind: MatchKind::Exact,
                phrase: window
                    .iter()
                    .enumerate()
                    .map(|(i, t)| match (i, t.gap) {
                        (0, _) | (_, Gap::None) => t.text.clone(),
                        _ => format!(" {}", t.text),
                    })
                    .collect(),
                score: 1.0,
                words: span,
            });
        }
        in_phrase_order(&mut out);
    }
    out
}

/// A match of the words found by a trie.
pub(crate) fn word_match(post: &PostView, entry: usize, kind: MatchKind, found: &Found) -> Match {
    Match {
        entry,
        kind,
        phrase: post.key_of(found.first, found.len),
        score: 1.0,
        words: Some((found.first, found.len)),
    }
}

/// Sorts matches as phrases are ordered (first word, then length), keeping
/// the order of matches at the same place.
pub(crate) fn in_phrase_order(matches: &mut [Match]) {
    matches.sort_by_key(|m| m.words.unwrap_or((usize::MAX, 0)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trie(keys: &[&str]) -> WordTrie {
        WordTrie::new(
            keys.iter()
                .enumerate()
                .map(|(i, k)| (i as u32, k.split(' ').collect())),
        )
    }

    fn found(t: &WordTrie, text: &str) -> Vec<(usize, usize, Vec<u32>)> {
        let words = phrase::words(text);
        let mut out = Vec::new();
        t.find(words.iter().map(|w| (w.text.as_str(), w.segment)), |f| {
            out.push((f.first, f.len, f.keys.to_vec()))
        });
        out
    }

    #[test]
    fn trie_finds_nested_and_long_keys_in_phrase_order() {
        let t = trie(&[
            "language models",
            "contextual language models",
            "rigid internal fixation of the spine",
        ]);
        assert_eq!(
            found(
                &t,
                "Contextual language models; rigid internal fixation of the spine."
            ),
            [(0, 3, vec![1]), (1, 2, vec![0]), (3, 6, vec![2]),]
        );
    }

    #[test]
    fn trie_does_not_cross_a_boundary() {
        let t = trie(&["language models"]);
        assert!(found(&t, "language. Models").is_empty());
    }

    #[test]
    fn literal_keys_touching_words_are_not_found() {
        let form = |written: &str| {
            KeyForm::of(&Keyed {
                entry: 0,
                key: &phrase::key(written),
                written,
            })
        };
        let forms = vec![form("pre-, intra-"), form("(SSc)x, y")];
        let literal = Literal::new(&forms);
        let find = |text: &str| {
            let words = phrase::words(text);
            literal.find(&forms, &phrase::tokens(text, &words)).len()
        };
        assert_eq!(find("the pre-, intra- and"), 1);
        assert_eq!(find("the pre-, intra-and"), 0);
        assert_eq!(find("the xpre-, intra- and"), 0);
        assert_eq!(find("the pre-,intra- and"), 0);
    }
}
