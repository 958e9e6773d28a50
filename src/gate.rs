//! The regression gate of `glossa eval --fail-under / --fail-over`: bounds
//! on the figures of an evaluation, so a labelled set can run as a test
//! suite in CI (exit code 1 when a bound is not met).
//!
//! ```text
//! --fail-under recall=0.9,complete=0.8      every retriever evaluated
//! --fail-under fuzzy:precision=85%          only the retriever `fuzzy`
//! --fail-over wrong_sense=0,extra=10        counts that must not exceed
//! ```

use crate::eval::EvalResult;
use crate::score::Counts;
use crate::sweep::format_value;
use std::fmt;

/// A figure a gate can bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Figure {
    /// found / needed.
    Recall,
    /// found / retrieved.
    Precision,
    /// complete posts / posts.
    Complete,
    /// Wrong-sense entries retrieved (a count).
    WrongSense,
    /// Retrieved entries that were not needed (a count).
    Extra,
    /// Needed entries not retrieved (a count).
    Missed,
}

impl Figure {
    fn parse(name: &str) -> Option<Figure> {
        Some(match name.trim().replace('-', "_").as_str() {
            "recall" => Figure::Recall,
            "precision" => Figure::Precision,
            "complete" => Figure::Complete,
            "wrong_sense" => Figure::WrongSense,
            "extra" => Figure::Extra,
            "missed" => Figure::Missed,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Figure::Recall => "recall",
            Figure::Precision => "precision",
            Figure::Complete => "complete",
            Figure::WrongSense => "wrong_sense",
            Figure::Extra => "extra",
            Figure::Missed => "missed",
        }
    }

    /// Ratios take `--fail-under`, counts `--fail-over`.
    fn is_ratio(self) -> bool {
        matches!(self, Figure::Recall | Figure::Precision | Figure::Complete)
    }

    /// The figure's value in `c` and how to show it ("30 of 36 = 0.833").
    fn value(self, c: &Counts) -> (Option<f64>, String) {
        let of = |n: usize, d: usize, r: Option<f64>| match r {
            Some(r) => (Some(r), format!("{} ({n} of {d})", format_ratio(r))),
            None => (None, format!("undefined ({n} of {d})")),
        };
        match self {
            Figure::Recall => of(c.found, c.needed, c.recall()),
            Figure::Precision => of(c.found, c.retrieved, c.precision()),
            Figure::Complete => of(c.complete, c.posts, c.complete_rate()),
            Figure::WrongSense => (Some(c.wrong_sense as f64), c.wrong_sense.to_string()),
            Figure::Extra => (Some(c.extra as f64), c.extra.to_string()),
            Figure::Missed => {
                let m = c.needed - c.found;
                (Some(m as f64), m.to_string())
            }
        }
    }
}

fn format_ratio(r: f64) -> String {
    format!("{r:.3}")
}

/// Which way a bound points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The figure must be at least the bound (`--fail-under`).
    AtLeast,
    /// The figure must be at most the bound (`--fail-over`).
    AtMost,
}

/// One bound: `[retriever:]figure=value`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// `None`: every retriever evaluated.
    pub(crate) retriever: Option<String>,
    pub(crate) figure: Figure,
    pub(crate) value: f64,
    pub(crate) direction: Direction,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = match self.direction {
            Direction::AtLeast => "--fail-under",
            Direction::AtMost => "--fail-over",
        };
        write!(f, "{flag} ")?;
        if let Some(r) = &self.retriever {
            write!(f, "{r}:")?;
        }
        write!(f, "{}={}", self.figure.name(), format_value(self.value))
    }
}

const RATIOS: &str = "recall, precision, complete";
const COUNTS: &str = "wrong_sense, extra, missed";

/// A `--fail-under` / `--fail-over` bound that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{bound}`: {why}")]
pub struct BadBound {
    bound: String,
    why: String,
}

/// A bound naming a retriever that the command does not evaluate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{bound}` names retriever `{retriever}`, which is not evaluated (--retriever gives: {evaluated})")]
pub struct NotEvaluated {
    bound: String,
    retriever: String,
    evaluated: String,
}

fn parse(s: &str, direction: Direction) -> Result<Bound, BadBound> {
    let bad = |why: String| BadBound {
        bound: s.to_string(),
        why,
    };
    let (lhs, rhs) = s
        .split_once('=')
        .ok_or_else(|| bad("expected FIGURE=VALUE or RETRIEVER:FIGURE=VALUE".to_string()))?;
    let (retriever, figure_name) = match lhs.rsplit_once(':') {
        Some((r, f)) if !r.trim().is_empty() => (Some(r.trim().to_string()), f),
        Some((_, f)) => (None, f),
        None => (None, lhs),
    };
    let figure = Figure::parse(figure_name).ok_or_else(|| {
        bad(format!(
            "unknown figure `{}`; ratios (--fail-under): {RATIOS}; counts (--fail-over): {COUNTS}",
            figure_name.trim()
        ))
    })?;
    match (direction, figure.is_ratio()) {
        (Direction::AtLeast, false) => {
            return Err(bad(format!(
                "{} is a count that should stay low; bound it with --fail-over {}=N",
                figure.name(),
                figure.name()
            )))
        }
        (Direction::AtMost, true) => {
            return Err(bad(format!(
                "{} is a ratio that should stay high; bound it with --fail-under {}=R",
                figure.name(),
                figure.name()
            )))
        }
        _ => {}
    }
    let rhs = rhs.trim();
    let value = match rhs.strip_suffix('%') {
        Some(pct) => pct.trim().parse::<f64>().map(|v| v / 100.0),
        None => rhs.parse::<f64>(),
    }
    .map_err(|_| bad(format!("`{rhs}` is not a number")))?;
    if figure.is_ratio() && !(0.0..=1.0).contains(&value) {
        return Err(bad(format!(
            "{} is a ratio in [0, 1] (or a percentage such as 90%), not {rhs}",
            figure.name()
        )));
    }
    if !figure.is_ratio() && (value < 0.0 || value.fract() != 0.0) {
        return Err(bad(format!("{} is a count, not {rhs}", figure.name())));
    }
    Ok(Bound {
        retriever,
        figure,
        value,
        direction,
    })
}

