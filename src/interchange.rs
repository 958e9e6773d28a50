//! Glossaries to and from spreadsheets and terminology files: the
//! two-column source/target TSV or CSV that machine-translation services
//! take as glossaries (with optional `sense` and `aliases` columns), and
//! TBX (TermBase eXchange, ISO 30042) import.
//!
//! Sheet layout:
//!
//! - no header: columns are `source, target[, sense[, aliases]]`;
//! - a header naming the columns (any order): `id`, `source`, `target`,
//!   `forms`, `sense`, `aliases`, `context_any`, `context_not` (a few
//!   synonyms such as `term`/`translation` are accepted);
//! - a header of two language codes (`en,fr`, the Amazon Translate custom
//!   terminology layout): columns `source, target`, and the codes become the
//!   glossary's languages.
//!
//! `forms`, `aliases`, `context_any` and `context_not` hold several
//! phrases separated by `;`. Blank rows are skipped. Every bad row is reported with
//! its line, and the result is validated by the same rules as a glossary
//! file ([`Glossary::new`]) before anything is written.

use crate::error::{InputError, LineCounter};
use crate::glossary::{Context, Entry, Glossary};
use crate::phrase;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// A file format glossaries can be read from or written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SheetFormat {
    /// Tab-separated values.
    Tsv,
    /// Comma-separated values.
    Csv,
    /// TermBase eXchange (XML; import only).
    Tbx,
}

impl SheetFormat {
    /// The format a file name implies: `.tsv`/`.tab`/`.txt`, `.csv`,
    /// `.tbx`/`.xml`.
    pub fn from_path(path: &Path) -> Option<SheetFormat> {
        let ext = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match ext.as_str() {
            "tsv" | "tab" | "txt" => Some(SheetFormat::Tsv),
            "csv" => Some(SheetFormat::Csv),
            "tbx" | "xml" => Some(SheetFormat::Tbx),
            _ => None,
        }
    }

    fn delimiter(self) -> u8 {
        match self {
            SheetFormat::Csv => b',',
            _ => b'\t',
        }
    }
}

/// Every problem found in a file, each naming its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportErrors {
    pub path: String,
    pub errors: Vec<InputError>,
}

