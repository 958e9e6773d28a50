//! `summary.json`: a run's figures, always computed from `calls.jsonl`
//! (never from memory), per retriever, repeat and retrieval group.

use super::calls::{for_each_call, CallsError, CALLS_FILE};
use crate::fsutil::{write_atomic, WriteError};
use crate::generate::pipeline::Group;
use crate::generate::prices::Prices;
use crate::generate::reply::ReplyMeta;
use crate::generate::term_figures::{renderings, Renderings, TermFigures, TermTally};
use crate::run_dir::latest::Latest;
use crate::run_dir::record::CallRecord;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub const SUMMARY_FILE: &str = "summary.json";

/// A summary that could not be made or saved.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error(transparent)]
    Calls(#[from] CallsError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Summarise `DIR/calls.jsonl` (retrievers in `order`; costs from
/// `prices` when given) and save it as `DIR/summary.json`, atomically.
pub fn save_summary(
    dir: &Path,
    order: &[String],
    prices: Option<&Prices>,
) -> Result<Summary, SummaryError> {
    let mut summary = summarise_file(dir, order)?;
    if let Some(prices) = prices {
        summary.price(prices);
    }
    let json = serde_json::to_string_pretty(&summary).expect("a summary serialises");
    write_atomic(&dir.join(SUMMARY_FILE), json + "\n")?;
    Ok(summary)
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How the posts of one retrieval group fared in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GroupRun {
    pub(crate) posts: usize,
    /// Right in the end: after repair, when there was one.
    pub(crate) right: usize,
    /// Right at the first pass (equal to `right` without `--repair`).
    #[serde(default)]
    pub(crate) right_first_pass: usize,
}

/// One repeat of one retriever.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunFigures {
    pub(crate) repeat: u32,
    pub(crate) posts: usize,
    /// Posts right in the end (after repair, when there was one); an echo
    /// is never right.
    pub(crate) right: usize,
    /// Posts right at the first pass.
    #[serde(default)]
    pub(crate) right_first_pass: usize,
    /// Posts whose output copied the prompt back, in the end and at the
    /// first pass.
    #[serde(default)]
    pub(crate) echo: usize,
    #[serde(default)]
    pub(crate) echo_first_pass: usize,
    /// Posts that took at least one repair turn.
    #[serde(default)]
    pub(crate) repaired: usize,
    /// Posts whose output (in the end) holds a forbidden term; absent
    /// when none does.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) forbidden: usize,
    /// Posts whose output lost or changed an invariant of the post (a
    /// number, handle, placeholder...: docs/formats.md, "Invariants");
    /// absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) invariants: usize,
    pub(crate) failed: usize,
    pub(crate) by_group: BTreeMap<Group, GroupRun>,
    /// Exact-match term accuracy and consistency (docs/formats.md, "Term
    /// figures"); zeros in summaries written before.
    #[serde(default)]
    pub(crate) terms: TermFigures,
}

/// One retriever over every repeat.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RetrieverSummary {
    pub(crate) name: String,
    pub(crate) runs: Vec<RunFigures>,
    /// (post, repeat) pairs where a wrong-sense entry was retrieved, and
    /// those where the output then used its target.
    pub(crate) wrong_sense_retrieved: usize,
    pub(crate) wrong_sense_used: usize,
}

/// The tokens one model used in a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ModelTokens {
    /// The served model (the one asked when the API named none).
    pub(crate) model: String,
    /// Calls that reported usage.
    pub(crate) calls: usize,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    /// From the price table, when one was given and prices this model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cost: Option<f64>,
}

/// Tokens over every call recorded in a run (failed calls whose reply was
/// paid for, and calls later redone, included; cached replies cost none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tokens {
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    /// The sum over the models that have a price; absent without a price
    /// table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cost: Option<f64>,
    /// Models the price table does not price.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unpriced: Vec<String>,
    pub(crate) by_model: Vec<ModelTokens>,
}

/// The summary of a batch run (`summary.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub(crate) run_dir: PathBuf,
    pub(crate) calls: usize,
    pub failed: usize,
    pub(crate) retrievers: Vec<RetrieverSummary>,
    /// Absent when no call reported usage (offline runs, cached replies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tokens: Option<Tokens>,
}

impl Summary {
    /// Fill in costs from a price table.
    pub fn price(&mut self, prices: &Prices) {
        let Some(tokens) = &mut self.tokens else {
            return;
        };
        let mut total = 0.0;
        for m in &mut tokens.by_model {
            m.cost = prices.cost(&m.model, m.input_tokens, m.output_tokens);
            match m.cost {
                Some(cost) => total += cost,
                None => tokens.unpriced.push(m.model.clone()),
            }
        }
        // Bounded prices cannot overflow; a sum that did would be shown as
        // `inf` and written as `null`, so it is left out instead.
        tokens.cost = total.is_finite().then_some(total);
    }
}

