//! Glossaries from spreadsheet workbooks: Excel (`.xlsx`, `.xlsm`, `.xls`)
//! and OpenDocument (`.ods`), read with calamine. One sheet is read (the
//! first, or the one named) and its rows go through the sheet importer
//! ([`super::sheet::import_rows`]), so the layout rules are those of a CSV
//! (docs/formats.md, "Glossary sheets").

use super::sheet::import_rows;
use super::{ImportErrors, ImportOptions, Imported, SheetFormat};
use crate::error::InputError;
use calamine::{Data, Reader, Sheets};
use std::collections::BTreeMap;
use std::io::Cursor;

/// Read one sheet of a workbook as a glossary. `sheet` names it (default:
/// the first); errors name the file, the sheet and the row
/// (`terms.xlsx, sheet Glossary, row 7: ...`).
pub fn import_workbook(
    path: &str,
    bytes: &[u8],
    format: SheetFormat,
    sheet: Option<&str>,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    let not_a_workbook = |e: &dyn std::fmt::Display| {
        InputError::file(
            path,
            format!("not a readable spreadsheet workbook (.xlsx, .xlsm, .xls or .ods): {e}"),
        )
    };
    let mut book = match calamine::open_workbook_auto_from_rs(Cursor::new(bytes)) {
        Ok(book) => book,
        // Say why the reader of the file's own format refused it.
        Err(e) => {
            let own = if format == SheetFormat::Ods {
                calamine::open_workbook_from_rs::<calamine::Ods<_>, _>(Cursor::new(bytes))
                    .err()
                    .map(|e| e.to_string())
            } else {
                calamine::open_workbook_from_rs::<calamine::Xlsx<_>, _>(Cursor::new(bytes))
                    .err()
                    .map(|e| e.to_string())
            };
            return Err(not_a_workbook(&own.unwrap_or_else(|| e.to_string())).into());
        }
    };
    let names = book.sheet_names();
    let name = match sheet {
        Some(wanted) => names
            .iter()
            .find(|n| n.as_str() == wanted)
            .cloned()
            .ok_or_else(|| {
                InputError::file(
                    path,
                    format!(
                        "no sheet named {wanted:?}; its sheets: {}",
                        quoted(&names).join(", ")
                    ),
                )
            })?,
        None => names
            .first()
            .cloned()
            .ok_or_else(|| InputError::file(path, "the workbook has no sheet"))?,
    };
    let unreadable = |e: &dyn std::fmt::Display| {
        InputError::file(path, format!("sheet {name:?}: cannot read it: {e}"))
    };
    let rows = match &mut book {
        Sheets::Xlsx(xlsx) => xlsx_rows(xlsx, &name).map_err(|e| unreadable(&e))?,
        _ => {
            let range = book.worksheet_range(&name).map_err(|e| unreadable(&e))?;
            let first_row = range.start().map_or(0, |(r, _)| r as usize);
            let rows = range.rows().enumerate().map(|(i, row)| {
                let cells = row.iter().map(|c| cell_text(c).trim().to_string());
                (first_row + i + 1, cells.collect::<Vec<String>>())
            });
            rows.collect()
        }
    };
    let place = format!("{path}, sheet {name}");
    import_rows(&place, rows.into_iter(), format, opts).map_err(|e| in_sheet(path, &place, e))
}

