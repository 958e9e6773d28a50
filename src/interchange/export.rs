//! Glossaries out: the JSON file `import` writes, TSV/CSV sheets and TBX.

use super::sheet::{is_lang_code, Column};
use super::tbx::{
    lang_matches, EXPORTED_BY, FIELD_CASE_SENSITIVE, FIELD_CONTEXT_ANY, FIELD_CONTEXT_NOT,
    FIELD_ID, FIELD_KEEP, FIELD_WIDE_FORBIDDEN, NOTE, WIDE_FORBIDDEN,
};
use super::SheetFormat;
use crate::error::InputError;
use crate::glossary::{Context, Entry, Glossary};
use serde::Serialize;

/// `source`.
#[derive(Serialize)]
struct EntryOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    source: &'a str,
    target: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    forms: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    forbidden: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    sense: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    case_sensitive: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    keep: bool,
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
        "{{\n  \"name\": {},\n  \"source_lang\": {},\n",
        s(&g.name),
        s(&g.source_lang),
    );
    // A glossary with no target language is written without one, never
    // with the stand-in it holds in memory (docs/formats.md, "Languages").
    if g.target_lang != crate::language::MISSING_TARGET {
        out.push_str(&format!("  \"target_lang\": {},\n", s(&g.target_lang)));
    }
    if !g.forbidden.is_empty() {
        let words = serde_json::to_string(&g.forbidden).expect("strings serialise");
        out.push_str(&format!("  \"forbidden\": {words},\n"));
    }
    out.push_str("  \"entries\": [\n");
    for (i, e) in g.entries.iter().enumerate() {
        let entry = EntryOut {
            id: (e.id != e.source).then_some(e.id.as_str()),
            source: &e.source,
            target: &e.target,
            forms: &e.forms,
            forbidden: &e.forbidden,
            sense: e.sense.as_deref(),
            case_sensitive: e.case_sensitive,
            keep: e.keep,
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
/// machine-translation services take. TBX is [`export_tbx`]. A sheet does
/// not hold the glossary-wide `forbidden` list (it has no source).
pub fn export_sheet(g: &Glossary, format: SheetFormat, header: bool) -> Result<String, InputError> {
    match format {
        SheetFormat::Tbx => return export_tbx(g, TbxDialect::Basic),
        SheetFormat::Tbx3 => return export_tbx(g, TbxDialect::V3),
        _ => {}
    }
    if format.is_workbook() {
        return Err(InputError::file(
            &g.path,
            "xlsx and ods are import only; export writes tsv, csv or tbx (a spreadsheet opens the csv)",
        ));
    }
    let cols = columns(g);
    let mut w = csv::WriterBuilder::new()
        .delimiter(format.delimiter())
        .from_writer(Vec::new());
    if header || cols.len() > 2 {
        w.write_record(header_row(g, &cols))
            .expect("write to memory");
    }
    for e in &g.entries {
        w.write_record(row(g, e, &cols)?).expect("write to memory");
    }
    Ok(String::from_utf8(w.into_inner().expect("flush to memory")).expect("UTF-8 cells"))
}

/// The context phrases of one list (`any` or `not`).
fn context(e: &Entry, list: fn(&Context) -> &Vec<String>) -> Vec<String> {
    e.context.as_ref().map(list).cloned().unwrap_or_default()
}

/// Whether an entry has something for a column.
type NeedsColumn = fn(&Entry) -> bool;

/// The columns some entry needs, in the order they are written.
fn columns(g: &Glossary) -> Vec<Column> {
    let any = |needs: NeedsColumn| g.entries.iter().any(needs);
    let mut cols = Vec::new();
    if any(|e| e.id != e.source) {
        cols.push(Column::Id);
    }
    cols.extend([Column::Source, Column::Target]);
    let optional: [(Column, NeedsColumn); 8] = [
        (Column::Forms, |e| !e.forms.is_empty()),
        (Column::Forbidden, |e| !e.forbidden.is_empty()),
        (Column::Sense, |e| e.sense.is_some()),
        (Column::Aliases, |e| !e.aliases.is_empty()),
        (Column::ContextAny, |e| !context(e, |c| &c.any).is_empty()),
        (Column::ContextNot, |e| !context(e, |c| &c.not).is_empty()),
        (Column::CaseSensitive, |e| e.case_sensitive),
        (Column::Keep, |e| e.keep),
    ];
    for (column, needs) in optional {
        if any(needs) {
            cols.push(column);
        }
    }
    cols
}

/// Column names; source and target named by their languages when both
/// are language codes, so that the languages survive a round trip.
fn header_row(g: &Glossary, cols: &[Column]) -> Vec<String> {
    let codes = is_lang_code(&g.source_lang)
        && is_lang_code(&g.target_lang)
        && Column::parse(&g.target_lang).is_none();
    cols.iter()
        .map(|c| match c {
            Column::Source if codes => g.source_lang.clone(),
            Column::Target if codes => g.target_lang.clone(),
            c => c.name().to_string(),
        })
        .collect()
}

/// One entry's cells; a list item holding the separator `;` is refused.
fn row(g: &Glossary, e: &Entry, cols: &[Column]) -> Result<Vec<String>, InputError> {
    let list = |items: &[String], what: &str, whats: &str| -> Result<String, InputError> {
        if let Some(bad) = items.iter().find(|s| s.contains(';')) {
            return Err(InputError {
                path: g.path.clone(),
                line: (e.line > 0).then_some(e.line),
                column: None,
                message: format!(
                    "entry `{}`: {what} {bad:?} contains `;`, which separates {whats} in a sheet",
                    e.id
                ),
            });
        }
        Ok(items.join("; "))
    };
    let phrases = "context phrases";
    cols.iter()
        .map(|c| match c {
            Column::Id => Ok(e.id.clone()),
            Column::Source => Ok(e.source.clone()),
            Column::Target => Ok(e.target.clone()),
            Column::Sense => Ok(e.sense.clone().unwrap_or_default()),
            Column::Forms => list(&e.forms, "form", "forms"),
            Column::Forbidden => list(&e.forbidden, "forbidden term", "forbidden terms"),
            Column::Aliases => list(&e.aliases, "alias", "aliases"),
            Column::ContextAny => list(&context(e, |c| &c.any), "context phrase", phrases),
            Column::ContextNot => list(&context(e, |c| &c.not), "context phrase", phrases),
            Column::CaseSensitive => Ok(yes(e.case_sensitive)),
            Column::Keep => Ok(yes(e.keep)),
            // Read only: never among the columns written.
            Column::Pos | Column::SourceLang | Column::TargetLang | Column::Translatable => {
                Ok(String::new())
            }
        })
        .collect()
}

/// A flag's cell: `yes`, or empty.
fn yes(flag: bool) -> String {
    if flag { "yes" } else { "" }.to_string()
}

/// The TBX dialect `glossa export` writes (docs/formats.md, "TBX mapping").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TbxDialect {
    /// TBX-Basic in TBX 2008 (`martif`, `termEntry`/`langSet`/`tig`):
    /// `--to tbx`.
    Basic,
    /// TBX-Basic in TBX v3, ISO 30042:2019, DCA style (`tbx`,
    /// `conceptEntry`/`langSec`/`termSec`): `--to tbx3`.
    V3,
}

/// Element names of a dialect: root, header, concept, language section,
/// term group.
struct Names {
    root: &'static str,
    header: &'static str,
    concept: &'static str,
    lang: &'static str,
    term: &'static str,
}

impl TbxDialect {
    fn names(self) -> Names {
        match self {
            TbxDialect::Basic => Names {
                root: "martif",
                header: "martifHeader",
                concept: "termEntry",
                lang: "langSet",
                term: "tig",
            },
            TbxDialect::V3 => Names {
                root: "tbx",
                header: "tbxHeader",
                concept: "conceptEntry",
                lang: "langSec",
                term: "termSec",
            },
        }
    }
}

/// A glossary as TBX (docs/formats.md, "TBX mapping"): one concept per
/// entry; in the source language section the sense (a `definition`), the
/// source, then the aliases; in the target section the target
/// (`preferredTerm-admn-sts`), its forms (`admittedTerm-admn-sts`) and its
/// forbidden terms (`deprecatedTerm-admn-sts`). What TBX has no data
/// category for (`context`, `case_sensitive`, `keep`, an id that is no XML
/// name) is a `<note>glossa.FIELD: value</note>` of the concept, and the
/// glossary-wide `forbidden` words are the deprecated terms of a concept
/// marked `glossa.forbidden`; `glossa import` reads them back in a file
/// whose header says `exported by glossa`, so the import of the export is
/// the same glossary. Refused: a character XML 1.0 cannot carry (U+0001),
/// and a target language TBX cannot tell from the source (`en`, `en-GB`).
pub fn export_tbx(g: &Glossary, dialect: TbxDialect) -> Result<String, InputError> {
    refuse_what_tbx_cannot_hold(g)?;
    let n = dialect.names();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let root_attrs = match dialect {
        TbxDialect::Basic => format!("type=\"TBX-Basic\" xml:lang=\"{}\"", attr(&g.source_lang)),
        TbxDialect::V3 => format!(
            "type=\"TBX-Basic\" style=\"dca\" xml:lang=\"{}\" xmlns=\"urn:iso:std:iso:30042:ed-2\"",
            attr(&g.source_lang)
        ),
    };
    out.push_str(&format!(
        "<{root} {root_attrs}>\n  <{header}>\n    <fileDesc>\n      \
         <titleStmt><title>{}</title></titleStmt>\n      \
         <sourceDesc><p>{EXPORTED_BY}</p></sourceDesc>\n    </fileDesc>\n  </{header}>\n  \
         <text>\n    <body>\n",
        xml(&g.name),
        root = n.root,
        header = n.header,
    ));
    let group = |term: &str, status: Option<&str>| {
        let note = status.map_or(String::new(), |s| {
            format!("<termNote type=\"administrativeStatus\">{s}</termNote>")
        });
        format!(
            "          <{t}><term>{}</term>{note}</{t}>\n",
            xml(term),
            t = n.term
        )
    };
    let note =
        |field: &str, value: &str| format!("        <note>{NOTE}{field}: {}</note>\n", xml(value));
    // Ids are XML IDs (names, unique in the file): an entry id that is no
    // XML name is a note, and the attribute a fresh name.
    let mut ids = FreshIds::new(g);
    if !g.forbidden.is_empty() {
        out.push_str(&format!(
            "      <{c} id=\"{}\">\n{}        <{l} xml:lang=\"{}\">\n",
            ids.fresh("glossa-forbidden"),
            note(FIELD_WIDE_FORBIDDEN, WIDE_FORBIDDEN),
            attr(&g.target_lang),
            c = n.concept,
            l = n.lang,
        ));
        for word in &g.forbidden {
            out.push_str(&group(word, Some("deprecatedTerm-admn-sts")));
        }
        out.push_str(&format!("        </{}>\n      </{}>\n", n.lang, n.concept));
    }
    for (i, e) in g.entries.iter().enumerate() {
        let (id, id_note) = if dialect == TbxDialect::Basic && e.id == e.source {
            // Without an id attribute the import takes the source as the id
            // (TBX v3 requires the attribute).
            (None, false)
        } else if is_xml_name(&e.id) {
            (Some(e.id.clone()), false)
        } else {
            (Some(ids.fresh(&format!("e{}", i + 1))), true)
        };
        let id = id.map_or(String::new(), |id| format!(" id=\"{id}\""));
        out.push_str(&format!("      <{}{id}>\n", n.concept));
        if id_note {
            out.push_str(&note(FIELD_ID, &e.id));
        }
        if let Some(c) = &e.context {
            for phrase in &c.any {
                out.push_str(&note(FIELD_CONTEXT_ANY, phrase));
            }
            for phrase in &c.not {
                out.push_str(&note(FIELD_CONTEXT_NOT, phrase));
            }
        }
        if e.case_sensitive {
            out.push_str(&note(FIELD_CASE_SENSITIVE, "true"));
        }
        if e.keep {
            out.push_str(&note(FIELD_KEEP, "true"));
        }
        out.push_str(&format!(
            "        <{} xml:lang=\"{}\">\n",
            n.lang,
            attr(&g.source_lang)
        ));
        if let Some(sense) = &e.sense {
            out.push_str(&format!(
                "          <descrip type=\"definition\">{}</descrip>\n",
                xml(sense)
            ));
        }
        for term in std::iter::once(&e.source).chain(&e.aliases) {
            out.push_str(&group(term, None));
        }
        out.push_str(&format!("        </{}>\n", n.lang));
        out.push_str(&format!(
            "        <{} xml:lang=\"{}\">\n",
            n.lang,
            attr(&g.target_lang)
        ));
        out.push_str(&group(&e.target, Some("preferredTerm-admn-sts")));
        for form in &e.forms {
            out.push_str(&group(form, Some("admittedTerm-admn-sts")));
        }
        for word in &e.forbidden {
            out.push_str(&group(word, Some("deprecatedTerm-admn-sts")));
        }
        out.push_str(&format!("        </{}>\n      </{}>\n", n.lang, n.concept));
    }
    out.push_str(&format!("    </body>\n  </text>\n</{}>\n", n.root));
    Ok(out)
}

/// Concept ids made up where an entry's id is no XML name: unique among
/// the entry ids written as they are and each other.
struct FreshIds(std::collections::HashSet<String>);

impl FreshIds {
    fn new(g: &Glossary) -> FreshIds {
        FreshIds(
            g.entries
                .iter()
                .filter(|e| is_xml_name(&e.id))
                .map(|e| e.id.clone())
                .collect(),
        )
    }

    /// `wanted`, or `wanted` with `_` added until it is unused.
    fn fresh(&mut self, wanted: &str) -> String {
        let mut id = wanted.to_string();
        while self.0.contains(&id) {
            id.push('_');
        }
        self.0.insert(id.clone());
        id
    }
}

/// Whether `id` can be an XML ID as written (an NCName; ASCII only, to be
/// sure): a letter or `_`, then letters, digits, `_`, `-` and `.`.
fn is_xml_name(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// A character XML 1.0 cannot hold, even as a reference.
fn not_xml(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The refusals of [`export_tbx`], naming the entry and its line.
fn refuse_what_tbx_cannot_hold(g: &Glossary) -> Result<(), InputError> {
    // TBX names each language section's language: a stand-in would be
    // written as if it were one (docs/formats.md, "Languages").
    if g.target_lang == crate::language::MISSING_TARGET {
        return Err(InputError::file(
            &g.path,
            "the glossary names no target language, and TBX must: add `\"target_lang\": \"de\"` \
             to it, or give `--target-lang de` (a code or an English name)",
        ));
    }
    if lang_matches(&g.target_lang, &g.source_lang) || lang_matches(&g.source_lang, &g.target_lang)
    {
        return Err(InputError::file(
            &g.path,
            format!(
                "source language `{}` and target language `{}` are one language to TBX, which \
                 tells a concept's terms apart by language; set a distinct target_lang",
                g.source_lang, g.target_lang
            ),
        ));
    }
    let bad = |what: String, line: usize, text: &str| -> Result<(), InputError> {
        match text.chars().find(|&c| not_xml(c)) {
            Some(c) => Err(InputError {
                path: g.path.clone(),
                line: (line > 0).then_some(line),
                column: None,
                message: format!(
                    "{what} {text:?} holds U+{:04X}, a control character XML cannot carry; \
                     remove it to export TBX",
                    c as u32
                ),
            }),
            None => Ok(()),
        }
    };
    for word in &g.forbidden {
        bad("glossary-wide forbidden word".into(), 0, word)?;
    }
    bad("glossary name".into(), 0, &g.name)?;
    for e in &g.entries {
        let context = e.context.iter().flat_map(|c| c.any.iter().chain(&c.not));
        let texts = [&e.id, &e.source, &e.target]
            .into_iter()
            .chain(e.sense.as_ref())
            .chain(&e.aliases)
            .chain(&e.forms)
            .chain(&e.forbidden)
            .chain(context);
        for text in texts {
            bad(format!("entry `{}`:", e.id), e.line, text)?;
        }
    }
    Ok(())
}

/// Text escaped for XML element content (a carriage return as a reference,
/// which a parser would otherwise read as a line break).
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#xD;"),
            c => out.push(c),
        }
    }
    out
}