/// What one call adds to the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Contribution {
    group: Group,
    right: bool,
    right_first_pass: bool,
    echo: bool,
    echo_first_pass: bool,
    repaired: bool,
    forbidden: bool,
    invariants: bool,
    failed: bool,
    wrong_sense_retrieved: bool,
    wrong_sense_used: bool,
}

impl Contribution {
    fn of(r: &CallRecord) -> Contribution {
        Contribution {
            group: r.group,
            right: r.right(),
            right_first_pass: r.right_first_pass(),
            echo: r.error.is_none() && r.check.echo,
            echo_first_pass: r.echo_first_pass(),
            repaired: r.turns.len() > 1,
            forbidden: r.error.is_none() && !r.check.forbidden.is_empty(),
            invariants: r.error.is_none() && !r.invariants.is_empty(),
            failed: r.error.is_some(),
            wrong_sense_retrieved: !r.wrong_sense_retrieved.is_empty(),
            wrong_sense_used: !r.wrong_sense_used.is_empty(),
        }
    }
}

/// Builds a [`Summary`] one record at a time. A later record of the same
/// call replaces the earlier one (a `--retry-errors` run appends).
#[derive(Debug, Default)]
pub(crate) struct Summariser {
    /// Each call's contribution and its needed terms as written.
    latest: Latest<(Contribution, Renderings)>,
    runs: BTreeMap<String, BTreeMap<u32, RunFigures>>,
    wrong: HashMap<String, (usize, usize)>,
    tokens: BTreeMap<String, ModelTokens>,
    /// The needed terms' tally per retriever and repeat.
    terms: BTreeMap<(String, u32), TermTally>,
}

impl Summariser {
    pub(crate) fn add(&mut self, r: &CallRecord) {
        // Every turn's call was paid for; the turns hold each call once,
        // the last answered one (`r.meta`) included.
        let metas: Vec<&ReplyMeta> = match r.turns.is_empty() {
            true => vec![&r.meta],
            false => r.turns.iter().map(|t| &t.meta).collect(),
        };
        for meta in metas {
            if let Some(usage) = meta.usage {
                let model = meta.served_model.as_deref().unwrap_or(&r.model);
                let t = self.tokens.entry(model.to_string()).or_default();
                t.calls += 1;
                t.input_tokens += usage.input_tokens;
                t.output_tokens += usage.output_tokens;
            }
        }
        let rendered = renderings(&r.check);
        let tally = self
            .terms
            .entry((r.retriever.clone(), r.repeat))
            .or_default();
        tally.add(&rendered);
        let c = Contribution::of(r);
        if let Some((old, old_terms)) = self.latest.record(r, (c, rendered)) {
            tally.remove(&old_terms);
            self.apply(&r.retriever, r.repeat, old, false);
        }
        self.apply(&r.retriever, r.repeat, c, true);
    }

    fn apply(&mut self, retriever: &str, repeat: u32, c: Contribution, add: bool) {
        let step = |n: &mut usize, on: bool| {
            if on {
                if add {
                    *n += 1
                } else {
                    *n -= 1
                }
            }
        };
        let run = self
            .runs
            .entry(retriever.to_string())
            .or_default()
            .entry(repeat)
            .or_insert_with(|| RunFigures {
                repeat,
                ..RunFigures::default()
            });
        step(&mut run.posts, true);
        step(&mut run.right, c.right);
        step(&mut run.right_first_pass, c.right_first_pass);
        step(&mut run.echo, c.echo);
        step(&mut run.echo_first_pass, c.echo_first_pass);
        step(&mut run.repaired, c.repaired);
        step(&mut run.forbidden, c.forbidden);
        step(&mut run.invariants, c.invariants);
        step(&mut run.failed, c.failed);
        let group = run.by_group.entry(c.group).or_default();
        step(&mut group.posts, true);
        step(&mut group.right, c.right);
        step(&mut group.right_first_pass, c.right_first_pass);
        let w = self.wrong.entry(retriever.to_string()).or_default();
        step(&mut w.0, c.wrong_sense_retrieved);
        step(&mut w.1, c.wrong_sense_retrieved && c.wrong_sense_used);
    }

