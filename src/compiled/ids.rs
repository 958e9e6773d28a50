//! The `ids` section of a compiled glossary: a [`super::Table`] from each
//! entry's id to its index, so that a command can load the entries its
//! labels name (`glossa eval`, `glossa run`) without parsing the glossary
//! (docs/formats.md, "Compiled glossaries").

use super::{Compiled, CompiledError};
use crate::glossary::Glossary;
use rayon::prelude::*;

/// The section's bytes: every entry id → its index. Ids are distinct in a
/// validated glossary.
pub(super) fn section(glossary: &Glossary) -> Vec<u8> {
    let mut pairs: Vec<(u64, &[u8], u64)> = glossary
        .entries
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            (
                super::table::hash(e.id.as_bytes()),
                e.id.as_bytes(),
                i as u64,
            )
        })
        .collect();
    pairs.par_sort_unstable();
    // A repeated id, which validation refuses, would keep its first index.
    pairs.dedup_by(|b, a| a.1 == b.1);
    let pairs: Vec<(&[u8], u64)> = pairs.into_iter().map(|(_, id, i)| (id, i)).collect();
    super::table::bytes(&pairs, true)
}

impl Compiled {
    /// The index of the entry with id `id`, if the glossary has one.
    pub(crate) fn index_of(&self, id: &str) -> Result<Option<u32>, CompiledError> {
        match self.ids.get(id) {
            None => Ok(None),
            Some(i) if (i as usize) < self.len() => Ok(Some(i as u32)),
            Some(_) => Err(CompiledError::refused(
                &self.path,
                "an entry id points outside the entries",
            )),
        }
    }

    /// The indexes (sorted, distinct) of the entries with these ids; ids
    /// the glossary does not hold are left out, for the caller to report
    /// where it read them.
    pub(crate) fn by_ids<'i>(
        &self,
        ids: impl IntoIterator<Item = &'i str>,
    ) -> Result<Vec<u32>, CompiledError> {
        let mut out = Vec::new();
        for id in ids {
            if let Some(i) = self.index_of(id)? {
                out.push(i);
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{build, Compiled};
    use crate::retrieve::Params;
    use std::sync::Arc;

    #[test]
    fn ids_give_their_entries_and_load_adds_them_to_the_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("g.json");
        std::fs::write(
            &g,
            r#"{"entries":[{"source":"tea","target":"y"},{"id":"k","source":"cake","target":"z"},{"source":"bread","target":"w"}]}"#,
        )
        .unwrap();
        let out = dir.path().join("g.glossa-index");
        build(&g, &out).unwrap();
        let c = Arc::new(Compiled::open(&out, "g.json").unwrap());
        assert_eq!(c.index_of("k").unwrap(), Some(1));
        assert_eq!(c.index_of("cake").unwrap(), None);
        assert_eq!(c.by_ids(["bread", "nope", "k", "bread"]).unwrap(), [1, 2]);
        // The post matches `tea`; the labels name `bread`: both loaded, in
        // the glossary's order, `cake` not.
        let loaded = c
            .load(
                &["glossa"],
                &Params::default(),
                ["hot tea"],
                ["bread"],
                true,
            )
            .unwrap();
        assert!(loaded.whole.is_none());
        let ids: Vec<&str> = loaded
            .glossary
            .entries
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(ids, ["tea", "bread"]);
        assert_eq!(loaded.glossary.index_of("bread"), Some(1));
        // `oracle` reads only labelled entries; `fuzzy` the whole glossary.
        let oracle = c
            .load(&["oracle"], &Params::default(), ["x"], ["k"], true)
            .unwrap();
        assert!(oracle.whole.is_none());
        let fuzzy = c
            .load(&["exact", "fuzzy"], &Params::default(), ["x"], [], true)
            .unwrap();
        assert!(fuzzy
            .whole
            .unwrap()
            .contains("`fuzzy` reads the whole glossary"));
        assert_eq!(fuzzy.glossary.len(), 3);
    }
}
