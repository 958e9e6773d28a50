//! `glossa retrievers`: what `--retriever` accepts (text only; it has no
//! `--format`).

use crate::retrieve::{COMPOSITIONS, FILTERS, REFERENCE, REGISTRY};

/// The retrievers, filters and named compositions, in aligned columns.
pub fn listing() -> String {
    let width = REGISTRY
        .iter()
        .map(|i| i.name.len())
        .chain(FILTERS.iter().map(|i| i.name.len() + 1))
        .chain(COMPOSITIONS.iter().map(|c| c.name.len()))
        .max()
        .unwrap_or(0);
    let line = |name: &str, what: String| format!("  {name:width$}  {what}\n");
    let mut out = String::from("Retrievers:\n");
    for info in REGISTRY {
        out.push_str(&line(info.name, info.summary.to_string()));
    }
    out.push_str("\nFilters (after `|`, applied left to right):\n");
    for info in FILTERS {
        out.push_str(&line(&format!("|{}", info.name), info.summary.to_string()));
    }
    out.push_str("\nNamed compositions:\n");
    for c in COMPOSITIONS {
        out.push_str(&line(c.name, format!("{} = {}", c.summary, c.spec)));
    }
    out.push_str(
        "\nCombine with `+` for a union and `|` for a filter, e.g. normalised+fuzzy+edit+alias|sense|longest.\n",
    );
    out.push_str(&format!(
        "`all` (eval) runs the reference five: {}; `all,glossa` adds the recommended one.\n",
        REFERENCE.join(", ")
    ));
    out
}
