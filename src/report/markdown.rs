//! GitHub-flavoured Markdown tables.

use super::{Align, Exporter, Table};

pub(crate) struct Markdown;

/// Escape what would break a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

impl Exporter for Markdown {
    fn table(&self, t: &Table) -> String {
        let row = |cells: &[String]| {
            let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let rule: Vec<&str> = t
            .align
            .iter()
            .map(|a| match a {
                Align::Left => "---",
                Align::Right => "---:",
            })
            .collect();
        let mut out = t
            .title
            .as_ref()
            .map_or(String::new(), |title| format!("**{}**\n\n", cell(title)));
        out.push_str(&row(&t.headers));
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for r in &t.rows {
            out.push_str(&row(r));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_header_rule_and_escapes_pipes() {
        let mut t = Table::new(None, &[("A", Align::Left), ("B", Align::Right)]);
        t.push(vec!["x|y".into(), "1".into()]);
        assert_eq!(Markdown.table(&t), "| A | B |\n|---|---:|\n| x\\|y | 1 |\n");
    }
}
