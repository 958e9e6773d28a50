//! Parameter sweeps: score one retriever at a range of values of one of its
//! numeric parameters (the engine behind `glossa sweep`).
//!
//! Any parameter of the tunables table ([`TUNABLE`], declared with
//! [`Params`] in `retrieve::params`) can be swept by name
//! (`Params::set("threshold", 0.8)`).

use crate::dataset::LabelledPost;
use crate::eval::{evaluate, PerPost, Sources};
use crate::glossary::Glossary;
pub use crate::retrieve::params::{format_value, tunable, BadParam, ParamKind, Tunable, TUNABLE};
use crate::retrieve::Params;
use crate::score::Counts;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// `--help` text listing the parameters that can be swept.
pub fn params_help() -> String {
    let mut out = String::from("Parameters (--param):\n");
    for t in crate::retrieve::params::numeric() {
        out.push_str(&format!(
            "  {:<14} {} (default {}{})\n",
            t.name,
            t.summary,
            format_value(t.default_value()),
            if t.kind == ParamKind::Integer {
                ", whole numbers"
            } else {
                ""
            }
        ));
    }
    out
}

/// `from`, `from + step`, ... up to `to` inclusive (with a little slack
/// for rounding), each rounded to 9 decimals so that `0.5 + 3 * 0.05` is
/// exactly the `0.65` a user would type.
pub fn steps(from: f64, to: f64, step: f64) -> Result<Vec<f64>, BadParam> {
    if !(from.is_finite() && to.is_finite() && step.is_finite()) {
        return Err(BadParam("--from, --to and --step must be numbers".into()));
    }
    if step <= 0.0 {
        return Err(BadParam(format!(
            "--step must be positive, not {}",
            format_value(step)
        )));
    }
    if to < from {
        return Err(BadParam(format!(
            "--to {} is below --from {}",
            format_value(to),
            format_value(from)
        )));
    }
    let n = ((to - from) / step + 1e-9).floor() as usize + 1;
    if n > 10_000 {
        return Err(BadParam(format!(
            "{n} values is too many for one sweep; take a larger --step"
        )));
    }
    Ok((0..n)
        .map(|i| ((from + i as f64 * step) * 1e9).round() / 1e9)
        .collect())
}

/// One value of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepRow {
    pub value: f64,
    #[serde(flatten)]
    pub counts: Counts,
    pub(crate) recall: Option<f64>,
    pub(crate) precision: Option<f64>,
    /// complete / posts.
    pub(crate) complete_rate: Option<f64>,
}

impl SweepRow {
    /// The row of `counts` at `value`, its ratios computed.
    pub(crate) fn new(value: f64, counts: Counts) -> SweepRow {
        SweepRow {
            value,
            counts,
            recall: counts.recall(),
            precision: counts.precision(),
            complete_rate: counts.complete_rate(),
        }
    }
}

/// The result of a sweep (saved as `runs/<timestamp>_<suite>_sweep.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepResult {
    pub(crate) glossary: String,
    pub(crate) posts_file: String,
    pub(crate) labels_file: String,
    pub split: String,
    pub retriever: String,
    pub param: String,
    pub(crate) kind: ParamKind,
    /// The parameter's default value, marked on the chart.
    pub(crate) default: f64,
    /// The other parameters, as given.
    pub(crate) params: Params,
    pub(crate) glossa_version: String,
    pub rows: Vec<SweepRow>,
    /// The chart, when one was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<String>,
}

impl SweepResult {
    /// Whether no figure changed over the whole range (the retriever
    /// probably does not read the parameter).
    pub fn flat(&self) -> bool {
        self.rows.windows(2).all(|w| w[0].counts == w[1].counts)
    }

