//! Glossaries from TSV and CSV sheets (layout in [`super`] and
//! docs/formats.md "Glossary sheets").

use super::header::{language_code, with_language_codes};
use super::{FirstLines, ImportErrors, ImportOptions, Imported, SheetFormat};
use crate::error::InputError;
use crate::glossary::{Context, Entry};

/// A sheet's text: UTF-8 (a byte-order mark is dropped), or UTF-16 LE or
/// BE with its byte-order mark, which is what Excel's "Unicode Text" writes.
pub fn decode_sheet(path: &str, bytes: Vec<u8>) -> Result<String, InputError> {
    match encoding_rs::Encoding::for_bom(&bytes) {
        Some((encoding, bom)) if encoding != encoding_rs::UTF_8 => encoding
            .decode_without_bom_handling_and_without_replacement(&bytes[bom..])
            .map(std::borrow::Cow::into_owned)
            .ok_or_else(|| {
                InputError::file(
                    path,
                    format!("invalid {} text; save the file as UTF-8", encoding.name()),
                )
            }),
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
    /// Part of speech: kept in the sense, in brackets.
    Pos,
    /// The source language, on every row (TICO-19, DeepL).
    SourceLang,
    /// The target language, on every row.
    TargetLang,
    /// Lokalise's `translatable`: no means keep.
    Translatable,
}

/// A header cell as compared: lowercase letters and digits only, so that
/// `sourceString`, `source_string`, `Source string` and `source-string`
/// are one name.
fn normalise(cell: &str) -> String {
    cell.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

impl Column {
    /// The column a header cell names, in any case and spelling.
    pub(super) fn parse(cell: &str) -> Option<Column> {
        Some(match normalise(cell).as_str() {
            "id" | "termid" | "entryid" | "conceptid" => Column::Id,
            "source" | "src" | "term" | "sourcestring" | "sourceterm" | "sourcetext"
            | "sourcephrase" | "sourceword" | "original" => Column::Source,
            "target" | "tgt" | "translation" | "targetstring" | "targetterm" | "targettext"
            | "targetphrase" | "targetword" | "translatedterm" => Column::Target,
            "forms" | "form" | "targetforms" => Column::Forms,
            "sense" | "note" | "notes" | "definition" | "description" | "comment" | "comments"
            | "meaning" | "remarks" => Column::Sense,
            "aliases" | "alias" | "synonyms" | "synonym" | "variants" | "variant" => {
                Column::Aliases
            }
            "contextany" => Column::ContextAny,
            "contextnot" => Column::ContextNot,
            "forbidden" | "forbiddenterms" | "deprecated" | "donotuse" => Column::Forbidden,
            "casesensitive" | "matchcase" => Column::CaseSensitive,
            "keep" | "donottranslate" | "dnt" | "untranslatable" => Column::Keep,
            "partofspeech" | "pos" | "wordclass" => Column::Pos,
            "sourcelang" | "sourcelanguage" | "srclang" | "sourcelocale" | "sourcelanguagecode" => {
                Column::SourceLang
            }
            "targetlang" | "targetlanguage" | "tgtlang" | "targetlocale" | "targetlanguagecode" => {
                Column::TargetLang
            }
            "translatable" => Column::Translatable,
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
            Column::Pos => "pos",
            Column::SourceLang => "source_lang",
            Column::TargetLang => "target_lang",
            Column::Translatable => "translatable",
        }
    }
}

/// The fields `--columns` can name.
const FIELDS: &str =
    "id, source, target, sense, aliases, forms, forbidden, context_any, context_not, \
                      case_sensitive, keep, pos, source_lang, target_lang";

/// Parse `--columns source=sourceString,target=targetString,sense=Note`
/// into (field, header name) pairs; a field glossa does not know is an
/// error naming the fields.
pub fn parse_columns(spec: &str) -> Result<Vec<(String, String)>, String> {
    spec.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|pair| {
            let (field, name) = pair
                .split_once('=')
                .ok_or_else(|| format!("`{pair}`: write FIELD=COLUMN, e.g. source=sourceString"))?;
            let known =
                Column::parse(field).is_some_and(|c| normalise(c.name()) == normalise(field));
            if !known {
                return Err(format!(
                    "unknown field `{}` in --columns; fields: {FIELDS}",
                    field.trim()
                ));
            }
            Ok((field.trim().to_string(), name.trim().to_string()))
        })
        .collect()
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

/// Two language codes name one language: same code, or `pt_BR`/`pt-br`.
fn same_lang(a: &str, b: &str) -> bool {
    let n = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
    n(a) == n(b)
}

/// What one header cell says.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    /// A column name (`sourceString`, `Notes`).
    Named(Column),
    /// The terms of one language: `en`, `English`, Crowdin's `Term [en]`,
    /// Lokalise's `translation_fr`. `marked` when the cell says it is a
    /// language (a name, brackets, a prefix), not only a short word.
    Terms {
        lang: String,
        marked: bool,
    },
    /// A note on one language's terms: Crowdin's `Description [en]` or
    /// `Part of speech [en]`, Lokalise's `description_fr`.
    LangNote(Column, String),
    Unknown,
}

fn classify(cell: &str) -> Cell {
    let t = cell.trim();
    let note = |c: Option<Column>, lang: &str| match c {
        Some(c @ (Column::Sense | Column::Pos)) => Cell::LangNote(c, lang.to_string()),
        _ => Cell::Unknown,
    };
    // Crowdin: `Term [en]`, `Description [en]`, `Part of speech [en]`.
    if let Some((name, rest)) = t.split_once('[') {
        if let Some(lang) = rest.trim_end().strip_suffix(']').map(str::trim) {
            if is_lang_code(lang) {
                return match Column::parse(name) {
                    Some(Column::Source | Column::Target) => Cell::Terms {
                        lang: lang.to_string(),
                        marked: true,
                    },
                    c => note(c, lang),
                };
            }
        }
    }
    // Lokalise: `translation_fr`, `description_fr`.
    let lower = t.to_ascii_lowercase();
    for prefix in ["translation_", "description_"] {
        if lower.strip_prefix(prefix).is_some_and(is_lang_code) {
            let lang = &t[prefix.len()..];
            return if prefix == "translation_" {
                Cell::Terms {
                    lang: lang.to_string(),
                    marked: true,
                }
            } else {
                note(Some(Column::Sense), lang)
            };
        }
    }
    if let Some(c) = Column::parse(t) {
        return Cell::Named(c);
    }
    if let Some(code) = language_code(t) {
        return Cell::Terms {
            lang: code.to_string(),
            marked: true,
        };
    }
    if is_lang_code(t) {
        return Cell::Terms {
            lang: t.to_string(),
            marked: false,
        };
    }
    Cell::Unknown
}

/// Whether a sheet's first row is a header, from what its cells say. A
/// row of language codes only is a header when it is not a plausible
/// entry: three or more, the first English, or all marked as languages
/// (`tea,te` stays an entry; `en,fr` and `English,Welsh` are headers).
fn is_header(cells: &[&str], kinds: &[Cell]) -> bool {
    let named = |c: Column| kinds.contains(&Cell::Named(c));
    let names = kinds.iter().filter(|k| matches!(k, Cell::Named(_))).count();
    let terms: Vec<bool> = kinds
        .iter()
        .filter_map(|k| match k {
            Cell::Terms { marked, .. } => Some(*marked),
            _ => None,
        })
        .collect();
    if named(Column::Source) || named(Column::Target) || names >= 2 {
        return true;
    }
    if kinds.iter().any(|k| matches!(k, Cell::LangNote(..))) {
        return true;
    }
    if names >= 1 && !terms.is_empty() {
        return true;
    }
    terms.len() == cells.len()
        && cells.len() >= 2
        && (cells.len() >= 3
            || is_english_code(with_language_codes(&cells[..1])[0])
            || terms.iter().all(|m| *m))
}

/// DeepL's glossary export: `source,target,source_lang,target_lang` with
/// no header (its glossary generator adds a fifth column, a score).
fn is_deepl_row(cells: &[&str]) -> bool {
    (4..=5).contains(&cells.len()) && is_lang_code(cells[2]) && is_lang_code(cells[3])
}

/// A header read: which column holds what (`None`: ignored), and the
/// languages its cells named.
struct Read {
    cols: Vec<Option<Column>>,
    source_lang: Option<String>,
    target_lang: Option<String>,
}

/// The header's cells, quoted, for a message.
fn listed_cells(cells: &[&str]) -> String {
    cells
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one error a header glossa cannot read gets.
fn unreadable_header(cells: &[&str], why: &str) -> String {
    let example = match cells {
        [a, b, ..] => format!(" (e.g. --columns source={a},target={b})"),
        _ => String::new(),
    };
    format!(
        "{why}; the header's columns are {}; name the source and target columns with --columns{example}",
        listed_cells(cells)
    )
}

/// The layout `--columns` gives: each FIELD=NAME pair picks the header
/// cell NAME (any case), every other column is ignored.
fn chosen_columns(cells: &[&str], pairs: &[(String, String)]) -> Result<Read, String> {
    let mut cols = vec![None; cells.len()];
    for (field, name) in pairs {
        let column = Column::parse(field)
            .ok_or_else(|| format!("unknown field `{field}` in --columns; fields: {FIELDS}"))?;
        let i = cells
            .iter()
            .position(|c| c.trim().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                format!(
                    "--columns {field}={name}: the header has no column `{name}`; its columns are {}",
                    listed_cells(cells)
                )
            })?;
        cols[i] = Some(column);
    }
    for must in [Column::Source, Column::Target] {
        if !cols.contains(&Some(must)) {
            return Err(format!("--columns names no `{}` column", must.name()));
        }
    }
    Ok(Read {
        cols,
        source_lang: None,
        target_lang: None,
    })
}

/// Read a header: named columns, language columns (the pair picked by
/// the options when there are more than two), one language's notes.
fn read_header(cells: &[&str], kinds: &[Cell], opts: &ImportOptions) -> Result<Read, String> {
    let mut cols: Vec<Option<Column>> = vec![None; cells.len()];
    let lokalise = kinds
        .iter()
        .any(|k| matches!(k, Cell::Terms { marked: true, .. }))
        && cells
            .iter()
            .any(|c| c.trim().to_ascii_lowercase().starts_with("translation_"));
    for (i, kind) in kinds.iter().enumerate() {
        let Cell::Named(c) = kind else { continue };
        // Lokalise's `forbidden` is a yes/no flag, not forbidden phrases.
        if lokalise && *c == Column::Forbidden {
            continue;
        }
        if let Some(first) = cols.iter().position(|x| *x == Some(*c)) {
            if matches!(c, Column::Sense | Column::Pos) {
                continue; // a second note column is ignored (and named)
            }
            return Err(format!(
                "the header names the column `{}` twice (`{}` and `{}`)",
                c.name(),
                cells[first],
                cells[i]
            ));
        }
        cols[i] = Some(*c);
    }
    let langs: Vec<(usize, &str)> = kinds
        .iter()
        .enumerate()
        .filter_map(|(i, k)| match k {
            Cell::Terms { lang, .. } => Some((i, lang.as_str())),
            _ => None,
        })
        .collect();
    let names = || langs.iter().map(|(_, l)| *l).collect::<Vec<_>>().join(", ");
    fn pick<'a>(want: &Option<String>, among: &[(usize, &'a str)]) -> Option<(usize, &'a str)> {
        want.as_ref()
            .and_then(|w| among.iter().find(|(_, l)| same_lang(l, w)).copied())
    }
    let (mut source_lang, mut target_lang) = (None, None);
    let mut rest = langs.clone();
    if !cols.contains(&Some(Column::Source)) && !rest.is_empty() {
        let chosen = match pick(&opts.source_lang, &rest) {
            Some(c) => c,
            None if rest.len() > 2 && opts.source_lang.is_some() => {
                return Err(format!(
                    "--source-lang {}: the header's languages are {}",
                    opts.source_lang.as_deref().unwrap_or_default(),
                    names()
                ))
            }
            None => rest[0],
        };
        cols[chosen.0] = Some(Column::Source);
        source_lang = Some(chosen.1.to_string());
        rest.retain(|x| x.0 != chosen.0);
    }
    if !cols.contains(&Some(Column::Target)) && !rest.is_empty() {
        let chosen = match pick(&opts.target_lang, &rest) {
            Some(c) => c,
            None if rest.len() == 1 => rest[0],
            None => {
                return Err(format!(
                    "the header names the languages {}; pick the pair with --source-lang and --target-lang (e.g. --source-lang {} --target-lang {})",
                    names(),
                    langs[0].1,
                    rest[0].1
                ))
            }
        };
        cols[chosen.0] = Some(Column::Target);
        target_lang = Some(chosen.1.to_string());
    }
    // A description or part of speech of the source language's terms
    // (Crowdin, Lokalise) is the sense; other languages' are ignored.
    for (i, kind) in kinds.iter().enumerate() {
        if let Cell::LangNote(c, lang) = kind {
            let ours = source_lang.as_deref().is_some_and(|s| same_lang(s, lang));
            if ours && !cols.contains(&Some(*c)) {
                cols[i] = Some(*c);
            }
        }
    }
    for (must, what) in [(Column::Source, "source"), (Column::Target, "target")] {
        if !cols.contains(&Some(must)) {
            return Err(unreadable_header(
                cells,
                &format!("cannot tell which column holds the {what} terms"),
            ));
        }
    }
    Ok(Read {
        cols,
        source_lang,
        target_lang,
    })
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

