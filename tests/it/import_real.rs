//! `glossa import` on real glossaries and termbases that others wrote and
//! published, taken as they are (issue 32 item 4): Weblate's glossary test
//! data from its PyPI source release, fetched by .ci/termfiles.sh
//! (GLOSSA_TERMFILES): a 165-entry English-Czech TBX written by KDE
//! Lokalize, a TBX written by translate-toolkit, a namespaced TBX 2008 with
//! obsolete terms, the Czech glossary as CSV with and without a header, and
//! two Excel workbooks. What each file should give is read from the file
//! here, with roxmltree, csv and calamine, never copied from glossa's
//! output; every import lints without errors and comes back the same
//! through `export --to tsv|csv|tbx` and `import`.

use crate::support::{glossa, required_data, run_in};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The folder of .ci/termfiles.sh (the test skips without it, except
/// under CI=true).
fn termfiles() -> Option<PathBuf> {
    required_data(
        std::env::var_os("GLOSSA_TERMFILES").map(PathBuf::from),
        |dir| dir.join("terms.tbx").exists(),
        "GLOSSA_TERMFILES is unset or holds no terms.tbx \
         (export GLOSSA_TERMFILES=$(bash .ci/termfiles.sh))",
    )
}

/// `glossa import FILE --out g.json EXTRA` in a fresh folder: the glossary,
/// stderr and the folder (kept alive for the round trips).
fn import(file: &Path, extra: &[&str]) -> (Value, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["import", file.to_str().unwrap(), "--out", "g.json"];
    args.extend(extra);
    let (_, stderr) = run_in(dir.path(), &args, 0);
    let text = std::fs::read_to_string(dir.path().join("g.json")).unwrap();
    (serde_json::from_str(&text).unwrap(), stderr, dir)
}

/// `(source, target)` of each entry, in file order.
fn pairs(g: &Value) -> Vec<(String, String)> {
    entries(g)
        .iter()
        .map(|e| (text(&e["source"]), text(&e["target"])))
        .collect()
}

fn entries(g: &Value) -> &Vec<Value> {
    g["entries"].as_array().unwrap()
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn langs(g: &Value) -> (String, String) {
    (text(&g["source_lang"]), text(&g["target_lang"]))
}

/// The glossary lints with no error (warnings about the file's own
/// content, such as a target that is an English word, are the file's).
fn lints_without_errors(dir: &Path) {
    let out = glossa()
        .current_dir(dir)
        .args(["lint", "g.json", "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let errors: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "lint errors: {errors:#?}");
    assert!(matches!(out.status.code(), Some(0 | 1)), "{v}");
}

/// `export --to FORMAT` then `import` gives the same entries and languages.
fn round_trips(dir: &Path, g: &Value) {
    round_trips_through(dir, g, &["tsv", "csv", "tbx"]);
}

fn round_trips_through(dir: &Path, g: &Value, formats: &[&str]) {
    for &format in formats {
        let file = format!("back.{format}");
        let (exported, _) = run_in(dir, &["export", "g.json", "--to", format], 0);
        std::fs::write(dir.join(&file), exported).unwrap();
        let out = format!("back-{format}.json");
        let (source, target) = langs(g);
        run_in(
            dir,
            &[
                "import",
                &file,
                "--out",
                &out,
                "--source-lang",
                &source,
                "--target-lang",
                &target,
            ],
            0,
        );
        let back: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(&out)).unwrap()).unwrap();
        assert_eq!(entries(&back), entries(g), "{format}");
        assert_eq!(langs(&back), langs(g), "{format}");
    }
}

/// One term of a TBX concept: its text and its administrative status.
struct Term {
    text: String,
    status: String,
}

/// The concepts of a TBX file as an independent reader sees them: for each
/// `termEntry`, its line and the terms of each `langSet` language.
struct Concept {
    id: String,
    line: u32,
    langs: Vec<(String, Vec<Term>)>,
    definition: Option<String>,
}

impl Concept {
    /// The terms of `lang`, from every `langSet` of it (Lokalize writes
    /// one per term).
    fn terms(&self, lang: &str) -> Vec<&Term> {
        self.langs
            .iter()
            .filter(|(l, _)| l == lang)
            .flat_map(|(_, t)| t)
            .collect()
    }
}

fn tbx_concepts(path: &Path) -> Vec<Concept> {
    let text = std::fs::read_to_string(path).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, opts).unwrap();
    let xml_lang = ("http://www.w3.org/XML/1998/namespace", "lang");
    let named = |n: &roxmltree::Node, name: &str| n.is_element() && n.tag_name().name() == name;
    doc.descendants()
        .filter(|n| named(n, "termEntry"))
        .map(|entry| Concept {
            id: entry.attribute("id").unwrap_or_default().to_string(),
            line: doc.text_pos_at(entry.range().start).row,
            definition: entry
                .children()
                .find(|d| named(d, "descrip") && d.attribute("type") == Some("definition"))
                .and_then(|d| d.text().map(str::to_string)),
            langs: entry
                .children()
                .filter(|l| named(l, "langSet"))
                .map(|l| {
                    let terms = l
                        .descendants()
                        .filter(|t| named(t, "term"))
                        .map(|t| {
                            // The status sits beside the term, in its tig or termGrp.
                            let status = t
                                .parent()
                                .unwrap()
                                .children()
                                .find(|s| {
                                    named(s, "termNote")
                                        && s.attribute("type") == Some("administrativeStatus")
                                })
                                .and_then(|s| s.text())
                                .unwrap_or_default()
                                .to_string();
                            Term {
                                text: t.text().unwrap_or_default().trim().to_string(),
                                status,
                            }
                        })
                        .collect();
                    (l.attribute(xml_lang).unwrap().to_string(), terms)
                })
                .collect(),
        })
        .collect()
}

/// The statuses docs/formats.md lists as a forbidden term's (`forbidden`
/// is Weblate's).
fn forbidden_status(status: &str) -> bool {
    matches!(
        status,
        "deprecatedTerm-admn-sts"
            | "supersededTerm-admn-sts"
            | "notRecommendedTerm-admn-sts"
            | "obsoleteTerm-admn-sts"
            | "deprecatedTerm"
            | "supersededTerm"
            | "notRecommended"
            | "obsolete"
            | "forbidden"
    )
}

/// `(source, target)` a concept should give: its first English term that
/// is not forbidden (else its first), and its first target term that is
/// not; `None` when either language has none.
fn expected_pair(c: &Concept, target: &str) -> Option<(String, String)> {
    let en = c.terms("en");
    // Weblate's `forbidden` on the source term forbids the translation.
    if en.iter().any(|t| t.status == "forbidden") {
        return None;
    }
    let source = en
        .iter()
        .find(|t| !forbidden_status(&t.status))
        .or(en.first())?;
    let target = c
        .terms(target)
        .into_iter()
        .find(|t| !forbidden_status(&t.status))?;
    Some((source.text.clone(), target.text.clone()))
}

fn expected_pairs(concepts: &[Concept], target: &str) -> Vec<(String, String)> {
    concepts
        .iter()
        .filter_map(|c| expected_pair(c, target))
        .collect()
}

/// A warning of `stderr` naming `file` and `line`.
fn warns_at<'s>(stderr: &'s str, file: &Path, line: u32) -> &'s str {
    let at = format!("warning: {}:{line}: ", file.display());
    stderr
        .lines()
        .find(|l| l.starts_with(&at))
        .unwrap_or_else(|| panic!("no `{at}` in\n{stderr}"))
}

