//! `glossa run` with dev and test side by side: the run's summary per
//! split (tune on dev, report test), computed by streaming `calls.jsonl`.

use super::{Format, Table};
use crate::dataset::Split;
use crate::generate::batch::{for_each_call, Summariser, Summary, CALLS_FILE};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// The summary of the calls of each split's posts.
pub fn summarise(
    dir: &Path,
    order: &[String],
    split_of: &HashMap<String, Split>,
) -> anyhow::Result<BTreeMap<Split, Summary>> {
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

/// The run table, then one per split when there are several.
pub fn tables(summary: &Summary, by_split: &BTreeMap<Split, Summary>) -> Vec<Table> {
    let mut out = vec![super::run::table(summary)];
    if by_split.len() > 1 {
        for (split, s) in by_split {
            let mut t = super::run::table(s);
            t.title = Some(format!("{split} posts only (tune on dev, report test)"));
            out.push(t);
        }
    }
    out.extend(summary.tokens.as_ref().map(super::run::tokens_table));
    out
}

/// Render in any format; JSON is the summary with `by_split` beside it
/// when there are several splits.
pub fn render(summary: &Summary, by_split: &BTreeMap<Split, Summary>, format: Format) -> String {
    match super::exporter(format) {
        Some(e) => e.render(&tables(summary, by_split)),
        None => {
            let mut v = serde_json::to_value(summary).expect("summary serialises");
            if by_split.len() > 1 {
                v["by_split"] = serde_json::to_value(by_split).expect("summaries serialise");
            }
            serde_json::to_string_pretty(&v).expect("JSON serialises") + "\n"
        }
    }
}