/// Parse one `--fail-under` bound (the CLI's value parser).
pub fn parse_under(s: &str) -> Result<Bound, BadBound> {
    parse(s, Direction::AtLeast)
}

/// Parse one `--fail-over` bound (the CLI's value parser).
pub fn parse_over(s: &str) -> Result<Bound, BadBound> {
    parse(s, Direction::AtMost)
}

/// The first bound that names a retriever not in `names`.
pub fn check_names(bounds: &[Bound], names: &[String]) -> Result<(), NotEvaluated> {
    for b in bounds {
        if let Some(r) = &b.retriever {
            if !names.contains(r) {
                return Err(NotEvaluated {
                    bound: b.to_string(),
                    retriever: r.clone(),
                    evaluated: names.join(", "),
                });
            }
        }
    }
    Ok(())
}

/// One figure that missed its bound.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub(crate) retriever: String,
    pub(crate) bound: Bound,
    pub(crate) value: f64,
    pub(crate) shown: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (rel, bound) = match self.bound.direction {
            Direction::AtLeast => ("below", format_value(self.bound.value)),
            Direction::AtMost => ("above", format_value(self.bound.value)),
        };
        write!(
            f,
            "{} {} is {} {rel} the bound {bound} ({})",
            self.retriever,
            self.bound.figure.name(),
            self.shown,
            self.bound
        )
    }
}

/// What a gate found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    /// Figures checked.
    pub checked: usize,
    pub failures: Vec<Failure>,
    /// Figures with no value (a ratio with denominator 0), not checked.
    pub undefined: Vec<String>,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Check every bound against every retriever it applies to.
pub fn check(bounds: &[Bound], result: &EvalResult) -> Verdict {
    let mut v = Verdict::default();
    for r in &result.retrievers {
        for b in bounds {
            if b.retriever.as_ref().is_some_and(|name| *name != r.name) {
                continue;
            }
            let (value, shown) = b.figure.value(r.counts());
            let Some(value) = value else {
                v.undefined
                    .push(format!("{} {} is {shown}", r.name, b.figure.name()));
                continue;
            };
            v.checked += 1;
            let ok = match b.direction {
                Direction::AtLeast => value >= b.value,
                Direction::AtMost => value <= b.value,
            };
            if !ok {
                v.failures.push(Failure {
                    retriever: r.name.clone(),
                    bound: b.clone(),
                    value,
                    shown,
                });
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bounds_with_and_without_a_retriever() {
        let b = parse_under("recall=0.9").unwrap();
        assert_eq!(
            (b.retriever.clone(), b.figure, b.value),
            (None, Figure::Recall, 0.9)
        );
        let b = parse_under("normalised+fuzzy|sense:complete=80%").unwrap();
        assert_eq!(b.retriever.as_deref(), Some("normalised+fuzzy|sense"));
        assert_eq!(b.value, 0.8);
        let b = parse_over("wrong-sense=0").unwrap();
        assert_eq!(
            (b.figure, b.direction),
            (Figure::WrongSense, Direction::AtMost)
        );
    }

    #[test]
    fn rejects_bounds_that_point_the_wrong_way_or_make_no_sense() {
        let under = |s: &str| parse_under(s).unwrap_err().to_string();
        let over = |s: &str| parse_over(s).unwrap_err().to_string();
        assert_eq!(
            under("wrong_sense=0"),
            "`wrong_sense=0`: wrong_sense is a count that should stay low; bound it with --fail-over wrong_sense=N"
        );
        assert!(over("recall=0.9").contains("--fail-under recall=R"));
        assert!(under("recal=0.9").contains("unknown figure `recal`"));
        assert!(under("recall=1.5").contains("ratio in [0, 1]"));
        assert!(under("recall").contains("FIGURE=VALUE"));
        assert!(over("extra=1.5").contains("is a count"));
    }

    #[test]
    fn figures_and_failures_read_plainly() {
        let c = Counts {
            posts: 4,
            complete: 2,
            needed: 3,
            found: 1,
            retrieved: 3,
            extra: 2,
            wrong_sense: 1,
        };
        assert_eq!(Figure::Recall.value(&c).1, "0.333 (1 of 3)");
        assert_eq!(Figure::Missed.value(&c).0, Some(2.0));
        let f = Failure {
            retriever: "exact".into(),
            bound: parse_under("recall=0.9").unwrap(),
            value: 1.0 / 3.0,
            shown: Figure::Recall.value(&c).1,
        };
        assert_eq!(
            f.to_string(),
            "exact recall is 0.333 (1 of 3) below the bound 0.9 (--fail-under recall=0.9)"
        );
    }
}