#[test]
fn a_lokalize_termbase_imports_every_concept_and_round_trips() {
    let Some(dir) = termfiles() else { return };
    let file = dir.join("terms.tbx");
    let source = std::fs::read_to_string(&file).unwrap();
    assert!(
        source.contains("<p>Lokalize</p>"),
        "the file Lokalize wrote"
    );
    let concepts = tbx_concepts(&file);
    assert_eq!(concepts.len(), source.matches("<termEntry").count());
    let want = expected_pairs(&concepts, "cs");
    assert!(want.len() > 150, "{}", want.len());

    let (g, stderr, out) = import(&file, &[]);
    assert_eq!(langs(&g), ("en".into(), "cs".into()), "{stderr}");
    assert_eq!(pairs(&g), want);
    // Each concept without both languages (Lokalize leaves an empty
    // `<termEntry id=".."/>` behind) is a warning naming its line.
    let skipped: Vec<&Concept> = concepts
        .iter()
        .filter(|c| expected_pair(c, "cs").is_none())
        .collect();
    assert_eq!(skipped.len(), concepts.len() - want.len());
    for c in skipped {
        assert!(warns_at(&stderr, &file, c.line).contains("skipped"));
    }
    // Lokalize's ids are kept (`vít_pelčák-0`, ...), in file order.
    let ids: Vec<String> = entries(&g).iter().map(|e| text(&e["id"])).collect();
    let file_ids: Vec<String> = concepts
        .iter()
        .filter(|c| expected_pair(c, "cs").is_some())
        .map(|c| c.id.clone())
        .collect();
    assert_eq!(ids, file_ids);
    // A concept's further Czech terms are the entry's forms, a term the
    // file writes twice once (`clear`: vymazat, vyčistit, vymazat, smazat).
    let mut with_forms = 0;
    for (e, c) in entries(&g)
        .iter()
        .zip(concepts.iter().filter(|c| expected_pair(c, "cs").is_some()))
    {
        let cs = c.terms("cs");
        let mut forms: Vec<String> = Vec::new();
        for t in &cs[1..] {
            if t.text != cs[0].text && !forms.contains(&t.text) {
                forms.push(t.text.clone());
            }
        }
        let got: Vec<String> = e["forms"]
            .as_array()
            .map_or(vec![], |f| f.iter().map(text).collect());
        assert_eq!(got, forms, "{e}");
        with_forms += usize::from(!forms.is_empty());
    }
    assert!(with_forms > 10, "{with_forms}");
    // `&amp;About` is read as `&About`, a term's trailing space dropped.
    let about = entries(&g)
        .iter()
        .find(|e| e["id"] == "vít_pelčák-0")
        .unwrap();
    assert_eq!(text(&about["source"]), "&About");
    assert!(source.contains("<term>administrator </term>"));
    assert!(pairs(&g).contains(&("administrator".into(), "správce".into())));
    lints_without_errors(out.path());
    // Lokalize keeps a note inside one further Czech term, after a `;`:
    // a sheet cannot hold that form (`;` separates forms there), so TSV
    // and CSV exports refuse, naming the entry; TBX holds it.
    let with_semicolon: Vec<&Concept> = concepts
        .iter()
        .filter(|c| c.terms("cs").iter().skip(1).any(|t| t.text.contains(';')))
        .collect();
    assert_eq!(with_semicolon.len(), 1);
    for format in ["tsv", "csv"] {
        let (_, stderr) = run_in(out.path(), &["export", "g.json", "--to", format], 2);
        let named = format!("entry `{}`: form", with_semicolon[0].id);
        assert!(
            stderr.contains(&named) && stderr.contains("contains `;`"),
            "{stderr}"
        );
    }
    round_trips_through(out.path(), &g, &["tbx"]);
}

