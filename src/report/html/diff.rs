//! The HTML report of `glossa diff A B --format html`: the figures with
//! their changes and p-values, then a row per post both sides hold, its
//! status in A and in B, the changed ones flagged.

use super::{escape, Row};
use crate::diff::{eval_change, eval_status, run_change, run_status, Diff, Saved};
use std::collections::HashMap;

/// The page of `diff` between the saved results `a` and `b` it was made
/// of. `texts` holds post texts by id: an eval diff's rows then show the
/// post as A's and B's retrievers marked it.
pub fn diff_page(diff: &Diff, a: &Saved, b: &Saved, texts: &HashMap<String, String>) -> String {
    let mut facts = vec![
        ("A", diff.a.clone()),
        ("B", diff.b.clone()),
        ("Kind", diff.kind.to_string()),
        ("p-values", diff.test.describe()),
    ];
    for change in &diff.settings_changed {
        facts.push(("Setting changed", change.clone()));
    }
    if !diff.inputs_differ.is_empty() {
        facts.push((
            "Warning",
            format!(
                "A and B differ in their {} (by SHA-256): the figures are about different data",
                diff.inputs_differ.join(", ")
            ),
        ));
    }
    let tables: String = crate::report::diff::tables(diff)
        .iter()
        .take(1)
        .map(super::table)
        .collect();
    let mut body = super::section("summary", "Figures", &tables);
    let rows = rows(diff, a, b, texts);
    let listing = super::rows_table(
        "A row per retriever and post in both A and B",
        &["Retriever", "Post", "A", "B", "Change"],
        &rows,
        super::Filters {
            error: matches!(b, Saved::Run(_)),
            changed: true,
        },
    );
    body.push_str(&super::section("posts", "Posts", &listing));
    super::document("glossa diff report", &facts, &body)
}

/// "exact", or "exact → fuzzy" when the sides' names differ.
fn pair_name(a: &str, b: &str) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a} → {b}")
    }
}

fn rows(diff: &Diff, a: &Saved, b: &Saved, texts: &HashMap<String, String>) -> Vec<Row> {
    let mut out = Vec::new();
    for r in &diff.retrievers {
        let name = pair_name(&r.a, &r.b);
        match (a, b) {
            (Saved::Eval(ea), Saved::Eval(eb)) => {
                let (Some(ra), Some(rb)) = (
                    ea.retrievers.iter().find(|x| x.name == r.a),
                    eb.retrievers.iter().find(|x| x.name == r.b),
                ) else {
                    continue;
                };
                for pa in &ra.per_post {
                    let Some(pb) = rb.per_post.iter().find(|p| p.post == pa.post) else {
                        continue;
                    };
                    let change = eval_change(pa, pb);
                    let mut r = row(
                        &name,
                        &pa.post,
                        (eval_status(pa), eval_status(pb)),
                        change,
                        !pb.complete,
                        false,
                    );
                    let text = texts.get(&pa.post).map(String::as_str);
                    r.details = format!(
                        "<h3>A: {}</h3>{}<h3>B: {}</h3>{}",
                        escape(&ra.name),
                        super::eval::details(pa, text),
                        escape(&rb.name),
                        super::eval::details(pb, text)
                    );
                    out.push(r);
                }
            }
            (Saved::Run(sa), Saved::Run(sb)) => {
                let (Some(pa_all), Some(pb_all)) = (sa.posts.get(&r.a), sb.posts.get(&r.b)) else {
                    continue;
                };
                for (id, pa) in pa_all {
                    let Some((_, pb)) = pb_all.iter().find(|(x, _)| x == id) else {
                        continue;
                    };
                    out.push(row(
                        &name,
                        id,
                        (run_status(pa), run_status(pb)),
                        run_change(pa, pb),
                        pb.right < pb.calls,
                        pb.failed > 0,
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

fn row(
    name: &str,
    post: &str,
    (a, b): (String, String),
    change: Option<String>,
    failing: bool,
    error: bool,
) -> Row {
    Row {
        retriever: name.to_string(),
        failing,
        error,
        changed: change.is_some(),
        cells: vec![
            escape(name).into_owned(),
            escape(post).into_owned(),
            escape(&a).into_owned(),
            super::status(&b, failing, error),
            escape(change.as_deref().unwrap_or("")).into_owned(),
        ],
        details: String::new(),
    }
}
