//! Terminology QA of translations made elsewhere (`glossa check`,
//! docs/formats.md "Checking existing translations"): each segment's source
//! goes through retrieval exactly as a post does, and its target through
//! the output check, with no model called. Without a label, the entries
//! retrieved are the ones needed.

use crate::dataset::Label;
use crate::generate::check::{Forbidden, Verdict};
use crate::generate::pipeline::{Generation, Pipeline, Stage, Trace, EXISTING};
use crate::generate::term_figures::{renderings, TermFigures, TermTally};
use crate::invariants::{self, Issue};
use serde::Serialize;

/// One segment's result: what `--format json` lists under `segments`.
#[derive(Debug, Clone, Serialize)]
pub struct SegmentResult {
    pub(crate) id: String,
    /// Line of the segment in its file.
    pub(crate) line: usize,
    pub ok: bool,
    /// Needed entries (ids) whose target, and no form of it, stands in the
    /// translation.
    pub(crate) missing: Vec<String>,
    /// Forbidden terms standing in the translation: the entry's own (of
    /// an entry needed or retrieved) and the glossary-wide list's, each
    /// with its entry (`null` for the list), term and byte place.
    pub(crate) forbidden: Vec<Forbidden>,
    /// Numbers, amounts, times, dates, URLs, handles, placeholders... of the
    /// source missing or changed in the translation (docs/formats.md,
    /// "Invariants"); the segment fails for them under `--invariants fail`.
    pub(crate) invariants: Vec<Issue>,
    /// With a label: wrong-sense entries whose target stands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) leaked: Vec<String>,
    /// Retrieved entries whose target is missing only because a longer
    /// entry's target holds their words ("cream" inside "ice cream" →
    /// "Eis"): not counted missing.
    pub(crate) nested_covered: Vec<String>,
    /// Needed entries whose target stands.
    pub(crate) found: Vec<String>,
    /// Whether a label said what was needed.
    pub labelled: bool,
    #[serde(skip)]
    pub(crate) verdict: Verdict,
}

/// The figures over every segment checked.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckSummary {
    pub segments: usize,
    pub(crate) ok: usize,
    pub failed: usize,
    /// Segments checked against a label.
    pub(crate) labelled: usize,
    /// Segments with a needed term missing, and with a wrong sense used.
    pub(crate) with_missing: usize,
    pub(crate) with_leaked: usize,
    /// Segments holding a forbidden term.
    pub(crate) with_forbidden: usize,
    /// Segments with an invariant of the source missing or changed.
    pub(crate) with_invariants: usize,
    /// Needed terms, those found, exact-match term accuracy and term
    /// consistency (docs/formats.md, "Term figures").
    #[serde(flatten)]
    pub(crate) terms: TermFigures,
}

/// Checks segments one at a time and keeps the figures.
pub struct Checking {
    pipeline: Pipeline,
    tally: TermTally,
    summary: CheckSummary,
}

impl Checking {
    /// `pipeline` must simplify with `Simplify::None` (a segment is checked
    /// as written) and hold a retriever; its client is never called.
    pub fn new(pipeline: Pipeline) -> Checking {
        Checking {
            pipeline,
            tally: TermTally::default(),
            summary: CheckSummary::default(),
        }
    }

    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Check one segment (a pure function of it: safe to run side by side
    /// with [`Checking::judge`], then [`Checking::count`] in order).
    pub fn judge(
        pipeline: &Pipeline,
        id: &str,
        line: usize,
        source: &str,
        target: &str,
        label: Option<&Label>,
    ) -> SegmentResult {
        let prepared = pipeline
            .prepare_local(source, label, 1)
            .expect("glossa check never simplifies with a model");
        let generation = Generation {
            provider: EXISTING.to_string(),
            text: Some(crate::phrase::nfc(target).into_owned()),
            ..Generation::default()
        };
        let trace = pipeline.finish(
            prepared,
            label,
            Stage {
                ms: 0.0,
                output: generation,
            },
        );
        result(pipeline, id, line, &trace)
    }

    /// Count a judged segment into the summary.
    pub fn count(&mut self, r: &SegmentResult) {
        let s = &mut self.summary;
        s.segments += 1;
        s.ok += usize::from(r.ok);
        s.failed += usize::from(!r.ok);
        s.labelled += usize::from(r.labelled);
        s.with_missing += usize::from(!r.missing.is_empty());
        s.with_leaked += usize::from(!r.leaked.is_empty());
        s.with_forbidden += usize::from(!r.forbidden.is_empty());
        s.with_invariants += usize::from(!r.invariants.is_empty());
        self.tally.add(&renderings(&r.verdict));
    }

    /// The figures so far.
    pub fn summary(&self) -> CheckSummary {
        CheckSummary {
            terms: self.tally.figures(),
            ..self.summary.clone()
        }
    }
}

/// A segment's result from its trace: with a label, the labelled check;
/// without, the retrieved entries that no longer term covers are needed.
fn result(pipeline: &Pipeline, id: &str, line: usize, trace: &Trace) -> SegmentResult {
    let review = &trace.review;
    let nested_covered: Vec<String> = review
        .targets
        .iter()
        .filter(|t| review.inside_used(t).is_some())
        .map(|t| t.entry.clone())
        .collect();
    let output = trace.generate.output.text.as_deref().unwrap_or_default();
    let verdict = match &trace.labelled {
        Some(labelled) => labelled.check.clone(),
        None => {
            let needed: Vec<_> = trace
                .retrieve
                .output
                .iter()
                .filter(|u| !nested_covered.contains(&u.entry))
                .map(|u| crate::generate::check::Target {
                    id: &u.entry,
                    text: &u.target,
                    forms: &u.forms,
                    exact_case: u.case_sensitive,
                })
                .collect();
            pipeline
                .check
                .check(output, &needed, &[])
                .with_forbidden(review.forbidden.clone())
        }
    };
    let invariants_fail =
        pipeline.invariants == invariants::Mode::Fail && !trace.invariants.is_empty();
    SegmentResult {
        id: id.to_string(),
        line,
        ok: verdict.ok && !invariants_fail,
        invariants: trace.invariants.clone(),
        missing: verdict.missing.clone(),
        forbidden: verdict.forbidden.clone(),
        leaked: verdict.leaked.clone(),
        nested_covered,
        found: verdict.rendered.keys().cloned().collect(),
        labelled: trace.labelled.is_some(),
        verdict,
    }
}

/// A figure `glossa check --fail-under` bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CheckFigure {
    /// Segments ok / segments.
    Ok,
    /// Exact-match term accuracy.
    TermAccuracy,
    /// Term consistency.
    Consistency,
}

