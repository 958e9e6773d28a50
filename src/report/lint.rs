//! `glossa lint`'s findings and WordNet's alias suggestions.

use super::{Align, Format, Report, Table};
use crate::glossary::Glossary;
use crate::lint::{Finding, Severity, Suggestions};
use std::path::Path;

/// What `glossa lint` found in one glossary.
pub struct LintReport<'a> {
    pub glossary: &'a Glossary,
    pub findings: &'a [Finding],
    /// The words `target-english` took as English.
    pub english_words: &'a [String],
    pub suggestions: Option<&'a Suggestions>,
    /// The folder WordNet was looked for in, when it was not there.
    pub wordnet_missing_from: Option<&'a Path>,
}

impl LintReport<'_> {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    pub(crate) fn notes(&self) -> usize {
        self.count(Severity::Note)
    }

    fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// Counts and what the checks relied on, for a person (stderr).
    pub fn summary(&self) -> String {
        let g = self.glossary;
        let errors = match self.errors() {
            0 => String::new(),
            n => format!("{}, ", super::count(n, "error", "errors")),
        };
        let mut out = format!(
            "{}: {errors}{}, {} in {}\n",
            g.path,
            super::count(self.warnings(), "warning", "warnings"),
            super::count(self.notes(), "note", "notes"),
            super::count(g.len(), "entry", "entries")
        );
        out += &format!(
            "English words for target-english: {}\n",
            self.english_words.join(", ")
        );
        if let Some(dir) = self.wordnet_missing_from {
            out += &format!(
                "(WordNet data files not found in {}: install `wordnet-base` for a fuller target-english check and --suggest-aliases)\n",
                dir.display()
            );
        }
        if let Some(s) = self.suggestions {
            out += &format!(
                "WordNet {}: domain {}; {} of {} entries known, {} with suggestions, {} without a clear sense\n",
                s.wordnet,
                s.domain_reason,
                s.entries_in_wordnet,
                g.len(),
                s.suggestions.len(),
                s.unsure.len()
            );
        }
        out
    }
}

impl Report for LintReport<'_> {
    fn json(&self) -> serde_json::Result<String> {
        let out = serde_json::json!({
            "glossary": self.glossary.path,
            "entries": self.glossary.len(),
            "errors": self.errors(),
            "warnings": self.warnings(),
            "notes": self.notes(),
            "english_words": self.english_words,
            "findings": self.findings,
            "alias_suggestions": self.suggestions,
        });
        super::pretty_json(&out)
    }

    /// Findings, then suggestions; a table only when it has rows.
    fn tables(&self, _: Format) -> Vec<Table> {
        let findings = (!self.findings.is_empty()).then(|| findings_table(self.findings));
        findings
            .into_iter()
            .chain(self.suggestions.map(suggestions_table))
            .collect()
    }
}

fn findings_table(findings: &[Finding]) -> Table {
    let mut t = Table::new(
        Some("Findings"),
        &[
            ("Line", Align::Right),
            ("Entry", Align::Left),
            ("Severity", Align::Left),
            ("Check", Align::Left),
            ("Problem", Align::Left),
            ("Suggestion", Align::Left),
        ],
    );
    for f in findings {
        let severity = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        t.push(vec![
            f.line.to_string(),
            f.entry.clone(),
            severity.to_string(),
            f.check.to_string(),
            f.message.clone(),
            f.suggestion.clone(),
        ]);
    }
    t
}

fn suggestions_table(s: &Suggestions) -> Table {
    let mut t = Table::new(
        Some("Suggested aliases from WordNet (for a person to accept; nothing was changed)"),
        &[
            ("Line", Align::Right),
            ("Entry", Align::Left),
            ("Add to aliases", Align::Left),
            ("WordNet sense", Align::Left),
            ("Chosen because", Align::Left),
        ],
    );
    for a in &s.suggestions {
        t.push(vec![
            a.line.to_string(),
            a.entry.clone(),
            a.add.join(", "),
            format!("{} ({}, {})", a.gloss, a.lexfile, a.synset),
            a.why.clone(),
        ]);
    }
    t
}
