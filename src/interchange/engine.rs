//! Glossaries out to machine-translation engines, and the limits each
//! engine documents (docs/formats.md, "Exporting to MT engines"):
//!
//! - `deepl`: DeepL glossary entries as CSV, `source,target` a line, no
//!   header (the languages go in the API call);
//! - `google`: a Google Cloud Translation unidirectional glossary, two
//!   columns, no header (Google: "The file must not contain headers");
//! - `google-sets`: a Google "equivalent term sets" glossary, a header of
//!   language codes (plus `description`, the sense, when an entry has one);
//! - `amazon`, `amazon-tsv`: Amazon Translate custom terminology, a header
//!   of language codes, the source language first.
//!
//! Each entry is one row `source → target`; aliases become rows of their
//! own (`alias → target`) unless their text is already a source in the
//! file, which the engines refuse or cannot tell apart. What the engine's
//! file cannot carry is summed up in one note ([`EngineFile::notes`]);
//! [`engine_limits`] lists what the engine would refuse.

use super::SheetFormat;
use crate::error::InputError;
use crate::glossary::{Entry, Glossary};
use crate::language;
use std::collections::{HashMap, HashSet};

/// A machine-translation engine whose glossary file glossa writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// DeepL glossary entries, CSV.
    Deepl,
    /// Google Cloud Translation, unidirectional glossary (CSV, no header).
    Google,
    /// Google Cloud Translation, equivalent term sets glossary (CSV).
    GoogleSets,
    /// Amazon Translate custom terminology, CSV.
    Amazon,
    /// Amazon Translate custom terminology, TSV.
    AmazonTsv,
}

impl Engine {
    pub const ALL: [Engine; 5] = [
        Engine::Deepl,
        Engine::Google,
        Engine::GoogleSets,
        Engine::Amazon,
        Engine::AmazonTsv,
    ];

    /// The word `--to` and `--for` take.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Deepl => "deepl",
            Engine::Google => "google",
            Engine::GoogleSets => "google-sets",
            Engine::Amazon => "amazon",
            Engine::AmazonTsv => "amazon-tsv",
        }
    }

    /// The engine's name for people.
    pub fn title(self) -> &'static str {
        match self {
            Engine::Deepl => "DeepL",
            Engine::Google | Engine::GoogleSets => "Google Cloud Translation",
            Engine::Amazon | Engine::AmazonTsv => "Amazon Translate",
        }
    }

    fn delimiter(self) -> u8 {
        match self {
            Engine::AmazonTsv => b'\t',
            _ => b',',
        }
    }

    /// Whether the file names the languages in a header row (and so needs
    /// a target language).
    pub(crate) fn has_header(self) -> bool {
        matches!(
            self,
            Engine::GoogleSets | Engine::Amazon | Engine::AmazonTsv
        )
    }

    /// How two sources are the same source for this engine: DeepL and
    /// Google compare them as written; Amazon matches terms whatever their
    /// case, so `Polish` and `polish` are one source there.
    fn same_source_key(self, source: &str) -> String {
        match self {
            Engine::Amazon | Engine::AmazonTsv => source.to_lowercase(),
            _ => source.to_string(),
        }
    }
}

/// A format `glossa export --to` writes: a sheet or TBX, an engine's file,
/// or a translation-management system's glossary CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Sheet(SheetFormat),
    Engine(Engine),
    Tms(super::Tms),
}

/// One row of an engine's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineRow {
    /// The entry's id and line in the glossary file.
    pub(crate) entry: String,
    pub(crate) line: usize,
    pub(crate) source: String,
    pub(crate) target: String,
    /// Written in `google-sets`' `description` column.
    pub(crate) sense: Option<String>,
    /// The row of an alias, not of the entry's source.
    pub(crate) alias: bool,
}

/// An engine's glossary file, ready to write.
#[derive(Debug, Clone)]
pub struct EngineFile {
    pub(crate) engine: Engine,
    pub(crate) rows: Vec<EngineRow>,
    pub text: String,
    /// What the file does not carry, and how to use it, for one note.
    pub notes: Vec<String>,
    source_lang: String,
    target_lang: Option<String>,
}

/// Something an engine would refuse or handle badly, at one row (or the
/// whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineIssue {
    /// The row of [`EngineFile::rows`], or `None` for the whole file.
    pub row: Option<usize>,
    pub line: usize,
    pub entry: String,
    /// `deepl-duplicate`, `deepl-entry-size`, ... (docs/formats.md).
    pub check: &'static str,
    /// The engine refuses the file (else it takes it, but a row will not
    /// work as the glossary means).
    pub refused: bool,
    pub message: String,
    pub suggestion: String,
}

