//! Comparing saved results (`glossa diff`) and retrievers of one result
//! (`glossa eval --compare`): each figure's change, the posts whose status
//! changed, and a paired significance test over posts ([`crate::stats`]).
//!
//! Two kinds of saved result are read: an eval result
//! (`runs/*_eval.json`, the JSON of docs/formats.md) and a run folder
//! (`runs/*_run/`, read from its `calls.jsonl`).

use crate::dataset::Split;
use crate::error::{read_text, InputError};
use crate::eval::{EvalResult, PostResult, RetrieverResult};
use crate::generate::pipeline::Group;
use crate::run_dir::calls::{for_each_call, CallsError, CALLS_FILE};
use crate::run_dir::config::{load_config, RunConfig, CONFIG_FILE};
use crate::run_dir::latest::Latest;
use crate::run_dir::summary::SUMMARY_FILE;
use crate::score::Counts;
use crate::stats::{paired_test, Pair, TestResult, TestSettings};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// One post of one retriever in a saved run: its calls summed over repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct PostRun {
    pub(crate) calls: usize,
    pub(crate) right: usize,
    pub(crate) failed: usize,
    /// Where retrieval left the post (the same in every repeat).
    pub(crate) group: Option<Group>,
    pub(crate) wrong_sense_used: usize,
}

/// A saved batch run, read back from `calls.jsonl`.
#[derive(Debug, Clone)]
pub struct SavedRun {
    pub dir: PathBuf,
    /// Each post's split, from the labels file named in `run.json` (empty
    /// when that file cannot be read any more).
    pub(crate) splits: HashMap<String, Split>,
    /// Retrievers in the order they first appear.
    pub retrievers: Vec<String>,
    /// Retriever → post → how it fared, posts in first-seen order.
    pub(crate) posts: BTreeMap<String, Vec<(String, PostRun)>>,
}

/// Why two saved results cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Calls(#[from] CallsError),
    #[error("{}: no such file; is {} a run folder made by `glossa run`?", calls.display(), dir.display())]
    NotARunFolder { calls: PathBuf, dir: PathBuf },
    #[error("{side} has no retriever `{name}`; it has: {}", has.join(", "))]
    NoSuchRetriever {
        side: &'static str,
        name: String,
        has: Vec<String>,
    },
    #[error(
        "A ({}) and B ({}) share no retriever name; pick two with --retriever A_NAME=B_NAME",
        a.join(", "),
        b.join(", ")
    )]
    NothingShared { a: Vec<String>, b: Vec<String> },
    #[error(
        "{a_path} is {} result and {b_path} is {} result; diff compares two of the same kind",
        article(a_kind),
        article(b_kind)
    )]
    DifferentKinds {
        a_path: String,
        a_kind: &'static str,
        b_path: String,
        b_kind: &'static str,
    },
    #[error(
        "{a_path} and {b_path} have no post in common, so there is nothing to compare \
         (A has {a_posts} posts, B {b_posts}); diff two results of the same posts"
    )]
    NoPostShared {
        a_path: String,
        b_path: String,
        a_posts: usize,
        b_posts: usize,
    },
}

/// A saved result of either kind.
#[derive(Debug, Clone)]
pub enum Saved {
    Eval(Box<EvalResult>),
    Run(SavedRun),
}

impl Saved {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Saved::Eval(_) => "eval",
            Saved::Run(_) => "run",
        }
    }

    fn names(&self) -> Vec<String> {
        match self {
            Saved::Eval(e) => e.retrievers.iter().map(|r| r.name.clone()).collect(),
            Saved::Run(r) => r.retrievers.clone(),
        }
    }
}

/// Load an eval JSON file, or a run folder (or its `calls.jsonl`,
/// `summary.json` or `run.json`).
pub fn load(path: &Path) -> Result<Saved, DiffError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let run_dir = if path.is_dir() {
        Some(path.to_path_buf())
    } else if matches!(file_name.as_str(), CALLS_FILE | SUMMARY_FILE | CONFIG_FILE) {
        Some(path.parent().map(Path::to_path_buf).unwrap_or_default())
    } else {
        None
    };
    if let Some(dir) = run_dir {
        return load_run(&dir).map(Saved::Run);
    }
    let shown = path.display().to_string();
    let text = read_text(path)?;
    let result: EvalResult = serde_json::from_str(&text).map_err(|e| {
        let mut err = InputError::json(&shown, 1, &e);
        err.message = format!(
            "not an eval result (`glossa eval --format json`, runs/*_eval.json) nor a run folder: {}",
            err.message
        );
        err
    })?;
    Ok(Saved::Eval(Box::new(result)))
}

