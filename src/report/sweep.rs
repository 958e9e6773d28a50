//! Tables of a [`SweepResult`].

use super::{n_of, Align, Format, Table};
use crate::sweep::{format_value, SweepResult};

/// Value, recall, precision, wrong sense, complete: one row per value, the
/// default marked.
pub fn table(result: &SweepResult) -> Table {
    let title = format!(
        "{} on the {} split: {} from {} to {}",
        result.retriever,
        result.split,
        result.param,
        result
            .rows
            .first()
            .map_or(String::new(), |r| format_value(r.value)),
        result
            .rows
            .last()
            .map_or(String::new(), |r| format_value(r.value)),
    );
    let mut t = Table::new(
        Some(&title),
        &[
            (result.param.as_str(), Align::Right),
            ("Needed found (recall)", Align::Right),
            ("Precision", Align::Right),
            ("Wrong sense", Align::Right),
            ("Posts complete", Align::Right),
            ("Extra", Align::Right),
        ],
    );
    for r in &result.rows {
        let c = &r.counts;
        let mut value = format_value(r.value);
        if (r.value - result.default).abs() < 1e-9 {
            value.push_str(" (default)");
        }
        t.push(vec![
            value,
            n_of(c.found, c.needed),
            n_of(c.found, c.retrieved),
            c.wrong_sense.to_string(),
            n_of(c.complete, c.posts),
            c.extra.to_string(),
        ]);
    }
    t
}

/// One numeric row per value, for spreadsheets.
pub fn flat_table(result: &SweepResult) -> Table {
    let mut headers = vec![
        ("retriever", Align::Left),
        ("param", Align::Left),
        ("value", Align::Right),
    ];
    headers.extend(super::COUNT_COLUMNS);
    let mut t = Table::new(None, &headers);
    for r in &result.rows {
        let mut row = vec![
            result.retriever.clone(),
            result.param.clone(),
            format_value(r.value),
        ];
        row.extend(super::count_cells(&r.counts));
        t.push(row);
    }
    t
}

/// Render a sweep in any format.
pub fn render(result: &SweepResult, format: Format) -> String {
    let tables = match format {
        Format::Csv => vec![flat_table(result)],
        _ => vec![table(result)],
    };
    match super::exporter(format) {
        Some(e) => e.render(&tables),
        None => serde_json::to_string_pretty(result).expect("sweeps serialise") + "\n",
    }
}