/// DeepL: 10 MiB a glossary; 1,024 UTF-8 bytes a source or target
/// (docs/formats.md, "Exporting to MT engines").
pub(crate) const DEEPL_MAX_FILE_BYTES: usize = 10 * 1024 * 1024;
pub(crate) const DEEPL_MAX_TERM_BYTES: usize = 1024;
/// Amazon Translate: a terminology file of at most 10,485,760 bytes; 200
/// bytes a source or target term.
pub(crate) const AMAZON_MAX_FILE_BYTES: usize = 10_485_760;
pub(crate) const AMAZON_MAX_TERM_BYTES: usize = 200;
/// Google Cloud Translation: a glossary of at most 10M Unicode code points.
pub(crate) const GOOGLE_MAX_CODEPOINTS: usize = 10_000_000;

/// A glossary as `engine`'s file. Refused when the file names languages
/// and the glossary has no target language.
pub fn export_engine(g: &Glossary, engine: Engine) -> Result<EngineFile, InputError> {
    let target_lang = (g.target_lang != language::MISSING_TARGET).then(|| g.target_lang.clone());
    if engine.has_header() && target_lang.is_none() {
        return Err(InputError::file(
            &g.path,
            format!(
                "the glossary has no target language, and the {} file names it in its header; \
                 give it: glossa export {} --to {} --target-lang CODE (e.g. --target-lang fr)",
                engine.title(),
                g.path,
                engine.name()
            ),
        ));
    }
    let (rows, skipped) = rows(g, engine);
    let mut file = EngineFile {
        engine,
        rows,
        text: String::new(),
        notes: Vec::new(),
        source_lang: g.source_lang.clone(),
        target_lang,
    };
    file.text = file.render();
    file.notes = notes(g, &file, &skipped);
    Ok(file)
}

/// Each entry's row, then its aliases' rows; an alias whose text is
/// already a source (of any entry, or an earlier alias) is left out and
/// returned with its entry.
fn rows(g: &Glossary, engine: Engine) -> (Vec<EngineRow>, Vec<(String, String)>) {
    let sources: HashSet<String> = g
        .entries
        .iter()
        .map(|e| engine.same_source_key(&e.source))
        .collect();
    let mut aliases_written = HashSet::new();
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let row = |e: &Entry, source: &str, alias: bool| EngineRow {
        entry: e.id.clone(),
        line: e.line,
        source: source.to_string(),
        target: e.target.clone(),
        sense: e.sense.clone(),
        alias,
    };
    for e in &g.entries {
        rows.push(row(e, &e.source, false));
        for alias in &e.aliases {
            let key = engine.same_source_key(alias);
            if sources.contains(&key) || !aliases_written.insert(key) {
                skipped.push((alias.clone(), e.id.clone()));
            } else {
                rows.push(row(e, alias, true));
            }
        }
    }
    (rows, skipped)
}

impl EngineFile {
    /// The file's text from its rows.
    fn render(&self) -> String {
        let mut w = csv::WriterBuilder::new()
            .delimiter(self.engine.delimiter())
            .from_writer(Vec::new());
        let description =
            self.engine == Engine::GoogleSets && self.rows.iter().any(|r| r.sense.is_some());
        if self.engine.has_header() {
            let mut header = vec![
                self.source_lang.clone(),
                self.target_lang.clone().unwrap_or_default(),
            ];
            if description {
                header.push("description".into());
            }
            w.write_record(&header).expect("write to memory");
        }
        for r in &self.rows {
            let mut record = vec![r.source.as_str(), r.target.as_str()];
            if description {
                record.push(r.sense.as_deref().unwrap_or(""));
            }
            w.write_record(&record).expect("write to memory");
        }
        String::from_utf8(w.into_inner().expect("flush to memory")).expect("UTF-8 cells")
    }

    /// The file without the rows `drop` names (`export --drop-refused`).
    pub fn without_rows(mut self, drop: &HashSet<usize>) -> EngineFile {
        let mut i = 0;
        self.rows.retain(|_| {
            i += 1;
            !drop.contains(&(i - 1))
        });
        self.text = self.render();
        self
    }
}