fn load_run(dir: &Path) -> Result<SavedRun, DiffError> {
    let calls = dir.join(CALLS_FILE);
    if !calls.exists() {
        return Err(DiffError::NotARunFolder {
            calls,
            dir: dir.to_path_buf(),
        });
    }
    struct Lite {
        right: bool,
        failed: bool,
        group: Group,
        used: bool,
    }
    let mut order: Vec<String> = Vec::new();
    let mut post_order: HashMap<String, Vec<String>> = HashMap::new();
    let mut latest: Latest<Lite> = Latest::default();
    for_each_call(&calls, |r| {
        if !order.contains(&r.retriever) {
            order.push(r.retriever.clone());
        }
        let posts = post_order.entry(r.retriever.clone()).or_default();
        if !posts.contains(&r.post) {
            posts.push(r.post.clone());
        }
        latest.record(
            &r,
            Lite {
                right: r.right(),
                failed: r.error.is_some(),
                group: r.group,
                used: !r.wrong_sense_used.is_empty(),
            },
        );
    })?;
    let mut per: HashMap<(String, String), PostRun> = HashMap::new();
    for ((retriever, _, post), c) in latest {
        let p = per.entry((retriever, post)).or_default();
        p.calls += 1;
        p.right += usize::from(c.right);
        p.failed += usize::from(c.failed);
        p.group = Some(c.group);
        p.wrong_sense_used += usize::from(c.used);
    }
    let mut posts = BTreeMap::new();
    for name in &order {
        let list = post_order[name]
            .iter()
            .map(|post| {
                (
                    post.clone(),
                    per.remove(&(name.clone(), post.clone()))
                        .unwrap_or_default(),
                )
            })
            .collect();
        posts.insert(name.clone(), list);
    }
    Ok(SavedRun {
        dir: dir.to_path_buf(),
        splits: run_splits(dir),
        retrievers: order,
        posts,
    })
}

/// Post → split from the labels file a run was made with, as far as it
/// can still be read (a missing file is not an error: splits are a nicety).
fn run_splits(dir: &Path) -> HashMap<String, Split> {
    #[derive(serde::Deserialize)]
    struct Label {
        post: String,
        #[serde(default)]
        split: Split,
    }
    let Ok(config) = load_config(dir) else {
        return HashMap::new();
    };
    let text = std::fs::read_to_string(&config.labels)
        .ok()
        .or_else(|| crate::demo::builtin(&config.labels.display().to_string()).map(str::to_string))
        .unwrap_or_default();
    text.lines()
        .filter_map(|line| serde_json::from_str::<Label>(line).ok())
        .map(|l| (l.post, l.split))
        .collect()
}

/// A count with its denominator, or a plain count (`of` = `None`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Value {
    pub(crate) n: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) of: Option<usize>,
}

impl Value {
    fn ratio(n: usize, of: usize) -> Value {
        Value { n, of: Some(of) }
    }

    fn count(n: usize) -> Value {
        Value { n, of: None }
    }

    /// n / of, or the count itself.
    pub(crate) fn number(&self) -> Option<f64> {
        match self.of {
            Some(0) => None,
            Some(d) => Some(self.n as f64 / d as f64),
            None => Some(self.n as f64),
        }
    }
}

/// One figure of one retriever in A and in B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FigureChange {
    pub(crate) figure: &'static str,
    pub(crate) a: Value,
    pub(crate) b: Value,
    /// B − A: a difference of ratios, or of counts; `None` when a ratio is
    /// undefined.
    pub(crate) change: Option<f64>,
    /// The paired test, for the figures that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) test: Option<TestResult>,
}

impl FigureChange {
    fn new(figure: &'static str, a: Value, b: Value, test: Option<TestResult>) -> FigureChange {
        let change = match (a.number(), b.number()) {
            (Some(a), Some(b)) => Some(b - a),
            _ => None,
        };
        FigureChange {
            figure,
            a,
            b,
            change,
            test,
        }
    }
}