/// An attribute value escaped for XML (tabs and line breaks as references,
/// which a parser would otherwise read as spaces).
fn attr(text: &str) -> String {
    xml(text).replace('\t', "&#x9;").replace('\n', "&#xA;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interchange::{import_sheet, ImportOptions};

    #[test]
    fn a_glossary_without_a_target_language_is_not_written_as_tbx() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[{"source":"tea","target":"Tee"}]}"#,
        )
        .unwrap();
        for dialect in [TbxDialect::Basic, TbxDialect::V3] {
            let err = export_tbx(&g, dialect).unwrap_err().to_string();
            assert!(err.contains("names no target language"), "{err}");
            assert!(err.contains("--target-lang"), "{err}");
        }
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
    fn export_then_import_round_trips_every_field() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"name":"g","source_lang":"en","target_lang":"x","entries":[
              {"id":"cc","source":"cold coffee","target":"frosk, mavi"},
              {"source":"date","target":"zimbo","sense":"the \"fruit\"","aliases":["dates"],"context":{"any":["palm"],"not":["save the date","up to date"]}},
              {"source":"tea","target":"te\tx"},
              {"source":"experiment","target":"experiment","forms":["experimentu","experimentem"],"forbidden":["pokus","test"]},
              {"source":"US","target":"EE. UU.","case_sensitive":true},
              {"source":"Glossa Café","keep":true,"case_sensitive":true}]}"#,
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
                    ..ImportOptions::default()
                },
            )
            .unwrap()
            .glossary;
            assert_eq!(back.entries.len(), 6);
            for (a, b) in g.entries.iter().zip(&back.entries) {
                assert_eq!(
                    (&a.id, &a.source, &a.target, &a.sense, &a.aliases),
                    (&b.id, &b.source, &b.target, &b.sense, &b.aliases)
                );
                assert_eq!(a.forms, b.forms);
                assert_eq!(a.forbidden, b.forbidden);
                assert_eq!(a.context, b.context);
                assert_eq!((a.case_sensitive, a.keep), (b.case_sensitive, b.keep));
            }
            let json = to_json(&back);
            let again = Glossary::parse("o.json", "o", &json).unwrap();
            assert_eq!(again.entries.len(), 6);
            assert!(json.contains(r#""source":"US","target":"EE. UU.","case_sensitive":true}"#));
            assert_eq!(again.entries[1].line, 7);
            assert_eq!(again.entries[3].forms, ["experimentu", "experimentem"]);
            assert_eq!(again.entries[3].forbidden, ["pokus", "test"]);
        }
    }

    #[test]
    fn the_sheet_header_names_the_forbidden_column_and_json_the_wide_list() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"forbidden": ["cheap"], "entries":[{"source":"tea","target":"te","forbidden":["chai"]}]}"#,
        )
        .unwrap();
        assert_eq!(
            export_sheet(&g, SheetFormat::Csv, false).unwrap(),
            "source,target,forbidden\ntea,te,chai\n"
        );
        let json = to_json(&g);
        assert!(
            json.contains("  \"forbidden\": [\"cheap\"],\n  \"entries\""),
            "{json}"
        );
        let again = Glossary::parse("o.json", "o", &json).unwrap();
        assert_eq!(again.forbidden, ["cheap"]);
        assert_eq!(again.entries[0].forbidden, ["chai"]);
        // Other names of the column read the same.
        for name in ["forbidden_terms", "Deprecated", "do not use", "do-not-use"] {
            let text = format!("source\ttarget\t{name}\ntea\tte\tchai; masala chai\n");
            let back = import_sheet("s.tsv", &text, SheetFormat::Tsv, &ImportOptions::default())
                .unwrap()
                .glossary;
            assert_eq!(back.entries[0].forbidden, ["chai", "masala chai"], "{name}");
        }
    }

    #[test]
    fn tbx_export_escapes_and_reads_back_every_term() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"name": "R&D <terms>", "source_lang": "en", "target_lang": "de", "entries":[
              {"id":"qa","source":"Q&A","target":"F&A","forms":["Fragen & Antworten"],"forbidden":["Q&A", "QA<"],"aliases":["questions 'n' answers"],"sense":"a <b> list"},
              {"source":"tea","target":"Tee"}]}"#,
        )
        .unwrap();
        let tbx = export_tbx(&g, TbxDialect::Basic).unwrap();
        assert!(
            tbx.contains("<title>R&amp;D &lt;terms&gt;</title>"),
            "{tbx}"
        );
        assert!(tbx.contains("<termEntry id=\"qa\">"), "{tbx}");
        assert!(
            tbx.contains("      <termEntry>\n"),
            "no id where it is the source: {tbx}"
        );
        let back = crate::interchange::import_tbx(
            "back.tbx",
            &tbx,
            &ImportOptions {
                name: "g".into(),
                ..ImportOptions::default()
            },
        )
        .unwrap()
        .glossary;
        assert_eq!(back.target_lang, "de");
        for (a, b) in g.entries.iter().zip(&back.entries) {
            assert_eq!(
                (
                    &a.id,
                    &a.source,
                    &a.target,
                    &a.sense,
                    &a.aliases,
                    &a.forms,
                    &a.forbidden
                ),
                (
                    &b.id,
                    &b.source,
                    &b.target,
                    &b.sense,
                    &b.aliases,
                    &b.forms,
                    &b.forbidden
                )
            );
        }
    }

    /// Every field of every entry, and the glossary's own, come back from
    /// both dialects: ids that are and are not XML names (and one that
    /// clashes with a made-up id), context, flags, a kept name, XML's
    /// special characters, a carriage return, non-Latin scripts.
    #[test]
    fn both_tbx_dialects_give_back_the_same_glossary() {
        let g = Glossary::parse(
            "g.json",
            "g",
            r#"{"name": "R&D <Khmer> \"terms\"", "source_lang": "en", "target_lang": "km",
              "forbidden": ["ថោក", "cheap & nasty"],
              "entries":[
              {"id":"e1","source":"Q&A","target":"សំណួរ & ចម្លើយ","forms":["Q<A"],"forbidden":["'QA'"],"aliases":["questions \"n\" answers"],"sense":"a list\r\nof <questions>"},
              {"source":"cold coffee","target":"កាហ្វេត្រជាក់","context":{"any":["iced & sweet"],"not":["coffee <table>"]}},
              {"id":"my id","source":"US","target":"សហរដ្ឋ","case_sensitive":true},
              {"source":"Glossa Café","keep":true},
              {"id":"tab\tid","source":"date","target":"ល្មើ\tx","context":{"not":["save the date"]}}]}"#,
        )
        .unwrap();
        for dialect in [TbxDialect::Basic, TbxDialect::V3] {
            let tbx = export_tbx(&g, dialect).unwrap();
            let doc = roxmltree::Document::parse(&tbx).unwrap_or_else(|e| panic!("{e}\n{tbx}"));
            let root = doc.root_element();
            let ids: Vec<&str> = doc
                .descendants()
                .filter(|n| matches!(n.tag_name().name(), "termEntry" | "conceptEntry"))
                .filter_map(|n| n.attribute("id"))
                .collect();
            assert!(ids.iter().all(|id| is_xml_name(id)), "{ids:?}");
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ids.len(), "{ids:?}");
            if dialect == TbxDialect::V3 {
                assert_eq!(
                    (root.tag_name().name(), root.tag_name().namespace()),
                    ("tbx", Some("urn:iso:std:iso:30042:ed-2"))
                );
                assert_eq!(root.attribute("style"), Some("dca"));
                // Every concept has its id, as TBX v3 requires.
                assert_eq!(ids.len(), g.entries.len() + 1, "{tbx}");
            } else {
                assert_eq!(root.tag_name().name(), "martif");
            }
            let opts = ImportOptions {
                name: "file-name".into(),
                ..ImportOptions::default()
            };
            let back = crate::interchange::import_tbx("back.tbx", &tbx, &opts)
                .unwrap_or_else(|e| panic!("{e}\n{tbx}"))
                .glossary;
            assert_eq!(
                (
                    &back.name,
                    &back.source_lang,
                    &back.target_lang,
                    &back.forbidden
                ),
                (&g.name, &g.source_lang, &g.target_lang, &g.forbidden)
            );
            let lines_apart = |e: &Entry| Entry {
                line: 0,
                ..e.clone()
            };
            let (want, got): (Vec<Entry>, Vec<Entry>) = (
                g.entries.iter().map(lines_apart).collect(),
                back.entries.iter().map(lines_apart).collect(),
            );
            assert_eq!(want, got, "{tbx}");
        }
    }

    #[test]
    fn tbx_export_refuses_what_xml_or_tbx_cannot_hold() {
        let g = Glossary::parse(
            "g.json",
            "g",
            "{\"target_lang\":\"de\",\"entries\":[\n{\"source\":\"tea\",\"target\":\"te\"},\n{\"source\":\"bell\",\"target\":\"ding\\u0007\"}]}",
        )
        .unwrap();
        let err = export_tbx(&g, TbxDialect::V3).unwrap_err();
        assert_eq!((err.path.as_str(), err.line), ("g.json", Some(3)));
        assert!(
            err.message
                .contains("entry `bell`: \"ding\\u{7}\" holds U+0007"),
            "{err}"
        );
        let same = Glossary::parse(
            "g.json",
            "g",
            r#"{"source_lang":"en","target_lang":"en-GB","entries":[{"source":"color","target":"colour"}]}"#,
        )
        .unwrap();
        let err = export_tbx(&same, TbxDialect::Basic).unwrap_err();
        assert!(err.message.contains("one language to TBX"), "{err}");
        // Ids: XML names as written, others not.
        assert!(is_xml_name("cold-coffee") && is_xml_name("_x.1"));
        assert!(!is_xml_name("cold coffee") && !is_xml_name("1st") && !is_xml_name(""));
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
}
