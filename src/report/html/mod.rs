//! One-file HTML reports (`glossa report`, `glossa diff --format html`):
//! the summary tables, per-post rows a reader filters (failing, errors,
//! changed between A and B, one retriever), and in each row the post with
//! its glossary terms marked, the output with its targets found or leaked,
//! and the entries retrieved against those needed (docs/formats.md, "HTML
//! report").
//!
//! The page opens offline: its CSS and script are inline, and its
//! Content-Security-Policy lets nothing else load (no network, no other
//! script; the sweep chart is a `data:` image). Every text that comes from
//! a user's files (posts, outputs, entry ids, file names) is escaped here.

mod diff;
mod eval;
mod run;
mod sweep;

pub use diff::diff_page;
pub use eval::eval_page;
pub use run::{run_page, RunPage};
pub use sweep::sweep_page;

use super::{Align, Table};
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

const CSS: &str = include_str!("report.css");
const JS: &str = include_str!("report.js");

/// `text` safe in HTML text and in a quoted attribute value.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    quick_xml::escape::escape(text)
}

fn csp_hash(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// `bytes` as a `data:` URL of `mime`.
fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// The whole document: `facts` (label, value) under the title, then `body`
/// (HTML). The policy allows the page's own style and script (by hash)
/// and `data:` images, nothing else.
fn document(title: &str, facts: &[(&str, String)], body: &str) -> String {
    let policy = format!(
        "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        csp_hash(JS)
    );
    let mut meta = String::new();
    if !facts.is_empty() {
        meta.push_str("<dl class=\"meta\">");
        for (label, value) in facts.iter().filter(|(_, v)| !v.is_empty()) {
            let _ = write!(meta, "<dt>{}</dt><dd>{}</dd>", escape(label), escape(value));
        }
        meta.push_str("</dl>");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"generator\" content=\"glossa {version}\">\n\
         <title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <header><h1>{title}</h1>{meta}</header>\n<main>\n{body}</main>\n\
         <script>{JS}</script>\n</body>\n</html>\n",
        version = env!("CARGO_PKG_VERSION"),
        title = escape(title),
    )
}

/// A report table as an HTML table, its title as the caption.
fn table(t: &Table) -> String {
    if t.rows.is_empty() {
        if let Some(note) = &t.when_empty {
            return format!("<p class=\"note\">{}</p>\n", escape(note));
        }
    }
    let class = |a: &Align| {
        if *a == Align::Right {
            " class=\"num\""
        } else {
            ""
        }
    };
    let mut out = String::from("<table>");
    if let Some(title) = &t.title {
        let _ = write!(out, "<caption>{}</caption>", escape(title));
    }
    out.push_str("<thead><tr>");
    for (h, a) in t.headers.iter().zip(&t.align) {
        let _ = write!(out, "<th scope=\"col\"{}>{}</th>", class(a), escape(h));
    }
    out.push_str("</tr></thead><tbody>");
    for row in &t.rows {
        out.push_str("<tr>");
        for (cell, a) in row.iter().zip(&t.align) {
            let _ = write!(out, "<td{}>{}</td>", class(a), escape(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n");
    out
}

/// A section with a heading.
fn section(id: &str, heading: &str, body: &str) -> String {
    format!(
        "<section aria-labelledby=\"{id}\">\n<h2 id=\"{id}\">{}</h2>\n{body}</section>\n",
        escape(heading)
    )
}

/// How a marked stretch of text reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkKind {
    /// A needed term found (post) or a needed target standing (output).
    Found,
    /// A needed term the retriever did not find.
    Missed,
    /// A term retrieved but not needed.
    Extra,
    /// A wrong-sense term retrieved.
    Wrong,
    /// A wrong-sense target standing in the output.
    Leaked,
}

impl MarkKind {
    fn class(self) -> &'static str {
        match self {
            MarkKind::Found => "found",
            MarkKind::Missed => "missed",
            MarkKind::Extra => "extra",
            MarkKind::Wrong => "wrong",
            MarkKind::Leaked => "leaked",
        }
    }
}

/// A stretch of text to mark, with what it is (shown as its title).
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    pub(crate) range: Range<usize>,
    pub(crate) kind: MarkKind,
    pub(crate) label: String,
}

/// `text`, escaped, with `marks` as `<mark>` elements: earlier first, the
/// longer of two that start together; one overlapping a kept mark is
/// dropped (its entry is still listed in the row's entries table).
fn marked(text: &str, mut marks: Vec<Mark>) -> String {
    marks.sort_by_key(|m| (m.range.start, std::cmp::Reverse(m.range.end)));
    let mut out = String::from("<div class=\"text\">");
    let mut at = 0;
    for m in marks {
        let r = &m.range;
        if r.start < at
            || r.end > text.len()
            || r.start >= r.end
            || !text.is_char_boundary(r.start)
            || !text.is_char_boundary(r.end)
        {
            continue;
        }
        out.push_str(&escape(&text[at..r.start]));
        let _ = write!(
            out,
            "<mark class=\"{}\" title=\"{}\">{}</mark>",
            m.kind.class(),
            escape(&m.label),
            escape(&text[r.clone()])
        );
        at = r.end;
    }
    out.push_str(&escape(&text[at..]));
    out.push_str("</div>");
    out
}

/// What each mark colour means.
fn legend(kinds: &[MarkKind]) -> String {
    let word = |k: &MarkKind| match k {
        MarkKind::Found => "needed, found",
        MarkKind::Missed => "needed, missed",
        MarkKind::Extra => "retrieved, not needed",
        MarkKind::Wrong => "wrong sense retrieved",
        MarkKind::Leaked => "wrong-sense target in the output",
    };
    let mut out = String::from("<p class=\"legend\">Marks: ");
    for k in kinds {
        let _ = write!(out, "<mark class=\"{}\">{}</mark>", k.class(), word(k));
    }
    out.push_str("</p>\n");
    out
}

/// One filterable row group: the cells of its row (HTML) and, below it,
/// its details (HTML) folded in a `<details>`.
#[derive(Debug, Default)]
struct Row {
    retriever: String,
    failing: bool,
    error: bool,
    changed: bool,
    cells: Vec<String>,
    details: String,
}

/// Which filters a page offers besides "all".
#[derive(Debug, Clone, Copy)]
struct Filters {
    error: bool,
    changed: bool,
}

/// The filter buttons, the retriever choice and the rows, each row's
/// details under it. `headers` are the row cells' headers.
fn rows_table(caption: &str, headers: &[&str], rows: &[Row], filters: Filters) -> String {
    let count = |f: fn(&Row) -> bool| rows.iter().filter(|r| f(r)).count();
    let mut out =
        String::from("<div class=\"filters\" role=\"group\" aria-label=\"Which rows to show\">");
    let mut button = |name: &str, label: &str, n: usize, pressed: bool| {
        let _ = write!(
            out,
            "<button type=\"button\" data-filter=\"{name}\" aria-pressed=\"{pressed}\">{label} ({n})</button>"
        );
    };
    button("all", "All", rows.len(), true);
    button("failing", "Failing", count(|r| r.failing), false);
    if filters.error {
        button("error", "Errors", count(|r| r.error), false);
    }
    if filters.changed {
        button("changed", "Changed", count(|r| r.changed), false);
    }
    let mut retrievers: Vec<&str> = Vec::new();
    for r in rows {
        if !retrievers.contains(&r.retriever.as_str()) {
            retrievers.push(&r.retriever);
        }
    }
    if retrievers.len() > 1 {
        out.push_str(
            "<label for=\"retriever-filter\">Retriever</label>\
             <select id=\"retriever-filter\"><option value=\"\">every one</option>",
        );
        for r in &retrievers {
            let _ = write!(out, "<option value=\"{0}\">{0}</option>", escape(r));
        }
        out.push_str("</select>");
    }
    let _ = write!(
        out,
        "</div>\n<p id=\"shown\" class=\"note\" aria-live=\"polite\">{} rows</p>\n",
        rows.len()
    );
    let _ = write!(
        out,
        "<table class=\"posts\"><caption>{}</caption><thead><tr>",
        escape(caption)
    );
    for h in headers {
        let _ = write!(out, "<th scope=\"col\">{}</th>", escape(h));
    }
    out.push_str("</tr></thead>\n");
    for r in rows {
        let _ = write!(
            out,
            "<tbody class=\"post\" data-retriever=\"{}\" data-failing=\"{}\" data-error=\"{}\" data-changed=\"{}\"><tr class=\"row\">",
            escape(&r.retriever),
            r.failing,
            r.error,
            r.changed
        );
        for c in &r.cells {
            let _ = write!(out, "<td>{c}</td>");
        }
        out.push_str("</tr>");
        if !r.details.is_empty() {
            let _ = write!(
                out,
                "<tr class=\"detail\"><td colspan=\"{}\"><details><summary>Details</summary>{}</details></td></tr>",
                headers.len(),
                r.details
            );
        }
        out.push_str("</tbody>\n");
    }
    out.push_str("</table>\n");
    out
}

/// A status cell: `text` in the colour of failing, erring or passing.
fn status(text: &str, failing: bool, error: bool) -> String {
    let class = if error {
        "status-error"
    } else if failing {
        "status-fail"
    } else {
        "status-ok"
    };
    format!("<span class=\"{class}\">{}</span>", escape(text))
}

/// Ids joined by ", ", escaped.
fn list(ids: &[String]) -> String {
    escape(&ids.join(", ")).into_owned()
}

/// Where each phrase key stands in a post: the byte ranges of the runs of
/// words whose key (lower-cased words joined by a space, as retrievers
/// write a match's `phrase`) is `key`.
/// A key written with symbols the words leave out (`<b>` cake) is looked
/// for as written instead, ignoring case, at word boundaries.
fn places_of_key(view: &crate::retrieve::PostView, key: &str) -> Vec<Range<usize>> {
    let n = crate::glossary::word_count(key);
    if n == 0 || key.trim().is_empty() {
        return Vec::new();
    }
    let by_words: Vec<Range<usize>> = (0..(view.words.len() + 1).saturating_sub(n))
        .filter(|&first| view.key_of(first, n) == key)
        .map(|first| view.words[first].start..view.words[first + n - 1].end)
        .collect();
    if !by_words.is_empty() {
        return by_words;
    }
    crate::target_match::Haystack::new(view.text).find(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_escape_the_text_around_and_inside_them() {
        let text = "a <b> & \"c\"";
        let html = marked(
            text,
            vec![Mark {
                range: 2..5,
                kind: MarkKind::Found,
                label: "<x>".into(),
            }],
        );
        assert_eq!(
            html,
            "<div class=\"text\">a <mark class=\"found\" title=\"&lt;x&gt;\">&lt;b&gt;</mark> &amp; &quot;c&quot;</div>"
        );
    }

    #[test]
    fn overlapping_marks_keep_the_earlier_and_longer() {
        let m = |range: Range<usize>, kind| Mark {
            range,
            kind,
            label: String::new(),
        };
        let html = marked(
            "iced coffee",
            vec![
                m(5..11, MarkKind::Extra),
                m(0..11, MarkKind::Found),
                m(0..4, MarkKind::Wrong),
            ],
        );
        assert_eq!(
            html,
            "<div class=\"text\"><mark class=\"found\" title=\"\">iced coffee</mark></div>"
        );
        // A range off a character boundary is dropped, not a panic.
        assert_eq!(
            marked("é", vec![m(1..2, MarkKind::Found)]),
            "<div class=\"text\">é</div>"
        );
    }

    #[test]
    fn the_policy_allows_exactly_the_inline_style_and_script() {
        let page = document("t", &[], "");
        let style = page
            .split("<style>")
            .nth(1)
            .unwrap()
            .split("</style>")
            .next()
            .unwrap();
        let script = page
            .split("<script>")
            .nth(1)
            .unwrap()
            .split("</script>")
            .next()
            .unwrap();
        assert!(page.contains(&format!("style-src {}", csp_hash(style))));
        assert!(page.contains(&format!("script-src {}", csp_hash(script))));
        assert!(page.contains("default-src 'none'"));
        assert!(!page.contains("http://") && !page.contains("https://"));
    }

    #[test]
    fn keys_are_found_where_their_words_stand() {
        let view = crate::retrieve::PostView::new("Iced Coffee, then iced  coffee!", None);
        let places = places_of_key(&view, "iced coffee");
        assert_eq!(places, vec![0..11, 18..30]);
        assert!(places_of_key(&view, "tea").is_empty());
        assert!(places_of_key(&view, "").is_empty());
        let view = crate::retrieve::PostView::new("Our <B>cake</B>!", None);
        assert_eq!(places_of_key(&view, "<b>cake</b>"), vec![4..15]);
    }
}