/// A post whose status differs between A and B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PostChange {
    pub(crate) post: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) split: Option<Split>,
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) change: String,
}

/// One retriever of A against one of B.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrieverDiff {
    pub a: String,
    pub b: String,
    /// Posts in both results: the figures and tests are over these.
    pub(crate) posts: usize,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    pub(crate) figures: Vec<FigureChange>,
    pub(crate) changed: Vec<PostChange>,
}

/// The whole diff of two saved results.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub(crate) kind: &'static str,
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) test: TestSettings,
    pub retrievers: Vec<RetrieverDiff>,
    /// Retrievers of A and of B that were not paired with any.
    pub unpaired_a: Vec<String>,
    pub unpaired_b: Vec<String>,
    /// Settings that differ, as `threshold 0.75 → 0.85`.
    pub settings_changed: Vec<String>,
    /// Inputs whose contents differ (`glossary`, `posts`, `labels`,
    /// `prompt`), by the SHA-256 each result recorded.
    pub inputs_differ: Vec<String>,
}

/// Which retrievers to pair: `None` pairs equal names (or the only
/// retriever of each side when no name is shared); `Some((a, b))` pairs
/// exactly those two.
pub(crate) type Pairing = Option<(String, String)>;

/// Parse `--retriever NAME` or `--retriever A_NAME=B_NAME`.
pub fn parse_pairing(s: &str) -> Pairing {
    let (a, b) = s.split_once('=').unwrap_or((s, s));
    Some((a.trim().to_string(), b.trim().to_string()))
}

fn pair_names(a: &Saved, b: &Saved, pairing: &Pairing) -> Result<Vec<(String, String)>, DiffError> {
    let (an, bn) = (a.names(), b.names());
    if let Some((x, y)) = pairing {
        for (side, name, has) in [("A", x, &an), ("B", y, &bn)] {
            if !has.contains(name) {
                return Err(DiffError::NoSuchRetriever {
                    side,
                    name: name.clone(),
                    has: has.clone(),
                });
            }
        }
        return Ok(vec![(x.clone(), y.clone())]);
    }
    let shared: Vec<(String, String)> = an
        .iter()
        .filter(|n| bn.contains(n))
        .map(|n| (n.clone(), n.clone()))
        .collect();
    if !shared.is_empty() {
        return Ok(shared);
    }
    if an.len() == 1 && bn.len() == 1 {
        return Ok(vec![(an[0].clone(), bn[0].clone())]);
    }
    Err(DiffError::NothingShared { a: an, b: bn })
}

/// Diff two saved results of the same kind.
pub fn diff(
    a: &Saved,
    a_path: &str,
    b: &Saved,
    b_path: &str,
    pairing: &Pairing,
    test: TestSettings,
) -> Result<Diff, DiffError> {
    let pairs = pair_names(a, b, pairing)?;
    let retrievers: Vec<RetrieverDiff> = match (a, b) {
        (Saved::Eval(ea), Saved::Eval(eb)) => pairs
            .iter()
            .map(|(x, y)| {
                let ra = ea
                    .retrievers
                    .iter()
                    .find(|r| r.name == *x)
                    .expect("paired names exist");
                let rb = eb
                    .retrievers
                    .iter()
                    .find(|r| r.name == *y)
                    .expect("paired names exist");
                diff_eval(ra, rb, test)
            })
            .collect(),
        (Saved::Run(ra), Saved::Run(rb)) => pairs
            .iter()
            .map(|(x, y)| {
                let mut d = diff_run(x, &ra.posts[x], y, &rb.posts[y], test);
                for c in &mut d.changed {
                    c.split = ra
                        .splits
                        .get(&c.post)
                        .or_else(|| rb.splits.get(&c.post))
                        .copied();
                }
                d
            })
            .collect(),
        _ => {
            return Err(DiffError::DifferentKinds {
                a_path: a_path.to_string(),
                a_kind: a.kind(),
                b_path: b_path.to_string(),
                b_kind: b.kind(),
            })
        }
    };
    // A table of zeros over no shared post would read as "no change".
    if !retrievers.is_empty() && retrievers.iter().all(|r| r.posts == 0) {
        let r = &retrievers[0];
        return Err(DiffError::NoPostShared {
            a_path: a_path.to_string(),
            b_path: b_path.to_string(),
            a_posts: r.only_in_a.len(),
            b_posts: r.only_in_b.len(),
        });
    }
    let unpaired = |names: Vec<String>, side: fn(&(String, String)) -> &String| {
        names
            .into_iter()
            .filter(|n| !pairs.iter().any(|p| side(p) == n))
            .collect::<Vec<_>>()
    };
    // A run folder's `run.json`, read once for its settings and inputs.
    let config_of = |saved: &Saved| match saved {
        Saved::Run(r) => load_config(&r.dir).ok(),
        Saved::Eval(_) => None,
    };
    let (config_a, config_b) = (config_of(a), config_of(b));
    Ok(Diff {
        kind: a.kind(),
        a: a_path.to_string(),
        b: b_path.to_string(),
        test,
        retrievers,
        unpaired_a: unpaired(a.names(), |p| &p.0),
        unpaired_b: unpaired(b.names(), |p| &p.1),
        settings_changed: changes(&settings_of(a, &config_a), &settings_of(b, &config_b)),
        inputs_differ: differing(&inputs_of(a, &config_a), &inputs_of(b, &config_b))
            .map(|(k, _, _)| k.clone())
            .collect(),
    })
}

