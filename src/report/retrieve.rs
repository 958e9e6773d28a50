//! `glossa retrieve`: the entries one post retrieves.

use super::{Align, Format, Report, Table};
use crate::retrieve::MatchKind;
use serde::Serialize;

/// One retrieved entry.
#[derive(Serialize)]
pub struct MatchRow<'a> {
    pub entry: &'a str,
    pub source: &'a str,
    pub target: &'a str,
    pub kind: MatchKind,
    pub phrase: &'a str,
    pub score: f64,
    /// Byte range of the matched phrase in the text.
    pub start: Option<usize>,
    pub end: Option<usize>,
}

pub struct RetrieveReport<'a> {
    /// The glossary's name.
    pub glossary: &'a str,
    pub retriever: &'a str,
    pub text: &'a str,
    pub matches: Vec<MatchRow<'a>>,
}

impl Report for RetrieveReport<'_> {
    fn json(&self) -> serde_json::Result<String> {
        let out = serde_json::json!({
            "glossary": self.glossary,
            "retriever": self.retriever,
            "text": self.text,
            "matches": self.matches,
        });
        super::pretty_json(&out)
    }

    fn tables(&self, _: Format) -> Vec<Table> {
        let mut t = Table::new(
            None,
            &[
                ("Entry", Align::Left),
                ("Target", Align::Left),
                ("Kind", Align::Left),
                ("Phrase", Align::Left),
                ("Score", Align::Right),
            ],
        );
        for r in &self.matches {
            t.push(vec![
                r.entry.to_string(),
                r.target.to_string(),
                r.kind.to_string(),
                r.phrase.to_string(),
                format!("{:.3}", r.score),
            ]);
        }
        vec![t]
    }
}
