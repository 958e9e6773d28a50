//! `glossa run` with dev and test side by side: the run's summary per
//! split (tune on dev, report test), computed by streaming `calls.jsonl`.

use super::{pretty_json, Format, Report, Table};
use crate::dataset::Split;
use crate::run_dir::calls::CallsError;
use crate::run_dir::calls::{for_each_call, CALLS_FILE};
use crate::run_dir::summary::{Summariser, Summary};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The summary of the calls of each split's posts.
pub fn summarise(
    dir: &Path,
    order: &[String],
    split_of: &HashMap<String, Split>,
) -> Result<BTreeMap<Split, Summary>, CallsError> {
    let mut per: BTreeMap<Split, Summariser> = BTreeMap::new();
    for_each_call(&dir.join(CALLS_FILE), |r| {
        if let Some(split) = split_of.get(&r.post) {
            per.entry(*split).or_default().add(&r);
        }
    })?;
    Ok(per
        .into_iter()
        .map(|(split, s)| (split, s.finish(dir, order)))
        .collect())
}

/// A run's summary, with one per split beside it when there are several.
pub(crate) struct RunReport<'a> {
    pub(crate) summary: &'a Summary,
    pub(crate) by_split: &'a BTreeMap<Split, Summary>,
    /// The failing posts (`--show failing`): a table last; in JSON, `failing`.
    pub(crate) failing: Option<&'a [super::failing::FailingRunPost]>,
}

impl Report for RunReport<'_> {
    /// The summary, with `by_split` beside it when there are several splits.
    fn json(&self) -> serde_json::Result<String> {
        let mut v = serde_json::to_value(self.summary)?;
        if self.by_split.len() > 1 {
            v["by_split"] = serde_json::to_value(self.by_split)?;
        }
        if let Some(failing) = self.failing {
            v["failing"] = serde_json::to_value(failing)?;
        }
        pretty_json(&v)
    }

    /// The run table, then one per split when there are several, then tokens.
    fn tables(&self, _: Format) -> Vec<Table> {
        let mut out = vec![super::run::table(self.summary)];
        if self.by_split.len() > 1 {
            for (split, s) in self.by_split {
                let mut t = super::run::table(s);
                t.title = Some(format!("{split} posts only (tune on dev, report test)"));
                out.push(t);
            }
        }
        out.extend(self.summary.tokens.as_ref().map(super::run::tokens_table));
        out.extend(self.failing.map(super::failing::run_table));
        out
    }
}

/// The run's output in `format` (what `glossa run` and `merge` print).
pub fn render(summary: &Summary, by_split: &BTreeMap<Split, Summary>, format: Format) -> String {
    render_with(summary, by_split, None, format)
}

/// [`render`], with the failing posts' table when given (`--show failing`).
pub fn render_with(
    summary: &Summary,
    by_split: &BTreeMap<Split, Summary>,
    failing: Option<&[super::failing::FailingRunPost]>,
    format: Format,
) -> String {
    super::to_string(
        &RunReport {
            summary,
            by_split,
            failing,
        },
        format,
    )
}
