//! Parameter sweeps: score one retriever at a range of values of one of its
//! numeric parameters (the engine behind `glossa sweep`).
//!
//! [`TUNABLE`] names every numeric field of [`Params`] with a setter, so
//! any of them can be swept by name (`Params::set("threshold", 0.8)`). A
//! unit test fails when `Params` gains a numeric field that is not listed.

use crate::dataset::LabelledPost;
use crate::eval::{evaluate, PerPost, Sources};
use crate::glossary::Glossary;
use crate::retrieve::{Params, UnknownRetriever};
use crate::score::Counts;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// Whether a parameter takes any number or only whole numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    Real,
    Integer,
}

/// A numeric retriever parameter that can be set by name.
pub struct Tunable {
    /// The `Params` field (the command-line flag with `-` for `_`).
    pub name: &'static str,
    /// What it does, for `glossa sweep --help`.
    pub summary: &'static str,
    pub kind: ParamKind,
    /// Smallest and largest accepted values.
    pub min: f64,
    pub max: f64,
    /// The range `glossa sweep` scans when none is given: from, to, step.
    pub range: (f64, f64, f64),
    pub get: fn(&Params) -> f64,
    pub put: fn(&mut Params, f64),
}

/// Every numeric parameter of every retriever.
pub const TUNABLE: &[Tunable] = &[
    Tunable {
        name: "threshold",
        summary: "fuzzy: minimum character-trigram Dice coefficient",
        kind: ParamKind::Real,
        min: 0.0,
        max: 1.0,
        range: (0.5, 1.0, 0.05),
        get: |p| p.threshold,
        put: |p, v| p.threshold = v,
    },
    Tunable {
        name: "edit_one_from",
        summary: "edit: key words of at least this many characters tolerate one edit",
        kind: ParamKind::Integer,
        min: 1.0,
        max: 65535.0,
        range: (1.0, 12.0, 1.0),
        get: |p| p.edit_one_from as f64,
        put: |p, v| p.edit_one_from = v as usize,
    },
    Tunable {
        name: "edit_two_from",
        summary: "edit: key words of at least this many characters tolerate two edits",
        kind: ParamKind::Integer,
        min: 1.0,
        max: 65535.0,
        range: (1.0, 12.0, 1.0),
        get: |p| p.edit_two_from as f64,
        put: |p, v| p.edit_two_from = v as usize,
    },
];

/// A parameter name that is not in [`TUNABLE`], or a value it does not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadParam(pub String);

impl fmt::Display for BadParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadParam {}

/// The parameter called `name` (`-` and `_` are the same).
pub fn tunable(name: &str) -> Result<&'static Tunable, BadParam> {
    let wanted = name.trim().replace('-', "_");
    TUNABLE.iter().find(|t| t.name == wanted).ok_or_else(|| {
        BadParam(format!(
            "unknown parameter `{name}`; numeric retriever parameters: {}",
            TUNABLE
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

impl Tunable {
    /// Check that `value` is one this parameter takes.
    pub fn check(&self, value: f64) -> Result<(), BadParam> {
        if !value.is_finite() || value < self.min || value > self.max {
            return Err(BadParam(format!(
                "{} = {} is outside [{}, {}]",
                self.name,
                format_value(value),
                format_value(self.min),
                format_value(self.max)
            )));
        }
        if self.kind == ParamKind::Integer && value.fract() != 0.0 {
            return Err(BadParam(format!(
                "{} takes whole numbers, not {}",
                self.name,
                format_value(value)
            )));
        }
        Ok(())
    }

    /// The default value (`Params::default()`).
    pub fn default_value(&self) -> f64 {
        (self.get)(&Params::default())
    }
}

impl Params {
    /// Set the numeric parameter `name` (see [`TUNABLE`]) to `value`.
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), BadParam> {
        let t = tunable(name)?;
        t.check(value)?;
        (t.put)(self, value);
        Ok(())
    }

    /// The value of the numeric parameter `name`.
    pub fn get(&self, name: &str) -> Result<f64, BadParam> {
        Ok((tunable(name)?.get)(self))
    }
}

/// `--help` text listing the parameters that can be swept.
pub fn params_help() -> String {
    let mut out = String::from("Parameters (--param):\n");
    for t in TUNABLE {
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

/// A number as people write it: `0.75`, `4`, `0.05`.
pub fn format_value(v: f64) -> String {
    let s = format!("{:.6}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
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
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    /// complete / posts.
    pub complete_rate: Option<f64>,
}

impl SweepRow {
    /// The row of `counts` at `value`, its ratios computed.
    pub fn new(value: f64, counts: Counts) -> SweepRow {
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
    pub glossary: String,
    pub posts_file: String,
    pub labels_file: String,
    pub split: String,
    pub retriever: String,
    pub param: String,
    pub kind: ParamKind,
    /// The parameter's default value, marked on the chart.
    pub default: f64,
    /// The other parameters, as given.
    pub params: Params,
    pub glossa_version: String,
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
        let mut params = *base;
        (param.put)(&mut params, value);
        // Only the totals are kept: no per-post details.
        let spec = [spec.to_string()];
        let result = evaluate(glossary, posts, &spec, &params, sources, PerPost::Off)
            .map_err(SweepError::Retriever)?;
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
        params: *base,
        glossa_version: env!("CARGO_PKG_VERSION").to_string(),
        rows,
        chart: None,
    })
}

/// Why a sweep could not run.
#[derive(Debug, Clone)]
pub enum SweepError {
    Param(BadParam),
    Retriever(UnknownRetriever),
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SweepError::Param(e) => e.fmt(f),
            SweepError::Retriever(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SweepError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_numeric_params_field_is_tunable() {
        // A new numeric field in `Params` must get a line in TUNABLE.
        let v = serde_json::to_value(Params::default()).unwrap();
        for (field, value) in v.as_object().unwrap() {
            if value.is_number() {
                let t = tunable(field).unwrap_or_else(|_| {
                    panic!("Params::{field} is numeric but not in sweep::TUNABLE")
                });
                assert_eq!((t.get)(&Params::default()), value.as_f64().unwrap());
            }
        }
    }

    #[test]
    fn set_and_get_by_name() {
        let mut p = Params::default();
        p.set("threshold", 0.8).unwrap();
        assert_eq!(p.threshold, 0.8);
        p.set("edit-one-from", 5.0).unwrap();
        assert_eq!(p.edit_one_from, 5);
        assert_eq!(p.get("edit_one_from").unwrap(), 5.0);
        assert!(p
            .set("threshold", 1.5)
            .unwrap_err()
            .0
            .contains("outside [0, 1]"));
        assert!(p
            .set("edit_two_from", 2.5)
            .unwrap_err()
            .0
            .contains("whole numbers"));
        assert!(p
            .set("treshold", 0.5)
            .unwrap_err()
            .0
            .contains("unknown parameter `treshold`"));
    }

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
    fn values_format_without_noise() {
        assert_eq!(format_value(0.75), "0.75");
        assert_eq!(format_value(4.0), "4");
        assert_eq!(format_value(0.0), "0");
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
