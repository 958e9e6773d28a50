//! Output formats: the one place that turns a command's result into text.
//! A result implements [`Report`] (its tables and its JSON document);
//! [`render`] picks what `--format` asks for. One exporter per table
//! format renders the tables (the hyperfine `export/` pattern).

mod csv;
mod markdown;
mod table;

pub mod chart;
pub mod check;
pub(crate) mod diff;
pub mod eval;
pub mod failing;
pub mod html;
pub mod lint;
pub mod phrases;
pub mod retrieve;
pub mod retrievers;
pub(crate) mod run;
pub mod run_split;
pub mod sweep;
pub mod translate;
pub mod translate_posts;

use std::io::{self, Write};

/// What `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Aligned table for the terminal.
    Table,
    /// GitHub-flavoured Markdown tables.
    Markdown,
    /// Machine-readable JSON on stdout.
    Json,
    /// Comma-separated values, one header row.
    Csv,
}

/// Column alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A titled grid of cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub(crate) title: Option<String>,
    pub(crate) headers: Vec<String>,
    pub(crate) align: Vec<Align>,
    pub(crate) rows: Vec<Vec<String>>,
    /// Shown instead of a table without rows (not in CSV).
    pub(crate) when_empty: Option<String>,
}

impl Table {
    pub(crate) fn new(title: Option<&str>, headers: &[(&str, Align)]) -> Table {
        Table {
            title: title.map(str::to_string),
            headers: headers.iter().map(|(h, _)| h.to_string()).collect(),
            align: headers.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
            when_empty: None,
        }
    }

    /// Say `note` instead of showing the table when it has no rows.
    pub(crate) fn when_empty(mut self, note: &str) -> Table {
        self.when_empty = Some(note.to_string());
        self
    }

    pub(crate) fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }
}

/// Renders one table, with its title, in one format.
trait Exporter {
    fn table(&self, table: &Table) -> String;
}

/// The exporter for a table format; None for JSON.
fn exporter(format: Format) -> Option<Box<dyn Exporter>> {
    match format {
        Format::Table => Some(Box::new(table::TextTable)),
        Format::Markdown => Some(Box::new(markdown::Markdown)),
        Format::Csv => Some(Box::new(csv::Csv)),
        Format::Json => None,
    }
}

/// A command's result as `--format` shows it.
pub trait Report {
    /// The `--format json` document, ending with a line break.
    fn json(&self) -> serde_json::Result<String>;
    /// The tables of the table formats (CSV may ask for flatter ones).
    fn tables(&self, format: Format) -> Vec<Table>;
    /// Prose for a person around the tables (none by default).
    fn prose(&self) -> Prose {
        Prose::default()
    }
}

/// Text before and after a report's tables.
#[derive(Debug, Default)]
pub struct Prose {
    pub(crate) before: String,
    pub(crate) after: String,
    /// Notes for the person at the terminal, not part of the result: on
    /// `err` in every table format, so `> file` keeps the result alone.
    pub(crate) notes: String,
}