/// A saved result's settings, `name → value`: the retriever parameters
/// under their own names, then the rest of the run's configuration
/// (`provider.model`, `repeat`, ...). Paths, fingerprints and cache
/// settings are not settings of the result.
fn settings_of(saved: &Saved, config: &Option<RunConfig>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match saved {
        Saved::Eval(e) => {
            for t in crate::retrieve::params::numeric() {
                out.insert(
                    t.name.to_string(),
                    crate::sweep::format_value((t.get)(&e.params)),
                );
            }
            for (name, value) in &e.params.text {
                out.insert(name.clone(), value.clone());
            }
            out.insert("split".into(), e.split.clone());
        }
        Saved::Run(_) => {
            let Some(config) = config else {
                return out;
            };
            let value = serde_json::to_value(config).unwrap_or_default();
            flatten("", &value, &mut out);
            for key in [
                "glossary",
                "posts",
                "labels",
                "inputs",
                "merged_from",
                "shard",
                "version",
                "glossa_version",
                "provider.cache_dir",
                "provider.no_cache",
                "provider.timeout",
            ] {
                out.retain(|k, _| k != key && !k.starts_with(&format!("{key}.")));
            }
            out = out
                .into_iter()
                .map(|(k, v)| (k.strip_prefix("params.").unwrap_or(&k).to_string(), v))
                .collect();
        }
    }
    out
}

/// The fingerprints a saved result recorded, `input → SHA-256`.
fn inputs_of(saved: &Saved, config: &Option<RunConfig>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match saved {
        Saved::Eval(e) => {
            if let Some(i) = &e.inputs {
                out.insert("glossary".into(), i.glossary.clone());
                out.insert("posts".into(), i.posts.clone());
                out.insert("labels".into(), i.labels.clone());
            }
        }
        Saved::Run(_) => {
            if let Some(i) = config.as_ref().and_then(|c| c.inputs.as_ref()) {
                out.insert("glossary".into(), i.glossary.clone());
                out.insert("posts".into(), i.posts.clone());
                out.insert("labels".into(), i.labels.clone());
                out.insert("prompt".into(), i.prompt.clone());
            }
        }
    }
    out
}