impl fmt::Display for ImportErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.errors.len() > 1 {
            write!(
                f,
                "\n{} problems in {}; nothing was written",
                self.errors.len(),
                self.path
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for ImportErrors {}

impl From<InputError> for ImportErrors {
    fn from(e: InputError) -> Self {
        ImportErrors {
            path: e.path.clone(),
            errors: vec![e],
        }
    }
}

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

/// Names and languages for an imported glossary.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub name: String,
    /// Default `en`; for TBX, the language whose terms are the sources.
    pub source_lang: Option<String>,
    /// Default from a language-code header or the TBX file, else `target`.
    pub target_lang: Option<String>,
}

/// An imported glossary and what was skipped on the way.
#[derive(Debug, Clone)]
pub struct Imported {
    pub glossary: Glossary,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Id,
    Source,
    Target,
    Forms,
    Sense,
    Aliases,
    ContextAny,
    ContextNot,
}

impl Column {
    fn parse(cell: &str) -> Option<Column> {
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
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Source => "source",
            Column::Target => "target",
            Column::Forms => "forms",
            Column::Sense => "sense",
            Column::Aliases => "aliases",
            Column::ContextAny => "context_any",
            Column::ContextNot => "context_not",
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
fn is_lang_code(cell: &str) -> bool {
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
                 context_not (source and target may be named by language codes such as en, fr)"
            )),
        }
    }
    if !cols.contains(&Some(Column::Target)) {
        out.push("the header has no `target` column".to_string());
    }
    out
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
    let mut errors = Vec::new();
    let mut columns: Option<Vec<Column>> = None;
    let mut named = false;
    let mut langs: Option<(String, String)> = None;
    let mut entries: Vec<Entry> = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                errors.push(InputError::at_line(
                    path,
                    line.max(1),
                    format!("cannot read the row: {e}"),
                ));
                break;
            }
        };
        let line = record_line(text, record.position());
        let cells: Vec<&str> = record.iter().map(str::trim).collect();
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        if columns.is_none() {
            // The first non-blank row: a header, or already data.
            match header(&crate::interchange_header::with_language_codes(&cells)) {
                Header::Data => columns = Some(POSITIONAL.to_vec()),
                Header::Columns {
                    cols,
                    source_lang,
                    target_lang,
                } => {
                    let problems = header_problems(&cells, &cols);
                    if !problems.is_empty() {
                        let errors = problems
                            .into_iter()
                            .map(|m| InputError::at_line(path, line, m))
                            .collect();
                        return Err(ImportErrors {
                            path: path.to_string(),
                            errors,
                        });
                    }
                    named = true;
                    columns = Some(cols.into_iter().flatten().collect());
                    if let (Some(s), Some(t)) = (source_lang, target_lang) {
                        langs = Some((s, t));
                    }
                    continue;
                }
            }
        }
        let cols = columns.as_ref().expect("set above");
        if cells.len() > cols.len() {
            let hint = if named {
                format!("the header names {}", cols.len())
            } else {
                "without a header the columns are source, target, sense, aliases (add a header to name them)".to_string()
            };
            errors.push(InputError::at_line(
                path,
                line,
                format!("{} columns; {hint}", cells.len()),
            ));
            continue;
        }
        let cell = |c: Column| {
            cols.iter()
                .position(|x| *x == c)
                .and_then(|i| cells.get(i))
                .copied()
                .unwrap_or("")
        };
        let source = cell(Column::Source);
        let target = cell(Column::Target);
        if source.is_empty() {
            errors.push(InputError::at_line(path, line, "empty source"));
            continue;
        }
        if cells.len() < 2 && !named {
            errors.push(InputError::at_line(
                path,
                line,
                format!(
                    "`{source}`: one column; expected source and target separated by {}",
                    if format == SheetFormat::Csv {
                        "a comma"
                    } else {
                        "a tab"
                    }
                ),
            ));
            continue;
        }
        if target.is_empty() {
            errors.push(InputError::at_line(
                path,
                line,
                format!("`{source}`: empty target"),
            ));
            continue;
        }
        if phrase::key(source).is_empty() {
            errors.push(InputError::at_line(
                path,
                line,
                format!("source {source:?} has no words (letters or digits)"),
            ));
            continue;
        }
        let aliases = split_list(cell(Column::Aliases));
        if let Some(bad) = aliases.iter().find(|a| phrase::key(a).is_empty()) {
            errors.push(InputError::at_line(
                path,
                line,
                format!("`{source}`: alias {bad:?} has no words (letters or digits)"),
            ));
            continue;
        }
        let forms = split_list(cell(Column::Forms));
        let id = cell(Column::Id).to_string();
        let shown_id = if id.is_empty() {
            source.to_string()
        } else {
            id.clone()
        };
        if let Some(first) = first_line.get(&shown_id) {
            let what = if id.is_empty() { "source" } else { "id" };
            errors.push(InputError::at_line(
                path,
                line,
                format!(
                    "duplicate {what} `{shown_id}` (first on line {first}); ids must be unique: merge the rows, or add an `id` column to keep both"
                ),
            ));
            continue;
        }
        first_line.insert(shown_id, line);
        let (any, not) = (
            split_list(cell(Column::ContextAny)),
            split_list(cell(Column::ContextNot)),
        );
        let sense = cell(Column::Sense);
        entries.push(Entry {
            id,
            source: source.to_string(),
            target: target.to_string(),
            sense: (!sense.is_empty()).then(|| sense.to_string()),
            aliases,
            context: (!any.is_empty() || !not.is_empty()).then_some(Context { any, not }),
            forms,
            key: String::new(),
            alias_keys: Vec::new(),
            line,
        });
    }
    if !errors.is_empty() {
        return Err(ImportErrors {
            path: path.to_string(),
            errors,
        });
    }
    if entries.is_empty() {
        return Err(
            InputError::file(path, "no glossary rows: expected source and target columns").into(),
        );
    }
    let (source_lang, target_lang) = match langs {
        Some((s, t)) => (
            opts.source_lang.clone().unwrap_or(s),
            opts.target_lang.clone().unwrap_or(t),
        ),
        None => (
            opts.source_lang.clone().unwrap_or_else(|| "en".to_string()),
            opts.target_lang
                .clone()
                .unwrap_or_else(|| "target".to_string()),
        ),
    };
    let glossary = Glossary::new(path, opts.name.clone(), source_lang, target_lang, entries)?;
    Ok(Imported {
        glossary,
        warnings: Vec::new(),
    })
}

