//! GitHub-flavoured Markdown tables.

use super::{Align, Exporter, Table};

pub struct Markdown;

/// Escape what would break a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

impl Exporter for Markdown {
    fn render(&self, tables: &[Table]) -> String {
        let mut out = String::new();
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if let Some(title) = &t.title {
                out.push_str(&format!("**{}**\n\n", cell(title)));
            }
            let row = |cells: &[String]| {
                format!(
                    "| {} |\n",
                    cells
                        .iter()
                        .map(|c| cell(c))
                        .collect::<Vec<_>>()
                        .join(" | ")
                )
            };
            out.push_str(&row(&t.headers));
            let rule: Vec<String> = t
                .align
                .iter()
                .map(|a| match a {
                    Align::Left => "---".to_string(),
                    Align::Right => "---:".to_string(),
                })
                .collect();
            out.push_str(&format!("|{}|\n", rule.join("|")));
            for r in &t.rows {
                out.push_str(&row(r));
            }
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
        assert_eq!(
            Markdown.render(&[t]),
            "| A | B |\n|---|---:|\n| x\\|y | 1 |\n"
        );
    }
}
