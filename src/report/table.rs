//! Aligned terminal tables (comfy-table), wrapped to the terminal's width.

use super::{Align, Exporter, Table};
use comfy_table::{presets, CellAlignment, ColumnConstraint, ContentArrangement, Width};
use std::io::IsTerminal;
use unicode_width::UnicodeWidthStr;

pub(crate) struct TextTable;

impl Exporter for TextTable {
    fn table(&self, t: &Table) -> String {
        render(t, width())
    }
}

fn render(t: &Table, width: Option<u16>) -> String {
    let title = t.title.as_ref().map_or(String::new(), |t| format!("{t}\n"));
    // A cell may wrap at a space, never inside a word, number or id
    // ("0.016" split as "0.01" / "6"): each column is at least as wide as
    // its longest word. When those widths do not fit, one block per row.
    let least = least_widths(t);
    if let Some(w) = width {
        // Each column costs its content plus "│ " … " ", and the last "│".
        let needed: usize = least.iter().map(|n| n + 3).sum::<usize>() + 1;
        if needed > usize::from(w) {
            return format!("{title}{}", blocks(t, usize::from(w)));
        }
    }
    let mut grid = comfy_table::Table::new();
    grid.load_style(presets::UTF8_FULL_CONDENSED)
        .set_header(&t.headers);
    fit(&mut grid, width);
    for row in &t.rows {
        grid.add_row(row);
    }
    for ((column, align), least) in grid.column_iter_mut().zip(&t.align).zip(&least) {
        column.set_cell_alignment(match align {
            Align::Left => CellAlignment::Left,
            Align::Right => CellAlignment::Right,
        });
        // comfy-table's widths include the padding of one space a side.
        let least = u16::try_from(*least + 2).unwrap_or(u16::MAX);
        column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(least)));
    }
    format!("{title}{grid}\n")
}

/// Per column, the display width of its longest word (header included).
fn least_widths(t: &Table) -> Vec<usize> {
    let longest_word = |cell: &str| {
        cell.split_whitespace()
            .map(UnicodeWidthStr::width)
            .max()
            .unwrap_or(0)
    };
    (0..t.headers.len())
        .map(|i| {
            std::iter::once(&t.headers[i])
                .chain(t.rows.iter().filter_map(|r| r.get(i)))
                .map(|c| longest_word(c))
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// The rows as blocks of `header: value` lines, a blank line between them,
/// values wrapped at spaces to `width`: for a window too narrow for the
/// columns side by side.
fn blocks(t: &Table, width: usize) -> String {
    let label = t.headers.iter().map(|h| h.width()).max().unwrap_or(0);
    let room = width.saturating_sub(label + 2).max(1);
    let indent = " ".repeat(label + 2);
    t.rows
        .iter()
        .map(|row| {
            t.headers
                .iter()
                .zip(row)
                .map(|(h, v)| {
                    let pad = " ".repeat(label - h.width());
                    format!("{pad}{h}: {}\n", wrap(v, room).join(&format!("\n{indent}")))
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Words of `text` in lines of at most `room` columns (a longer word
/// alone on its line).
fn wrap(text: &str, room: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.width() + 1 + word.width() <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

/// The width to fit tables to: `COLUMNS` when set, else the terminal's
/// when stdout is one. None (piped, redirected) keeps full rows, so files
/// and snapshots do not depend on the window.
fn width() -> Option<u16> {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c > 0)
    {
        return Some(columns);
    }
    if !std::io::stdout().is_terminal() {
        return None;
    }
    // A terminal that reports no size (0 columns: a pty nobody sized)
    // would squeeze every cell to one character.
    comfy_table::Table::new()
        .width()
        .filter(|&w| w >= MIN_WIDTH)
}

/// Narrower than this, a window size is taken as unknown.
const MIN_WIDTH: u16 = 20;

/// Wrap cells so that rows fit `width`; no width, no wrapping.
fn fit(grid: &mut comfy_table::Table, width: Option<u16>) {
    match width {
        Some(w) => {
            grid.set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(w);
        }
        None => {
            grid.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide() -> comfy_table::Table {
        let mut grid = comfy_table::Table::new();
        grid.set_header(vec!["Entry", "Message"]);
        grid.add_row(vec!["cold-coffee", &"a long message ".repeat(10)]);
        grid
    }

    fn widest_line(grid: &comfy_table::Table) -> usize {
        grid.to_string()
            .lines()
            .map(|l| l.chars().count())
            .max()
            .unwrap()
    }

    #[test]
    fn a_width_wraps_rows_to_fit_it() {
        let mut grid = wide();
        fit(&mut grid, Some(40));
        assert!(widest_line(&grid) <= 40, "{grid}");
    }

    fn figures() -> Table {
        let mut t = Table::new(
            Some("Figures"),
            &[
                ("Retriever", Align::Left),
                ("Needed found (recall)", Align::Right),
                ("p", Align::Right),
                ("Note", Align::Left),
            ],
        );
        t.push(vec![
            "normalised+edit+split+alias|closest|sense|longest".into(),
            "1,234 of 1,250 (98.7%)".into(),
            "0.016".into(),
            "a long explanation that may wrap at any of its spaces ".repeat(2),
        ]);
        t
    }

    #[test]
    fn cells_wrap_at_spaces_never_inside_a_word_or_number() {
        let t = figures();
        for w in [80u16, 100, 120] {
            let text = render(&t, Some(w));
            assert!(
                text.lines().all(|l| l.width() <= usize::from(w)),
                "{w}:\n{text}"
            );
            for whole in [
                "normalised+edit+split+alias|closest|sense|longest",
                "0.016",
                "(98.7%)",
                "1,234",
            ] {
                assert!(text.contains(whole), "{w}: `{whole}` broken:\n{text}");
            }
        }
    }

    #[test]
    fn too_narrow_a_window_gives_one_block_per_row() {
        let text = render(&figures(), Some(40));
        assert!(
            text.contains("Retriever: normalised+edit+split+alias|closest|sense|longest"),
            "{text}"
        );
        assert!(text.contains("        p: 0.016"), "{text}");
        assert!(!text.contains('│'), "{text}");
    }

    #[test]
    fn no_width_keeps_rows_whole() {
        let mut grid = wide();
        fit(&mut grid, None);
        assert!(widest_line(&grid) > 150, "{grid}");
    }
}
