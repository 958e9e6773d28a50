//! Tables of a [`Diff`] (`glossa diff`) and of `eval --compare`.

use super::{pretty_json, Align, Format, Report, Table};
use crate::diff::{Comparison, Diff, FigureChange, Value};
use crate::stats::{format_p, TestSettings};

fn value_cell(v: &Value) -> String {
    match v.of {
        Some(of) => super::n_of(v.n, of),
        None => v.n.to_string(),
    }
}

/// "+4 (+16.7 pts)" for a ratio, "+2" for a count, "0" for no change.
pub(crate) fn change_cell(f: &FigureChange) -> String {
    let Some(change) = f.change else {
        return "–".to_string();
    };
    match (f.a.of, f.b.of) {
        (Some(a_of), Some(b_of)) => {
            let counts = f.b.n as i64 - f.a.n as i64;
            let pts = 100.0 * change;
            if counts == 0 && pts.abs() < 0.05 {
                "0".to_string()
            } else if a_of == b_of {
                format!("{counts:+} ({pts:+.1} pts)")
            } else {
                // Different denominators: the count change would mislead.
                format!("{pts:+.1} pts")
            }
        }
        _ if change == 0.0 => "0".to_string(),
        _ => format!("{:+}", change as i64),
    }
}

fn p_cell(f: &FigureChange) -> String {
    f.test.map_or(String::new(), |t| format_p(t.p))
}

fn test_note(test: &TestSettings) -> String {
    format!("p: {}", test.describe())
}

/// The tables of a diff: figures, then the posts whose status changed.
pub(crate) fn tables(diff: &Diff) -> Vec<Table> {
    let title = format!("A = {}, B = {}; {}", diff.a, diff.b, test_note(&diff.test));
    let mut figures = Table::new(
        Some(&title),
        &[
            ("Retriever", Align::Left),
            ("Posts", Align::Right),
            ("Figure", Align::Left),
            ("A", Align::Right),
            ("B", Align::Right),
            ("Change", Align::Right),
            ("p", Align::Right),
        ],
    );
    let name = |a: &str, b: &str| {
        if a == b {
            a.to_string()
        } else {
            format!("{a} → {b}")
        }
    };
    for r in &diff.retrievers {
        for f in &r.figures {
            figures.push(vec![
                name(&r.a, &r.b),
                r.posts.to_string(),
                f.figure.replace('_', " "),
                value_cell(&f.a),
                value_cell(&f.b),
                change_cell(f),
                p_cell(f),
            ]);
        }
    }
    let total: usize = diff.retrievers.iter().map(|r| r.changed.len()).sum();
    let mut changed = Table::new(
        Some(&format!("Posts whose status changed: {total}")),
        &[
            ("Retriever", Align::Left),
            ("Post", Align::Left),
            ("Split", Align::Left),
            ("A", Align::Left),
            ("B", Align::Left),
            ("Change", Align::Left),
        ],
    );
    for r in &diff.retrievers {
        for c in &r.changed {
            changed.push(vec![
                name(&r.a, &r.b),
                c.post.clone(),
                c.split.map_or(String::new(), |s| s.to_string()),
                c.a.clone(),
                c.b.clone(),
                c.change.clone(),
            ]);
        }
    }
    vec![figures, changed]
}

impl Report for Diff {
    fn json(&self) -> serde_json::Result<String> {
        pretty_json(self)
    }

    fn tables(&self, _: Format) -> Vec<Table> {
        tables(self)
    }
}

/// The table of `eval --compare`: every pair of retrievers.
pub(crate) fn comparison_table(comparisons: &[Comparison], test: &TestSettings) -> Table {
    let mut t = Table::new(
        Some(&format!(
            "Paired comparisons, B against A ({})",
            test_note(test)
        )),
        &[
            ("A", Align::Left),
            ("B", Align::Left),
            ("Complete A", Align::Right),
            ("Complete B", Align::Right),
            ("Change", Align::Right),
            ("p", Align::Right),
            ("Recall A", Align::Right),
            ("Recall B", Align::Right),
            ("Change", Align::Right),
            ("p", Align::Right),
        ],
    );
    for c in comparisons {
        t.push(vec![
            c.a.clone(),
            c.b.clone(),
            value_cell(&c.complete.a),
            value_cell(&c.complete.b),
            change_cell(&c.complete),
            p_cell(&c.complete),
            value_cell(&c.recall.a),
            value_cell(&c.recall.b),
            change_cell(&c.recall),
            p_cell(&c.recall),
        ]);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_cells() {
        let f = |a: Value, b: Value, change: Option<f64>| FigureChange {
            figure: "x",
            a,
            b,
            change,
            test: None,
        };
        let r = |n, of| Value { n, of: Some(of) };
        let c = |n| Value { n, of: None };
        assert_eq!(
            change_cell(&f(r(10, 24), r(14, 24), Some(4.0 / 24.0))),
            "+4 (+16.7 pts)"
        );
        assert_eq!(change_cell(&f(r(3, 3), r(3, 3), Some(0.0))), "0");
        assert_eq!(
            change_cell(&f(r(31, 36), r(32, 40), Some(0.8 - 31.0 / 36.0))),
            "-6.1 pts"
        );
        assert_eq!(change_cell(&f(c(3), c(1), Some(-2.0))), "-2");
        assert_eq!(change_cell(&f(r(0, 0), r(1, 2), None)), "–");
    }
}
