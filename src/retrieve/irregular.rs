//! `irregular`: English irregular inflections through WordNet's exception
//! lists (`noun.exc`, `verb.exc`, `adj.exc` of Debian's `wordnet-base`,
//! the folder `glossa lint` reads too): "loaves" finds `loaf`, "children"
//! `child`, "mice" `mouse`, "went" `go`, which the Snowball stemmer keeps
//! apart ("loaves" → "loav", "loaf" → "loaf"). docs/formats.md, `irregular`.
//!
//! A post word in a list is read as each of its base forms, stemmed, and
//! the key is looked up by stems as `normalised` does; a match is kind
//! `stem` (kind `alias` through an alias), so `closest` and `longest` treat
//! it as any inflection. A listed form that WordNet also lists as a word
//! of its own is read only as itself ("saw" is not `see`, "left" not
//! `leave`, "rose" not `rise`, "found" not `find`): most of those are
//! nouns or adjectives in a post as often as verbs.
//!
//! The lists are read at run time, once per process. Without them this
//! retriever finds nothing and [`exceptions`] says why; the commands print
//! that as a note, so a missing package is never a silent difference.

use super::keys::{self, Keyed};
use super::normalised::stem_word;
use super::terms::{self, KeyForm, WordTrie};
use super::{Infallible, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::Glossary;
use crate::phrase;
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: "irregular",
    summary: "irregular English inflections from WordNet's exception lists (wordnet-base): loaves = loaf, children = child, mice = mouse",
    build: |g, _: &Params| Ok(Box::new(Irregular::new(g))),
    kinds: &[],
};

/// The exception lists read.
const LISTS: [&str; 3] = ["noun.exc", "verb.exc", "adj.exc"];

/// WordNet's folder: `$WNSEARCHDIR`, else Debian's `/usr/share/wordnet`.
pub fn wordnet_dir() -> PathBuf {
    std::env::var_os("WNSEARCHDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/share/wordnet"))
}

/// WordNet's exception lists could not be read.
#[derive(Debug, thiserror::Error)]
#[error(
    "WordNet's exception lists not found: cannot read {} ({reason}); irregular \
     inflections (\"loaves\" → loaf, \"mice\" → mouse) are not found. Install them \
     (Debian/Ubuntu: `apt-get install wordnet-base`) or point WNSEARCHDIR at the \
     folder holding noun.exc",
    path.display()
)]
pub struct MissingExceptions {
    pub(crate) path: PathBuf,
    pub(crate) reason: std::io::Error,
}

/// Irregular forms and their base forms (lower case, one word each).
#[derive(Debug, Default)]
pub struct Exceptions {
    dir: PathBuf,
    bases: FxHashMap<String, Vec<String>>,
}

/// WordNet's index files, which list every lemma first on its line,
/// sorted bytewise.
const INDEXES: [&str; 4] = ["index.noun", "index.verb", "index.adj", "index.adv"];

/// Past this many forms to look up, the index files are read whole rather
/// than searched.
const SEARCH_AT_MOST: usize = 200;

impl Exceptions {
    /// Read the lists of `dir`. A form with a space, `_` or `-` is left
    /// out (posts are read word by word), as is a stop word and a base
    /// that stems as the
    /// form does (the stemmer already joins them: "tapping" → tap). The
    /// index files must be there too ([`Exceptions::own_words`]).
    pub(crate) fn load(dir: &Path) -> Result<Exceptions, MissingExceptions> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path)
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|reason| MissingExceptions { path, reason })
        };
        let one_word = |w: &str| !w.is_empty() && !w.contains(['_', '-', ' ']);
        let mut bases: FxHashMap<String, Vec<String>> = FxHashMap::default();
        for list in LISTS {
            for line in read(list)?.lines() {
                let mut words = line.split_whitespace();
                // A stop word ("was", "had", "did") is read only as itself,
                // as phrase rule 5 never looks one up alone: as "be",
                // "have", "do" it made idioms of every auxiliary ("was
                // in" → `be in`, "did not" → `do not`).
                let Some(form) = words
                    .next()
                    .filter(|f| one_word(f) && !phrase::is_stopword(f))
                else {
                    continue;
                };
                let stem = stem_word(form);
                let known = bases.entry(form.to_string()).or_default();
                for base in words.filter(|b| one_word(b) && stem_word(b) != stem) {
                    if !known.iter().any(|k| k == base) {
                        known.push(base.to_string());
                    }
                }
            }
        }
        bases.retain(|_, b| !b.is_empty());
        for index in INDEXES {
            let path = dir.join(index);
            std::fs::metadata(&path).map_err(|reason| MissingExceptions { path, reason })?;
        }
        Ok(Exceptions {
            dir: dir.to_path_buf(),
            bases,
        })
    }

    /// The base forms of a lower-case word; empty for most words.
    pub(crate) fn bases(&self, word: &str) -> &[String] {
        self.bases.get(word).map_or(&[], Vec::as_slice)
    }

    /// The forms (from `forms`) that WordNet lists as words of their own
    /// ("saw", "left"): looked up in the sorted index files, or, for many
    /// forms, read from them whole (6 MB, most of a small run's time).
    pub(crate) fn own_words<'f>(
        &self,
        forms: &FxHashSet<&'f str>,
    ) -> std::io::Result<FxHashSet<&'f str>> {
        let mut own = FxHashSet::default();
        for index in INDEXES {
            let path = self.dir.join(index);
            if forms.len() > SEARCH_AT_MOST {
                let text = std::fs::read(&path)?;
                for line in text.split(|&b| b == b'\n') {
                    let lemma = line.split(|&b| b == b' ').next().unwrap_or_default();
                    if let Some(form) = std::str::from_utf8(lemma).ok().and_then(|l| forms.get(l)) {
                        own.insert(*form);
                    }
                }
            } else {
                let file = std::fs::File::open(&path)?;
                let len = file.metadata()?.len();
                for form in forms {
                    if !own.contains(form) && listed(&file, len, form.as_bytes())? {
                        own.insert(*form);
                    }
                }
            }
        }
        Ok(own)
    }
}

