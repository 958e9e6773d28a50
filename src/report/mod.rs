//! Output formats. A command turns its result into [`Table`]s; one exporter
//! per format renders them (the hyperfine `export/` pattern). JSON is each
//! command's own serde output, so it is not an exporter here.

mod csv;
mod markdown;
mod table;

pub mod chart;
pub mod diff;
pub mod eval;
pub mod run;
pub mod run_split;
pub mod sweep;

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
pub enum Align {
    Left,
    Right,
}

/// A titled grid of cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub title: Option<String>,
    pub headers: Vec<String>,
    pub align: Vec<Align>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(title: Option<&str>, headers: &[(&str, Align)]) -> Table {
        Table {
            title: title.map(str::to_string),
            headers: headers.iter().map(|(h, _)| h.to_string()).collect(),
            align: headers.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
    }
}

/// Renders tables in one format.
pub trait Exporter {
    fn render(&self, tables: &[Table]) -> String;
}

/// The exporter for a non-JSON format.
pub fn exporter(format: Format) -> Option<Box<dyn Exporter>> {
    match format {
        Format::Table => Some(Box::new(table::TextTable)),
        Format::Markdown => Some(Box::new(markdown::Markdown)),
        Format::Csv => Some(Box::new(csv::Csv)),
        Format::Json => None,
    }
}

/// The numeric columns of flat (spreadsheet) tables, after their labels.
pub const COUNT_COLUMNS: [(&str, Align); 9] = [
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
pub fn count_cells(c: &crate::score::Counts) -> Vec<String> {
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
pub fn n_of(n: usize, d: usize) -> String {
    if d == 0 {
        format!("{n} of {d}")
    } else {
        format!("{n} of {d} ({:.1}%)", 100.0 * n as f64 / d as f64)
    }
}