/// JSON objects as dotted keys with their values as text.
fn flatten(prefix: &str, value: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match value {
        serde_json::Value::Object(fields) => {
            for (k, v) in fields {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        serde_json::Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        other => {
            out.insert(prefix.to_string(), other.to_string());
        }
    }
}

/// `name a → b` for each name whose values differ; only names both sides
/// know (an older result missing a setting is not a change).
fn changes(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Vec<String> {
    differing(a, b)
        .map(|(k, x, y)| format!("{k} {x} → {y}"))
        .collect()
}

/// The names both sides know whose values differ, with both values.
fn differing<'m>(
    a: &'m BTreeMap<String, String>,
    b: &'m BTreeMap<String, String>,
) -> impl Iterator<Item = (&'m String, &'m String, &'m String)> {
    a.iter()
        .filter_map(|(k, x)| b.get(k).filter(|y| *y != x).map(|y| (k, x, y)))
}

fn article(kind: &str) -> String {
    match kind {
        "eval" => "an eval".to_string(),
        other => format!("a {other}"),
    }
}

/// One post's counts from its eval result.
pub(crate) fn post_counts(p: &PostResult) -> Counts {
    Counts {
        posts: 1,
        complete: usize::from(p.complete),
        needed: p.found + p.missed.len(),
        found: p.found,
        retrieved: p.retrieved.len(),
        extra: p.extra.len(),
        wrong_sense: p.wrong_sense.len(),
    }
}

/// The paired tests on completeness and recall over posts given as
/// (A, B) pairs.
fn eval_tests(
    pairs: &[(&PostResult, &PostResult)],
    test: TestSettings,
) -> (TestResult, TestResult) {
    let complete: Vec<Pair> = pairs
        .iter()
        .map(|(a, b)| Pair::flag(a.complete, b.complete))
        .collect();
    let recall: Vec<Pair> = pairs
        .iter()
        .map(|(a, b)| {
            let (ca, cb) = (post_counts(a), post_counts(b));
            Pair::counts(ca.found, ca.needed, cb.found, cb.needed)
        })
        .collect();
    (
        paired_test(&complete, test.resamples, test.seed),
        paired_test(&recall, test.resamples, test.seed),
    )
}

fn eval_figures(pairs: &[(&PostResult, &PostResult)], test: TestSettings) -> Vec<FigureChange> {
    let (mut ca, mut cb) = (Counts::default(), Counts::default());
    for (a, b) in pairs {
        ca.add(&post_counts(a));
        cb.add(&post_counts(b));
    }
    let (t_complete, t_recall) = eval_tests(pairs, test);
    vec![
        FigureChange::new(
            "complete",
            Value::ratio(ca.complete, ca.posts),
            Value::ratio(cb.complete, cb.posts),
            Some(t_complete),
        ),
        FigureChange::new(
            "recall",
            Value::ratio(ca.found, ca.needed),
            Value::ratio(cb.found, cb.needed),
            Some(t_recall),
        ),
        FigureChange::new(
            "precision",
            Value::ratio(ca.found, ca.retrieved),
            Value::ratio(cb.found, cb.retrieved),
            None,
        ),
        FigureChange::new(
            "extra",
            Value::count(ca.extra),
            Value::count(cb.extra),
            None,
        ),
        FigureChange::new(
            "wrong_sense",
            Value::count(ca.wrong_sense),
            Value::count(cb.wrong_sense),
            None,
        ),
    ]
}

/// A post's status in an eval result: complete, or what it misses and
/// which wrong senses it retrieved.
pub(crate) fn eval_status(p: &PostResult) -> String {
    if p.complete {
        return "complete".to_string();
    }
    let mut parts = Vec::new();
    if !p.missed.is_empty() {
        parts.push(format!("misses {}", p.missed.join(", ")));
    }
    if !p.wrong_sense.is_empty() {
        parts.push(format!("wrong sense {}", p.wrong_sense.join(", ")));
    }
    parts.join("; ")
}

fn minus<'a>(x: &'a [String], y: &[String]) -> Vec<&'a str> {
    x.iter()
        .filter(|v| !y.contains(v))
        .map(String::as_str)
        .collect()
}

/// How a post's status changed, or `None` when it did not: completeness,
/// the needed entries missed, or the wrong senses retrieved.
pub(crate) fn eval_change(a: &PostResult, b: &PostResult) -> Option<String> {
    let same = |x: &[String], y: &[String]| {
        let (mut x, mut y) = (x.to_vec(), y.to_vec());
        x.sort();
        y.sort();
        x == y
    };
    if a.complete == b.complete
        && same(&a.missed, &b.missed)
        && same(&a.wrong_sense, &b.wrong_sense)
    {
        return None;
    }
    let mut parts = Vec::new();
    match (a.complete, b.complete) {
        (false, true) => parts.push("became complete".to_string()),
        (true, false) => parts.push("broke".to_string()),
        _ => {}
    }
    let now_missed = minus(&b.missed, &a.missed);
    if !now_missed.is_empty() {
        parts.push(format!("now misses {}", now_missed.join(", ")));
    }
    let now_found = minus(&a.missed, &b.missed);
    if !now_found.is_empty() {
        parts.push(format!("now finds {}", now_found.join(", ")));
    }
    let new_wrong = minus(&b.wrong_sense, &a.wrong_sense);
    if !new_wrong.is_empty() {
        parts.push(format!("new wrong sense {}", new_wrong.join(", ")));
    }
    let gone_wrong = minus(&a.wrong_sense, &b.wrong_sense);
    if !gone_wrong.is_empty() {
        parts.push(format!("no longer wrong sense {}", gone_wrong.join(", ")));
    }
    Some(parts.join("; "))
}

