//! A reader for WordNet 3 data files as plain text (Debian's `wordnet-base`:
//! `/usr/share/wordnet/index.noun`, `data.noun`, ...). Only what the linter
//! needs: lemma → synsets, and a synset's lexicographer file, words,
//! hypernyms and gloss. The data files are read into memory once; a
//! synset's offset is its byte offset in its data file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// WordNet's parts of speech, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Pos {
    Noun,
    Verb,
    Adj,
    Adv,
}

impl Pos {
    pub(crate) const ALL: [Pos; 4] = [Pos::Noun, Pos::Verb, Pos::Adj, Pos::Adv];

    fn file(self) -> &'static str {
        match self {
            Pos::Noun => "noun",
            Pos::Verb => "verb",
            Pos::Adj => "adj",
            Pos::Adv => "adv",
        }
    }

    /// The letter WordNet uses in pointers (`s`, a satellite, is an adjective).
    fn from_letter(c: &str) -> Option<Pos> {
        match c {
            "n" => Some(Pos::Noun),
            "v" => Some(Pos::Verb),
            "a" | "s" => Some(Pos::Adj),
            "r" => Some(Pos::Adv),
            _ => None,
        }
    }

    pub(crate) fn letter(self) -> char {
        match self {
            Pos::Noun => 'n',
            Pos::Verb => 'v',
            Pos::Adj => 'a',
            Pos::Adv => 'r',
        }
    }
}

/// WordNet's lexicographer files, by number (`lexnames`).
pub(crate) const LEXFILES: [&str; 45] = [
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
];

/// One synset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Synset {
    pub(crate) pos: Pos,
    pub(crate) offset: u32,
    /// Index into [`LEXFILES`].
    pub(crate) lexfile: usize,
    /// Its words as WordNet writes them, `_` for spaces, markers removed.
    pub(crate) words: Vec<String>,
    /// Hypernyms (`@`, `@i`) of the same part of speech, by offset.
    pub(crate) hypernyms: Vec<u32>,
    pub(crate) gloss: String,
}

impl Synset {
    pub(crate) fn lexfile_name(&self) -> &'static str {
        LEXFILES.get(self.lexfile).copied().unwrap_or("?")
    }

    /// A stable name such as `n07635155`.
    pub(crate) fn id(&self) -> String {
        format!("{}{:08}", self.pos.letter(), self.offset)
    }
}

/// WordNet's index and data files, loaded.
pub struct WordNet {
    pub(crate) dir: PathBuf,
    index: HashMap<String, Vec<(Pos, u32)>>,
    /// Lemmas with at least one sense tagged in WordNet's sense-tagged
    /// corpus (`tagsense_cnt` > 0): a proxy for "in common use".
    tagged: std::collections::HashSet<String>,
    data: HashMap<Pos, Vec<u8>>,
}

/// A WordNet data file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error(
    "WordNet data files not found: cannot read {} ({reason}); install them \
     (Debian/Ubuntu: `apt-get install wordnet-base`) or point --wordnet \
     (or WNSEARCHDIR) at the folder holding index.noun and data.noun",
    path.display()
)]
pub struct MissingWordNet {
    pub(crate) path: PathBuf,
    pub(crate) reason: std::io::Error,
}

impl WordNet {
    /// `$WNSEARCHDIR`, else Debian's `/usr/share/wordnet`.
    pub fn default_dir() -> PathBuf {
        crate::retrieve::wordnet_dir()
    }