/// What `file` does not carry of `g`, and the languages to give the
/// engine where the file does not name them.
fn notes(g: &Glossary, file: &EngineFile, skipped: &[(String, String)]) -> Vec<String> {
    let count = |has: fn(&Entry) -> bool| g.entries.iter().filter(|e| has(e)).count();
    let mut lost = Vec::new();
    let mut add = |n: usize, what: &str| {
        if n > 0 {
            lost.push(format!("{what} ({})", entries(n)));
        }
    };
    if file.engine != Engine::GoogleSets {
        add(count(|e| e.sense.is_some()), "sense");
    }
    add(
        count(|e| {
            e.context
                .as_ref()
                .is_some_and(|c| !c.any.is_empty() || !c.not.is_empty())
        }),
        "context",
    );
    add(count(|e| !e.forms.is_empty()), "forms beyond the target");
    add(count(|e| !e.forbidden.is_empty()), "forbidden terms");
    add(count(|e| e.case_sensitive), "case_sensitive");
    add(count(|e| e.id != e.source), "ids");
    let mut notes = Vec::new();
    if !lost.is_empty() {
        notes.push(format!(
            "the {} file does not carry: {}; keep the JSON glossary for them",
            file.engine.title(),
            lost.join(", ")
        ));
    }
    if !skipped.is_empty() {
        let shown: Vec<String> = skipped
            .iter()
            .take(5)
            .map(|(alias, entry)| format!("`{alias}` (entry `{entry}`)"))
            .collect();
        let more = match skipped.len() > 5 {
            true => format!(" and {} more", skipped.len() - 5),
            false => String::new(),
        };
        notes.push(format!(
            "{} left out: already a source in the file, which {} {}: {}{more}",
            count_of(skipped.len(), "alias", "aliases"),
            file.engine.title(),
            match file.engine {
                Engine::Deepl => "refuses twice",
                _ => "cannot tell apart",
            },
            shown.join(", ")
        ));
    }
    if !file.engine.has_header() {
        let langs = match &file.target_lang {
            Some(t) => format!("source {} and target {}", file.source_lang, t),
            None => format!(
                "source {} and the target language (the glossary names none)",
                file.source_lang
            ),
        };
        notes.push(format!(
            "the file names no languages: give {langs} when you create the glossary with {}",
            file.engine.title()
        ));
    }
    notes
}

fn entries(n: usize) -> String {
    count_of(n, "entry", "entries")
}