const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

fn lang_matches(lang: &str, wanted: &str) -> bool {
    let (l, w) = (
        lang.to_ascii_lowercase().replace('_', "-"),
        wanted.to_ascii_lowercase().replace('_', "-"),
    );
    l == w || l.starts_with(&format!("{w}-"))
}

/// Deepest element nesting read from a TBX file. Termbases nest about ten
/// deep; the XML parser recurses per level, so thousands of levels would
/// overflow the stack instead of being refused.
pub const MAX_XML_DEPTH: usize = 256;

/// Where elements first nest deeper than `limit` (a byte offset), found by
/// a light scan for tags before the real parse. Comments, CDATA,
/// processing instructions and declarations do not nest; malformed XML is
/// left for the parser to report.
fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let find = |from: usize, what: &[u8]| {
        bytes[from..]
            .windows(what.len())
            .position(|w| w == what)
            .map(|i| from + i + what.len())
    };
    let (mut depth, mut i) = (0usize, 0usize);
    while let Some(lt) = bytes[i..].iter().position(|&b| b == b'<') {
        let at = i + lt;
        let rest = &bytes[at..];
        i = if rest.starts_with(b"<!--") {
            find(at, b"-->")?
        } else if rest.starts_with(b"<![CDATA[") {
            find(at, b"]]>")?
        } else if rest.starts_with(b"<?") {
            find(at, b"?>")?
        } else if rest.starts_with(b"<!") {
            find(at, b">")?
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(at, b">")?
        } else {
            let end = tag_end(bytes, at)?;
            if bytes[end - 1] != b'/' {
                depth += 1;
                if depth > limit {
                    return Some(at);
                }
            }
            end + 1
        };
    }
    None
}

/// The `>` closing the start tag at `at`, skipping quoted attribute values.
fn tag_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(at) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(i),
            None => {}
        }
    }
    None
}

