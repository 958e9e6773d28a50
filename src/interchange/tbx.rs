//! Glossaries from TBX (TermBase eXchange, ISO 30042) files.

use super::{FirstLines, ImportErrors, ImportOptions, Imported};
use crate::error::{InputError, LineCounter};
use crate::glossary::Entry;
use roxmltree::{Document, Node};

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
    refuse_deep_nesting(path, text)?;
    let doc = parse_xml(path, text)?;
    let concepts: Vec<Node> = doc
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
    let source_lang = opts.source_lang.clone().unwrap_or_else(|| "en".to_string());
    let target_lang = match &opts.target_lang {
        Some(t) => t.clone(),
        None => the_target_lang(path, &concepts, &source_lang)?,
    };
    let langs = Langs {
        source: &source_lang,
        target: &target_lang,
    };
    // Concepts come in document order: their lines are counted in one pass.
    let mut lines = LineCounter::new(text);
    let mut first_lines = FirstLines::default();
    let (mut entries, mut warnings, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for c in &concepts {
        let line = lines.line_at(c.range().start);
        match concept(*c, langs, path, line, &mut first_lines) {
            Concept::Entry(entry) => entries.push(entry),
            Concept::Skipped(warning) => warnings.push(warning),
            Concept::Bad(error) => errors.push(error),
        }
    }
    let none = || format!("no entry has both a `{source_lang}` and a `{target_lang}` term");
    let glossary = super::finish(
        path,
        errors,
        entries,
        none,
        opts,
        (source_lang.clone(), target_lang.clone()),
    )?;
    Ok(Imported { glossary, warnings })
}

/// Refused before parsing: the parser would overflow the stack.
fn refuse_deep_nesting(path: &str, text: &str) -> Result<(), InputError> {
    match too_deep(text, MAX_XML_DEPTH) {
        Some(offset) => Err(InputError::at_line(
            path,
            crate::error::line_of(text, offset),
            format!(
                "elements nested more than {MAX_XML_DEPTH} deep; a termbase nests about ten deep, \
                 so this is not one glossa can read"
            ),
        )),
        None => Ok(()),
    }
}

fn parse_xml<'i>(path: &str, text: &'i str) -> Result<Document<'i>, InputError> {
    Document::parse(text).map_err(|e| {
        let pos = e.pos();
        InputError {
            path: path.to_string(),
            line: Some(pos.row as usize),
            column: Some(pos.col as usize),
            message: format!("invalid XML: {e}"),
        }
    })
}

/// The one language besides the source that the concepts use.
fn the_target_lang(path: &str, concepts: &[Node], source_lang: &str) -> Result<String, InputError> {
    let mut others: Vec<String> = Vec::new();
    for c in concepts {
        for (lang, _) in lang_sections(*c) {
            let lang = lang.to_ascii_lowercase();
            if !lang.is_empty() && !lang_matches(&lang, source_lang) && !others.contains(&lang) {
                others.push(lang);
            }
        }
    }
    match others.len() {
        1 => Ok(others.remove(0)),
        0 => Err(InputError::file(
            path,
            format!("no language other than the source `{source_lang}`; is --source-lang right?"),
        )),
        _ => Err(InputError::file(
            path,
            format!(
                "several target languages ({}); choose one with --target-lang",
                others.join(", ")
            ),
        )),
    }
}

/// The source and target languages of an import.
#[derive(Clone, Copy)]
struct Langs<'l> {
    source: &'l str,
    target: &'l str,
}

/// What one concept gives.
enum Concept {
    Entry(Entry),
    /// No term in the source or target language: a warning.
    Skipped(String),
    Bad(InputError),
}

/// The entry of one concept (`termEntry`, `conceptEntry`) on `line`.
fn concept(
    c: Node,
    langs: Langs,
    path: &str,
    line: usize,
    first_lines: &mut FirstLines,
) -> Concept {
    let id = c.attribute("id").unwrap_or("").to_string();
    let sections = lang_sections(c);
    let (sources, source_node) = terms_in(&sections, langs.source);
    let sources: Vec<String> = sources.into_iter().map(|(t, _)| t).collect();
    let targets = accepted_first(terms_in(&sections, langs.target).0);
    let (Some(source), Some(target)) = (sources.first(), targets.first()) else {
        let missing = if sources.is_empty() {
            langs.source
        } else {
            langs.target
        };
        let shown = if id.is_empty() {
            String::new()
        } else {
            format!(" `{id}`")
        };
        return Concept::Skipped(format!(
            "{path}:{line}: {}{shown} has no `{missing}` term; skipped",
            c.tag_name().name()
        ));
    };
    let fail = |message: String| Concept::Bad(InputError::at_line(path, line, message));
    let shown_id = if id.is_empty() {
        source.clone()
    } else {
        id.clone()
    };
    if let Some(first) = first_lines.earlier(shown_id.clone(), line) {
        return fail(format!(
            "duplicate id `{shown_id}` (first on line {first}); ids must be unique"
        ));
    }
    Concept::Entry(Entry {
        id,
        source: source.clone(),
        target: target.clone(),
        sense: source_node.and_then(definition).or_else(|| definition(c)),
        case_sensitive: false,
        keep: false,
        aliases: others(source, &sources[1..], |alias| !alias.trim().is_empty()),
        context: None,
        forms: others(target, &targets[1..], |_| true),
        key: String::new(),
        alias_keys: Vec::new(),
        line,
    })
}

/// `rest` without `first`, repeats, and what `keep` refuses; in order.
fn others(first: &str, rest: &[String], keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in rest {
        if item != first && !out.contains(item) && keep(item) {
            out.push(item.clone());
        }
    }
    out
}

/// A concept's languages: (lang, element) pairs.
fn lang_sections<'a, 'i>(c: Node<'a, 'i>) -> Vec<(String, Node<'a, 'i>)> {
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

/// The terms of every section in `lang`, and the first such section.
fn terms_in<'a, 'i>(
    sections: &[(String, Node<'a, 'i>)],
    lang: &str,
) -> (Vec<(String, bool)>, Option<Node<'a, 'i>>) {
    let mut out = Vec::new();
    let mut node = None;
    for (l, n) in sections {
        if lang_matches(l, lang) {
            out.extend(terms(*n));
            node.get_or_insert(*n);
        }
    }
    (out, node)
}

/// Each term, and whether its status forbids it (deprecated, superseded).
fn terms(section: Node) -> Vec<(String, bool)> {
    section
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "term")
        .map(|n| (text_of(n), n.parent().is_some_and(forbidden_status)))
        .filter(|(t, _)| !t.is_empty())
        .collect()
}

/// The first `definition` below `node`.
fn definition(node: Node) -> Option<String> {
    node.descendants()
        .find(|n| {
            n.is_element()
                && n.tag_name().name() == "descrip"
                && n.attribute("type") == Some("definition")
        })
        .map(text_of)
        .filter(|d| !d.is_empty())
}

/// All the text below `node`, trimmed.
fn text_of(node: Node) -> String {
    node.descendants()
        .filter(|t| t.is_text())
        .filter_map(|t| t.text())
        .collect::<String>()
        .trim()
        .to_string()
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

#[cfg(test)]
mod tests {
    use super::super::test_util::opts;
    use super::*;

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
