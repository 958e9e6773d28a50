//! Aligned terminal tables (comfy-table).

use super::{Align, Exporter, Table};
use comfy_table::{presets, CellAlignment, ContentArrangement};

pub struct TextTable;

impl Exporter for TextTable {
    fn render(&self, tables: &[Table]) -> String {
        let mut out = String::new();
        for (i, t) in tables.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if let Some(title) = &t.title {
                out.push_str(title);
                out.push('\n');
            }
            let mut grid = comfy_table::Table::new();
            grid.load_style(presets::UTF8_FULL_CONDENSED)
                .set_content_arrangement(ContentArrangement::Disabled)
                .set_header(&t.headers);
            for row in &t.rows {
                grid.add_row(row);
            }
            for (column, align) in grid.column_iter_mut().zip(&t.align) {
                column.set_cell_alignment(match align {
                    Align::Left => CellAlignment::Left,
                    Align::Right => CellAlignment::Right,
                });
            }
            out.push_str(&grid.to_string());
            out.push('\n');
        }
        out
    }
}