/// Read a TBX file (TBX-Basic / TBX v2 `termEntry`/`langSet`/`tig`, or TBX
/// v3 `conceptEntry`/`langSec`/`termSec`): the first term in the source
/// language is the source, further ones are aliases; the first term in the
/// target language is the target, further ones are its accepted `forms`
/// (deprecated or superseded terms are left out); a `definition` becomes the
/// sense.
pub fn import_tbx(path: &str, text: &str, opts: &ImportOptions) -> Result<Imported, ImportErrors> {
    if let Some(offset) = too_deep(text, MAX_XML_DEPTH) {
        return Err(InputError::at_line(
            path,
            crate::error::line_of(text, offset),
            format!(
                "elements nested more than {MAX_XML_DEPTH} deep; a termbase nests about ten deep, \
                 so this is not one glossa can read"
            ),
        )
        .into());
    }
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        let pos = e.pos();
        InputError {
            path: path.to_string(),
            line: Some(pos.row as usize),
            column: Some(pos.col as usize),
            message: format!("invalid XML: {e}"),
        }
    })?;
    // Concepts come in document order: their lines are counted in one pass.
    let mut lines = LineCounter::new(text);
    let source_lang = opts.source_lang.clone().unwrap_or_else(|| "en".to_string());
    let concepts: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.is_element() && matches!(n.tag_name().name(), "termEntry" | "conceptEntry"))
        .collect();
    if concepts.is_empty() {
        return Err(InputError::file(
            path,
            "no <termEntry> or <conceptEntry> elements: is this a TBX file?",
        )
        .into());
    }
    // Each concept's languages: (lang, element) pairs.
    fn lang_sections<'a, 'i>(c: roxmltree::Node<'a, 'i>) -> Vec<(String, roxmltree::Node<'a, 'i>)> {
        c.children()
            .filter(|n| n.is_element() && matches!(n.tag_name().name(), "langSet" | "langSec"))
            .map(|n| {
                (
                    n.attribute((XML_NS, "lang"))
                        .or_else(|| n.attribute("lang"))
                        .unwrap_or("")
                        .to_string(),
                    n,
                )
            })
            .collect()
    }
    let target_lang = match &opts.target_lang {
        Some(t) => t.clone(),
        None => {
            let mut others: Vec<String> = Vec::new();
            for c in &concepts {
                for (lang, _) in lang_sections(*c) {
                    let lang = lang.to_ascii_lowercase();
                    if !lang.is_empty()
                        && !lang_matches(&lang, &source_lang)
                        && !others.contains(&lang)
                    {
                        others.push(lang);
                    }
                }
            }
            match others.len() {
                1 => others.remove(0),
                0 => return Err(InputError::file(path, format!("no language other than the source `{source_lang}`; is --source-lang right?")).into()),
                _ => {
                    return Err(InputError::file(
                        path,
                        format!("several target languages ({}); choose one with --target-lang", others.join(", ")),
                    )
                    .into())
                }
            }
        }
    };
    // Each term, and whether its status forbids it (deprecated, superseded).
    let terms = |section: roxmltree::Node| -> Vec<(String, bool)> {
        section
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "term")
            .map(|n| {
                let text = n
                    .descendants()
                    .filter(|t| t.is_text())
                    .filter_map(|t| t.text())
                    .collect::<String>()
                    .trim()
                    .to_string();
                (text, n.parent().is_some_and(forbidden_status))
            })
            .filter(|(t, _)| !t.is_empty())
            .collect()
    };
    let definition = |node: roxmltree::Node| -> Option<String> {
        node.descendants()
            .find(|n| {
                n.is_element()
                    && n.tag_name().name() == "descrip"
                    && n.attribute("type") == Some("definition")
            })
            .map(|n| {
                n.descendants()
                    .filter(|t| t.is_text())
                    .filter_map(|t| t.text())
                    .collect::<String>()
                    .trim()
                    .to_string()
            })
            .filter(|d| !d.is_empty())
    };
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    let mut errors = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for c in &concepts {
        let line = lines.line_at(c.range().start);
        let id = c.attribute("id").unwrap_or("").to_string();
        let sections = lang_sections(*c);
        let pick = |lang: &str| -> (Vec<(String, bool)>, Option<roxmltree::Node>) {
            let mut out = Vec::new();
            let mut node = None;
            for (l, n) in &sections {
                if lang_matches(l, lang) {
                    out.extend(terms(*n));
                    node.get_or_insert(*n);
                }
            }
            (out, node)
        };
        let (sources, source_node) = pick(&source_lang);
        let sources: Vec<String> = sources.into_iter().map(|(t, _)| t).collect();
        let targets = accepted_first(pick(&target_lang).0);
        let shown = if id.is_empty() {
            String::new()
        } else {
            format!(" `{id}`")
        };
        let (Some(source), Some(target)) = (sources.first(), targets.first()) else {
            let missing = if sources.is_empty() {
                &source_lang
            } else {
                &target_lang
            };
            warnings.push(format!(
                "{path}:{line}: {}{shown} has no `{missing}` term; skipped",
                c.tag_name().name()
            ));
            continue;
        };
        if phrase::key(source).is_empty() {
            errors.push(InputError::at_line(
                path,
                line,
                format!("term {source:?} has no words (letters or digits)"),
            ));
            continue;
        }
        let shown_id = if id.is_empty() {
            source.clone()
        } else {
            id.clone()
        };
        if let Some(first) = first_line.get(&shown_id) {
            errors.push(InputError::at_line(
                path,
                line,
                format!("duplicate id `{shown_id}` (first on line {first}); ids must be unique"),
            ));
            continue;
        }
        first_line.insert(shown_id, line);
        let sense = source_node.and_then(definition).or_else(|| definition(*c));
        let mut aliases: Vec<String> = Vec::new();
        for alias in &sources[1..] {
            if alias != source && !aliases.contains(alias) && !phrase::key(alias).is_empty() {
                aliases.push(alias.clone());
            }
        }
        let mut forms: Vec<String> = Vec::new();
        for form in &targets[1..] {
            if form != target && !forms.contains(form) {
                forms.push(form.clone());
            }
        }
        entries.push(Entry {
            id,
            source: source.clone(),
            target: target.clone(),
            sense,
            aliases,
            context: None,
            forms,
            key: String::new(),
            alias_keys: Vec::new(),
            line,
        });
    }
    if !errors.is_empty() {
        return Err(ImportErrors {
            path: path.to_string(),
            errors,
        });
    }
    if entries.is_empty() {
        return Err(InputError::file(
            path,
            format!("no entry has both a `{source_lang}` and a `{target_lang}` term"),
        )
        .into());
    }
    let glossary = Glossary::new(path, opts.name.clone(), source_lang, target_lang, entries)?;
    Ok(Imported { glossary, warnings })
}