    /// The summary, retrievers in the order given.
    pub(crate) fn finish(mut self, run_dir: &Path, order: &[String]) -> Summary {
        let retrievers = order
            .iter()
            .filter_map(|name| {
                let mut runs: Vec<RunFigures> = self.runs.remove(name)?.into_values().collect();
                for run in &mut runs {
                    run.by_group.retain(|_, g| g.posts > 0);
                    if let Some(tally) = self.terms.get(&(name.clone(), run.repeat)) {
                        run.terms = tally.figures();
                    }
                }
                let (retrieved, used) = self.wrong.get(name).copied().unwrap_or_default();
                Some(RetrieverSummary {
                    name: name.clone(),
                    runs,
                    wrong_sense_retrieved: retrieved,
                    wrong_sense_used: used,
                })
            })
            .collect();
        let tokens = (!self.tokens.is_empty()).then(|| {
            let by_model: Vec<ModelTokens> = self
                .tokens
                .into_iter()
                .map(|(model, t)| ModelTokens { model, ..t })
                .collect();
            Tokens {
                input_tokens: by_model.iter().map(|m| m.input_tokens).sum(),
                output_tokens: by_model.iter().map(|m| m.output_tokens).sum(),
                cost: None,
                unpriced: Vec::new(),
                by_model,
            }
        });
        Summary {
            run_dir: run_dir.to_path_buf(),
            calls: self.latest.len(),
            failed: self.latest.values().filter(|(c, _)| c.failed).count(),
            retrievers,
            tokens,
        }
    }
}

