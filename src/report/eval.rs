//! Tables of an [`EvalResult`].

use super::{n_of, pretty_json, Align, Format, Report, Table};
use crate::diff::Comparison;
use crate::eval::{EvalResult, RetrieverResult};
use crate::score::Counts;
use crate::stats::TestSettings;

const HEADERS: [(&str, Align); 5] = [
    ("Posts complete", Align::Right),
    ("Needed found (recall)", Align::Right),
    ("Extra", Align::Right),
    ("Precision", Align::Right),
    ("Wrong sense", Align::Right),
];

fn cells(c: &Counts) -> Vec<String> {
    vec![
        n_of(c.complete, c.posts),
        n_of(c.found, c.needed),
        c.extra.to_string(),
        n_of(c.found, c.retrieved),
        c.wrong_sense.to_string(),
    ]
}

/// The tables to show: the summary; per split when there are several (dev
/// is for tuning, test for reporting); per tag when asked.
pub(crate) fn tables(result: &EvalResult, by_tag: bool) -> Vec<Table> {
    let mut headers = vec![("Retriever", Align::Left)];
    headers.extend(HEADERS);
    let mut summary = Table::new(None, &headers);
    for r in &result.retrievers {
        let mut row = vec![r.name.clone()];
        row.extend(cells(r.counts()));
        summary.push(row);
    }
    let mut out = vec![summary];
    if result.retrievers.iter().any(|r| r.by_split.len() > 1) {
        out.push(breakdown(
            result,
            "By split (tune on dev, report test)",
            "Split",
            |r| {
                r.by_split
                    .iter()
                    .map(|(split, f)| (split.to_string(), &f.0))
                    .collect()
            },
        ));
    }
    if by_tag {
        out.push(breakdown(result, "By tag", "Tag", |r| {
            r.by_tag
                .iter()
                .map(|(tag, f)| (tag.clone(), &f.0))
                .collect()
        }));
    }
    out
}

/// A row per retriever and part (split, tag) with that part's counts.
fn breakdown(
    result: &EvalResult,
    title: &str,
    part: &str,
    parts: impl Fn(&RetrieverResult) -> Vec<(String, &Counts)>,
) -> Table {
    let mut headers = vec![("Retriever", Align::Left), (part, Align::Left)];
    headers.extend(HEADERS);
    let mut t = Table::new(Some(title), &headers);
    for r in &result.retrievers {
        for (name, counts) in parts(r) {
            let mut row = vec![r.name.clone(), name];
            row.extend(cells(counts));
            t.push(row);
        }
    }
    t
}

/// One flat, numeric table for spreadsheets: a row per retriever and scope
/// (`all`, `split:dev`, `tag:typo`, ...).
pub(crate) fn flat_table(result: &EvalResult) -> Table {
    let mut headers = vec![("retriever", Align::Left), ("scope", Align::Left)];
    headers.extend(super::COUNT_COLUMNS);
    let mut t = Table::new(None, &headers);
    for r in &result.retrievers {
        let scopes = std::iter::once(("all".to_string(), r.counts()))
            .chain(r.by_split.iter().map(|(s, f)| (format!("split:{s}"), &f.0)))
            .chain(r.by_tag.iter().map(|(tag, f)| (format!("tag:{tag}"), &f.0)));
        for (scope, c) in scopes {
            let mut row = vec![r.name.clone(), scope];
            row.extend(super::count_cells(c));
            t.push(row);
        }
    }
    t
}

/// `glossa eval`'s output: the result, with `--compare`'s paired tests.
pub struct EvalReport<'a> {
    pub result: &'a EvalResult,
    /// A table per tag (`--by-tag`).
    pub by_tag: bool,
    pub compared: Option<(&'a TestSettings, &'a [Comparison])>,
    /// The failing posts' table (`--show failing`); in JSON, `failing`.
    pub failing: bool,
}

impl EvalReport<'_> {
    /// The document saved in the runs folder: the result, with the
    /// comparisons and their test settings beside it when there are some.
    pub fn document(&self) -> serde_json::Result<serde_json::Value> {
        let mut v = serde_json::to_value(self.result)?;
        if let Some((test, comparisons)) = self.compared {
            v["test"] = serde_json::to_value(test)?;
            v["comparisons"] = serde_json::to_value(comparisons)?;
        }
        Ok(v)
    }
}

impl Report for EvalReport<'_> {
    fn json(&self) -> serde_json::Result<String> {
        if self.failing {
            let mut v = self.document()?;
            v["failing"] = serde_json::to_value(super::failing::eval_failing(self.result))?;
            return pretty_json(&v);
        }
        match self.compared {
            Some(_) => pretty_json(&self.document()?),
            None => pretty_json(self.result),
        }
    }

    fn tables(&self, format: Format) -> Vec<Table> {
        let mut out = match format {
            Format::Csv => vec![flat_table(self.result)],
            _ => tables(self.result, self.by_tag),
        };
        if let Some((test, comparisons)) = self.compared {
            out.push(super::diff::comparison_table(comparisons, test));
        }
        if self.failing {
            let kept = self
                .result
                .retrievers
                .iter()
                .any(|r| !r.per_post.is_empty());
            let failing = super::failing::eval_failing(self.result);
            out.push(super::failing::eval_table(&failing, kept));
        }
        out
    }
}
