//! Scoring retrievers on labelled posts: the engine behind `glossa eval`,
//! producing SPEC.md's JSON result.

use crate::dataset::{LabelledPost, Split};
use crate::glossary::Glossary;
use crate::retrieve::{self, best_per_entry, MatchKind, Params, PostView, UnknownRetriever};
use crate::score::{Counts, Figures, PostScore, Tally};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// A match as written in results: the entry by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchOut {
    pub entry: String,
    pub kind: MatchKind,
    pub phrase: String,
    pub score: f64,
}

/// One post's result for one retriever.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostResult {
    pub post: String,
    pub retrieved: Vec<String>,
    pub found: usize,
    pub missed: Vec<String>,
    pub extra: Vec<String>,
    pub wrong_sense: Vec<String>,
    pub complete: bool,
    #[serde(default)]
    pub matches: Vec<MatchOut>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub split: Split,
}

/// One retriever's result over the evaluated posts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RetrieverResult {
    pub name: String,
    #[serde(flatten)]
    pub figures: Figures,
    #[serde(default)]
    pub by_tag: BTreeMap<String, Figures>,
    #[serde(default)]
    pub by_split: BTreeMap<Split, Figures>,
    /// Wall time spent retrieving and scoring, in seconds.
    #[serde(default)]
    pub seconds: f64,
    pub per_post: Vec<PostResult>,
}

impl RetrieverResult {
    pub fn counts(&self) -> &Counts {
        &self.figures.0
    }
}

/// The whole result of `glossa eval`. Reads back what it writes; fields
/// beyond SPEC.md's stable ones default when absent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EvalResult {
    pub glossary: String,
    pub posts_file: String,
    pub labels_file: String,
    /// `all`, `dev` or `test`: which posts were scored.
    #[serde(default)]
    pub split: String,
    #[serde(default)]
    pub params: Params,
    #[serde(default)]
    pub glossa_version: String,
    pub retrievers: Vec<RetrieverResult>,
}

/// Names of the files a result came from.
pub struct Sources<'a> {
    pub posts_file: &'a str,
    pub labels_file: &'a str,
    pub split: &'a str,
}

/// Score each retriever spec on `posts`.
pub fn evaluate(
    glossary: &Arc<Glossary>,
    posts: &[LabelledPost],
    specs: &[String],
    params: &Params,
    sources: &Sources,
) -> Result<EvalResult, UnknownRetriever> {
    let retrievers = specs
        .iter()
        .map(|spec| retrieve::build(spec, glossary, params).map(|r| (spec, r)))
        .collect::<Result<Vec<_>, _>>()?;
    let views: Vec<PostView> = posts
        .iter()
        .map(|p| PostView::new(&p.post.text, Some(&p.label.needed)))
        .collect();
    let id = |e: &usize| glossary.entries[*e].id.clone();
    let ids = |v: &[usize]| v.iter().map(id).collect::<Vec<_>>();
    let mut results = Vec::with_capacity(retrievers.len());
    for (spec, retriever) in retrievers {
        let started = Instant::now();
        let mut tally = Tally::default();
        let mut per_post = Vec::with_capacity(posts.len());
        for (post, view) in posts.iter().zip(&views) {
            let matches = best_per_entry(retriever.retrieve(view));
            let score = PostScore::new(matches.iter().map(|m| m.entry).collect(), &post.label);
            tally.add(&score, &post.label);
            per_post.push(PostResult {
                post: post.post.id.clone(),
                retrieved: ids(&score.retrieved),
                found: score.found.len(),
                missed: ids(&score.missed),
                extra: ids(&score.extra),
                wrong_sense: ids(&score.wrong_sense),
                complete: score.complete,
                matches: matches
                    .into_iter()
                    .map(|m| MatchOut {
                        entry: id(&m.entry),
                        kind: m.kind,
                        phrase: m.phrase,
                        score: m.score,
                    })
                    .collect(),
                tags: post.label.tags.clone(),
                split: post.label.split,
            });
        }
        results.push(RetrieverResult {
            name: spec.clone(),
            figures: Figures(tally.total),
            by_tag: tally
                .by_tag
                .into_iter()
                .map(|(k, v)| (k, Figures(v)))
                .collect(),
            by_split: tally
                .by_split
                .into_iter()
                .map(|(k, v)| (k, Figures(v)))
                .collect(),
            seconds: started.elapsed().as_secs_f64(),
            per_post,
        });
    }
    Ok(EvalResult {
        glossary: glossary.name.clone(),
        posts_file: sources.posts_file.to_string(),
        labels_file: sources.labels_file.to_string(),
        split: sources.split.to_string(),
        params: *params,
        glossa_version: env!("CARGO_PKG_VERSION").to_string(),
        retrievers: results,
    })
}