/// Summarise `dir/calls.jsonl`, streaming.
pub fn summarise_file(dir: &Path, order: &[String]) -> Result<Summary, CallsError> {
    let mut s = Summariser::default();
    for_each_call(&dir.join(CALLS_FILE), |r| s.add(&r))?;
    Ok(s.finish(dir, order))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::check::Verdict;
    use crate::generate::prompt::PromptId;
    use crate::generate::reply::Usage;
    use crate::run_dir::calls::call_status;

    fn record(
        retriever: &str,
        repeat: u32,
        post: &str,
        group: Group,
        ok: bool,
        error: bool,
    ) -> CallRecord {
        CallRecord {
            retriever: retriever.into(),
            repeat,
            post: post.into(),
            prompt: PromptId {
                name: "translate".into(),
                version: "v1".into(),
            },
            provider: "offline".into(),
            model: String::new(),
            output: (!error).then(|| "x".into()),
            partial_output: None,
            check: Verdict {
                ok,
                ..Verdict::default()
            },
            group,
            retrieved: vec![],
            wrong_sense_retrieved: if group == Group::WrongSense {
                vec!["date".into()]
            } else {
                vec![]
            },
            wrong_sense_used: if group == Group::WrongSense && !ok {
                vec!["date".into()]
            } else {
                vec![]
            },
            attempts: 1,
            cached: false,
            error: error.then(|| "boom".into()),
            ms: 1.0,
            meta: Default::default(),
            turns: Vec::new(),
            invariants: Vec::new(),
            invariants_failed: false,
        }
    }

    #[test]
    fn summary_counts_right_posts_per_group_and_run() {
        let records = [
            record("exact", 1, "a", Group::Complete, true, false),
            record("exact", 1, "b", Group::Missed, false, false),
            record("exact", 2, "a", Group::Complete, false, true),
            record("exact", 2, "b", Group::Missed, true, false),
            record("exact", 1, "c", Group::WrongSense, false, false),
        ];
        let mut s = Summariser::default();
        records.iter().for_each(|r| s.add(r));
        let s = s.finish(Path::new("d"), &["exact".into(), "absent".into()]);
        assert_eq!(s.calls, 5);
        assert_eq!(s.failed, 1);
        assert_eq!(s.retrievers.len(), 1);
        let r = &s.retrievers[0];
        assert_eq!(r.runs[0].repeat, 1);
        assert_eq!((r.runs[0].posts, r.runs[0].right), (3, 1));
        assert_eq!(
            r.runs[1].by_group[&Group::Complete],
            GroupRun {
                posts: 1,
                right: 0,
                right_first_pass: 0
            }
        );
        assert_eq!(r.runs[1].failed, 1);
        assert_eq!((r.wrong_sense_retrieved, r.wrong_sense_used), (1, 1));
    }

    #[test]
    fn posts_with_a_forbidden_term_are_counted_and_absent_when_none() {
        let forbidden = |r: CallRecord| CallRecord {
            check: r
                .check
                .with_forbidden(vec![crate::generate::check::Forbidden {
                    entry: Some("email".into()),
                    term: "Email".into(),
                    at: 0..5,
                }]),
            ..r
        };
        let mut s = Summariser::default();
        s.add(&forbidden(record(
            "exact",
            1,
            "a",
            Group::Complete,
            true,
            false,
        )));
        s.add(&record("exact", 1, "b", Group::Complete, true, false));
        // Redone: the later record, without the term, replaces it.
        s.add(&forbidden(record(
            "exact",
            1,
            "c",
            Group::Complete,
            true,
            false,
        )));
        s.add(&record("exact", 1, "c", Group::Complete, true, false));
        let s = s.finish(Path::new("d"), &["exact".into()]);
        let run = &s.retrievers[0].runs[0];
        assert_eq!((run.posts, run.right, run.forbidden), (3, 2, 1));
        let json = serde_json::to_value(run).unwrap();
        assert_eq!(json["forbidden"], 1);
        let clean = RunFigures::default();
        let json = serde_json::to_string(&clean).unwrap();
        assert!(!json.contains("forbidden"), "{json}");
    }

    #[test]
    fn a_later_record_replaces_an_earlier_one_and_a_torn_tail_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        let first = record("exact", 1, "a", Group::Complete, false, true);
        let second = record("exact", 1, "a", Group::Complete, true, false);
        let other = record("exact", 1, "b", Group::Missed, false, false);
        let text = [&first, &second, &other]
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect::<String>()
            + "{\"retriever\":\"ex";
        std::fs::write(&path, text).unwrap();
        let status = call_status(&path).unwrap();
        assert_eq!(status.len(), 2);
        assert_eq!(
            status.get(&("exact".to_string(), 1, "a".to_string())),
            Some(&true)
        );
        let s = summarise_file(dir.path(), &["exact".into()]).unwrap();
        assert_eq!((s.calls, s.failed), (2, 0));
        let run = &s.retrievers[0].runs[0];
        assert_eq!((run.posts, run.right, run.failed), (2, 1, 0));
        assert_eq!(
            run.by_group[&Group::Complete],
            GroupRun {
                posts: 1,
                right: 1,
                right_first_pass: 1
            }
        );
    }

    #[test]
    fn records_written_before_replies_carried_usage_still_load() {
        let old = r#"{"retriever":"exact","repeat":1,"post":"p01","prompt":{"name":"translate","version":"v1"},"provider":"openai","model":"m","output":"x","check":{"ok":true,"missing":[],"leaked":[]},"group":"complete","retrieved":[],"wrong_sense_retrieved":[],"wrong_sense_used":[],"attempts":1,"cached":false,"error":null,"ms":1.0}"#;
        let record: CallRecord = serde_json::from_str(old).unwrap();
        assert_eq!(record.meta, Default::default());
        // And a record without them is written as before.
        assert!(!serde_json::to_string(&record).unwrap().contains("usage"));
    }

    #[test]
    fn a_record_with_reply_metadata_reads_and_writes_byte_for_byte() {
        let line = r#"{"retriever":"exact","repeat":1,"post":"p01","prompt":{"name":"translate","version":"v1"},"provider":"openai","model":"m","output":"x","check":{"missing":[],"leaked":[],"ok":true},"group":"complete","retrieved":[],"wrong_sense_retrieved":[],"wrong_sense_used":[],"attempts":1,"cached":false,"error":null,"ms":1.5,"finish_reason":"stop","served_model":"m-2025","usage":{"input_tokens":12,"output_tokens":3},"think":true}"#;
        let record: CallRecord = serde_json::from_str(line).unwrap();
        assert_eq!(record.meta.served_model.as_deref(), Some("m-2025"));
        assert!(record.meta.think);
        assert_eq!(serde_json::to_string(&record).unwrap(), line);
    }

    #[test]
    fn tokens_are_totalled_per_served_model_over_every_record_and_priced() {
        let mut paid = record("exact", 1, "a", Group::Complete, false, true);
        paid.meta.usage = Some(Usage {
            input_tokens: 1000,
            output_tokens: 100,
        });
        paid.meta.served_model = Some("gpt-x-2025".into());
        let mut redone = record("exact", 1, "a", Group::Complete, true, false);
        redone.meta.usage = paid.meta.usage;
        redone.model = "gpt-x".into();
        let mut s = Summariser::default();
        s.add(&paid);
        s.add(&redone);
        let mut summary = s.finish(Path::new("d"), &["exact".into()]);
        let tokens = summary.tokens.clone().unwrap();
        assert_eq!((tokens.input_tokens, tokens.output_tokens), (2000, 200));
        let models: Vec<&str> = tokens.by_model.iter().map(|m| m.model.as_str()).collect();
        assert_eq!(models, ["gpt-x", "gpt-x-2025"]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(&path, r#"{"gpt-x-2025": {"input": 1, "output": 10}}"#).unwrap();
        summary.price(&Prices::load(&path).unwrap());
        let tokens = summary.tokens.unwrap();
        assert_eq!(tokens.unpriced, ["gpt-x"]);
        assert!((tokens.cost.unwrap() - 0.002).abs() < 1e-12);
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CALLS_FILE);
        let good =
            serde_json::to_string(&record("exact", 1, "a", Group::Complete, true, false)).unwrap();
        std::fs::write(&path, format!("{good}\nnot json\n{good}\n")).unwrap();
        let err = call_status(&path).unwrap_err().to_string();
        assert!(err.contains("calls.jsonl:2"), "{err}");
    }
}
