//! Tables of a [`SweepResult`].

use super::{n_of, pretty_json, Align, Format, Report, Table};
use crate::sweep::{format_value, ParamKind, SweepResult, Tunable};

/// Value, recall, precision, wrong sense, complete: one row per value, the
/// default marked.
pub(crate) fn table(result: &SweepResult) -> Table {
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
    let suggested = result
        .suggested()
        .filter(|_| !result.flat())
        .map(|s| s.value);
    for r in &result.rows {
        let c = &r.counts;
        let mut value = format_value(r.value);
        if (r.value - result.default).abs() < 1e-9 {
            value.push_str(" (default)");
        }
        if suggested.is_some_and(|s| (r.value - s).abs() < 1e-9) {
            value.push_str(" (suggested)");
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
pub(crate) fn flat_table(result: &SweepResult) -> Table {
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

impl Report for SweepResult {
    fn json(&self) -> serde_json::Result<String> {
        pretty_json(self)
    }

    fn tables(&self, format: Format) -> Vec<Table> {
        match format {
            Format::Csv => vec![flat_table(self)],
            _ => vec![table(self)],
        }
    }
}

/// One tunable parameter as `sweep --list-params` shows it.
#[derive(serde::Serialize)]
struct ParamRow {
    name: &'static str,
    summary: &'static str,
    default: f64,
    min: f64,
    max: f64,
    whole_numbers: bool,
    /// The values scanned when no range is given: from, to, step.
    default_range: [f64; 3],
}

impl From<&Tunable> for ParamRow {
    fn from(t: &Tunable) -> ParamRow {
        ParamRow {
            name: t.name,
            summary: t.summary,
            default: t.default_value(),
            min: t.min,
            max: t.max,
            whole_numbers: t.kind == ParamKind::Integer,
            default_range: [t.range.0, t.range.1, t.range.2],
        }
    }
}

/// Every parameter `--param` accepts (`sweep --list-params`).
pub struct ParamsReport;

impl Report for ParamsReport {
    fn json(&self) -> serde_json::Result<String> {
        pretty_json(&param_rows())
    }

    fn tables(&self, _: Format) -> Vec<Table> {
        let mut t = Table::new(
            Some("Parameters (--param)"),
            &[
                ("Parameter", Align::Left),
                ("What it does", Align::Left),
                ("Default", Align::Right),
                ("Accepts", Align::Left),
                ("Swept by default", Align::Left),
            ],
        );
        for r in &param_rows() {
            t.push(param_cells(r));
        }
        vec![t]
    }
}

fn param_rows() -> Vec<ParamRow> {
    crate::retrieve::params::numeric()
        .map(ParamRow::from)
        .collect()
}

fn param_cells(r: &ParamRow) -> Vec<String> {
    let [from, to, step] = r.default_range.map(format_value);
    let whole = if r.whole_numbers {
        ", whole numbers"
    } else {
        ""
    };
    vec![
        r.name.to_string(),
        r.summary.to_string(),
        format_value(r.default),
        format!("{} to {}{whole}", format_value(r.min), format_value(r.max)),
        format!("{from} to {to} by {step}"),
    ]
}