    /// The value to try: among the values within one point (of posts) of
    /// the most complete posts, the one with the fewest extra entries
    /// (then fewest wrong senses, then most complete, then the first).
    /// Completeness alone picks loose thresholds whose extras flood the
    /// prompt: on a real set 0.6 completes 1.7 points more posts than 0.9
    /// with six times the extras.
    pub fn suggested(&self) -> Option<&SweepRow> {
        let best_rate = self
            .rows
            .iter()
            .filter_map(|r| r.complete_rate)
            .fold(None, |best: Option<f64>, r| {
                Some(best.map_or(r, |b| b.max(r)))
            })?;
        self.rows
            .iter()
            .filter(|r| {
                r.complete_rate
                    .is_some_and(|c| c >= best_rate - 0.01 - 1e-12)
            })
            .min_by(|a, b| {
                (
                    a.counts.extra,
                    a.counts.wrong_sense,
                    std::cmp::Reverse(a.counts.complete),
                )
                    .cmp(&(
                        b.counts.extra,
                        b.counts.wrong_sense,
                        std::cmp::Reverse(b.counts.complete),
                    ))
            })
    }
}

/// Score `spec` on `posts` at each of `values` of parameter `param`, the
/// other parameters as in `base`.
pub fn sweep(
    glossary: &Arc<Glossary>,
    posts: &[LabelledPost],
    spec: &str,
    param: &Tunable,
    values: &[f64],
    base: &Params,
    sources: &Sources,
) -> Result<SweepResult, SweepError> {
    let mut rows = Vec::with_capacity(values.len());
    for &value in values {
        param.check(value).map_err(SweepError::Param)?;
        let mut params = base.clone();
        (param.put)(&mut params, value);
        // Only the totals are kept: no per-post details.
        let spec = [spec.to_string()];
        let result = evaluate(glossary, posts, &spec, &params, sources, PerPost::Off)
            .map_err(|e| SweepError::Retriever(e.to_string()))?;
        let counts = *result.retrievers[0].counts();
        rows.push(SweepRow::new(value, counts));
    }
    Ok(SweepResult {
        glossary: glossary.name.clone(),
        posts_file: sources.posts_file.to_string(),
        labels_file: sources.labels_file.to_string(),
        split: sources.split.to_string(),
        retriever: spec.to_string(),
        param: param.name.to_string(),
        kind: param.kind,
        default: param.default_value(),
        params: base.clone(),
        glossa_version: env!("CARGO_PKG_VERSION").to_string(),
        rows,
        chart: None,
    })
}

/// Why a sweep could not run.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SweepError {
    #[error(transparent)]
    Param(#[from] BadParam),
    /// The retriever could not be built or failed on a post (the message
    /// names it).
    #[error("{0}")]
    Retriever(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hit_the_values_a_user_would_type() {
        let v = steps(0.5, 1.0, 0.05).unwrap();
        assert_eq!(v.len(), 11);
        assert_eq!(v[3], 0.65);
        assert_eq!(v[5], "0.75".parse::<f64>().unwrap());
        assert_eq!(*v.last().unwrap(), 1.0);
        assert_eq!(steps(2.0, 10.0, 4.0).unwrap(), [2.0, 6.0, 10.0]);
        assert!(steps(1.0, 0.5, 0.1).is_err());
        assert!(steps(0.0, 1.0, 0.0).is_err());
    }

    #[test]
    fn the_suggestion_weighs_extras_within_a_point_of_the_most_complete() {
        let row = |value: f64, complete: usize, extra: usize| {
            SweepRow::new(
                value,
                Counts {
                    posts: 1000,
                    complete,
                    needed: 1000,
                    found: 900,
                    retrieved: 900 + extra,
                    extra,
                    wrong_sense: 0,
                },
            )
        };
        let mut result = SweepResult {
            glossary: "g".into(),
            posts_file: "p.jsonl".into(),
            labels_file: "l.jsonl".into(),
            split: "dev".into(),
            retriever: "fuzzy".into(),
            param: "threshold".into(),
            kind: ParamKind::Real,
            default: 0.75,
            params: Params::default(),
            glossa_version: "0".into(),
            // The real set's shape: 0.6 completes the most, with 6x the extras.
            rows: vec![
                row(0.6, 617, 43_611),
                row(0.75, 612, 20_000),
                row(0.9, 600, 7_211),
            ],
            chart: None,
        };
        assert_eq!(result.suggested().map(|r| r.value), Some(0.75));
        result.rows[2] = row(0.9, 608, 7_211);
        assert_eq!(result.suggested().map(|r| r.value), Some(0.9));
    }
}
