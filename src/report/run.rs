//! Tables of a batch run's [`Summary`].

use super::{Align, Table};
use crate::generate::pipeline::Group;
use crate::run_dir::summary::{RunFigures, Summary, Tokens};

/// "10 of 10, every run"; "19, 19, 16 of 18"; "–" for no posts.
pub(crate) fn runs_cell(runs: &[(usize, usize)]) -> String {
    let Some(&(_, first_total)) = runs.first() else {
        return "–".to_string();
    };
    if runs.iter().all(|&(_, total)| total == 0) {
        return "–".to_string();
    }
    if runs.iter().all(|&(_, total)| total == first_total) {
        if runs.len() > 1 && runs.iter().all(|&(right, _)| right == first_total) {
            return format!("{first_total} of {first_total}, every run");
        }
        let rights: Vec<String> = runs.iter().map(|(r, _)| r.to_string()).collect();
        return format!("{} of {first_total}", rights.join(", "));
    }
    runs.iter()
        .map(|(r, t)| format!("{r} of {t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn group_runs(runs: &[RunFigures], group: Group) -> Vec<(usize, usize)> {
    runs.iter()
        .map(|r| {
            r.by_group
                .get(&group)
                .map_or((0, 0), |g| (g.right, g.posts))
        })
        .collect()
}

/// The run table. "Right" never counts an echo; echoes have a column of
/// their own. When any post took a repair turn, first-pass and repaired
/// figures stand side by side.
pub(crate) fn table(summary: &Summary) -> Table {
    let repeats = summary
        .retrievers
        .iter()
        .map(|r| r.runs.len())
        .max()
        .unwrap_or(1);
    let repaired = summary
        .retrievers
        .iter()
        .flat_map(|r| &r.runs)
        .any(|f| f.repaired > 0);
    // Shown when an output lost an invariant (docs/formats.md, "Invariants").
    let invariants = summary
        .retrievers
        .iter()
        .flat_map(|r| &r.runs)
        .any(|f| f.invariants > 0);
    let runs = format!(
        "run{} {}",
        if repeats > 1 { "s" } else { "" },
        (1..=repeats)
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(" / ")
    );
    let right_header = if repaired {
        format!("Posts right after repair, {runs}")
    } else {
        format!("Posts right, {runs}")
    };
    let first_header = format!("Posts right first pass, {runs}");
    // Only for runs where some output held a forbidden term: the table of
    // every other run stays as it was.
    let forbidden = summary
        .retrievers
        .iter()
        .flat_map(|r| &r.runs)
        .any(|f| f.forbidden > 0);
    let mut columns = vec![("Retriever", Align::Left)];
    if repaired {
        columns.push((first_header.as_str(), Align::Right));
    }
    columns.extend([
        (right_header.as_str(), Align::Right),
        (
            if repaired {
                "Echoes, first pass → after repair"
            } else {
                "Echoes"
            },
            Align::Right,
        ),
    ]);
    if forbidden {
        columns.push(("Forbidden term used", Align::Right));
    }
    if invariants {
        columns.push(("Invariants failed", Align::Right));
    }
    columns.extend([
        ("Complete retrieval", Align::Right),
        ("A needed entry missed", Align::Right),
        ("Only a wrong-sense entry", Align::Right),
        ("Wrong sense used", Align::Right),
        ("Term accuracy", Align::Right),
        ("Term consistency", Align::Right),
        ("Failed calls", Align::Right),
    ]);
    let mut t = Table::new(None, &columns);
    for r in &summary.retrievers {
        let all: Vec<(usize, usize)> = r.runs.iter().map(|f| (f.right, f.posts)).collect();
        let mut row = vec![r.name.clone()];
        if repaired {
            let first: Vec<(usize, usize)> = r
                .runs
                .iter()
                .map(|f| (f.right_first_pass, f.posts))
                .collect();
            row.push(runs_cell(&first));
        }
        row.extend([runs_cell(&all), echo_cell(&r.runs, repaired)]);
        if forbidden {
            row.push(count_cell(&r.runs, |f| f.forbidden));
        }
        if invariants {
            let lost: Vec<(usize, usize)> =
                r.runs.iter().map(|f| (f.invariants, f.posts)).collect();
            row.push(runs_cell(&lost));
        }
        row.extend([
            runs_cell(&group_runs(&r.runs, Group::Complete)),
            runs_cell(&group_runs(&r.runs, Group::Missed)),
            runs_cell(&group_runs(&r.runs, Group::WrongSense)),
            format!("{} of {}", r.wrong_sense_used, r.wrong_sense_retrieved),
            share_cell(r.runs.iter().map(|f| f.terms.term_accuracy)),
            share_cell(r.runs.iter().map(|f| f.terms.consistency)),
            r.runs.iter().map(|f| f.failed).sum::<usize>().to_string(),
        ]);
        t.push(row);
    }
    t
}

/// A share per run ("94.1%, 93.0%"); "–" where there was nothing to count.
fn share_cell(shares: impl Iterator<Item = Option<f64>>) -> String {
    shares
        .map(|s| s.map_or("–".to_string(), |s| format!("{:.1}%", s * 100.0)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A count per run: "0", "3, 1".
fn count_cell(runs: &[RunFigures], count: fn(&RunFigures) -> usize) -> String {
    runs.iter()
        .map(|f| count(f).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Echoes per run ("0", "3, 1"); with repairs "5 → 1" per run.
fn echo_cell(runs: &[RunFigures], repaired: bool) -> String {
    runs.iter()
        .map(|f| match repaired {
            true => format!("{} → {}", f.echo_first_pass, f.echo),
            false => f.echo.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Tokens (and cost, with a price table) per served model, when any call
/// reported usage.
pub(crate) fn tokens_table(tokens: &Tokens) -> Table {
    let priced = tokens.cost.is_some();
    let mut columns = vec![
        ("Model", Align::Left),
        ("Calls with usage", Align::Right),
        ("Input tokens", Align::Right),
        ("Output tokens", Align::Right),
    ];
    if priced {
        columns.push(("Cost", Align::Right));
    }
    let mut t = Table::new(Some("Tokens"), &columns);
    let cost = |c: Option<f64>| c.map_or("no price".to_string(), |c| format!("{c:.4}"));
    for m in &tokens.by_model {
        let mut row = vec![
            m.model.clone(),
            m.calls.to_string(),
            m.input_tokens.to_string(),
            m.output_tokens.to_string(),
        ];
        if priced {
            row.push(cost(m.cost));
        }
        t.push(row);
    }
    if tokens.by_model.len() > 1 {
        let mut row = vec![
            "all".to_string(),
            tokens
                .by_model
                .iter()
                .map(|m| m.calls)
                .sum::<usize>()
                .to_string(),
            tokens.input_tokens.to_string(),
            tokens.output_tokens.to_string(),
        ];
        if priced {
            row.push(cost(tokens.cost));
        }
        t.push(row);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cells_read_like_the_issue() {
        assert_eq!(
            runs_cell(&[(10, 10), (10, 10), (10, 10)]),
            "10 of 10, every run"
        );
        assert_eq!(
            runs_cell(&[(17, 18), (17, 18), (16, 18)]),
            "17, 17, 16 of 18"
        );
        assert_eq!(runs_cell(&[(3, 4)]), "3 of 4");
        assert_eq!(runs_cell(&[(0, 0), (0, 0)]), "–");
        assert_eq!(runs_cell(&[(1, 2), (2, 3)]), "1 of 2, 2 of 3");
    }
}