fn diff_eval(a: &RetrieverResult, b: &RetrieverResult, test: TestSettings) -> RetrieverDiff {
    let b_index: HashMap<&str, &PostResult> =
        b.per_post.iter().map(|p| (p.post.as_str(), p)).collect();
    let a_ids: HashMap<&str, ()> = a.per_post.iter().map(|p| (p.post.as_str(), ())).collect();
    let pairs: Vec<(&PostResult, &PostResult)> = a
        .per_post
        .iter()
        .filter_map(|p| b_index.get(p.post.as_str()).map(|q| (p, *q)))
        .collect();
    let changed = pairs
        .iter()
        .filter_map(|(pa, pb)| {
            eval_change(pa, pb).map(|change| PostChange {
                post: pa.post.clone(),
                split: Some(pa.split),
                a: eval_status(pa),
                b: eval_status(pb),
                change,
            })
        })
        .collect();
    RetrieverDiff {
        a: a.name.clone(),
        b: b.name.clone(),
        posts: pairs.len(),
        only_in_a: a
            .per_post
            .iter()
            .filter(|p| !b_index.contains_key(p.post.as_str()))
            .map(|p| p.post.clone())
            .collect(),
        only_in_b: b
            .per_post
            .iter()
            .filter(|p| !a_ids.contains_key(p.post.as_str()))
            .map(|p| p.post.clone())
            .collect(),
        figures: eval_figures(&pairs, test),
        changed,
    }
}

/// A post's status in a run: right calls of all, failed calls, and where
/// retrieval left it.
pub(crate) fn run_status(p: &PostRun) -> String {
    let group = match p.group {
        Some(Group::Complete) => "retrieval complete",
        Some(Group::Missed) => "a needed entry missed",
        Some(Group::WrongSense) => "a wrong-sense entry retrieved",
        None => "no calls",
    };
    let failed = if p.failed > 0 {
        format!(", {} failed", p.failed)
    } else {
        String::new()
    };
    format!("{} of {} right{failed}; {group}", p.right, p.calls)
}

/// How a post's calls changed between two runs, or `None` when they did
/// not.
pub(crate) fn run_change(a: &PostRun, b: &PostRun) -> Option<String> {
    let rate = |p: &PostRun| (p.calls > 0).then(|| p.right as f64 / p.calls as f64);
    let (ra, rb) = (rate(a), rate(b));
    if ra == rb && a.group == b.group && a.failed == b.failed {
        return None;
    }
    let mut parts = Vec::new();
    match (ra, rb) {
        (Some(x), Some(y)) if x == 0.0 && y == 1.0 => parts.push("became right".to_string()),
        (Some(x), Some(y)) if x == 1.0 && y == 0.0 => parts.push("broke".to_string()),
        (Some(x), Some(y)) if y > x => parts.push("right more often".to_string()),
        (Some(x), Some(y)) if y < x => parts.push("right less often".to_string()),
        _ => {}
    }
    if a.group != b.group {
        parts.push(match b.group {
            Some(Group::Complete) => "retrieval became complete".to_string(),
            Some(Group::Missed) => "retrieval now misses a needed entry".to_string(),
            Some(Group::WrongSense) => "new wrong-sense entry retrieved".to_string(),
            None => "no calls".to_string(),
        });
    }
    if a.failed != b.failed {
        parts.push(format!("failed calls {} → {}", a.failed, b.failed));
    }
    Some(parts.join("; "))
}