/// Whether a line of the bytewise-sorted `file` (of `len` bytes) starts
/// with `word` and a space: a binary search over line starts, reading
/// little (WordNet's own `bin_search` does the same).
fn listed(file: &std::fs::File, len: u64, word: &[u8]) -> std::io::Result<bool> {
    let (mut lo, mut hi) = (0u64, len);
    let mut buf = vec![0u8; 1024.max(word.len() + 1)];
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // The first line starting at `mid` or after.
        let mut start = mid;
        if mid > 0 {
            let mut at = mid - 1;
            loop {
                let n = read_at(file, &mut buf, at)?;
                if n == 0 {
                    start = len;
                    break;
                }
                if let Some(i) = buf[..n].iter().position(|&b| b == b'\n') {
                    start = at + i as u64 + 1;
                    break;
                }
                at += n as u64;
            }
        }
        if start >= len {
            hi = mid;
            continue;
        }
        let n = read_at(file, &mut buf[..word.len() + 1], start)?;
        let head = &buf[..n];
        let token = head
            .split(|&b| b == b' ' || b == b'\n')
            .next()
            .unwrap_or_default();
        let whole = n > token.len();
        match token.cmp(word) {
            std::cmp::Ordering::Equal if whole => return Ok(true),
            // A longer token read only in part: the line is after `word`.
            std::cmp::Ordering::Equal | std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Less => lo = start + 1,
        }
    }
    Ok(false)
}

/// Up to `buf.len()` bytes of `file` from `at` (fewer only at its end).
fn read_at(mut file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(at))?;
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            read => n += read,
        }
    }
    Ok(n)
}

/// The lists of [`wordnet_dir`], read on first use.
pub fn exceptions() -> Result<&'static Exceptions, &'static MissingExceptions> {
    static TABLE: OnceLock<Result<Exceptions, MissingExceptions>> = OnceLock::new();
    TABLE
        .get_or_init(|| Exceptions::load(&wordnet_dir()))
        .as_ref()
}

pub(crate) struct Irregular {
    /// The irregular forms of the glossary's words that are no words of
    /// their own, with those base forms.
    bases: FxHashMap<String, Vec<String>>,
    /// The keys with a base form among their words.
    forms: Vec<KeyForm>,
    /// Their words stemmed, numbered as `forms`.
    stemmed: WordTrie,
    /// Per key, whether it is an alias.
    alias: Vec<bool>,
    /// Per key, its entry.
    entry: Vec<usize>,
}

impl Irregular {
    pub(crate) fn new(glossary: &Glossary) -> Irregular {
        match exceptions() {
            Ok(table) => Irregular::with(glossary, table),
            Err(_) => Irregular::with(glossary, &Exceptions::default()),
        }
    }