/// Whether a TBX term's group (`tig`, `termSec`) marks it deprecated or
/// superseded: such a term must not become an accepted form.
fn forbidden_status(group: roxmltree::Node) -> bool {
    group.children().any(|n| {
        n.is_element()
            && n.tag_name().name() == "termNote"
            && matches!(
                n.attribute("type"),
                Some("administrativeStatus" | "normativeAuthorization")
            )
            && n.text().is_some_and(|t| {
                let t = t.to_ascii_lowercase();
                t.contains("deprecated") || t.contains("superseded")
            })
    })
}

/// Target terms without the forbidden ones; the first one when every one
/// is forbidden, so the entry keeps a target.
fn accepted_first(terms: Vec<(String, bool)>) -> Vec<String> {
    let accepted: Vec<String> = terms
        .iter()
        .filter(|(_, forbidden)| !forbidden)
        .map(|(t, _)| t.clone())
        .collect();
    if accepted.is_empty() {
        terms.into_iter().map(|(t, _)| t).take(1).collect()
    } else {
        accepted
    }
}

/// Read any supported file.
pub fn import(
    path: &str,
    text: &str,
    format: SheetFormat,
    opts: &ImportOptions,
) -> Result<Imported, ImportErrors> {
    match format {
        SheetFormat::Tbx => import_tbx(path, text, opts),
        sheet => import_sheet(path, text, sheet, opts),
    }
}

/// An entry as written by [`to_json`]: `id` only when it differs from
/// `source`.
#[derive(Serialize)]
struct EntryOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    source: &'a str,
    target: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    forms: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    sense: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    aliases: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a Context>,
}