fn diff_run(
    a_name: &str,
    a: &[(String, PostRun)],
    b_name: &str,
    b: &[(String, PostRun)],
    test: TestSettings,
) -> RetrieverDiff {
    let b_index: HashMap<&str, &PostRun> = b.iter().map(|(id, p)| (id.as_str(), p)).collect();
    let a_ids: HashMap<&str, ()> = a.iter().map(|(id, _)| (id.as_str(), ())).collect();
    let pairs: Vec<(&str, &PostRun, &PostRun)> = a
        .iter()
        .filter_map(|(id, p)| b_index.get(id.as_str()).map(|q| (id.as_str(), p, *q)))
        .collect();
    let figures = run_figures(&pairs, test);
    let changed = pairs
        .iter()
        .filter_map(|(id, pa, pb)| {
            run_change(pa, pb).map(|change| PostChange {
                post: id.to_string(),
                split: None,
                a: run_status(pa),
                b: run_status(pb),
                change,
            })
        })
        .collect();
    RetrieverDiff {
        a: a_name.to_string(),
        b: b_name.to_string(),
        posts: pairs.len(),
        only_in_a: a
            .iter()
            .filter(|(id, _)| !b_index.contains_key(id.as_str()))
            .map(|(id, _)| id.clone())
            .collect(),
        only_in_b: b
            .iter()
            .filter(|(id, _)| !a_ids.contains_key(id.as_str()))
            .map(|(id, _)| id.clone())
            .collect(),
        figures,
        changed,
    }
}

/// The figures of a run diff over the posts both sides hold: right
/// calls and complete posts (with paired tests), wrong senses used, failed.
fn run_figures(pairs: &[(&str, &PostRun, &PostRun)], test: TestSettings) -> Vec<FigureChange> {
    let complete = |p: &PostRun| p.group == Some(Group::Complete);
    let sum = |f: &dyn Fn(&PostRun) -> usize, side: usize| -> usize {
        pairs
            .iter()
            .map(|(_, x, y)| f(if side == 0 { x } else { y }))
            .sum()
    };
    let right_test = paired_test(
        &pairs
            .iter()
            .map(|(_, x, y)| Pair::counts(x.right, x.calls, y.right, y.calls))
            .collect::<Vec<_>>(),
        test.resamples,
        test.seed,
    );
    let complete_test = paired_test(
        &pairs
            .iter()
            .map(|(_, x, y)| Pair::flag(complete(x), complete(y)))
            .collect::<Vec<_>>(),
        test.resamples,
        test.seed,
    );
    vec![
        FigureChange::new(
            "right",
            Value::ratio(sum(&|p| p.right, 0), sum(&|p| p.calls, 0)),
            Value::ratio(sum(&|p| p.right, 1), sum(&|p| p.calls, 1)),
            Some(right_test),
        ),
        FigureChange::new(
            "complete",
            Value::ratio(sum(&|p| usize::from(complete(p)), 0), pairs.len()),
            Value::ratio(sum(&|p| usize::from(complete(p)), 1), pairs.len()),
            Some(complete_test),
        ),
        FigureChange::new(
            "wrong_sense_used",
            Value::count(sum(&|p| p.wrong_sense_used, 0)),
            Value::count(sum(&|p| p.wrong_sense_used, 1)),
            None,
        ),
        FigureChange::new(
            "failed",
            Value::count(sum(&|p| p.failed, 0)),
            Value::count(sum(&|p| p.failed, 1)),
            None,
        ),
    ]
}

/// One pair of retrievers of one eval result, for `eval --compare`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub(crate) a: String,
    pub(crate) b: String,
    pub(crate) complete: FigureChange,
    pub(crate) recall: FigureChange,
}

/// Every pair (A before B in the result's order) compared on the same
/// posts.
pub fn compare_all(result: &EvalResult, test: TestSettings) -> Vec<Comparison> {
    let mut out = Vec::new();
    for (i, a) in result.retrievers.iter().enumerate() {
        for b in &result.retrievers[i + 1..] {
            let d = diff_eval(a, b, test);
            let mut figures = d.figures.into_iter();
            let complete = figures.next().expect("complete first");
            let recall = figures.next().expect("recall second");
            out.push(Comparison {
                a: a.name.clone(),
                b: b.name.clone(),
                complete,
                recall,
            });
        }
    }
    out
}