    /// Load `dir`, or say which file is missing and how to get it.
    pub fn load(dir: &Path) -> Result<WordNet, MissingWordNet> {
        let mut index = HashMap::new();
        let mut tagged = std::collections::HashSet::new();
        let mut data = HashMap::new();
        for pos in Pos::ALL {
            let read = |name: String| {
                let path = dir.join(&name);
                std::fs::read(&path).map_err(|reason| MissingWordNet { path, reason })
            };
            let idx = read(format!("index.{}", pos.file()))?;
            for line in String::from_utf8_lossy(&idx).lines() {
                if line.starts_with(' ') || line.is_empty() {
                    continue; // licence header
                }
                let fields: Vec<&str> = line.split_whitespace().collect();
                // lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
                let Some(count) = fields.get(2).and_then(|c| c.parse::<usize>().ok()) else {
                    continue;
                };
                if fields.len() > count + 1
                    && fields[fields.len() - count - 1]
                        .parse::<usize>()
                        .is_ok_and(|n| n > 0)
                {
                    tagged.insert(fields[0].to_string());
                }
                let offsets = fields[fields.len().saturating_sub(count)..]
                    .iter()
                    .filter_map(|o| o.parse::<u32>().ok())
                    .map(|o| (pos, o));
                index
                    .entry(fields[0].to_string())
                    .or_insert_with(Vec::new)
                    .extend(offsets);
            }
            data.insert(pos, read(format!("data.{}", pos.file()))?);
        }
        Ok(WordNet {
            dir: dir.to_path_buf(),
            index,
            tagged,
            data,
        })
    }

    /// Synsets of a lemma (lower case, `_` for spaces), most frequent first
    /// within each part of speech.
    pub(crate) fn lookup(&self, lemma: &str) -> &[(Pos, u32)] {
        self.index.get(lemma).map_or(&[], Vec::as_slice)
    }

    /// The synset at `offset` of the `pos` data file.
    pub(crate) fn synset(&self, pos: Pos, offset: u32) -> Option<Synset> {
        let data = self.data.get(&pos)?;
        let rest = data.get(offset as usize..)?;
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let line = std::str::from_utf8(&rest[..end]).ok()?;
        let (head, gloss) = line.split_once(" | ").unwrap_or((line, ""));
        let f: Vec<&str> = head.split_whitespace().collect();
        if f.first()?.parse::<u32>().ok()? != offset {
            return None;
        }
        let lexfile = f.get(1)?.parse::<usize>().ok()?;
        let w_cnt = usize::from_str_radix(f.get(3)?, 16).ok()?;
        let words = (0..w_cnt)
            .filter_map(|i| f.get(4 + 2 * i))
            .map(|w| w.split('(').next().unwrap_or(w).to_string())
            .collect();
        let p_at = 4 + 2 * w_cnt;
        let p_cnt = f.get(p_at)?.parse::<usize>().ok()?;
        let mut hypernyms = Vec::new();
        for i in 0..p_cnt {
            let at = p_at + 1 + 4 * i;
            let (Some(sym), Some(off), Some(p)) = (f.get(at), f.get(at + 1), f.get(at + 2)) else {
                break;
            };
            if (*sym == "@" || *sym == "@i") && Pos::from_letter(p) == Some(pos) {
                if let Ok(o) = off.parse() {
                    hypernyms.push(o);
                }
            }
        }
        Some(Synset {
            pos,
            offset,
            lexfile,
            words,
            hypernyms,
            gloss: gloss.trim().to_string(),
        })
    }

    /// Every synset of a lemma.
    pub(crate) fn synsets(&self, lemma: &str) -> Vec<Synset> {
        self.lookup(lemma)
            .iter()
            .filter_map(|&(pos, off)| self.synset(pos, off))
            .collect()
    }

    /// Whether `word` is a common English word: WordNet's sense-tagged
    /// corpus has it, and some synset writes it in lower case (a name such
    /// as `Plano` does not count, nor a rare word such as `ira`, wrath).
    pub(crate) fn is_common_word(&self, word: &str) -> bool {
        let lemma = word.replace(' ', "_");
        self.tagged.contains(&lemma)
            && self
                .synsets(&lemma)
                .iter()
                .any(|s| s.words.contains(&lemma))
    }

    /// The synset and its hypernyms up to the root, breadth first.
    pub(crate) fn ancestors(&self, synset: &Synset) -> Vec<Synset> {
        let mut out = vec![synset.clone()];
        let mut i = 0;
        while i < out.len() && out.len() < 64 {
            let next: Vec<Synset> = out[i]
                .hypernyms
                .iter()
                .filter(|o| !out.iter().any(|s| s.offset == **o))
                .filter_map(|&o| self.synset(synset.pos, o))
                .collect();
            out.extend(next);
            i += 1;
        }
        out
    }
}