/// The delimiter of a `.csv` file, from its first rows: among `,` `;` and
/// tab, the one that splits the first non-blank rows (quotes respected)
/// into the same number of columns, two or more; the most columns wins,
/// then that order. A comma when none does.
pub(super) fn sniff_delimiter(text: &str) -> u8 {
    let mut best = (b',', 1);
    for delimiter in [b',', b';', b'\t'] {
        let counts: Vec<usize> = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(text.as_bytes())
            .records()
            .map_while(Result::ok)
            .filter(|r| !r.iter().all(|c| c.trim().is_empty()))
            .take(10)
            .map(|r| r.len())
            .collect();
        if let Some(&n) = counts.first() {
            if n > best.1 && counts.iter().all(|&c| c == n) {
                best = (delimiter, n);
            }
        }
    }
    best.0
}

/// Read a TSV or CSV glossary.
pub fn import_sheet(
    path: &str,
    text: &str,
    format: SheetFormat,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    let delimiter = match (opts.delimiter, format) {
        (Some(d), _) => d,
        (None, SheetFormat::Csv) => sniff_delimiter(text),
        (None, _) => format.delimiter(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let mut sheet = Sheet::new(path, format, opts);
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                sheet.errors.push(unreadable(path, &e));
                break;
            }
        }
        let line = record_line(text, record.position());
        if let Some(err) = unclosed_quote(path, text, &record, &reader, line) {
            sheet.errors.push(err);
            break;
        }
        let cells: Vec<&str> = record.iter().map(str::trim).collect();
        if !cells.iter().all(|c| c.is_empty()) {
            sheet.row(&cells, line)?;
        }
    }
    sheet.finish()
}

