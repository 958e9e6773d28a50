//! `glossa check`: per-segment results and the summary. The segments
//! stream out as they are checked (JSON and CSV), so a file of millions of
//! segments is never held; the table formats show the failed segments (up
//! to [`SHOWN_FAILURES`]) and the summary.

use super::{Align, Format, Prose, Report, Table};
use crate::qa::{CheckSummary, SegmentResult};

/// Failed segments listed in the table formats; the rest are counted.
pub const SHOWN_FAILURES: usize = 200;

/// The per-segment columns of CSV and of the failures table.
const SEGMENT_COLUMNS: [(&str, Align); 8] = [
    ("id", Align::Left),
    ("line", Align::Right),
    ("ok", Align::Left),
    ("missing", Align::Left),
    ("forbidden", Align::Left),
    ("invariants", Align::Left),
    ("leaked", Align::Left),
    ("nested_covered", Align::Left),
];

fn segment_cells(r: &SegmentResult) -> Vec<String> {
    vec![
        r.id.clone(),
        r.line.to_string(),
        r.ok.to_string(),
        r.missing.join(" "),
        r.forbidden
            .iter()
            .map(|f| format!("{}@{}", f.term, f.at.start))
            .collect::<Vec<_>>()
            .join(" "),
        r.invariants
            .iter()
            .map(|i| i.describe())
            .collect::<Vec<_>>()
            .join("; "),
        r.leaked.join(" "),
        r.nested_covered.join(" "),
    ]
}

/// The JSON document, written a piece at a time: `{"segments": [`, each
/// segment, then `], "summary": {...}}`.
pub fn json_open() -> &'static str {
    "{\"segments\": [\n"
}

pub fn json_segment(first: bool, r: &SegmentResult) -> serde_json::Result<String> {
    let sep = if first { "  " } else { ",\n  " };
    Ok(format!("{sep}{}", serde_json::to_string(r)?))
}

pub fn json_close(any: bool, summary: &CheckSummary) -> serde_json::Result<String> {
    let newline = if any { "\n" } else { "" };
    let summary = serde_json::to_string_pretty(summary)?;
    Ok(format!("{newline}],\n\"summary\": {summary}\n}}\n"))
}

/// The CSV header row, then one row per segment.
pub fn csv_header() -> String {
    csv_row(SEGMENT_COLUMNS.iter().map(|(h, _)| h.to_string()).collect())
}

pub fn csv_segment(r: &SegmentResult) -> String {
    csv_row(segment_cells(r))
}

fn csv_row(cells: Vec<String>) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    // Writing to memory cannot fail.
    w.write_record(&cells).expect("a CSV row in memory");
    String::from_utf8(w.into_inner().expect("a CSV row in memory")).expect("cells are UTF-8")
}

/// What the table formats show at the end.
pub struct CheckReport {
    pub failures: Vec<SegmentResult>,
    pub summary: CheckSummary,
    /// The input file, for the summary's title.
    pub input: String,
}

fn percent(r: Option<f64>) -> String {
    r.map_or("–".to_string(), |r| format!("{:.1}%", r * 100.0))
}

impl Report for CheckReport {
    fn json(&self) -> serde_json::Result<String> {
        super::pretty_json(&self.summary)
    }

    fn tables(&self, _: Format) -> Vec<Table> {
        let mut failures = Table::new(Some("Failed segments"), &SEGMENT_COLUMNS)
            .when_empty("Every segment passed the check.");
        for r in &self.failures {
            failures.push(segment_cells(r));
        }
        let s = &self.summary;
        let mut summary = Table::new(
            Some(&format!("Summary of {}", self.input)),
            &[("Figure", Align::Left), ("Value", Align::Right)],
        );
        let t = &s.terms;
        for (name, value) in [
            ("Segments", s.segments.to_string()),
            ("Segments ok", format!("{} of {}", s.ok, s.segments)),
            ("Checked against a label", s.labelled.to_string()),
            ("With a needed term missing", s.with_missing.to_string()),
            ("With a wrong sense used", s.with_leaked.to_string()),
            ("With a forbidden term", s.with_forbidden.to_string()),
            (
                "With an invariant missing or changed",
                s.with_invariants.to_string(),
            ),
            (
                "Exact-match term accuracy",
                format!(
                    "{} ({} of {})",
                    percent(t.term_accuracy),
                    t.terms_found,
                    t.terms_needed
                ),
            ),
            (
                "Term consistency",
                format!(
                    "{} (over {} repeated terms)",
                    percent(t.consistency),
                    t.repeated_terms
                ),
            ),
        ] {
            summary.push(vec![name.to_string(), value]);
        }
        vec![failures, summary]
    }

    fn prose(&self) -> Prose {
        let hidden = self.summary.failed.saturating_sub(self.failures.len());
        let notes = if hidden > 0 {
            format!(
                "{hidden} more failed segments not listed; --format json or csv lists every segment\n"
            )
        } else {
            String::new()
        };
        Prose {
            notes,
            ..Prose::default()
        }
    }
}
