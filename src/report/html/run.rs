//! The HTML report of a run folder: the run's tables, then a row per call
//! (retriever, repeat, post) with the post's glossary terms marked, the
//! output with each needed target found and each wrong-sense target
//! leaked, and the entries retrieved against those needed.

use super::{escape, list, marked, places_of_key, Mark, MarkKind, Row};
use crate::dataset::LabelledPost;
use crate::glossary::{Entry, Glossary};
use crate::retrieve::PostView;
use crate::run_dir::record::CallRecord;
use crate::run_dir::summary::Summary;
use crate::target_match::Haystack;
use std::collections::HashMap;
use std::fmt::Write as _;

/// What a run's page shows.
pub struct RunPage<'a> {
    /// The folder, as the user named it.
    pub shown: &'a str,
    pub summary: &'a Summary,
    /// The latest record of each call, in file order.
    pub calls: &'a [CallRecord],
    /// The run's glossary and labelled posts, when they can still be read:
    /// without them rows have no text, targets or needed entries.
    pub glossary: Option<&'a Glossary>,
    pub posts: &'a [LabelledPost],
    /// Said under the title (why texts are missing, say).
    pub note: Option<&'a str>,
}

/// The page of a run.
pub fn run_page(page: &RunPage) -> String {
    let mut facts = vec![("Run folder", page.shown.to_string())];
    if let Some(first) = page.calls.first() {
        facts.push(("Provider", first.provider.clone()));
        facts.push(("Model", first.model.clone()));
        facts.push((
            "Prompt",
            format!("{} {}", first.prompt.name, first.prompt.version),
        ));
    }
    facts.push(("Calls", page.summary.calls.to_string()));
    facts.push(("Failed calls", page.summary.failed.to_string()));
    if let Some(note) = page.note {
        facts.push(("Note", note.to_string()));
    }
    let mut tables = super::table(&crate::report::run::table(page.summary));
    if let Some(tokens) = &page.summary.tokens {
        tables.push_str(&super::table(&crate::report::run::tokens_table(tokens)));
    }
    let mut body = super::section("summary", "Summary", &tables);
    let posts: HashMap<&str, &LabelledPost> =
        page.posts.iter().map(|p| (p.post.id.as_str(), p)).collect();
    // By retriever (as first seen), then in posts-file order, then repeat:
    // calls finish in any order under -j.
    let post_order: HashMap<&str, usize> = page
        .posts
        .iter()
        .enumerate()
        .map(|(i, p)| (p.post.id.as_str(), i))
        .collect();
    let mut retrievers: Vec<&str> = Vec::new();
    for c in page.calls {
        if !retrievers.contains(&c.retriever.as_str()) {
            retrievers.push(&c.retriever);
        }
    }
    let mut calls: Vec<&CallRecord> = page.calls.iter().collect();
    calls.sort_by_key(|c| {
        (
            retrievers.iter().position(|r| *r == c.retriever),
            post_order
                .get(c.post.as_str())
                .copied()
                .unwrap_or(usize::MAX),
            c.repeat,
        )
    });
    let rows: Vec<Row> = calls
        .into_iter()
        .map(|c| row(c, page.glossary, posts.get(c.post.as_str()).copied()))
        .collect();
    let listing = super::legend(&[
        MarkKind::Found,
        MarkKind::Missed,
        MarkKind::Extra,
        MarkKind::Wrong,
        MarkKind::Leaked,
    ]) + &super::rows_table(
        "A row per call; Details shows the post, the output and the entries",
        &[
            "Retriever",
            "Repeat",
            "Post",
            "Status",
            "Missing",
            "Leaked",
            "Error",
        ],
        &rows,
        super::Filters {
            error: true,
            changed: false,
        },
    );
    body.push_str(&super::section("posts", "Calls", &listing));
    super::document("glossa run report", &facts, &body)
}

fn row(c: &CallRecord, glossary: Option<&Glossary>, post: Option<&LabelledPost>) -> Row {
    let error = c.error.is_some();
    let failing = !c.right();
    let status_text = if error {
        "failed call"
    } else if c.right() {
        "right"
    } else if c.check.echo {
        "wrong: echo"
    } else {
        "wrong"
    };
    Row {
        retriever: c.retriever.clone(),
        failing,
        error,
        changed: false,
        cells: vec![
            escape(&c.retriever).into_owned(),
            c.repeat.to_string(),
            escape(&c.post).into_owned(),
            super::status(status_text, failing, error),
            list(&c.check.missing),
            list(&c.check.leaked),
            escape(c.error.as_deref().unwrap_or("")).into_owned(),
        ],
        details: details(c, glossary, post),
    }
}

/// The entries of a call: needed, retrieved, wrong sense, by id.
struct Entries<'a> {
    needed: Vec<&'a Entry>,
    wrong: Vec<&'a Entry>,
    retrieved: Vec<&'a Entry>,
}

fn entries<'a>(c: &CallRecord, g: &'a Glossary, post: Option<&LabelledPost>) -> Entries<'a> {
    let by_index =
        |v: &[usize]| -> Vec<&'a Entry> { v.iter().filter_map(|&i| g.entries.get(i)).collect() };
    let by_id = |v: &[String]| -> Vec<&'a Entry> {
        v.iter()
            .filter_map(|id| g.index_of(id).map(|i| &g.entries[i]))
            .collect()
    };
    Entries {
        needed: post.map_or_else(Vec::new, |p| by_index(&p.label.needed)),
        wrong: post.map_or_else(Vec::new, |p| by_index(&p.label.wrong_sense)),
        retrieved: by_id(&c.retrieved),
    }
}