/// Write `report` in `format` to `out`. CSV is read by programs, so its
/// prose goes to `err`; notes always do; JSON carries everything and has
/// no prose.
pub fn render(
    report: &dyn Report,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<()> {
    let Some(exporter) = exporter(format) else {
        return out.write_all(report.json()?.as_bytes());
    };
    let Prose {
        before,
        after,
        notes,
    } = report.prose();
    let body = render_tables(&*exporter, format, &report.tables(format));
    if format == Format::Csv {
        err.write_all(before.as_bytes())?;
        out.write_all(body.as_bytes())?;
        err.write_all(after.as_bytes())?;
    } else {
        out.write_all(format!("{before}{body}{after}").as_bytes())?;
    }
    // What went to `out` comes first on a terminal.
    out.flush()?;
    err.write_all(notes.as_bytes())
}

/// What [`render`] writes to standard output, as a string.
pub fn to_string(report: &dyn Report, format: Format) -> String {
    let mut out = Vec::new();
    // Only a value that cannot be JSON fails here: a bug, not bad input.
    render(report, format, &mut out, &mut io::sink()).expect("a report renders to memory");
    String::from_utf8(out).expect("reports are UTF-8")
}

/// Tables one after another, a blank line between them. An empty table
/// with a note shows the note instead, except in CSV, which keeps its
/// header row for programs.
fn render_tables(exporter: &dyn Exporter, format: Format, tables: &[Table]) -> String {
    tables
        .iter()
        .map(|t| match &t.when_empty {
            Some(note) if t.rows.is_empty() && format != Format::Csv => format!("{note}\n"),
            _ => exporter.table(t),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// "1 entry", "2 entries": a count with its noun in the right number.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `value` as pretty-printed JSON and a line break.
pub fn pretty_json(value: &impl serde::Serialize) -> serde_json::Result<String> {
    Ok(serde_json::to_string_pretty(value)? + "\n")
}

/// The numeric columns of flat (spreadsheet) tables, after their labels.
pub(crate) const COUNT_COLUMNS: [(&str, Align); 9] = [
    ("posts", Align::Right),
    ("complete", Align::Right),
    ("needed", Align::Right),
    ("found", Align::Right),
    ("retrieved", Align::Right),
    ("extra", Align::Right),
    ("wrong_sense", Align::Right),
    ("recall", Align::Right),
    ("precision", Align::Right),
];

/// The cells of [`COUNT_COLUMNS`] for `c`; an undefined ratio is empty.
pub(crate) fn count_cells(c: &crate::score::Counts) -> Vec<String> {
    let ratio = |r: Option<f64>| r.map(|r| format!("{r:.4}")).unwrap_or_default();
    vec![
        c.posts.to_string(),
        c.complete.to_string(),
        c.needed.to_string(),
        c.found.to_string(),
        c.retrieved.to_string(),
        c.extra.to_string(),
        c.wrong_sense.to_string(),
        ratio(c.recall()),
        ratio(c.precision()),
    ]
}

/// `n of d`, with the percentage when `d > 0`.
pub(crate) fn n_of(n: usize, d: usize) -> String {
    if d == 0 {
        format!("{n} of {d}")
    } else {
        format!("{n} of {d} ({:.1}%)", 100.0 * n as f64 / d as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report with one table, prose around it, and a note when empty.
    struct Fake {
        rows: usize,
    }

    impl Report for Fake {
        fn json(&self) -> serde_json::Result<String> {
            pretty_json(&self.rows)
        }

        fn tables(&self, _: Format) -> Vec<Table> {
            let mut t = Table::new(Some("T"), &[("A", Align::Left)]).when_empty("none");
            for i in 0..self.rows {
                t.push(vec![i.to_string()]);
            }
            vec![t]
        }

        fn prose(&self) -> Prose {
            Prose {
                before: "before\n".into(),
                after: "after\n".into(),
                notes: "notes\n".into(),
            }
        }
    }

    fn both(report: &dyn Report, format: Format) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        render(report, format, &mut out, &mut err).unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn csv_keeps_prose_off_stdout() {
        let (out, err) = both(&Fake { rows: 1 }, Format::Csv);
        assert_eq!(out, "A\n0\n");
        assert_eq!(err, "before\nafter\nnotes\n");
    }

    #[test]
    fn people_formats_show_prose_around_the_tables() {
        let (out, err) = both(&Fake { rows: 1 }, Format::Markdown);
        assert_eq!(out, "before\n**T**\n\n| A |\n|---|\n| 0 |\nafter\n");
        assert_eq!(err, "notes\n");
    }

    #[test]
    fn an_empty_table_says_its_note_except_in_csv() {
        assert_eq!(
            both(&Fake { rows: 0 }, Format::Table).0,
            "before\nnone\nafter\n"
        );
        assert_eq!(both(&Fake { rows: 0 }, Format::Csv).0, "A\n");
    }

    #[test]
    fn json_is_the_document_alone() {
        assert_eq!(
            both(&Fake { rows: 2 }, Format::Json),
            ("2\n".into(), "".into())
        );
    }

    #[test]
    fn tables_are_separated_by_a_blank_line() {
        let t = |title: &str| Table::new(Some(title), &[("A", Align::Left)]);
        let text = render_tables(&markdown::Markdown, Format::Markdown, &[t("x"), t("y")]);
        assert_eq!(text, "**x**\n\n| A |\n|---|\n\n**y**\n\n| A |\n|---|\n");
    }
}
