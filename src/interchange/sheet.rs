//! Glossaries from TSV and CSV sheets (layout in [`super`]).

use super::header::with_language_codes;
use super::{FirstLines, ImportErrors, ImportOptions, Imported, SheetFormat};
use crate::error::InputError;
use crate::glossary::{Context, Entry};

/// A sheet's text: UTF-8 (a byte-order mark is dropped), or UTF-16 with
/// its byte-order mark, which is what Excel's "Unicode Text" writes.
pub fn decode_sheet(path: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    let utf16 = |units: Vec<u16>| {
        String::from_utf16(&units)
            .map_err(|_| InputError::file(path, "invalid UTF-16 text; save the file as UTF-8"))
    };
    match bytes.get(..2) {
        Some([0xFF, 0xFE]) => utf16(
            bytes[2..]
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect(),
        ),
        Some([0xFE, 0xFF]) => utf16(
            bytes[2..]
                .chunks_exact(2)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect(),
        ),
        _ => crate::error::decode_text(path, bytes),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Column {
    Id,
    Source,
    Target,
    Forms,
    Sense,
    Aliases,
    ContextAny,
    ContextNot,
    Forbidden,
    CaseSensitive,
    Keep,
}

impl Column {
    pub(super) fn parse(cell: &str) -> Option<Column> {
        let name: String = cell
            .trim()
            .to_lowercase()
            .chars()
            .map(|c| {
                if c == ' ' || c == '-' || c == '.' {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        Some(match name.as_str() {
            "id" => Column::Id,
            "source" | "src" | "term" | "source_term" => Column::Source,
            "target" | "tgt" | "translation" | "target_term" => Column::Target,
            "forms" | "form" | "target_forms" => Column::Forms,
            "sense" | "note" | "notes" | "definition" => Column::Sense,
            "aliases" | "alias" | "synonyms" => Column::Aliases,
            "context_any" => Column::ContextAny,
            "context_not" => Column::ContextNot,
            "forbidden" | "forbidden_terms" | "deprecated" | "do_not_use" => Column::Forbidden,
            "case_sensitive" | "casesensitive" | "match_case" => Column::CaseSensitive,
            "keep" | "do_not_translate" | "dnt" | "untranslatable" => Column::Keep,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Source => "source",
            Column::Target => "target",
            Column::Forms => "forms",
            Column::Sense => "sense",
            Column::Aliases => "aliases",
            Column::ContextAny => "context_any",
            Column::ContextNot => "context_not",
            Column::Forbidden => "forbidden",
            Column::CaseSensitive => "case_sensitive",
            Column::Keep => "keep",
        }
    }
}

const POSITIONAL: [Column; 4] = [
    Column::Source,
    Column::Target,
    Column::Sense,
    Column::Aliases,
];

/// A language code such as `en`, `en-GB`, `fr`, `pt_BR`, `x-cafe`.
pub(super) fn is_lang_code(cell: &str) -> bool {
    let cell = cell.trim().to_ascii_lowercase();
    let mut parts = cell.split(['-', '_']);
    let first = parts.next().unwrap_or_default();
    let first_ok = first == "x"
        || ((2..=3).contains(&first.len()) && first.chars().all(|c| c.is_ascii_lowercase()));
    first_ok
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

fn is_english_code(cell: &str) -> bool {
    let c = cell.trim().to_ascii_lowercase();
    c == "en" || c.starts_with("en-") || c.starts_with("en_")
}

/// What the first row of a sheet is.
#[derive(Debug, PartialEq)]
enum Header {
    /// An entry.
    Data,
    /// Column names (`None` for a cell that names no column), and the
    /// languages when the source and target columns are named by
    /// language codes (`en`, `fr`).
    Columns {
        cols: Vec<Option<Column>>,
        source_lang: Option<String>,
        target_lang: Option<String>,
    },
}

/// Decide whether `cells` is a header. Each header cell is a column name
/// or a language code; the first code names the source column, the second
/// the target. A row with no column name is a header only when it is two
/// codes, the first English (`en,fr`): `tea,te` stays an entry.
fn header(cells: &[&str]) -> Header {
    let parsed: Vec<Option<Column>> = cells.iter().map(|c| Column::parse(c)).collect();
    let names = parsed.iter().flatten().count();
    let codes: Vec<usize> = (0..cells.len())
        .filter(|&i| parsed[i].is_none() && is_lang_code(cells[i]))
        .collect();
    let is_header = if names == 0 {
        cells.len() == 2 && codes.len() == 2 && is_english_code(cells[0])
    } else {
        parsed.contains(&Some(Column::Source)) || !codes.is_empty()
    };
    if !is_header {
        return Header::Data;
    }
    let mut cols = parsed;
    let (mut source_lang, mut target_lang) = (None, None);
    for (n, &i) in codes.iter().enumerate() {
        match n {
            0 if !cols.contains(&Some(Column::Source)) => {
                cols[i] = Some(Column::Source);
                source_lang = Some(cells[i].to_string());
            }
            1 if !cols.contains(&Some(Column::Target)) => {
                cols[i] = Some(Column::Target);
                target_lang = Some(cells[i].to_string());
            }
            _ => {}
        }
    }
    Header::Columns {
        cols,
        source_lang,
        target_lang,
    }
}

/// What is wrong with a header: unknown or repeated columns, no target.
fn header_problems(cells: &[&str], cols: &[Option<Column>]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, (cell, col)) in cells.iter().zip(cols).enumerate() {
        match col {
            Some(c) if cols[..i].contains(&Some(*c)) => out.push(format!("the header names the column `{}` twice", c.name())),
            Some(_) => {}
            None => out.push(format!(
                "unknown column `{cell}` in the header; columns: id, source, target, forms, sense, aliases, context_any, \
                 context_not, forbidden, case_sensitive, keep (source and target may be named by language codes such as en, fr)"
            )),
        }
    }
    if !cols.contains(&Some(Column::Target)) {
        out.push("the header has no `target` column".to_string());
    }
    out
}

/// A yes/no cell: yes, true, 1, x (any case) or no, false, 0, empty; the
/// cell itself when it is neither.
pub(super) fn yes_or_no(cell: &str) -> Result<bool, &str> {
    match cell.trim().to_lowercase().as_str() {
        "yes" | "y" | "true" | "1" | "x" => Ok(true),
        "no" | "n" | "false" | "0" | "" => Ok(false),
        _ => Err(cell),
    }
}

/// `a; b;` → `["a", "b"]`.
fn split_list(cell: &str) -> Vec<String> {
    cell.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The line a record starts on. The csv crate counts lines as it reads
/// (so this stays linear), but its position points at the blank lines
/// before a record, if any: step over them to the record's own line.
fn record_line(text: &str, position: Option<&csv::Position>) -> usize {
    let Some(position) = position else { return 1 };
    let start = (position.byte() as usize).min(text.len());
    let blank = text.as_bytes()[start..]
        .iter()
        .take_while(|&&b| b == b'\r' || b == b'\n')
        .filter(|&&b| b == b'\n')
        .count();
    position.line() as usize + blank
}

/// Read a TSV or CSV glossary.
pub fn import_sheet(
    path: &str,
    text: &str,
    format: SheetFormat,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(format.delimiter())
        .from_reader(text.as_bytes());
    let mut sheet = Sheet::new(path, format);
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                sheet.errors.push(unreadable(path, &e));
                break;
            }
        };
        let line = record_line(text, record.position());
        let cells: Vec<&str> = record.iter().map(str::trim).collect();
        if !cells.iter().all(|c| c.is_empty()) {
            sheet.row(&cells, line)?;
        }
    }
    sheet.finish(opts)
}

/// Read a glossary from rows already split into cells, each with its line
/// (a workbook's 1-based row number): the rules of [`import_sheet`].
pub fn import_rows(
    path: &str,
    rows: impl Iterator<Item = (usize, Vec<String>)>,
    format: SheetFormat,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    let mut sheet = Sheet::new(path, format);
    for (line, row) in rows {
        let cells: Vec<&str> = row.iter().map(|c| c.trim()).collect();
        if !cells.iter().all(|c| c.is_empty()) {
            sheet.row(&cells, line)?;
        }
    }
    sheet.finish(opts)
}

/// A row the csv reader could not read: reading stops there.
fn unreadable(path: &str, e: &csv::Error) -> InputError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    InputError::at_line(path, line.max(1), format!("cannot read the row: {e}"))
}

/// A sheet being read: its layout once the first row is seen, and what the
/// rows gave so far.
struct Sheet<'p> {
    path: &'p str,
    format: SheetFormat,
    layout: Option<Layout>,
    /// The languages a header of language codes named.
    langs: Option<(String, String)>,
    entries: Vec<Entry>,
    errors: Vec<InputError>,
    first_lines: FirstLines,
}

impl<'p> Sheet<'p> {
    fn new(path: &'p str, format: SheetFormat) -> Sheet<'p> {
        Sheet {
            path,
            format,
            layout: None,
            langs: None,
            entries: Vec::new(),
            errors: Vec::new(),
            first_lines: FirstLines::default(),
        }
    }

    /// One non-blank row: the header, an entry, or a problem noted. A bad
    /// header ends the import at once.
    fn row(&mut self, cells: &[&str], line: usize) -> Result<(), ImportErrors> {
        if self.layout.is_none() && self.header_row(cells, line)? {
            return Ok(());
        }
        let layout = self.layout.as_ref().expect("set by the first row");
        match layout.entry(self.path, cells, line, &mut self.first_lines) {
            Ok(entry) => self.entries.push(entry),
            Err(e) => self.errors.push(e),
        }
        Ok(())
    }

    /// The first non-blank row sets the layout; true when it is a header
    /// (and so no entry).
    fn header_row(&mut self, cells: &[&str], line: usize) -> Result<bool, ImportErrors> {
        let (cols, source_lang, target_lang) = match header(&with_language_codes(cells)) {
            Header::Data => {
                self.layout = Some(Layout {
                    columns: POSITIONAL.to_vec(),
                    named: false,
                    format: self.format,
                });
                return Ok(false);
            }
            Header::Columns {
                cols,
                source_lang,
                target_lang,
            } => (cols, source_lang, target_lang),
        };
        let problems = header_problems(cells, &cols);
        if !problems.is_empty() {
            let errors = problems
                .into_iter()
                .map(|m| InputError::at_line(self.path, line, m))
                .collect();
            return Err(ImportErrors {
                path: self.path.to_string(),
                errors,
            });
        }
        self.layout = Some(Layout {
            columns: cols.into_iter().flatten().collect(),
            named: true,
            format: self.format,
        });
        if let (Some(s), Some(t)) = (source_lang, target_lang) {
            self.langs = Some((s, t));
        }
        Ok(true)
    }

    /// The glossary, with languages from the options, else the header.
    fn finish(self, opts: &ImportOptions) -> Result<Imported, ImportErrors> {
        let (source_lang, target_lang) =
            self.langs.unwrap_or_else(|| ("en".into(), "target".into()));
        let langs = (
            opts.source_lang.clone().unwrap_or(source_lang),
            opts.target_lang.clone().unwrap_or(target_lang),
        );
        let glossary = super::finish(
            self.path,
            self.errors,
            self.entries,
            || "no glossary rows: expected source and target columns".to_string(),
            opts,
            langs,
        )?;
        Ok(Imported {
            glossary,
            warnings: Vec::new(),
        })
    }
}

/// Which column holds what.
struct Layout {
    columns: Vec<Column>,
    /// Named by a header (else positional).
    named: bool,
    format: SheetFormat,
}

impl Layout {
    /// The cell of column `c`, empty when the row has none.
    fn cell<'c>(&self, cells: &[&'c str], c: Column) -> &'c str {
        self.columns
            .iter()
            .position(|x| *x == c)
            .and_then(|i| cells.get(i))
            .copied()
            .unwrap_or("")
    }

    /// The entry of one data row, or its first problem.
    fn entry(
        &self,
        path: &str,
        cells: &[&str],
        line: usize,
        first_lines: &mut FirstLines,
    ) -> Result<Entry, InputError> {
        let fail = |message: String| InputError::at_line(path, line, message);
        let flag = |c: Column| {
            yes_or_no(self.cell(cells, c)).map_err(|bad| {
                fail(format!(
                    "`{}`: {bad:?} in column `{}`; write yes or no (true/false, 1/0, x or empty)",
                    self.cell(cells, Column::Source),
                    c.name()
                ))
            })
        };
        let (case_sensitive, keep) = (flag(Column::CaseSensitive)?, flag(Column::Keep)?);
        let (source, target) = self.source_and_target(cells, keep, fail)?;
        let aliases = split_list(self.cell(cells, Column::Aliases));
        if let Some(bad) = aliases.iter().find(|a| a.trim().is_empty()) {
            return Err(fail(format!("`{source}`: alias {bad:?} is empty")));
        }
        let id = self.cell(cells, Column::Id).to_string();
        let (shown_id, what) = if id.is_empty() {
            (source.to_string(), "source")
        } else {
            (id.clone(), "id")
        };
        if let Some(first) = first_lines.earlier(shown_id.clone(), line) {
            return Err(fail(format!(
                "duplicate {what} `{shown_id}` (first on line {first}); ids must be unique: merge the rows, or add an `id` column to keep both"
            )));
        }
        let list = |c: Column| split_list(self.cell(cells, c));
        let (any, not) = (list(Column::ContextAny), list(Column::ContextNot));
        let sense = self.cell(cells, Column::Sense);
        Ok(Entry {
            id,
            source: source.to_string(),
            target: target.to_string(),
            sense: (!sense.is_empty()).then(|| sense.to_string()),
            case_sensitive,
            keep,
            aliases,
            context: (!any.is_empty() || !not.is_empty()).then_some(Context { any, not }),
            forms: list(Column::Forms),
            forbidden: list(Column::Forbidden),
            key: String::new(),
            alias_keys: Vec::new(),
            line,
        })
    }

    /// The row's source and target, checked: as many cells as columns, a
    /// source with words, a target (which a kept entry may leave empty:
    /// it is the source).
    fn source_and_target<'c>(
        &self,
        cells: &[&'c str],
        keep: bool,
        fail: impl Fn(String) -> InputError,
    ) -> Result<(&'c str, &'c str), InputError> {
        if cells.len() > self.columns.len() {
            let hint = if self.named {
                format!("the header names {}", self.columns.len())
            } else {
                "without a header the columns are source, target, sense, aliases (add a header to name them)".to_string()
            };
            return Err(fail(format!("{} columns; {hint}", cells.len())));
        }
        let source = self.cell(cells, Column::Source);
        let target = self.cell(cells, Column::Target);
        if source.is_empty() {
            return Err(fail("empty source".to_string()));
        }
        if cells.len() < 2 && !self.named {
            let separator = if self.format == SheetFormat::Csv {
                "a comma"
            } else {
                "a tab"
            };
            return Err(fail(format!(
                "`{source}`: one column; expected source and target separated by {separator}"
            )));
        }
        if target.is_empty() && !keep {
            return Err(fail(format!("`{source}`: empty target")));
        }
        if keep && !target.is_empty() && target != source {
            return Err(fail(format!(
                "`{source}`: kept (column `keep`), so its target is the source, but the target is `{target}`; \
                 leave the target empty or drop `keep`"
            )));
        }
        Ok((source, target))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::sheet;
    use super::*;
    use crate::interchange::export_sheet;

    #[test]
    fn two_columns_without_a_header() {
        let g = sheet(
            "cold coffee\tfrosk mavi\n\r\n\ncookie\tdorpa\tsweet baked\tbiscuit; biscuits\n",
            SheetFormat::Tsv,
        )
        .unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g.entries[0].id, "cold coffee");
        assert_eq!(g.entries[1].sense.as_deref(), Some("sweet baked"));
        assert_eq!(g.entries[1].aliases, ["biscuit", "biscuits"]);
        assert_eq!(g.entries[1].line, 4);
        assert_eq!(
            (g.source_lang.as_str(), g.target_lang.as_str()),
            ("en", "target")
        );
    }

    #[test]
    fn a_term_of_symbols_only_is_a_term() {
        // Real termbases hold "±" and "&": one such row must not refuse the sheet.
        let g = sheet("±\tplus-minus\t\t+/-\n&\tund\n", SheetFormat::Tsv).unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!(g.entries[0].aliases, ["+/-"]);
        assert_eq!(g.entries[1].source, "&");
    }

    #[test]
    fn a_named_header_in_any_order_and_a_language_header() {
        let g = sheet(
            "Target,Source,ID\nzimbo,date,date-fruit\n",
            SheetFormat::Csv,
        )
        .unwrap();
        assert_eq!(
            (g.entries[0].id.as_str(), g.entries[0].source.as_str()),
            ("date-fruit", "date")
        );
        let g = sheet("en,fr\ncoffee,café\n", SheetFormat::Csv).unwrap();
        assert_eq!(
            (g.source_lang.as_str(), g.target_lang.as_str()),
            ("en", "fr")
        );
        assert_eq!(g.entries[0].target, "café");
    }

    #[test]
    fn every_bad_row_is_named_by_line() {
        let err = sheet(
            "tea\tte\n\n\tnothing\ncoffee\n\tx\ncake\t\ntea\tteh\na\tb\tc\td\te\n",
            SheetFormat::Tsv,
        )
        .unwrap_err();
        let lines: Vec<usize> = err.errors.iter().map(|e| e.line.unwrap()).collect();
        assert_eq!(lines, [3, 4, 5, 6, 7, 8], "{err}");
        let text = err.to_string();
        assert!(text.contains("g.tsv:3: empty source"), "{text}");
        assert!(text.contains("g.tsv:4: `coffee`: one column"), "{text}");
        assert!(text.contains("g.tsv:6: `cake`: empty target"), "{text}");
        assert!(
            text.contains("g.tsv:7: duplicate source `tea` (first on line 1)"),
            "{text}"
        );
        assert!(text.contains("g.tsv:8: 5 columns"), "{text}");
        assert!(text.contains("6 problems in g.tsv"), "{text}");
    }

    #[test]
    fn headers_are_told_from_entries() {
        assert_eq!(header(&["tea", "te"]), Header::Data);
        assert_eq!(
            header(&["cold coffee", "frosk mavi", "a drink"]),
            Header::Data
        );
        let Header::Columns {
            cols,
            source_lang,
            target_lang,
        } = header(&["id", "en-GB", "x-cafe", "sense"])
        else {
            panic!("a header")
        };
        assert_eq!(
            cols,
            [
                Some(Column::Id),
                Some(Column::Source),
                Some(Column::Target),
                Some(Column::Sense)
            ]
        );
        assert_eq!(
            (source_lang.as_deref(), target_lang.as_deref()),
            (Some("en-GB"), Some("x-cafe"))
        );
    }

    #[test]
    fn utf16_sheets_from_excel_are_read() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend("tea\tté\r\n".encode_utf16().flat_map(|u| u.to_le_bytes()));
        assert_eq!(decode_sheet("g.txt", bytes).unwrap(), "tea\tté\r\n");
        assert_eq!(
            decode_sheet("g.txt", b"\xEF\xBB\xBFa,b".to_vec()).unwrap(),
            "a,b"
        );
    }

    #[test]
    fn an_unknown_header_column_is_an_error() {
        let err = sheet("source,target,colour\na,b,c\n", SheetFormat::Csv).unwrap_err();
        assert!(
            err.to_string().contains("g.tsv:1: unknown column `colour`"),
            "{err}"
        );
    }

    #[test]
    fn case_and_keep_columns_take_yes_or_no_and_round_trip() {
        let g = sheet(
            "source\ttarget\tMatch case\tDNT\nUS\tEE. UU.\tyes\t\nus\tnosotros\t0\tno\nGlossa Café\t\tX\tTRUE\nAcme\tAcme\t\t1\n",
            SheetFormat::Tsv,
        )
        .unwrap();
        let flags: Vec<(bool, bool, &str)> = g
            .entries
            .iter()
            .map(|e| (e.case_sensitive, e.keep, e.target.as_str()))
            .collect();
        assert_eq!(
            flags,
            [
                (true, false, "EE. UU."),
                (false, false, "nosotros"),
                (true, true, "Glossa Café"),
                (false, true, "Acme")
            ]
        );
        for format in [SheetFormat::Tsv, SheetFormat::Csv] {
            let text = export_sheet(&g, format, false).unwrap();
            let back = sheet(&text, format).unwrap();
            let same: Vec<(bool, bool, &str)> = back
                .entries
                .iter()
                .map(|e| (e.case_sensitive, e.keep, e.target.as_str()))
                .collect();
            assert_eq!(same, flags, "{text}");
        }
        // Anything else is refused, by line; a kept entry's target is its source.
        let err = sheet(
            "source,target,case_sensitive,keep\ntea,te,maybe,\nAcme,Acne,,yes\nBrand,,,\n",
            SheetFormat::Csv,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("g.tsv:2: `tea`: \"maybe\" in column `case_sensitive`"),
            "{err}"
        );
        assert!(
            err.contains("g.tsv:3: `Acme`: kept (column `keep`)"),
            "{err}"
        );
        assert!(err.contains("g.tsv:4: `Brand`: empty target"), "{err}");
    }

    #[test]
    fn a_forms_column_holds_several_forms_separated_by_semicolons() {
        let g = sheet(
            "source\ttarget\tforms\nspinal canal\tSpinalkanal\tSpinalkanals; Spinalkanälen\ntea\tTee\t\n",
            SheetFormat::Tsv,
        )
        .unwrap();
        assert_eq!(g.entries[0].forms, ["Spinalkanals", "Spinalkanälen"]);
        assert!(g.entries[1].forms.is_empty());
        let text = export_sheet(&g, SheetFormat::Csv, false).unwrap();
        assert_eq!(
            text,
            "source,target,forms\nspinal canal,Spinalkanal,Spinalkanals; Spinalkanälen\ntea,Tee,\n"
        );
    }
}