/// A glossary as JSON, one entry a line (so that errors and `glossa lint`
/// findings point at one entry).
pub fn to_json(g: &Glossary) -> String {
    let s = |v: &str| serde_json::to_string(v).expect("strings serialise");
    let mut out = format!(
        "{{\n  \"name\": {},\n  \"source_lang\": {},\n  \"target_lang\": {},\n  \"entries\": [\n",
        s(&g.name),
        s(&g.source_lang),
        s(&g.target_lang)
    );
    for (i, e) in g.entries.iter().enumerate() {
        let entry = EntryOut {
            id: (e.id != e.source).then_some(e.id.as_str()),
            source: &e.source,
            target: &e.target,
            forms: &e.forms,
            sense: e.sense.as_deref(),
            aliases: &e.aliases,
            context: e
                .context
                .as_ref()
                .filter(|c| !c.any.is_empty() || !c.not.is_empty()),
        };
        out.push_str("    ");
        out.push_str(&serde_json::to_string(&entry).expect("entries serialise"));
        out.push_str(if i + 1 < g.entries.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

/// Write a glossary as TSV or CSV. Columns beyond `source, target` appear
/// only when some entry needs them; a header is written when there are
/// such columns, or when `header` is set. A plain two-column file is what
/// machine-translation services take.
pub fn export_sheet(g: &Glossary, format: SheetFormat, header: bool) -> Result<String, InputError> {
    if format == SheetFormat::Tbx {
        return Err(InputError::file(
            &g.path,
            "TBX export is not supported; use tsv or csv",
        ));
    }
    let mut cols = Vec::new();
    if g.entries.iter().any(|e| e.id != e.source) {
        cols.push(Column::Id);
    }
    cols.extend([Column::Source, Column::Target]);
    if g.entries.iter().any(|e| !e.forms.is_empty()) {
        cols.push(Column::Forms);
    }
    let ctx = |e: &Entry, f: fn(&Context) -> &Vec<String>| {
        e.context.as_ref().map(f).cloned().unwrap_or_default()
    };
    if g.entries.iter().any(|e| e.sense.is_some()) {
        cols.push(Column::Sense);
    }
    if g.entries.iter().any(|e| !e.aliases.is_empty()) {
        cols.push(Column::Aliases);
    }
    if g.entries.iter().any(|e| !ctx(e, |c| &c.any).is_empty()) {
        cols.push(Column::ContextAny);
    }
    if g.entries.iter().any(|e| !ctx(e, |c| &c.not).is_empty()) {
        cols.push(Column::ContextNot);
    }
    let mut w = csv::WriterBuilder::new()
        .delimiter(format.delimiter())
        .from_writer(Vec::new());
    let write = |w: &mut csv::Writer<Vec<u8>>, row: Vec<String>| {
        w.write_record(&row).expect("write to memory")
    };
    if header || cols.len() > 2 {
        // Source and target columns named by their languages when both are
        // language codes, so that the languages survive a round trip.
        let codes = is_lang_code(&g.source_lang)
            && is_lang_code(&g.target_lang)
            && Column::parse(&g.target_lang).is_none();
        let name = |c: &Column| match c {
            Column::Source if codes => g.source_lang.clone(),
            Column::Target if codes => g.target_lang.clone(),
            c => c.name().to_string(),
        };
        write(&mut w, cols.iter().map(name).collect());
    }
    for e in &g.entries {
        let at = |msg: String| InputError {
            path: g.path.clone(),
            line: (e.line > 0).then_some(e.line),
            column: None,
            message: msg,
        };
        let list = |items: &[String], what: &str, whats: &str| -> Result<String, InputError> {
            if let Some(bad) = items.iter().find(|s| s.contains(';')) {
                return Err(at(format!(
                    "entry `{}`: {what} {bad:?} contains `;`, which separates {whats} in a sheet",
                    e.id
                )));
            }
            Ok(items.join("; "))
        };
        let mut row = Vec::with_capacity(cols.len());
        for c in &cols {
            row.push(match c {
                Column::Id => e.id.clone(),
                Column::Source => e.source.clone(),
                Column::Target => e.target.clone(),
                Column::Sense => e.sense.clone().unwrap_or_default(),
                Column::Forms => list(&e.forms, "form", "forms")?,
                Column::Aliases => list(&e.aliases, "alias", "aliases")?,
                Column::ContextAny => {
                    list(&ctx(e, |c| &c.any), "context phrase", "context phrases")?
                }
                Column::ContextNot => {
                    list(&ctx(e, |c| &c.not), "context phrase", "context phrases")?
                }
            });
        }
        write(&mut w, row);
    }
    Ok(String::from_utf8(w.into_inner().expect("flush to memory")).expect("UTF-8 cells"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> ImportOptions {
        ImportOptions {
            name: "t".into(),
            ..ImportOptions::default()
        }
    }

    fn sheet(text: &str, format: SheetFormat) -> Result<Glossary, ImportErrors> {
        import_sheet("g.tsv", text, format, &opts()).map(|i| i.glossary)
    }

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
    fn export_refuses_a_list_item_holding_the_separator() {
        let g = Glossary::parse(
            "g.json",
            "g",
            "{\"entries\":[\n{\"source\":\"tea\",\"target\":\"te\",\"aliases\":[\"a;b\"]}]}",
        )
        .unwrap();
        let err = export_sheet(&g, SheetFormat::Csv, false).unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("alias \"a;b\" contains `;`"), "{err}");
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
    fn export_then_import_round_trips_every_field() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"name":"g","source_lang":"en","target_lang":"x","entries":[
              {"id":"cc","source":"cold coffee","target":"frosk, mavi"},
              {"source":"date","target":"zimbo","sense":"the \"fruit\"","aliases":["dates"],"context":{"any":["palm"],"not":["save the date","up to date"]}},
              {"source":"tea","target":"te\tx"},
              {"source":"experiment","target":"experiment","forms":["experimentu","experimentem"]}]}"#,
        )
        .unwrap();
        for format in [SheetFormat::Tsv, SheetFormat::Csv] {
            let text = export_sheet(&g, format, false).unwrap();
            let back = import_sheet(
                "g.sheet",
                &text,
                format,
                &ImportOptions {
                    name: "g".into(),
                    source_lang: None,
                    target_lang: Some("x".into()),
                },
            )
            .unwrap()
            .glossary;
            assert_eq!(back.entries.len(), 4);
            for (a, b) in g.entries.iter().zip(&back.entries) {
                assert_eq!(
                    (&a.id, &a.source, &a.target, &a.sense, &a.aliases),
                    (&b.id, &b.source, &b.target, &b.sense, &b.aliases)
                );
                assert_eq!(a.forms, b.forms);
                assert_eq!(a.context, b.context);
            }
            let json = to_json(&back);
            let again = Glossary::parse("o.json", "o", &json).unwrap();
            assert_eq!(again.entries.len(), 4);
            assert_eq!(again.entries[1].line, 7);
            assert_eq!(again.entries[3].forms, ["experimentu", "experimentem"]);
        }
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

    #[test]
    fn plain_glossaries_export_two_columns_without_a_header() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[{"source":"tea","target":"te"}]}"#,
        )
        .unwrap();
        assert_eq!(
            export_sheet(&g, SheetFormat::Tsv, false).unwrap(),
            "tea\tte\n"
        );
        assert_eq!(
            export_sheet(&g, SheetFormat::Csv, true).unwrap(),
            "source,target\ntea,te\n"
        );
    }

    #[test]
    fn tbx_basic_and_tbx_v3() {
        let tbx = r#"<?xml version="1.0"?>
<martif type="TBX-Basic" xml:lang="en">
 <text><body>
  <termEntry id="cookie">
   <descrip type="definition">a small sweet baked biscuit</descrip>
   <langSet xml:lang="en-GB"><tig><term>cookie</term></tig><tig><term>biscuit</term></tig></langSet>
   <langSet xml:lang="fr"><tig><term>gâteau sec</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></tig><tig><term>biscuit sec</term></tig><tig><term>biscuits secs</term></tig><tig><term>biscuit sec</term></tig></langSet>
  </termEntry>
  <termEntry id="only-en">
   <langSet xml:lang="en"><tig><term>latte</term></tig></langSet>
  </termEntry>
 </body></text>
</martif>"#;
        let got = import_tbx("g.tbx", tbx, &opts()).unwrap();
        let g = got.glossary;
        assert_eq!(g.target_lang, "fr");
        assert_eq!(g.len(), 1);
        let e = &g.entries[0];
        assert_eq!(
            (e.id.as_str(), e.source.as_str(), e.target.as_str()),
            ("cookie", "cookie", "biscuit sec")
        );
        assert_eq!(e.aliases, ["biscuit"]);
        // Further target-language terms are accepted forms (no repeats);
        // a deprecated one is neither the target nor a form.
        assert_eq!(e.forms, ["biscuits secs"]);
        assert_eq!(e.sense.as_deref(), Some("a small sweet baked biscuit"));
        assert_eq!(e.line, 4);
        assert_eq!(
            got.warnings,
            ["g.tbx:9: termEntry `only-en` has no `fr` term; skipped"]
        );

        let v3 = r#"<tbx xmlns="urn:iso:std:iso:30042:ed-2" type="TBX-Basic" xml:lang="en"><text><body>
<conceptEntry id="c1"><langSec xml:lang="en"><termSec><term>cold coffee</term></termSec></langSec>
<langSec xml:lang="de"><termSec><term>kalter Kaffee</term></termSec><termSec><term>Kaltkaffee</term><termNote type="administrativeStatus">supersededTerm-admn-sts</termNote></termSec><termSec><term>kalten Kaffee</term></termSec></langSec></conceptEntry>
</body></text></tbx>"#;
        let g = import_tbx("v3.tbx", v3, &opts()).unwrap().glossary;
        assert_eq!(
            (
                g.entries[0].source.as_str(),
                g.entries[0].target.as_str(),
                g.target_lang.as_str()
            ),
            ("cold coffee", "kalter Kaffee", "de")
        );
        assert_eq!(g.entries[0].forms, ["kalten Kaffee"]);
    }

    #[test]
    fn deeply_nested_tbx_is_refused_not_a_stack_overflow() {
        let depth = 14_000;
        let text = format!(
            "<martif>\n<!-- <a><a> --><![CDATA[<b>]]><x a='>'/>{}{}</martif>",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        );
        let err = import_tbx("deep.tbx", &text, &opts()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("deep.tbx:2: elements nested more than 256 deep"),
            "{err}"
        );
        assert_eq!(too_deep(&text, depth + 1), None);
        // Comments, CDATA, self-closing tags and quoted `>` do not nest.
        assert_eq!(
            too_deep("<a><!--<b>--><![CDATA[<c>]]><d/><e x=\">\"></e></a>", 2),
            None
        );
        assert!(too_deep("<a><b></b></a>", 1).is_some());
    }

    #[test]
    fn tbx_errors_name_the_line() {
        let err = import_tbx("bad.tbx", "<martif>\n<text>\n</martif>", &opts()).unwrap_err();
        assert!(err.to_string().starts_with("bad.tbx:3:"), "{err}");
        let two = r#"<martif><termEntry><langSet xml:lang="en"><term>a b</term></langSet><langSet xml:lang="fr"><term>x</term></langSet><langSet xml:lang="de"><term>y</term></langSet></termEntry></martif>"#;
        let err = import_tbx("two.tbx", two, &opts()).unwrap_err();
        assert!(
            err.to_string()
                .contains("several target languages (fr, de); choose one with --target-lang"),
            "{err}"
        );
        let g = import_tbx(
            "two.tbx",
            two,
            &ImportOptions {
                target_lang: Some("de".into()),
                ..opts()
            },
        )
        .unwrap()
        .glossary;
        assert_eq!(g.entries[0].target, "y");
    }
}