    /// Over the lists of `table`.
    pub(crate) fn with(glossary: &Glossary, table: &Exceptions) -> Irregular {
        let words: FxHashSet<&str> = keys::sources_and_aliases(glossary)
            .iter()
            .flat_map(|k| phrase::key_words(k.key))
            .collect();
        // The forms of the glossary's words, less words of their own.
        let mut bases: FxHashMap<String, Vec<String>> = table
            .bases
            .iter()
            .filter_map(|(form, bases)| {
                let ours: Vec<String> = bases
                    .iter()
                    .filter(|b| words.contains(b.as_str()))
                    .cloned()
                    .collect();
                (!ours.is_empty()).then(|| (form.clone(), ours))
            })
            .collect();
        let candidates: FxHashSet<&str> = bases.keys().map(String::as_str).collect();
        // Unreadable index files (checked when the lists were loaded):
        // every form is taken as a form.
        let own: FxHashSet<String> = table
            .own_words(&candidates)
            .map(|own| own.into_iter().map(str::to_string).collect())
            .unwrap_or_default();
        bases.retain(|form, _| !own.contains(form));
        let reached: FxHashSet<&str> = bases.values().flatten().map(String::as_str).collect();
        let entries = glossary.entries.len();
        // Only keys holding a base form can be reached: a few of a large
        // glossary, stemmed here.
        let keys: Vec<Keyed> = keys::sources_and_aliases(glossary)
            .into_iter()
            .filter(|k| phrase::key_words(k.key).any(|w| reached.contains(w)))
            .collect();
        let stemmed: Vec<Vec<String>> = keys
            .iter()
            .map(|k| phrase::key_words(k.key).map(stem_word).collect())
            .collect();
        let stemmed = WordTrie::new(
            stemmed
                .iter()
                .enumerate()
                .map(|(i, words)| (i as u32, words.iter().map(String::as_str).collect())),
        );
        let alias = keys.iter().map(|k| k.entry >= entries).collect();
        let entry = keys.iter().map(|k| k.entry % entries.max(1)).collect();
        Irregular {
            bases,
            forms: keys.iter().map(KeyForm::of).collect(),
            stemmed,
            alias,
            entry,
        }
    }
}