/// A path as the user gave it, for messages and reports.
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Load both sides (errors name the file).
pub fn load_both(a: &Path, b: &Path) -> Result<(Saved, Saved), DiffError> {
    Ok((load(a)?, load(b)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(names: &[&str]) -> Saved {
        Saved::Run(SavedRun {
            dir: PathBuf::from("d"),
            splits: HashMap::new(),
            retrievers: names.iter().map(|n| n.to_string()).collect(),
            posts: BTreeMap::new(),
        })
    }

    #[test]
    fn unpaired_retrievers_are_refused_naming_what_each_side_has() {
        let (a, b) = (run_of(&["exact", "fuzzy"]), run_of(&["edit", "stem"]));
        let err = pair_names(&a, &b, &None).unwrap_err().to_string();
        assert_eq!(
            err,
            "A (exact, fuzzy) and B (edit, stem) share no retriever name; pick two with \
             --retriever A_NAME=B_NAME"
        );
        let pairing = Some(("exact".to_string(), "fuzzy".to_string()));
        let err = pair_names(&a, &b, &pairing).unwrap_err().to_string();
        assert_eq!(err, "B has no retriever `fuzzy`; it has: edit, stem");
    }

    #[test]
    fn a_folder_without_calls_is_not_a_run_folder() {
        let dir = tempfile::tempdir().unwrap();
        let err = load(dir.path()).unwrap_err().to_string();
        let calls = dir.path().join(CALLS_FILE);
        assert_eq!(
            err,
            format!(
                "{}: no such file; is {} a run folder made by `glossa run`?",
                calls.display(),
                dir.path().display()
            )
        );
    }

    fn post(id: &str, complete: bool, missed: &[&str], wrong: &[&str]) -> PostResult {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        PostResult {
            post: id.into(),
            retrieved: v(wrong),
            found: 1,
            missed: v(missed),
            extra: v(wrong),
            wrong_sense: v(wrong),
            complete,
            matches: vec![],
            tags: vec![],
            split: Split::Dev,
        }
    }

    #[test]
    fn changes_read_like_a_regression_report() {
        let ok = post("p", true, &[], &[]);
        assert_eq!(eval_change(&ok, &ok), None);
        assert_eq!(
            eval_change(&post("p", false, &["tea"], &[]), &ok).unwrap(),
            "became complete; now finds tea"
        );
        assert_eq!(
            eval_change(&ok, &post("p", false, &[], &["date"])).unwrap(),
            "broke; new wrong sense date"
        );
        assert_eq!(
            eval_change(
                &post("p", false, &["a"], &[]),
                &post("p", false, &["b"], &[])
            )
            .unwrap(),
            "now misses b; now finds a"
        );
        // Order within a list does not matter.
        assert_eq!(
            eval_change(
                &post("p", false, &["a", "b"], &[]),
                &post("p", false, &["b", "a"], &[])
            ),
            None
        );
    }

    #[test]
    fn eval_results_round_trip_through_json() {
        let g = std::sync::Arc::new(
            crate::glossary::Glossary::parse("g.json", "g", r#"{"entries":[{"source":"tea","target":"te"},{"source":"date","target":"zimbo"}]}"#)
                .unwrap(),
        );
        let posts = crate::dataset::join_labels(
            "l.jsonl",
            "{\"post\":\"a\",\"needed\":[\"tea\"],\"tags\":[\"x\"]}\n{\"post\":\"b\",\"wrong_sense\":[\"date\"],\"split\":\"test\"}\n",
            crate::dataset::parse_posts("p.jsonl", "{\"id\":\"a\",\"text\":\"Teas here\"}\n{\"id\":\"b\",\"text\":\"Save the date\"}\n").unwrap(),
            "p.jsonl",
            &g,
        )
        .unwrap();
        let sources = crate::eval::Sources {
            posts_file: "p.jsonl",
            labels_file: "l.jsonl",
            split: "all",
        };
        let specs = vec!["exact".to_string(), "normalised".to_string()];
        let r = crate::eval::evaluate(
            &g,
            &posts,
            &specs,
            &crate::retrieve::Params::default(),
            &sources,
            crate::eval::PerPost::On,
        )
        .unwrap();
        let text = serde_json::to_string(&r).unwrap();
        let back: EvalResult = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }
}