fn details(c: &CallRecord, glossary: Option<&Glossary>, post: Option<&LabelledPost>) -> String {
    let mut out = String::from("<h3>Post</h3>");
    let e = glossary.map(|g| entries(c, g, post));
    match post {
        Some(p) => {
            let marks = e
                .as_ref()
                .map_or_else(Vec::new, |e| source_marks(&p.post.text, e));
            out.push_str(&marked(&p.post.text, marks));
        }
        None => out.push_str("<p class=\"note\">The post's text is not available.</p>"),
    }
    out.push_str("<h3>Output</h3>");
    match (&c.output, &c.partial_output) {
        (Some(output), _) => {
            let marks = e
                .as_ref()
                .map_or_else(Vec::new, |e| target_marks(output, e, c));
            out.push_str(&marked(output, marks));
        }
        (None, Some(partial)) => {
            out.push_str(
                "<p class=\"note\">No output: the call failed. What came back (not checked):</p>",
            );
            out.push_str(&marked(partial, Vec::new()));
        }
        (None, None) => out.push_str("<p class=\"note\">No output: the call failed.</p>"),
    }
    if let Some(e) = &e {
        out.push_str(&entries_table(e, c));
    }
    out
}

/// Each needed or retrieved entry where its source or an alias is written
/// in the post.
fn source_marks(text: &str, e: &Entries) -> Vec<Mark> {
    let view = PostView::new(text, None);
    let mut marks = Vec::new();
    let is = |v: &[&Entry], x: &Entry| v.iter().any(|y| y.id == x.id);
    let mut seen: Vec<&str> = Vec::new();
    for entry in e.needed.iter().chain(&e.retrieved).chain(&e.wrong) {
        if seen.contains(&entry.id.as_str()) {
            continue;
        }
        seen.push(&entry.id);
        let retrieved = is(&e.retrieved, entry);
        let (kind, word) = if is(&e.needed, entry) {
            if retrieved {
                (MarkKind::Found, "needed, retrieved")
            } else {
                (MarkKind::Missed, "needed, not retrieved")
            }
        } else if is(&e.wrong, entry) {
            if !retrieved {
                continue;
            }
            (MarkKind::Wrong, "wrong sense, retrieved")
        } else {
            (MarkKind::Extra, "retrieved, not needed")
        };
        for key in std::iter::once(&entry.key).chain(&entry.alias_keys) {
            for range in places_of_key(&view, key) {
                marks.push(Mark {
                    range,
                    kind,
                    label: format!("{}: {word}", entry.id),
                });
            }
        }
    }
    marks
}

/// Where each needed target (or form) stands in the output, and each
/// leaked wrong-sense target.
fn target_marks(output: &str, e: &Entries, c: &CallRecord) -> Vec<Mark> {
    let hay = Haystack::new(output);
    let mut marks = Vec::new();
    let mut add = |entry: &Entry, kind: MarkKind, word: &str| {
        for spelling in std::iter::once(&entry.target).chain(&entry.forms) {
            for range in hay.find_cased(spelling, entry.case_sensitive) {
                marks.push(Mark {
                    range,
                    kind,
                    label: format!("{}: {word}", entry.id),
                });
            }
        }
    };
    for entry in &e.needed {
        if !c.check.missing.contains(&entry.id) {
            add(entry, MarkKind::Found, "needed target, found");
        }
    }
    for entry in &e.wrong {
        if c.check.leaked.contains(&entry.id) {
            add(entry, MarkKind::Leaked, "wrong-sense target, leaked");
        }
    }
    marks
}

fn entries_table(e: &Entries, c: &CallRecord) -> String {
    let mut out = String::from(
        "<table><caption>Entries: needed and retrieved</caption><thead><tr>\
         <th scope=\"col\">Entry</th><th scope=\"col\">Source</th><th scope=\"col\">Target</th>\
         <th scope=\"col\">Needed</th><th scope=\"col\">Retrieved</th><th scope=\"col\">In the output</th>\
         </tr></thead><tbody>",
    );
    let mut seen: Vec<&str> = Vec::new();
    for entry in e.needed.iter().chain(&e.retrieved).chain(&e.wrong) {
        if seen.contains(&entry.id.as_str()) {
            continue;
        }
        seen.push(&entry.id);
        let needed = e.needed.iter().any(|x| x.id == entry.id);
        let wrong = e.wrong.iter().any(|x| x.id == entry.id);
        let retrieved = e.retrieved.iter().any(|x| x.id == entry.id);
        let in_output = if c.output.is_none() {
            "–"
        } else if c.check.missing.contains(&entry.id) {
            "missing"
        } else if c.check.leaked.contains(&entry.id) {
            "leaked"
        } else if needed {
            "found"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&entry.id),
            escape(&entry.source),
            escape(&entry.target),
            if needed {
                "yes"
            } else if wrong {
                "no: wrong sense"
            } else {
                "no"
            },
            if retrieved { "yes" } else { "no" },
            in_output
        );
    }
    out.push_str("</tbody></table>");
    out
}