/// Read a glossary from rows already split into cells, each with its line
/// (a workbook's 1-based row number): the rules of [`import_sheet`].
pub(crate) fn import_rows(
    path: &str,
    rows: impl Iterator<Item = (usize, Vec<String>)>,
    format: SheetFormat,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    let mut sheet = Sheet::new(path, format, opts);
    for (line, row) in rows {
        let cells: Vec<&str> = row.iter().map(|c| c.trim()).collect();
        if !cells.iter().all(|c| c.is_empty()) {
            sheet.row(&cells, line)?;
        }
    }
    sheet.finish()
}

/// A quote opened in a cell and never closed makes the csv reader take the
/// rest of the file as that one cell; said as such, at the row where it
/// opened (an odd number of quotes from the row to the end of the file, and
/// a cell running over several lines).
fn unclosed_quote(
    path: &str,
    text: &str,
    record: &csv::StringRecord,
    reader: &csv::Reader<&[u8]>,
    line: usize,
) -> Option<InputError> {
    let at_end = reader.position().byte() as usize >= text.len();
    if !at_end || !record.iter().any(|c| c.contains('\n')) {
        return None;
    }
    let start = record.position().map_or(0, |p| p.byte() as usize);
    let quotes = text.get(start..)?.matches('"').count();
    (quotes % 2 == 1).then(|| {
        InputError::at_line(
            path,
            line,
            format!(
                "a quote opened on this row is never closed, so the rest of the file ({} lines) \
                 would be one cell: close it, or write a quote inside a quoted cell twice (\"\")",
                text[start..].lines().count()
            ),
        )
    })
}

