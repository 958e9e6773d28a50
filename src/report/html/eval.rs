//! The HTML report of an eval result: its tables, then a row per
//! (retriever, post) with the post's matched terms marked and the entries
//! retrieved against those needed, each with how it matched.

use super::{escape, list, marked, places_of_key, Mark, MarkKind, Row};
use crate::eval::{EvalResult, PostResult};
use crate::retrieve::PostView;
use std::collections::HashMap;
use std::fmt::Write as _;

/// The page of `result`. `texts` holds each post's text by id (from the
/// posts file); a post without one is listed without its text, and
/// `texts_note` says why under the title.
pub fn eval_page(
    result: &EvalResult,
    shown: &str,
    texts: &HashMap<String, String>,
    texts_note: Option<&str>,
) -> String {
    let mut facts = vec![
        ("Result", shown.to_string()),
        ("Glossary", result.glossary.clone()),
        ("Posts", result.posts_file.clone()),
        ("Labels", result.labels_file.clone()),
        ("Split", result.split.clone()),
        ("glossa", result.glossa_version.clone()),
    ];
    if let Some(note) = texts_note {
        facts.push(("Note", note.to_string()));
    }
    let mut body = String::new();
    let by_tag = result.retrievers.iter().any(|r| !r.by_tag.is_empty());
    let tables: String = crate::report::eval::tables(result, by_tag)
        .iter()
        .map(super::table)
        .collect();
    body.push_str(&super::section("summary", "Summary", &tables));
    let rows: Vec<Row> = result
        .retrievers
        .iter()
        .flat_map(|r| r.per_post.iter().map(move |p| (r.name.as_str(), p)))
        .map(|(name, p)| row(name, p, texts.get(&p.post).map(String::as_str)))
        .collect();
    let posts = if rows.is_empty() {
        "<p class=\"note\">This result has no per-post details (`glossa eval --per-post on` keeps them).</p>\n".to_string()
    } else {
        super::legend(&[MarkKind::Found, MarkKind::Extra, MarkKind::Wrong])
            + &super::rows_table(
                "A row per retriever and post; Details shows the post and its entries",
                &[
                    "Retriever",
                    "Post",
                    "Split",
                    "Status",
                    "Missed",
                    "Wrong sense",
                    "Extra",
                ],
                &rows,
                super::Filters {
                    error: false,
                    changed: false,
                },
            )
    };
    body.push_str(&super::section("posts", "Posts", &posts));
    super::document("glossa eval report", &facts, &body)
}

fn row(retriever: &str, p: &PostResult, text: Option<&str>) -> Row {
    let failing = !p.complete;
    let status_text = if p.complete { "complete" } else { "incomplete" };
    Row {
        retriever: retriever.to_string(),
        failing,
        error: false,
        changed: false,
        cells: vec![
            escape(retriever).into_owned(),
            escape(&p.post).into_owned(),
            escape(&p.split.to_string()).into_owned(),
            super::status(status_text, failing, false),
            list(&p.missed),
            list(&p.wrong_sense),
            list(&p.extra),
        ],
        details: details(p, text),
    }
}

/// What a retrieved entry was for this post.
fn kind_of(p: &PostResult, entry: &str) -> MarkKind {
    let has = |v: &[String]| v.iter().any(|e| e == entry);
    if has(&p.wrong_sense) {
        MarkKind::Wrong
    } else if has(&p.extra) {
        MarkKind::Extra
    } else {
        MarkKind::Found
    }
}

/// A post's text with its matches marked, and its entries table.
pub(super) fn details(p: &PostResult, text: Option<&str>) -> String {
    let mut out = String::from("<h3>Post</h3>");
    match text {
        Some(text) => {
            let view = PostView::new(text, None);
            let marks = p
                .matches
                .iter()
                .flat_map(|m| {
                    let kind = kind_of(p, &m.entry);
                    let label = format!("{}: {} ({})", m.entry, kind_word(kind), m.kind);
                    places_of_key(&view, &m.phrase)
                        .into_iter()
                        .map(move |range| Mark {
                            range,
                            kind,
                            label: label.clone(),
                        })
                })
                .collect();
            out.push_str(&marked(text, marks));
        }
        None => out.push_str("<p class=\"note\">The post's text is not available.</p>"),
    }
    out.push_str(
        "<table><caption>Entries: needed and retrieved</caption><thead><tr>\
         <th scope=\"col\">Entry</th><th scope=\"col\">Needed</th><th scope=\"col\">Retrieved</th>\
         <th scope=\"col\">How it matched</th><th scope=\"col\">Phrase</th><th scope=\"col\" class=\"num\">Score</th>\
         </tr></thead><tbody>",
    );
    let needed: Vec<&String> = p
        .retrieved
        .iter()
        .filter(|e| !p.extra.contains(e))
        .chain(&p.missed)
        .collect();
    let mut entries: Vec<&String> = needed.clone();
    entries.extend(p.retrieved.iter().filter(|e| !needed.contains(e)));
    for entry in entries {
        let is_needed = needed.contains(&entry);
        let retrieved = p.retrieved.contains(entry);
        let m = p.matches.iter().find(|m| &m.entry == entry);
        let needed_cell = if p.wrong_sense.contains(entry) {
            "no: wrong sense"
        } else if is_needed {
            "yes"
        } else {
            "no"
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            escape(entry),
            needed_cell,
            if retrieved { "yes" } else { "no: missed" },
            m.map_or(String::new(), |m| m.kind.to_string()),
            escape(m.map_or("", |m| m.phrase.as_str())),
            m.map_or(String::new(), |m| format!("{:.2}", m.score)),
        );
    }
    out.push_str("</tbody></table>");
    out
}

fn kind_word(kind: MarkKind) -> &'static str {
    match kind {
        MarkKind::Found => "needed, found",
        MarkKind::Wrong => "wrong sense",
        MarkKind::Extra => "not needed",
        MarkKind::Missed => "needed, missed",
        MarkKind::Leaked => "leaked",
    }
}
