//! Aligned terminal tables (comfy-table), wrapped to the terminal's width.

use super::{Align, Exporter, Table};
use comfy_table::{presets, CellAlignment, ContentArrangement};
use std::io::IsTerminal;

pub struct TextTable;

impl Exporter for TextTable {
    fn table(&self, t: &Table) -> String {
        let mut grid = comfy_table::Table::new();
        grid.load_style(presets::UTF8_FULL_CONDENSED)
            .set_header(&t.headers);
        fit(&mut grid, width());
        for row in &t.rows {
            grid.add_row(row);
        }
        for (column, align) in grid.column_iter_mut().zip(&t.align) {
            column.set_cell_alignment(match align {
                Align::Left => CellAlignment::Left,
                Align::Right => CellAlignment::Right,
            });
        }
        let title = t.title.as_ref().map_or(String::new(), |t| format!("{t}\n"));
        format!("{title}{grid}\n")
    }
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

    #[test]
    fn no_width_keeps_rows_whole() {
        let mut grid = wide();
        fit(&mut grid, None);
        assert!(widest_line(&grid) > 150, "{grid}");
    }
}
