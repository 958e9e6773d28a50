//! `glossa phrases`: every phrase of a text and whether it is looked up.

use super::{Align, Format, Report, Table};
use crate::phrase::{self, Phrase, Skip};

pub struct PhrasesReport<'a> {
    pub phrases: &'a [Phrase],
}

impl Report for PhrasesReport<'_> {
    /// An array of every phrase key, in order, on one line.
    fn json(&self) -> serde_json::Result<String> {
        let keys: Vec<&str> = self.phrases.iter().map(|p| p.key.as_str()).collect();
        Ok(serde_json::to_string(&keys)? + "\n")
    }

    fn tables(&self, _: Format) -> Vec<Table> {
        let mut t = Table::new(
            None,
            &[
                ("Phrase", Align::Left),
                ("Words", Align::Right),
                ("Looked up", Align::Left),
            ],
        );
        for p in self.phrases {
            t.push(vec![
                p.key.clone(),
                p.len.to_string(),
                looked_up(p).to_string(),
            ]);
        }
        vec![t]
    }
}

/// "yes", or why the single word is never looked up.
fn looked_up(p: &Phrase) -> &'static str {
    match (p.lookup, phrase::skip_reason(&p.key)) {
        (true, _) | (false, None) => "yes",
        (false, Some(Skip::StopWord)) => "skipped: stop word",
        (false, Some(Skip::AllDigits)) => "skipped: all digits",
        (false, Some(Skip::Short)) => "skipped: under 3 characters",
    }
}
