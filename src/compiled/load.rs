//! What a command loads from a compiled glossary (docs/formats.md,
//! "Compiled glossaries"): the candidates of its posts and the entries its
//! labels name, or the whole glossary when a retriever reads all of it;
//! and a compiled file given by name (`--index FILE`), refused when it was
//! not built from the glossary as it is now.

use super::{stamp, Compiled, CompiledError};
use crate::dataset::{JsonlReader, LabelRecord, Post};
use crate::glossary::Glossary;
use crate::retrieve::Params;
use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

/// Glossary files from this size on are compiled under [`Use::Auto`]:
/// below it, parsing the JSON takes a few tens of milliseconds.
pub const AUTO_BYTES: u64 = 4 << 20;

/// Under [`Use::Auto`], at most one post per this many bytes of glossary:
/// finding a post's candidates costs about a millisecond at 100k entries,
/// building the indexes in memory 4 µs per entry, so a large batch is
/// faster in memory (bench/compiled.sh).
pub const AUTO_BYTES_PER_POST: u64 = 20_000;

/// When a command reads its glossary from the compiled file
/// (`--compiled`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Use {
    /// For a glossary file of [`AUTO_BYTES`] or more, at most one post
    /// per [`AUTO_BYTES_PER_POST`] of it.
    #[default]
    Auto,
    /// Whenever the glossary is a file.
    Always,
    /// Never: the whole JSON is parsed.
    Never,
}

/// Whether `mode` compiles the glossary at `path` for `posts()` posts
/// (counted only when it matters).
pub fn wanted(mode: Use, path: &Path, posts: impl FnOnce() -> usize) -> bool {
    match mode {
        Use::Never => false,
        // The built-in demo is no file to compile.
        Use::Always => path.is_file(),
        Use::Auto => std::fs::metadata(path).is_ok_and(|m| {
            m.is_file() && m.len() >= AUTO_BYTES && posts() as u64 <= m.len() / AUTO_BYTES_PER_POST
        }),
    }
}

/// Texts whose candidates are looked up at once: the lookups of a word
/// are made once per chunk, and memory stays bounded on a large file.
const CHUNK: usize = 4096;

/// A glossary loaded from a compiled file.
#[derive(Debug)]
pub struct Loaded {
    pub glossary: Glossary,
    /// Why every entry was loaded: "`SPEC` reads the whole glossary (…)".
    pub whole: Option<String>,
}

impl Compiled {
    /// The glossary that `specs` with `params` need on `texts`, whose
    /// labels name the entries `ids`: the texts' candidates and the
    /// entries of those ids (ids the glossary lacks are left out: reading
    /// the labels against the result reports them as the whole glossary
    /// would), or every entry when a spec reads the whole glossary.
    /// `labelled`: the posts carry labels, so `oracle` needs only `ids`.
    pub fn load<'i, S: AsRef<str>>(
        self: &Arc<Self>,
        specs: &[&str],
        params: &Params,
        texts: impl IntoIterator<Item = S>,
        ids: impl IntoIterator<Item = &'i str>,
        labelled: bool,
    ) -> Result<Loaded, CompiledError> {
        let check = |spec: &str| match labelled {
            true => super::supports_labelled(spec, params),
            false => super::supports(spec, params),
        };
        if let Some(why) = specs.iter().find_map(|s| {
            check(s)
                .err()
                .map(|e| format!("`{s}` reads the whole glossary ({e})"))
        }) {
            return Ok(Loaded {
                glossary: self.whole()?,
                whole: Some(why),
            });
        }
        let mut wanted = self.by_ids(ids)?;
        let mut texts = texts.into_iter().peekable();
        while texts.peek().is_some() {
            let chunk: Vec<S> = texts.by_ref().take(CHUNK).collect();
            wanted.extend(self.candidates(chunk.iter().map(AsRef::as_ref), params)?);
        }
        if wanted.is_empty() && !self.is_empty() {
            // No text: the first entry, as the candidates of any post hold it.
            wanted.push(0);
        }
        wanted.sort_unstable();
        wanted.dedup();
        Ok(Loaded {
            glossary: self.part(&wanted)?,
            whole: None,
        })
    }

    /// Open `index`, a compiled file given by name, for the glossary at
    /// `glossary`: refused unless it was built from the glossary's bytes
    /// as they are now (same size, and same time or same SHA-256).
    pub fn open_for(glossary: &Path, index: &Path) -> Result<Arc<Compiled>, CompiledError> {
        let shown = glossary.display().to_string();
        let compiled = Compiled::open(index, &shown)?;
        let meta = std::fs::metadata(glossary).map_err(super::io_error(glossary))?;
        let (size, mtime) = stamp(&meta);
        let h = &compiled.header;
        let same = h.size == size
            && (h.mtime_ns == mtime
                || crate::fsutil::sha256_file(glossary).ok().as_deref() == Some(h.sha256.as_str()));
        if same {
            return Ok(Arc::new(compiled));
        }
        let from = format!(
            "glossary `{}` of {} entries, SHA-256 {}…",
            h.name,
            h.entries,
            h.sha256.get(..12).unwrap_or_default()
        );
        Err(CompiledError::NotOf {
            index: index.to_path_buf(),
            glossary: shown,
            from,
        })
    }
}

/// The texts of a posts file (JSONL, docs/formats.md "Posts"), read one
/// line at a time up to the first line that does not read: whoever reads
/// the file for real reports that line.
pub fn post_texts<R: BufRead>(path: &str, reader: R) -> impl Iterator<Item = String> {
    JsonlReader::<R, Post>::new(path, reader).map_while(|r| r.ok().map(|(_, post)| post.text))
}

/// Every entry id a labels file names (`needed` and `wrong_sense`), up to
/// the first line that does not read.
pub fn label_ids<R: BufRead>(path: &str, reader: R) -> Vec<String> {
    JsonlReader::<R, LabelRecord>::new(path, reader)
        .map_while(Result::ok)
        .flat_map(|(_, label)| label.needed.into_iter().chain(label.wrong_sense))
        .collect()
}