#[test]
fn a_translate_toolkit_termbase_with_notes_and_a_one_language_concept() {
    let Some(dir) = termfiles() else { return };
    let file = dir.join("cs.tbx");
    let source = std::fs::read_to_string(&file).unwrap();
    assert!(source.contains("<p>Translate Toolkit</p>"));
    let concepts = tbx_concepts(&file);
    let (g, stderr, out) = import(&file, &[]);
    assert_eq!(langs(&g), ("en".into(), "cs".into()), "{stderr}");
    assert_eq!(pairs(&g), expected_pairs(&concepts, "cs"));
    // `Weblate` has an English term only (Weblate's "translation needed:
    // no"): skipped, by its line.
    let weblate = concepts
        .iter()
        .find(|c| c.terms("en").first().is_some_and(|t| t.text == "Weblate"))
        .unwrap();
    assert!(weblate.terms("cs").is_empty());
    assert!(warns_at(&stderr, &file, weblate.line).contains("no `cs` term"));
    // Weblate's `forbidden` on the English term: its translation must not
    // be used, so no entry asks for it; a warning names the line and term.
    let forbidden = concepts
        .iter()
        .find(|c| c.terms("en").iter().any(|t| t.status == "forbidden"))
        .unwrap();
    let warning = warns_at(&stderr, &file, forbidden.line);
    for t in forbidden.terms("cs") {
        assert!(warning.contains(&t.text), "{warning}");
    }
    assert_eq!(entries(&g).len(), concepts.len() - 2);
    // An untyped <descrip> and a translator's <note> are no definition: no
    // sense is made up from them.
    assert!(concepts.iter().all(|c| c.definition.is_none()));
    assert!(entries(&g).iter().all(|e| e["sense"].is_null()), "{g}");
    lints_without_errors(out.path());
    round_trips(out.path(), &g);
}