/// `FIGURE=VALUE`: the figure must be at least VALUE.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckBound {
    pub(crate) figure: CheckFigure,
    pub(crate) min: f64,
}

/// A bound that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("`{given}`: {why}; expected FIGURE=VALUE with FIGURE one of ok, term_accuracy, consistency and VALUE like 0.95 or 95%")]
pub struct BadCheckBound {
    given: String,
    why: &'static str,
}

impl std::str::FromStr for CheckBound {
    type Err = BadCheckBound;

    fn from_str(s: &str) -> Result<CheckBound, BadCheckBound> {
        let bad = |why| BadCheckBound {
            given: s.to_string(),
            why,
        };
        let (name, value) = s.split_once('=').ok_or_else(|| bad("no `=`"))?;
        let figure = match name.trim().replace('-', "_").as_str() {
            "ok" => CheckFigure::Ok,
            "term_accuracy" | "accuracy" => CheckFigure::TermAccuracy,
            "consistency" => CheckFigure::Consistency,
            _ => return Err(bad("unknown figure")),
        };
        let value = value.trim();
        let min = match value.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
            None => value.parse::<f64>(),
        }
        .map_err(|_| bad("the value is not a number"))?;
        if !(0.0..=1.0).contains(&min) {
            return Err(bad("the value is not between 0 and 1 (or 0% and 100%)"));
        }
        Ok(CheckBound { figure, min })
    }
}

impl CheckFigure {
    pub(crate) fn name(self) -> &'static str {
        match self {
            CheckFigure::Ok => "ok",
            CheckFigure::TermAccuracy => "term_accuracy",
            CheckFigure::Consistency => "consistency",
        }
    }

    /// The figure's value; `None` when there was nothing to count.
    pub(crate) fn value(self, s: &CheckSummary) -> Option<f64> {
        match self {
            CheckFigure::Ok => (s.segments > 0).then(|| s.ok as f64 / s.segments as f64),
            CheckFigure::TermAccuracy => s.terms.term_accuracy,
            CheckFigure::Consistency => s.terms.consistency,
        }
    }
}

/// Each bound `summary` does not meet, as "term_accuracy 0.912 < 0.95"; a
/// figure with nothing to count meets its bound.
pub fn unmet(bounds: &[CheckBound], summary: &CheckSummary) -> Vec<String> {
    bounds
        .iter()
        .filter_map(|b| {
            let value = b.figure.value(summary)?;
            (value < b.min).then(|| format!("{} {value:.4} < {}", b.figure.name(), b.min))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_ratios_and_percentages_and_refuse_the_rest() {
        let b: CheckBound = "term_accuracy=95%".parse().unwrap();
        assert_eq!(b.figure, CheckFigure::TermAccuracy);
        assert!((b.min - 0.95).abs() < 1e-12);
        assert_eq!(
            "ok=0.5".parse::<CheckBound>().unwrap().figure,
            CheckFigure::Ok
        );
        for bad in ["recall=0.9", "ok", "ok=high", "ok=1.5"] {
            assert!(bad.parse::<CheckBound>().is_err(), "{bad}");
        }
        let summary = CheckSummary {
            segments: 4,
            ok: 3,
            ..CheckSummary::default()
        };
        let bounds = ["ok=0.8".parse().unwrap(), "consistency=1".parse().unwrap()];
        assert_eq!(unmet(&bounds, &summary), ["ok 0.7500 < 0.8"]);
    }
}