/// A row the csv reader could not read: reading stops there.
fn unreadable(path: &str, e: &csv::Error) -> InputError {
    let line = e.position().map_or(0, |p| p.line() as usize);
    InputError::at_line(path, line.max(1), format!("cannot read the row: {e}"))
}

/// A language column's value on the rows: the first one and its line.
type RowLang = Option<(String, usize)>;

/// A sheet being read: its layout once the first row is seen, and what the
/// rows gave so far.
struct Sheet<'p> {
    path: &'p str,
    format: SheetFormat,
    opts: &'p ImportOptions,
    layout: Option<Layout>,
    /// The languages the header named (source, target).
    langs: (Option<String>, Option<String>),
    /// The languages the rows' `sourceLang`/`targetLang` cells gave.
    row_langs: (RowLang, RowLang),
    entries: Vec<Entry>,
    errors: Vec<InputError>,
    warnings: Vec<String>,
    first_lines: FirstLines,
}

impl<'p> Sheet<'p> {
    fn new(path: &'p str, format: SheetFormat, opts: &'p ImportOptions) -> Sheet<'p> {
        Sheet {
            path,
            format,
            opts,
            layout: None,
            langs: (None, None),
            row_langs: (None, None),
            entries: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
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
        let entry = layout.entry(self.path, cells, line, &mut self.first_lines);
        let langs = [
            (Column::SourceLang, "source", 0),
            (Column::TargetLang, "target", 1),
        ]
        .into_iter()
        .try_for_each(|(c, what, i)| {
            let value = layout.cell(cells, c);
            if value.is_empty() {
                return Ok(());
            }
            let slot = if i == 0 {
                &mut self.row_langs.0
            } else {
                &mut self.row_langs.1
            };
            match slot {
                None => {
                    *slot = Some((value.to_string(), line));
                    Ok(())
                }
                Some((first, _)) if same_lang(first, value) => Ok(()),
                Some((first, at)) => Err(InputError::at_line(
                    self.path,
                    line,
                    format!(
                        "{what} language `{value}`, but `{first}` on line {at}; a glossary has one {what} language: split the sheet by language"
                    ),
                )),
            }
        });
        match (entry, langs) {
            (Ok(entry), Ok(())) => self.entries.push(entry),
            (Err(e), _) | (_, Err(e)) => self.errors.push(e),
        }
        Ok(())
    }