#[test]
fn a_namespaced_tbx_2008_with_obsolete_terms_and_definitions() {
    let Some(dir) = termfiles() else { return };
    let file = dir.join("fr-extended-metadata.tbx");
    let source = std::fs::read_to_string(&file).unwrap();
    assert!(source.contains(r#"xmlns="urn:iso:std:iso:30042:ed-2""#));
    let concepts = tbx_concepts(&file);
    let (g, stderr, out) = import(&file, &[]);
    assert_eq!(langs(&g), ("en".into(), "fr".into()), "{stderr}");
    assert_eq!(pairs(&g), expected_pairs(&concepts, "fr"));
    // A concept whose every French term is obsolete gives no entry: a
    // warning names its line and the terms.
    let dead: Vec<&Concept> = concepts
        .iter()
        .filter(|c| {
            let fr = c.terms("fr");
            !fr.is_empty() && fr.iter().all(|t| forbidden_status(&t.status))
        })
        .collect();
    assert!(!dead.is_empty(), "the file has an obsolete-only concept");
    for c in dead {
        let warning = warns_at(&stderr, &file, c.line);
        for t in c.terms("fr") {
            assert!(warning.contains(&t.text), "{warning}");
        }
    }
    // Each entry's definition is its sense; ids are the file's.
    for e in entries(&g) {
        let c = concepts
            .iter()
            .find(|c| c.id == text(&e["id"]))
            .unwrap_or_else(|| panic!("no concept {e}"));
        assert_eq!(e["sense"].as_str(), c.definition.as_deref(), "{e}");
    }
    assert!(entries(&g).iter().any(|e| !e["sense"].is_null()));
    lints_without_errors(out.path());
    round_trips(out.path(), &g);
}

/// The rows of a CSV as the csv crate reads them, cells trimmed, blank
/// rows and a header left out.
fn csv_pairs(path: &Path, header: bool) -> Vec<(String, String)> {
    csv::ReaderBuilder::new()
        .has_headers(header)
        .flexible(true)
        .from_path(path)
        .unwrap()
        .records()
        .map(|r| r.unwrap())
        .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
        .map(|r| (r[0].trim().to_string(), r[1].trim().to_string()))
        .collect()
}

#[test]
fn a_czech_glossary_csv_with_and_without_a_header() {
    let Some(dir) = termfiles() else { return };
    let mut glossaries = Vec::new();
    for (name, header) in [("terms.csv", false), ("terms-header.csv", true)] {
        let file = dir.join(name);
        let want = csv_pairs(&file, header);
        assert!(want.len() > 150, "{name}: {}", want.len());
        let (g, stderr, out) = import(&file, &["--target-lang", "cs"]);
        assert_eq!(langs(&g), ("en".into(), "cs".into()), "{stderr}");
        assert_eq!(pairs(&g), want, "{name}");
        // A quoted cell with a comma stays one cell.
        let quoted = want.iter().find(|(s, _)| s.contains(',')).unwrap();
        assert!(pairs(&g).contains(quoted));
        lints_without_errors(out.path());
        round_trips(out.path(), &g);
        glossaries.push(g);
    }
    // The same glossary, with a header or without.
    assert_eq!(entries(&glossaries[0]), entries(&glossaries[1]));
}

/// The non-blank rows of a workbook's first sheet below its header, as
/// `(source, target)` by the header's `source` and `target` columns.
fn workbook_pairs(path: &Path) -> Vec<(String, String)> {
    use calamine::{Data, Reader};
    let mut book = calamine::open_workbook_auto(path).unwrap();
    let name = book.sheet_names()[0].clone();
    let range = book.worksheet_range(&name).unwrap();
    let mut rows = range.rows();
    let cell = |c: &Data| c.to_string().trim().to_string();
    let header: Vec<String> = rows.next().unwrap().iter().map(cell).collect();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (s, t) = (column("source"), column("target"));
    rows.map(|r| (cell(&r[s]), cell(&r[t])))
        .filter(|(s, t)| !s.is_empty() || !t.is_empty())
        .collect()
}

#[test]
fn excel_workbooks_with_translate_toolkits_columns() {
    let Some(dir) = termfiles() else { return };
    for (name, lang) in [("fr.xlsx", "fr"), ("ja.xlsx", "ja")] {
        let file = dir.join(name);
        let want = workbook_pairs(&file);
        assert!(!want.is_empty(), "{name}");
        let (g, stderr, out) = import(&file, &["--target-lang", lang]);
        assert_eq!(langs(&g), ("en".into(), lang.into()), "{stderr}");
        // fr.xlsx has formatted but empty rows down to row 522: no entries.
        assert_eq!(pairs(&g), want, "{name}");
        // The columns that are no glossary field are named once.
        assert_eq!(stderr.matches("ignored the column").count(), 1, "{stderr}");
        lints_without_errors(out.path());
        round_trips(out.path(), &g);
    }
}

/// `glossa import FILE --out g.json EXTRA` refused with exit 2: stderr;
/// nothing is written.
fn refused(file: &Path, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["import", file.to_str().unwrap(), "--out", "g.json"];
    args.extend(extra);
    let (_, stderr) = run_in(dir.path(), &args, 2);
    assert!(!dir.path().join("g.json").exists(), "{stderr}");
    assert!(!stderr.contains("panick"), "{stderr}");
    stderr
}

/// The 1-based line of `text` that starts with `prefix`.
fn line_starting(text: &str, prefix: &str) -> usize {
    1 + text.lines().position(|l| l.starts_with(prefix)).unwrap()
}

#[test]
fn a_real_csv_with_a_quote_left_open_is_refused_at_its_line() {
    let Some(dir) = termfiles() else { return };
    let text = std::fs::read_to_string(dir.join("terms.csv")).unwrap();
    // `disable,zakázat` becomes `disable,"zakázat`: without the check the
    // rows below, up to the next quote, would be part of its target.
    let line = line_starting(&text, "disable,zakázat");
    let damaged = text.replacen("disable,zakázat", "disable,\"zakázat", 1);
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("terms.csv");
    std::fs::write(&file, damaged).unwrap();
    let stderr = refused(&file, &["--target-lang", "cs"]);
    let want = format!("{}:{line}: the target `zakázat…` runs over", file.display());
    assert!(stderr.contains(&want), "{want} not in {stderr}");
    assert!(stderr.contains("quote left open"), "{stderr}");
}

#[test]
fn a_real_tsv_with_an_empty_target_is_refused_at_its_line() {
    let Some(dir) = termfiles() else { return };
    // The Czech glossary as TSV (glossa's export of the real CSV), one
    // target cell emptied.
    let (g, _, out) = import(&dir.join("terms.csv"), &["--target-lang", "cs"]);
    assert!(entries(&g).len() > 150);
    let (tsv, _) = run_in(out.path(), &["export", "g.json", "--to", "tsv"], 0);
    let line = line_starting(&tsv, "bookmark\t");
    let damaged = tsv.replacen("bookmark\tzáložka", "bookmark\t", 1);
    assert_ne!(damaged, tsv);
    let file = out.path().join("terms.tsv");
    std::fs::write(&file, damaged).unwrap();
    let stderr = refused(&file, &[]);
    let want = format!("{}:{line}: `bookmark`: empty target", file.display());
    assert!(stderr.contains(&want), "{want} not in {stderr}");
}

#[test]
fn a_real_tbx_cut_off_or_with_a_bad_tag_is_refused_at_its_line() {
    let Some(dir) = termfiles() else { return };
    let text = std::fs::read_to_string(dir.join("terms.tbx")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // Cut off in the middle (at a line's end): named by the last line.
    let cut_at = text.as_bytes()[..text.len() / 2]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap()
        + 1;
    let cut = &text[..cut_at];
    let file = tmp.path().join("cut.tbx");
    std::fs::write(&file, cut).unwrap();
    let stderr = refused(&file, &[]);
    let want = format!(
        "{}:{}: invalid XML: the file ends here",
        file.display(),
        cut.lines().count()
    );
    assert!(stderr.contains(&want), "{want} not in {stderr}");
    // A closing tag misspelt on one line: named by that line.
    let line = line_starting(&text, "                            <term>bookmark</term>");
    let damaged = text.replacen("<term>bookmark</term>", "<term>bookmark</trem>", 1);
    let file = tmp.path().join("bad.tbx");
    std::fs::write(&file, damaged).unwrap();
    let stderr = refused(&file, &[]);
    let want = format!("{}:{line}:", file.display());
    assert!(
        stderr.contains(&want) && stderr.contains("invalid XML"),
        "{want} not in {stderr}"
    );
}

#[test]
fn a_real_workbook_cut_off_is_one_error() {
    let Some(dir) = termfiles() else { return };
    let bytes = std::fs::read(dir.join("fr.xlsx")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("fr.xlsx");
    std::fs::write(&file, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let stderr = refused(&file, &["--target-lang", "fr"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let want = format!("{}: not a readable spreadsheet workbook", file.display());
    assert!(stderr.contains(&want), "{want} not in {stderr}");
}