/// The non-blank rows of an XLSX sheet, read cell by cell: memory follows
/// the cells the file holds, never the rectangle from A1 to its farthest
/// cell (calamine's `Range` of a 5 KB file with a cell at XFD1048576 is
/// 17 billion cells). Columns start at the first used one, as in a `Range`.
fn xlsx_rows<RS: std::io::Read + std::io::Seek>(
    book: &mut calamine::Xlsx<RS>,
    name: &str,
) -> Result<Vec<(usize, Vec<String>)>, calamine::XlsxError> {
    let mut reader = book.worksheet_cells_reader(name)?;
    let mut cells: BTreeMap<u32, Vec<(u32, String)>> = BTreeMap::new();
    while let Some(cell) = reader.next_cell()? {
        let (row, col) = cell.get_position();
        let text = cell_text(&Data::from(cell.get_value().clone()));
        let text = text.trim();
        if !text.is_empty() {
            cells.entry(row).or_default().push((col, text.to_string()));
        }
    }
    let first_col = cells.values().flatten().map(|(c, _)| *c).min().unwrap_or(0);
    Ok(cells
        .into_iter()
        .map(|(row, cells)| {
            let width = cells
                .iter()
                .map(|(c, _)| c - first_col + 1)
                .max()
                .unwrap_or(0);
            let mut out = vec![String::new(); width as usize];
            for (c, text) in cells {
                out[(c - first_col) as usize] = text;
            }
            (row as usize + 1, out)
        })
        .collect())
}

/// The sheet names as `"Name"`.
fn quoted(names: &[String]) -> Vec<String> {
    names.iter().map(|n| format!("{n:?}")).collect()
}

/// Errors said as `file, sheet S, row N: ...` (a spreadsheet has rows,
/// not lines), the summary naming the file.
fn in_sheet(path: &str, place: &str, mut e: ImportErrors) -> ImportErrors {
    for err in &mut e.errors {
        if let Some(row) = err.line.take() {
            err.path = format!("{place}, row {row}");
        }
        // The sheet rules speak of lines and separators; a sheet has rows and cells.
        err.message = err
            .message
            .replace("(first on line ", "(first on row ")
            .replace("separated by a tab", "in two cells");
    }
    e.path = path.to_string();
    e
}

/// A cell as the owner sees it: text as written, a whole number without
/// `.0` (`12`), a date as ISO text (`2024-03-01`, with the time when it has
/// one), a formula by its cached value, an empty cell as "".
fn cell_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Int(i) => i.to_string(),
        Data::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        Data::DateTime(d) if d.is_datetime() => {
            let (y, mo, day, h, mi, s, ms) = d.to_ymd_hms_milli();
            if (h, mi, s, ms) == (0, 0, 0, 0) {
                format!("{y:04}-{mo:02}-{day:02}")
            } else {
                format!("{y:04}-{mo:02}-{day:02}T{h:02}:{mi:02}:{s:02}")
            }
        }
        Data::DateTime(d) => d.as_f64().to_string(),
        Data::Error(e) => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_written() {
        assert_eq!(cell_text(&Data::Float(12.0)), "12");
        assert_eq!(cell_text(&Data::Float(-3.0)), "-3");
        assert_eq!(cell_text(&Data::Float(0.5)), "0.5");
        assert_eq!(cell_text(&Data::Int(7)), "7");
        assert_eq!(cell_text(&Data::Empty), "");
        assert_eq!(cell_text(&Data::Bool(true)), "TRUE");
        // 45352 days after Excel's epoch is 2024-03-01; .5 is noon.
        let day = |v| {
            Data::DateTime(calamine::ExcelDateTime::new(
                v,
                calamine::ExcelDateTimeType::DateTime,
                false,
            ))
        };
        assert_eq!(cell_text(&day(45352.0)), "2024-03-01");
        assert_eq!(cell_text(&day(45352.5)), "2024-03-01T12:00:00");
    }

    #[test]
    fn bytes_that_are_no_workbook_are_one_error() {
        let opts = ImportOptions::default();
        for bytes in [&b"source,target\ntea,te\n"[..], b"PK\x03\x04trunc", b""] {
            let err = import_workbook("t.xlsx", bytes, SheetFormat::Xlsx, None, &opts).unwrap_err();
            assert_eq!(err.errors.len(), 1, "{err}");
            assert!(
                err.to_string()
                    .starts_with("t.xlsx: not a readable spreadsheet workbook"),
                "{err}"
            );
        }
    }
}