    /// The first non-blank row sets the layout; true when it is a header
    /// (and so no entry).
    fn header_row(&mut self, cells: &[&str], line: usize) -> Result<bool, ImportErrors> {
        let kinds: Vec<Cell> = cells.iter().map(|c| classify(c)).collect();
        let read = if !self.opts.columns.is_empty() {
            chosen_columns(cells, &self.opts.columns)
        } else if is_header(cells, &kinds)
            || (cells.len() > POSITIONAL.len() && !is_deepl_row(cells))
        {
            read_header(cells, &kinds, self.opts)
        } else {
            let columns = if is_deepl_row(cells) {
                vec![
                    Some(Column::Source),
                    Some(Column::Target),
                    Some(Column::SourceLang),
                    Some(Column::TargetLang),
                    None,
                ]
            } else {
                POSITIONAL.iter().copied().map(Some).collect()
            };
            self.layout = Some(Layout {
                columns,
                named: false,
                format: self.format,
            });
            return Ok(false);
        };
        let read = read.map_err(|m| ImportErrors::from(InputError::at_line(self.path, line, m)))?;
        let ignored: Vec<String> = cells
            .iter()
            .zip(&read.cols)
            .filter(|(c, col)| col.is_none() && !c.is_empty())
            .map(|(c, _)| format!("`{c}`"))
            .collect();
        if !ignored.is_empty() {
            self.warnings.push(format!(
                "{}:{line}: ignored the column{} {} (not a glossary field; --columns picks columns by name)",
                self.path,
                if ignored.len() == 1 { "" } else { "s" },
                ignored.join(", ")
            ));
        }
        self.layout = Some(Layout {
            columns: read.cols,
            named: true,
            format: self.format,
        });
        self.langs = (read.source_lang, read.target_lang);
        Ok(true)
    }