impl Infallible for Irregular {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        if self.stemmed.is_empty() {
            return Vec::new();
        }
        let bases: Vec<&[String]> = post
            .words
            .iter()
            .map(|w| {
                self.bases
                    .get(w.text.as_str())
                    .map_or(&[][..], Vec::as_slice)
            })
            .collect();
        let most = bases.iter().map(|b| b.len()).max().unwrap_or(0);
        let mut out = Vec::new();
        // One pass per reading: a word with two bases ("leaves": leaf,
        // leave) is read as the first in one pass, the second in the next.
        for reading in 0..most {
            let mut replaced = vec![false; post.words.len()];
            let stems: Vec<String> = post
                .stems()
                .iter()
                .zip(&bases)
                .enumerate()
                .map(
                    |(i, (stem, bases))| match bases.get(reading).or(bases.last()) {
                        Some(base) => {
                            replaced[i] = true;
                            stem_word(base)
                        }
                        None => stem.clone(),
                    },
                )
                .collect();
            let words = stems
                .iter()
                .map(String::as_str)
                .zip(post.segments().iter().copied());
            self.stemmed.find(words, |found| {
                let range = found.first..found.first + found.len;
                if !replaced[range].iter().any(|&r| r) {
                    return;
                }
                let span = post.span(found.first, found.len);
                // Single words keep docs/formats.md phrase rule 5, as in
                // `normalised`.
                let single = found.len == 1;
                if single && !phrase::is_lookup_word(&post.words[found.first].text) {
                    return;
                }
                for &k in found.keys {
                    let k = k as usize;
                    let form = &self.forms[k];
                    if !form.allows(span) || single && form.lone_stop_word {
                        continue;
                    }
                    let kind = if self.alias[k] {
                        MatchKind::Alias
                    } else {
                        MatchKind::Stem
                    };
                    out.push(terms::word_match(post, self.entry[k], kind, &found));
                }
            });
        }
        terms::in_phrase_order(&mut out);
        let mut seen = FxHashSet::default();
        out.retain(|m| seen.insert((m.entry, m.words)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{glossary, run};
    use super::*;

    fn lists(dir: &Path, noun: &str, verb: &str, index_noun: &str) {
        std::fs::write(dir.join("noun.exc"), noun).unwrap();
        std::fs::write(dir.join("verb.exc"), verb).unwrap();
        std::fs::write(dir.join("adj.exc"), "better good well\n").unwrap();
        std::fs::write(dir.join("index.noun"), index_noun).unwrap();
        for pos in ["verb", "adj", "adv"] {
            std::fs::write(dir.join(format!("index.{pos}")), "").unwrap();
        }
    }

    #[test]
    fn reads_forms_and_leaves_out_words_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        lists(
            dir.path(),
            "loaves loaf\nmice mouse\nleaves leaf leave\nattorneys_general attorney_general\n",
            "saw see\nwent go\ntapping tap\nwas be\n",
            "  1 licence header line\n  2 another\nloaf n 1 0 1 0 07705931\nsaw n 3 1 @ 3 1 04140064\nsawdust n 1 0 1 0 1\n",
        );
        let t = Exceptions::load(dir.path()).unwrap();
        assert_eq!(t.bases("loaves"), ["loaf"]);
        // "leave" stems as "leaves" does: the stemmer already joins them.
        assert_eq!(t.bases("leaves"), ["leaf"]);
        assert_eq!(t.bases("went"), ["go"]);
        assert_eq!(t.bases("saw"), ["see"]);
        // A phrase, a form the stemmer already joins.
        assert!(t.bases("attorneys_general").is_empty());
        assert!(t.bases("tapping").is_empty());
        // A stop word stays itself.
        assert!(t.bases("was").is_empty());
        assert_eq!(t.bases("better"), ["good", "well"]);
        // "saw" is a word of its own; searched for, or read whole.
        let few: FxHashSet<&str> = ["saw", "loaves", "went", "sawd", "sa"]
            .into_iter()
            .collect();
        let own = t.own_words(&few).unwrap();
        assert_eq!(own, ["saw"].into_iter().collect());
        let names: Vec<String> = (0..SEARCH_AT_MOST).map(|i| format!("w{i}")).collect();
        let mut many: FxHashSet<&str> = names.iter().map(String::as_str).collect();
        many.extend(["saw", "loaves"]);
        assert_eq!(t.own_words(&many).unwrap(), ["saw"].into_iter().collect());
        // Only the glossary's words' forms, less words of their own.
        let g = glossary(&[("loaf", "loaf"), ("see", "see"), ("go", "go")]);
        let r = Irregular::with(&g, &t);
        let mut forms: Vec<&str> = r.bases.keys().map(String::as_str).collect();
        forms.sort();
        assert_eq!(forms, ["loaves", "went"]);
    }

    /// The binary search finds every lemma of a sorted file, whatever
    /// the line lengths, and nothing else.
    #[test]
    fn the_search_finds_exactly_the_listed_lemmas() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.noun");
        let mut lemmas: Vec<String> = (0..300).map(|i| format!("w{i:03}")).collect();
        lemmas.extend(["a".to_string(), "ab".to_string(), "zz".to_string()]);
        lemmas.sort();
        let text: String = std::iter::once("  1 header line\n".to_string())
            .chain(
                lemmas
                    .iter()
                    .enumerate()
                    .map(|(i, l)| format!("{l} n {}\n", "x".repeat(i * 7 % 1500))),
            )
            .collect();
        std::fs::write(&path, text).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let len = file.metadata().unwrap().len();
        for l in &lemmas {
            assert!(listed(&file, len, l.as_bytes()).unwrap(), "{l}");
        }
        for absent in ["b", "w", "w0", "w1000", "aa", "zzz", "header"] {
            assert!(!listed(&file, len, absent.as_bytes()).unwrap(), "{absent}");
        }
    }

    #[test]
    fn a_missing_list_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = Exceptions::load(dir.path()).unwrap_err();
        assert!(err.path.ends_with("noun.exc"), "{err}");
        assert!(err.to_string().contains("wordnet-base"), "{err}");
    }

    /// With Debian's lists (`support::required_data` makes the binary's
    /// tests fail under CI when they are missing; here, skipped).
    #[test]
    fn irregular_plurals_find_their_entries() {
        if exceptions().is_err() {
            eprintln!("skipped: WordNet's exception lists are not installed");
            return;
        }
        let g = glossary(&[
            ("loaf", "loaf"),
            ("child", "child"),
            ("mouse", "field mouse"),
            ("see", "see"),
        ]);
        let ids = |text: &str| -> Vec<String> {
            run("irregular", &g, text)
                .into_iter()
                .map(|(id, kind, _)| {
                    assert_eq!(kind, MatchKind::Stem);
                    id
                })
                .collect()
        };
        assert_eq!(ids("40 loaves of rye"), ["loaf"]);
        assert_eq!(ids("Treats for the children"), ["child"]);
        assert_eq!(ids("Two field mice"), ["mouse"]);
        // Written as in the glossary is `exact`'s, not this retriever's.
        assert!(ids("one loaf").is_empty());
        // "saw" is a word of its own.
        assert!(ids("I saw it").is_empty());
    }
}
