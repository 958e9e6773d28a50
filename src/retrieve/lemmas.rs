//! `lemmas`: word forms through a lemma table the user gives
//! (`--lemmas FILE`, docs/formats.md "Lemma tables"): a post's `mice`
//! finds the entry `mouse` when the table says `mice<TAB>mouse`. For
//! inflections no stemmer joins, in any language the glossary's sources
//! are written in.
//!
//! It is also the model of a retriever that needs a file: its parameter
//! is a line of [`TUNABLE`](super::TUNABLE) ([`LEMMAS`]), its build fails with a typed
//! [`BuildError`] (no `--lemmas`, a file that cannot be read, a bad line),
//! and its matches are of a kind of its own, [`LEMMA`].

use super::params::LEMMAS;
use super::{BuildError, Infallible, KindInfo, Match, MatchKind, Params, PostView, RetrieverInfo};
use crate::glossary::Glossary;
use crate::phrase;
use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

const NAME: &str = "lemmas";

pub(crate) const INFO: RetrieverInfo = RetrieverInfo {
    name: NAME,
    summary: "word forms through your lemma table (--lemmas FILE, `form<TAB>lemma` a line): `mice` finds `mouse`",
    build: |g, p: &Params| Ok(Box::new(Lemmas::new(g, p)?)),
    kinds: &[&LEMMA],
};

/// A match through the lemma table: the entry's words, another form of
/// them (score 1, as sure as a stem).
pub const LEMMA: KindInfo = KindInfo {
    name: "lemma",
    summary: "another form of the word, from your lemma table",
    approximate: false,
};

pub(crate) struct Lemmas {
    /// Each form's lemma, both as phrase keys.
    lemma: HashMap<String, String>,
    /// Entries by key and alias key.
    entries: HashMap<String, Vec<usize>>,
}

impl Lemmas {
    pub(crate) fn new(glossary: &Glossary, params: &Params) -> Result<Lemmas, BuildError> {
        let path = params
            .path(LEMMAS.name)
            .ok_or_else(|| BuildError::MissingParam {
                retriever: NAME,
                flag: LEMMAS.name.to_string(),
                what: "a table of word forms and their lemmas, `form<TAB>lemma` a line \
                       (e.g. --lemmas lemmas.tsv)",
            })?;
        let text = std::fs::read_to_string(path).map_err(|error| BuildError::MissingFile {
            retriever: NAME,
            flag: LEMMAS.name.to_string(),
            path: path.to_path_buf(),
            error,
        })?;
        let lemma = parse_table(path, &text)?;
        let mut entries: HashMap<String, Vec<usize>> = HashMap::default();
        for (i, e) in glossary.entries.iter().enumerate() {
            for key in std::iter::once(&e.key).chain(&e.alias_keys) {
                let found = entries.entry(key.clone()).or_default();
                if !found.contains(&i) {
                    found.push(i);
                }
            }
        }
        Ok(Lemmas { lemma, entries })
    }
}

/// The table's lines: `form<TAB>lemma`, blank lines and `#` comments
/// skipped; the form one word.
fn parse_table(path: &Path, text: &str) -> Result<HashMap<String, String>, BuildError> {
    let mut out = HashMap::default();
    for (n, line) in text.lines().enumerate() {
        let bad = |problem: String| BuildError::BadFile {
            retriever: NAME,
            path: path.to_path_buf(),
            line: n + 1,
            problem,
        };
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [form, lemma] = fields[..] else {
            return Err(bad(format!(
                "expected a form and its lemma separated by one tab (`mice<TAB>mouse`), found `{line}`"
            )));
        };
        let (form, lemma) = (phrase::key(form), phrase::key(lemma));
        if form.is_empty() || lemma.is_empty() {
            return Err(bad("an empty form or lemma".to_string()));
        }
        if form.contains(' ') {
            return Err(bad(format!("the form `{form}` is more than one word")));
        }
        out.insert(form, lemma);
    }
    Ok(out)
}

impl Infallible for Lemmas {
    fn matches(&self, post: &PostView) -> Vec<Match> {
        let lemmas: Vec<Option<&str>> = post
            .words
            .iter()
            .map(|w| self.lemma.get(w.text.as_str()).map(String::as_str))
            .collect();
        if lemmas.iter().all(Option::is_none) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for span in post.spans().iter().filter(|s| s.lookup) {
            let range = span.first_word..span.first_word + span.len;
            // Only phrases the table changes: the rest is `exact`'s.
            if lemmas[range.clone()].iter().all(Option::is_none) {
                continue;
            }
            let key = range
                .map(|i| lemmas[i].unwrap_or(&post.words[i].text))
                .collect::<Vec<_>>()
                .join(" ");
            for &entry in self.entries.get(&key).map_or(&[][..], Vec::as_slice) {
                out.push(Match::of_span(
                    entry,
                    MatchKind::Other(&LEMMA),
                    post,
                    span,
                    1.0,
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::glossary;
    use super::super::{best_per_entry, build, BuildError, MatchKind, Params, PostView};
    use super::*;

    fn params(path: &Path) -> Params {
        let mut p = Params::default();
        p.set_str("lemmas", &path.display().to_string()).unwrap();
        p
    }

    #[test]
    fn a_listed_form_finds_the_entry_of_its_lemma() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lemmas.tsv");
        std::fs::write(&path, "# form\tlemma\nmice\tmouse\n\nGeese\tgoose\n").unwrap();
        let g = glossary(&[("mouse", "mouse"), ("goose", "goose pie")]);
        let r = build("lemmas", &g, &params(&path)).unwrap();
        let view = PostView::new("Two mice and a geese pie, one mouse.", None);
        let got: Vec<_> = best_per_entry(r.retrieve(&view).unwrap())
            .into_iter()
            .map(|m| {
                (
                    g.entries[m.entry].id.clone(),
                    m.kind.name(),
                    m.phrase,
                    m.score,
                )
            })
            .collect();
        // `mouse` as written is exact's; the table's forms are lemmas.
        assert_eq!(
            got,
            [
                ("mouse".into(), "lemma", "mice".into(), 1.0),
                ("goose".into(), "lemma", "geese pie".into(), 1.0)
            ]
        );
        assert_eq!(MatchKind::named("lemma"), Some(MatchKind::Other(&LEMMA)));
    }

    #[test]
    fn building_without_the_table_or_with_a_bad_one_is_a_typed_error() {
        let g = glossary(&[("mouse", "mouse")]);
        let err = |p: &Params| build("normalised+lemmas", &g, p).err().unwrap();
        assert!(matches!(
            err(&Params::default()),
            BuildError::MissingParam {
                retriever: "lemmas",
                ..
            }
        ));
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere.tsv");
        let e = err(&params(&missing));
        assert!(
            matches!(&e, BuildError::MissingFile { path, .. } if *path == missing),
            "{e:?}"
        );
        assert!(e.to_string().contains("nowhere.tsv"), "{e}");
        let bad = dir.path().join("bad.tsv");
        std::fs::write(&bad, "mice\tmouse\nmen man\n").unwrap();
        match err(&params(&bad)) {
            BuildError::BadFile { line, path, .. } => assert_eq!((line, &path), (2, &bad)),
            e => panic!("{e:?}"),
        }
        std::fs::write(&bad, "two mice\tmouse\n").unwrap();
        assert!(err(&params(&bad))
            .to_string()
            .contains("more than one word"));
    }
}