    /// The glossary, with languages from the options, else the header,
    /// else the rows' language columns.
    fn finish(mut self) -> Result<Imported, ImportErrors> {
        collapse_repeats(&mut self.errors);
        let opts = self.opts;
        let mut warnings = self.warnings;
        let (header_source, header_target) = self.langs;
        let sheet_source = header_source.or(self.row_langs.0.map(|(l, _)| l));
        let sheet_target = header_target.or(self.row_langs.1.map(|(l, _)| l));
        let mut pick = |given: &Option<String>,
                        sheet: Option<String>,
                        flag: &str,
                        default: &str| match (given, sheet) {
            (Some(g), Some(s)) => {
                if !same_lang(g, &s) {
                    warnings.push(format!(
                        "{}: {flag} {g} given: the sheet's language `{s}` is not used",
                        self.path
                    ));
                }
                g.clone()
            }
            (Some(g), None) => g.clone(),
            (None, Some(s)) => s,
            (None, None) => default.to_string(),
        };
        let langs = (
            pick(&opts.source_lang, sheet_source, "--source-lang", "en"),
            pick(&opts.target_lang, sheet_target, "--target-lang", "target"),
        );
        let glossary = super::finish(
            self.path,
            self.errors,
            self.entries,
            || "no glossary rows: expected source and target columns".to_string(),
            opts,
            langs,
        )?;
        Ok(Imported { glossary, warnings })
    }
}

/// When every problem is the same message (a sheet whose every row
/// fails one way), one error says so instead of one a row.
fn collapse_repeats(errors: &mut Vec<InputError>) {
    let [first, rest @ ..] = errors.as_slice() else {
        return;
    };
    if rest.is_empty() || rest.iter().any(|e| e.message != first.message) {
        return;
    }
    let mut one = first.clone();
    one.message = format!(
        "{} (and the same on {} more rows, the last on line {})",
        one.message,
        rest.len(),
        rest.last().and_then(|e| e.line).unwrap_or(0)
    );
    *errors = vec![one];
}

/// Which column holds what (`None`: ignored).
struct Layout {
    columns: Vec<Option<Column>>,
    /// Named by a header (else positional).
    named: bool,
    format: SheetFormat,
}