fn count_of(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What `file`'s engine would refuse (or handle otherwise than the
/// glossary means), each rule citing its source in docs/formats.md,
/// "Exporting to MT engines".
pub fn engine_limits(file: &EngineFile) -> Vec<EngineIssue> {
    let mut issues = Vec::new();
    let issue =
        |i: usize, r: &EngineRow, check, refused, message: String, suggestion: &str| EngineIssue {
            row: Some(i),
            line: r.line,
            entry: r.entry.clone(),
            check,
            refused,
            message,
            suggestion: suggestion.to_string(),
        };
    let term = |r: &EngineRow| if r.alias { "alias" } else { "source" };
    match file.engine {
        Engine::Deepl => {
            let mut first: HashMap<&str, usize> = HashMap::new();
            for (i, r) in file.rows.iter().enumerate() {
                match first.get(r.source.as_str()) {
                    Some(&j) => {
                        let earlier = &file.rows[j];
                        issues.push(issue(
                            i,
                            r,
                            "deepl-duplicate",
                            true,
                            format!(
                                "{} `{}` is also the source of entry `{}` (line {}); DeepL refuses \
                                 a whole glossary that holds a source twice",
                                term(r),
                                r.source,
                                earlier.entry,
                                earlier.line
                            ),
                            "keep one of the two entries for DeepL (or --drop-refused to leave the later one out)",
                        ));
                    }
                    None => {
                        first.insert(&r.source, i);
                    }
                }
                for (what, text) in [(term(r), &r.source), ("target", &r.target)] {
                    if let Some(problem) = deepl_bad_text(text) {
                        issues.push(issue(
                            i,
                            r,
                            "deepl-characters",
                            true,
                            format!("{what} {text:?} {problem}; DeepL refuses such an entry"),
                            "write the term without it",
                        ));
                    }
                    if text.len() > DEEPL_MAX_TERM_BYTES {
                        issues.push(issue(
                            i,
                            r,
                            "deepl-entry-size",
                            true,
                            format!(
                                "{what} is {} bytes in UTF-8; DeepL takes at most {DEEPL_MAX_TERM_BYTES}",
                                text.len()
                            ),
                            "shorten it: a glossary term is a word or a short phrase",
                        ));
                    }
                }
            }
            whole_file(
                &mut issues,
                file,
                "deepl-file-size",
                file.text.len(),
                DEEPL_MAX_FILE_BYTES,
                "bytes",
                "10 MiB",
            );
        }
        Engine::Amazon | Engine::AmazonTsv => {
            let mut first: HashMap<String, usize> = HashMap::new();
            for (i, r) in file.rows.iter().enumerate() {
                let key = file.engine.same_source_key(&r.source);
                match first.get(&key) {
                    Some(&j) if file.rows[j].target != r.target => {
                        let earlier = &file.rows[j];
                        issues.push(issue(
                            i,
                            r,
                            "amazon-duplicate",
                            false,
                            format!(
                                "{} `{}` is also the source of entry `{}` (line {}) with another \
                                 target ({:?}, here {:?}); Amazon Translate matches sources whatever \
                                 their case and asks for one translation a source",
                                term(r),
                                r.source,
                                earlier.entry,
                                earlier.line,
                                earlier.target,
                                r.target
                            ),
                            "keep one of the two for Amazon Translate",
                        ));
                    }
                    Some(_) => {}
                    None => {
                        first.insert(key, i);
                    }
                }
                for (what, text) in [(term(r), &r.source), ("target", &r.target)] {
                    if text.len() > AMAZON_MAX_TERM_BYTES {
                        issues.push(issue(
                            i,
                            r,
                            "amazon-term-size",
                            true,
                            format!(
                                "{what} is {} bytes in UTF-8; Amazon Translate takes at most \
                                 {AMAZON_MAX_TERM_BYTES} a term",
                                text.len()
                            ),
                            "shorten it: a terminology entry is a word or a short phrase",
                        ));
                    }
                }
            }
            whole_file(
                &mut issues,
                file,
                "amazon-file-size",
                file.text.len(),
                AMAZON_MAX_FILE_BYTES,
                "bytes",
                "10 MB",
            );
        }
        Engine::Google | Engine::GoogleSets => {
            let codepoints = file.text.chars().count();
            whole_file(
                &mut issues,
                file,
                "google-size",
                codepoints,
                GOOGLE_MAX_CODEPOINTS,
                "Unicode code points",
                "10M code points",
            );
        }
    }
    issues
}

/// A finding for the whole file when `size` is over `max`.
fn whole_file(
    issues: &mut Vec<EngineIssue>,
    file: &EngineFile,
    check: &'static str,
    size: usize,
    max: usize,
    unit: &str,
    limit: &str,
) {
    if size > max {
        issues.push(EngineIssue {
            row: None,
            line: 0,
            entry: String::new(),
            check,
            refused: true,
            message: format!(
                "the {} file is {size} {unit}; {} takes at most {max} ({limit})",
                file.engine.name(),
                file.engine.title()
            ),
            suggestion: "split the glossary into several files".into(),
        });
    }
}

/// Why DeepL refuses `text` as a source or target, if it does: empty, a
/// C0 or C1 control character (a tab, a line break) or a Unicode line or
/// paragraph separator, or white space at either end.
fn deepl_bad_text(text: &str) -> Option<String> {
    if text.is_empty() {
        return Some("is empty".into());
    }
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
    {
        return Some(format!("holds the control character U+{:04X}", c as u32));
    }
    if text.starts_with(char::is_whitespace) || text.ends_with(char::is_whitespace) {
        return Some("has white space at its start or end".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glossary(json: &str) -> Glossary {
        Glossary::parse("g.json", "g", json).unwrap()
    }

    #[test]
    fn deepl_writes_pairs_quoted_and_aliases_as_rows_but_never_a_source_twice() {
        let g = glossary(
            r#"{"source_lang":"en","target_lang":"de","entries":[
              {"source":"tea, iced","target":"Eistee \"kalt\"","aliases":["iced tea","cake"]},
              {"source":"cake","target":"Kuchen","aliases":["iced tea"]}]}"#,
        );
        let file = export_engine(&g, Engine::Deepl).unwrap();
        assert_eq!(
            file.text,
            "\"tea, iced\",\"Eistee \"\"kalt\"\"\"\niced tea,\"Eistee \"\"kalt\"\"\"\ncake,Kuchen\n"
        );
        let skipped = file.notes.iter().find(|n| n.contains("left out")).unwrap();
        assert!(skipped.starts_with("2 aliases left out"), "{skipped}");
        assert!(skipped.contains("`cake` (entry `tea, iced`)"), "{skipped}");
        assert!(engine_limits(&file).is_empty());
    }

    #[test]
    fn amazon_and_google_sets_name_the_languages_and_refuse_without_a_target() {
        let g = glossary(
            r#"{"source_lang":"en","target_lang":"fr","entries":[
              {"source":"date","target":"datte","sense":"the fruit"},{"source":"tea","target":"thé"}]}"#,
        );
        let amazon = export_engine(&g, Engine::Amazon).unwrap();
        assert_eq!(amazon.text, "en,fr\ndate,datte\ntea,thé\n");
        assert!(
            amazon.notes[0].contains("sense (1 entry)"),
            "{:?}",
            amazon.notes
        );
        let tsv = export_engine(&g, Engine::AmazonTsv).unwrap();
        assert_eq!(tsv.text, "en\tfr\ndate\tdatte\ntea\tthé\n");
        let sets = export_engine(&g, Engine::GoogleSets).unwrap();
        assert_eq!(
            sets.text,
            "en,fr,description\ndate,datte,the fruit\ntea,thé,\n"
        );
        assert!(
            sets.notes.iter().all(|n| !n.contains("sense")),
            "{:?}",
            sets.notes
        );
        let google = export_engine(&g, Engine::Google).unwrap();
        assert_eq!(google.text, "date,datte\ntea,thé\n");
        assert!(google
            .notes
            .iter()
            .any(|n| n.contains("source en and target fr")));

        let none = glossary(r#"{"entries":[{"source":"tea","target":"te"}]}"#);
        for engine in [Engine::Amazon, Engine::AmazonTsv, Engine::GoogleSets] {
            let err = export_engine(&none, engine).unwrap_err();
            assert!(err.message.contains("--target-lang"), "{err}");
        }
        // A file without a header does not need it.
        assert!(export_engine(&none, Engine::Deepl).is_ok());
    }

    #[test]
    fn deepl_limits_fire_on_the_entry_that_breaks_them() {
        let long = "x".repeat(DEEPL_MAX_TERM_BYTES - 1);
        let g = glossary(&format!(
            r#"{{"source_lang":"en","target_lang":"de","entries":[
              {{"id":"a","source":"date","target":"Dattel"}},
              {{"id":"b","source":"date","target":"Datum"}},
              {{"id":"c","source":"tab","target":"Tab\tulator"}},
              {{"id":"d","source":"ok","target":"{long}"}},
              {{"id":"e","source":"long","target":"{long}é"}},
              {{"id":"f","source":"Date","target":"Datum"}}]}}"#
        ));
        let file = export_engine(&g, Engine::Deepl).unwrap();
        let issues = engine_limits(&file);
        let got: Vec<(&str, &str)> = issues.iter().map(|i| (i.entry.as_str(), i.check)).collect();
        // 1,023 bytes pass, 1,025 (é is two bytes) do not; "Date" is not "date".
        assert_eq!(
            got,
            [
                ("b", "deepl-duplicate"),
                ("c", "deepl-characters"),
                ("e", "deepl-entry-size")
            ]
        );
        assert!(
            issues[0].message.contains("entry `a` (line 2)"),
            "{}",
            issues[0].message
        );
        assert!(issues.iter().all(|i| i.refused));
        // Amazon reads "Date" as "date": a warning, for the rows whose target differs.
        let amazon = engine_limits(&export_engine(&g, Engine::Amazon).unwrap());
        let dups: Vec<&str> = amazon
            .iter()
            .filter(|i| i.check == "amazon-duplicate")
            .map(|i| i.entry.as_str())
            .collect();
        assert_eq!(dups, ["b", "f"]);
        assert!(amazon
            .iter()
            .filter(|i| i.check == "amazon-duplicate")
            .all(|i| !i.refused));
    }

    #[test]
    fn deepl_refuses_white_space_at_the_ends_and_line_separators() {
        for (text, bad) in [
            ("a\u{2028}b", true),
            ("a\u{85}b", true),
            ("\u{a0}a", true),
            ("a b", false),
            ("a\u{a0}b", false),
            ("", true),
        ] {
            assert_eq!(deepl_bad_text(text).is_some(), bad, "{text:?}");
        }
    }

    #[test]
    fn dropping_rows_rewrites_the_file() {
        let g = glossary(
            r#"{"source_lang":"en","target_lang":"de","entries":[
              {"id":"a","source":"date","target":"Dattel"},{"id":"b","source":"date","target":"Datum"}]}"#,
        );
        let file = export_engine(&g, Engine::Deepl).unwrap();
        let drop: HashSet<usize> = engine_limits(&file).iter().filter_map(|i| i.row).collect();
        let file = file.without_rows(&drop);
        assert_eq!(file.text, "date,Dattel\n");
        assert!(engine_limits(&file).is_empty());
    }
}