impl Layout {
    /// The cell of column `c`, empty when the row has none.
    fn cell<'c>(&self, cells: &[&'c str], c: Column) -> &'c str {
        self.columns
            .iter()
            .position(|x| *x == Some(c))
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
        let (case_sensitive, mut keep) = (flag(Column::CaseSensitive)?, flag(Column::Keep)?);
        // Lokalise: `translatable` no is kept as it is; empty is translatable.
        if !self.cell(cells, Column::Translatable).is_empty() {
            keep |= !flag(Column::Translatable)?;
        }
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
        // A part of speech is kept in the sense: `a drink (noun)`.
        let sense = match (
            self.cell(cells, Column::Sense),
            self.cell(cells, Column::Pos),
        ) {
            (sense, "") => sense.to_string(),
            ("", pos) => pos.to_string(),
            (sense, pos) => format!("{sense} ({pos})"),
        };
        Ok(Entry {
            id,
            source: source.to_string(),
            target: target.to_string(),
            sense: (!sense.is_empty()).then_some(sense),
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
        // A term is one line: in a text sheet, a source or target that runs
        // over several is a quote left open, which took in the rows below.
        if matches!(self.format, SheetFormat::Csv | SheetFormat::Tsv) {
            for (what, column) in [("source", Column::Source), ("target", Column::Target)] {
                let cell = self.cell(cells, column);
                if cell.contains('\n') {
                    let first = cell.lines().next().unwrap_or_default();
                    return Err(fail(format!(
                        "the {what} `{first}…` runs over {} lines, taking in the rows below it: \
                         is a quote left open on this line?",
                        cell.lines().count()
                    )));
                }
            }
        }
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
    fn a_quote_left_open_is_named_not_a_target_of_many_lines() {
        // Line 2 opens a quote that only line 4 closes: rows 3 and 4 would
        // otherwise be part of `tea`'s target.
        let err = sheet(
            "coffee,kafe\ntea,\"te\nmilk,melk\ncake,kake\"\nbread,brød\n",
            SheetFormat::Csv,
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(":2: the target `te…` runs over 3 lines"),
            "{text}"
        );
        assert!(text.contains("quote left open"), "{text}");
    }

    fn kinds(cells: &[&str]) -> bool {
        is_header(
            cells,
            &cells.iter().map(|c| classify(c)).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn headers_are_told_from_entries() {
        assert!(!kinds(&["tea", "te"]));
        assert!(!kinds(&["cold coffee", "frosk mavi", "a drink"]));
        assert!(!kinds(&["note", "Notiz"]));
        for header in [
            &["id", "en-GB", "x-cafe", "sense"][..],
            &["en", "fr"],
            &["English", "Welsh", "Notes"],
            &["Term [fr]", "Term [de]"],
            &["sourceString", "targetString"],
            &["Source term", "Target term"],
            &["de", "fr", "es"],
        ] {
            assert!(kinds(header), "{header:?}");
        }
    }

    #[test]
    fn spellings_of_a_column_name_are_one_name() {
        for (cells, column) in [
            (
                &[
                    "sourceString",
                    "source_term",
                    "Source term",
                    "SOURCE-TEXT",
                    "term",
                ][..],
                Column::Source,
            ),
            (
                &["targetString", "target_term", "Target term", "translation"],
                Column::Target,
            ),
            (
                &["description", "Definition", "note", "Notes", "comment"],
                Column::Sense,
            ),
            (&["synonyms", "Variants", "alias"], Column::Aliases),
            (&["part of speech", "POS", "partOfSpeech"], Column::Pos),
            (
                &["sourceLang", "source_language", "Source Language"],
                Column::SourceLang,
            ),
            (
                &["targetLang", "target_language", "targetLocale"],
                Column::TargetLang,
            ),
        ] {
            for cell in cells {
                assert_eq!(classify(cell), Cell::Named(column), "{cell}");
            }
        }
        assert_eq!(
            classify("Term [de]"),
            Cell::Terms {
                lang: "de".into(),
                marked: true
            }
        );
        assert_eq!(
            classify("Part of speech [en]"),
            Cell::LangNote(Column::Pos, "en".into())
        );
        assert_eq!(
            classify("translation_pt_BR"),
            Cell::Terms {
                lang: "pt_BR".into(),
                marked: true
            }
        );
        assert_eq!(
            classify("Welsh"),
            Cell::Terms {
                lang: "cy".into(),
                marked: true
            }
        );
        assert_eq!(classify("colour"), Cell::Unknown);
    }

    #[test]
    fn the_delimiter_of_a_csv_is_read_from_its_first_rows() {
        assert_eq!(sniff_delimiter("source;target\nKaffee;coffee\n"), b';');
        assert_eq!(sniff_delimiter("a\tb\tc\nd\te\tf\n"), b'\t');
        // Commas inside quotes and semicolons inside a cell do not count.
        assert_eq!(
            sniff_delimiter("\"tea, hot\",te\ncake,\"kek; kuchen\"\n"),
            b','
        );
        assert_eq!(
            sniff_delimiter("Kaffee, schwarz;black coffee;drink\nTee;tea;drink\n"),
            b';'
        );
        assert_eq!(sniff_delimiter("one\n"), b',');
    }

    #[test]
    fn utf16_sheets_from_excel_are_read() {
        let mut bytes = vec![0xFF, 0xFE];
        bytes.extend(
            "tea\tté 🍵\r\n"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        );
        assert_eq!(decode_sheet("g.txt", bytes).unwrap(), "tea\tté 🍵\r\n");
        let mut bytes = vec![0xFE, 0xFF];
        bytes.extend("tea\tté\n".encode_utf16().flat_map(|u| u.to_be_bytes()));
        assert_eq!(decode_sheet("g.txt", bytes).unwrap(), "tea\tté\n");
        // A lone surrogate is refused, not replaced.
        let err = decode_sheet("g.txt", vec![0xFF, 0xFE, 0x00, 0xD8, 0x41, 0x00]).unwrap_err();
        assert!(err.to_string().contains("invalid UTF-16LE text"), "{err}");
        assert_eq!(
            decode_sheet("g.txt", b"\xEF\xBB\xBFa,b".to_vec()).unwrap(),
            "a,b"
        );
    }

    #[test]
    fn unknown_columns_are_ignored_with_one_note() {
        let i = import_sheet(
            "g.csv",
            "source,target,colour,tags\na,b,c,d\n",
            SheetFormat::Csv,
            &super::super::test_util::opts(),
        )
        .unwrap();
        assert_eq!(i.glossary.entries[0].target, "b");
        assert_eq!(i.warnings.len(), 1, "{:?}", i.warnings);
        assert!(
            i.warnings[0].contains("`colour`, `tags`"),
            "{:?}",
            i.warnings
        );
    }

    #[test]
    fn a_header_without_source_and_target_is_one_error_naming_its_columns() {
        let rows: String = (1..300)
            .map(|n| format!("{n},a{n},b{n},c{n},d{n}\n"))
            .collect();
        let err = sheet(
            &format!("entry no,left,right,score,flag\n{rows}"),
            SheetFormat::Csv,
        )
        .unwrap_err();
        assert_eq!(err.errors.len(), 1, "{err}");
        let text = err.to_string();
        assert!(
            text.contains("g.tsv:1: cannot tell which column holds the source terms"),
            "{text}"
        );
        assert!(
            text.contains("`entry no`, `left`, `right`, `score`, `flag`"),
            "{text}"
        );
        assert!(text.contains("--columns"), "{text}");
    }

    #[test]
    fn rows_failing_the_same_way_are_one_error() {
        let err = sheet("tea\ncoffee\ncake\n", SheetFormat::Csv).unwrap_err();
        assert_eq!(err.errors.len(), 3, "messages name the source: {err}");
        let err = sheet("a\tb\n\tx\n\ty\n\tz\n", SheetFormat::Tsv).unwrap_err();
        assert_eq!(err.errors.len(), 1, "{err}");
        assert!(
            err.to_string().contains(
                "g.tsv:2: empty source (and the same on 2 more rows, the last on line 4)"
            ),
            "{err}"
        );
    }

    #[test]
    fn columns_chosen_by_name_override_the_header() {
        let opts = ImportOptions {
            columns: parse_columns("source=B,target=a,sense=Note").unwrap(),
            ..super::super::test_util::opts()
        };
        let i = import_sheet(
            "g.csv",
            "A,b,note,source\nthé,tea,hot,x\n",
            SheetFormat::Csv,
            &opts,
        )
        .unwrap();
        let e = &i.glossary.entries[0];
        assert_eq!(
            (e.source.as_str(), e.target.as_str(), e.sense.as_deref()),
            ("tea", "thé", Some("hot"))
        );
        let opts = ImportOptions {
            columns: parse_columns("source=term,target=nope").unwrap(),
            ..super::super::test_util::opts()
        };
        let err = import_sheet("g.csv", "term,translation\na,b\n", SheetFormat::Csv, &opts)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no column `nope`; its columns are `term`, `translation`"),
            "{err}"
        );
        assert!(parse_columns("colour=A")
            .unwrap_err()
            .contains("unknown field `colour`"));
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
