//! Glossaries from TBX (TermBase eXchange, ISO 30042) files.

use super::{FirstLines, ImportErrors, ImportOptions, Imported};
use crate::error::{InputError, LineCounter};
use crate::glossary::{Context, Entry};
use roxmltree::{Document, Node};

const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// The header line (`<sourceDesc><p>`) of a file `glossa export` wrote:
/// only in such a file are the title, the root's `xml:lang` and the
/// concepts' `glossa.*` notes read back (docs/formats.md, "TBX mapping"),
/// so a termbase from elsewhere imports as it always did.
pub(super) const EXPORTED_BY: &str = "exported by glossa";
/// The start of a concept's `<note>` holding a field TBX has no data
/// category for: `glossa.FIELD: value`.
pub(super) const NOTE: &str = "glossa.";
pub(super) const FIELD_ID: &str = "id";
pub(super) const FIELD_CONTEXT_ANY: &str = "context.any";
pub(super) const FIELD_CONTEXT_NOT: &str = "context.not";
pub(super) const FIELD_CASE_SENSITIVE: &str = "case_sensitive";
pub(super) const FIELD_KEEP: &str = "keep";
/// `glossa.forbidden: glossary-wide` marks the concept whose (deprecated)
/// target terms are the glossary-wide `forbidden` words.
pub(super) const FIELD_WIDE_FORBIDDEN: &str = "forbidden";
pub(super) const WIDE_FORBIDDEN: &str = "glossary-wide";

/// Whether a language tag is `wanted` or one of its regions (`en-GB` for
/// `en`), in any case and with `_` or `-`.
pub(super) fn lang_matches(lang: &str, wanted: &str) -> bool {
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
/// target language is the target, further ones are its accepted `forms`;
/// its deprecated, superseded, not recommended or obsolete terms are the
/// entry's `forbidden` terms (a concept with no other target term gives no
/// entry, with a warning); a `definition` becomes the sense.
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
    let from_glossa = exported_by_glossa(&doc);
    // glossa's own export names its source language on the root.
    let root_lang = || {
        let root = doc.root_element();
        root.attribute((XML_NS, "lang")).map(str::to_string)
    };
    let source_lang = (opts.source_lang.clone())
        .or_else(|| from_glossa.then(root_lang).flatten())
        .unwrap_or_else(|| "en".to_string());
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
    let mut wide_forbidden = Vec::new();
    for c in &concepts {
        let line = lines.line_at(c.range().start);
        let read = Reading {
            langs,
            path,
            line,
            from_glossa,
        };
        match concept(*c, read, &mut first_lines) {
            Concept::Entry(entry) => entries.push(entry),
            Concept::Forbidden(words) => wide_forbidden.extend(words),
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
    let mut glossary = glossary.with_forbidden(wide_forbidden);
    if let Some(title) = from_glossa.then(|| title(&doc)).flatten() {
        glossary.name = title;
    }
    Ok(Imported { glossary, warnings })
}

/// Whether `glossa export` wrote the file: its header's `sourceDesc` says
/// [`EXPORTED_BY`].
fn exported_by_glossa(doc: &Document) -> bool {
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "sourceDesc")
        .flat_map(|n| n.children())
        .any(|p| p.is_element() && p.tag_name().name() == "p" && text_of(p) == EXPORTED_BY)
}

/// The header's `<title>`, when not empty.
fn title(doc: &Document) -> Option<String> {
    doc.descendants()
        .find(|n| n.is_element() && n.tag_name().name() == "titleStmt")?
        .children()
        .find(|n| n.is_element() && n.tag_name().name() == "title")
        .map(text_of)
        .filter(|t| !t.is_empty())
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
    // A DOCTYPE that only names an external DTD, as the TBX-Basic sample
    // and most termbase exports write it, declares no entity: it is read
    // (and the DTD not fetched). One with an internal subset (`[...]`),
    // where entities that expand without bound live, is still refused.
    let options = roxmltree::ParsingOptions {
        allow_dtd: external_doctype_only(text),
        ..roxmltree::ParsingOptions::default()
    };
    Document::parse_with_options(text, options).map_err(|e| match e {
        // The parser places a file that stops before its root element
        // closes at 1:1; where it stops is the line to look at.
        roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
            InputError::at_line(
                path,
                crate::error::line_of(text, text.trim_end().len()),
                "invalid XML: the file ends here, before its root element is closed \
                 (cut off in a download or a copy?)",
            )
        }
        _ => {
            let pos = e.pos();
            InputError {
                path: path.to_string(),
                line: Some(pos.row as usize),
                column: Some(pos.col as usize),
                message: format!("invalid XML: {e}"),
            }
        }
    })
}

/// Whether the text's DOCTYPE, if any, has no internal subset.
fn external_doctype_only(text: &str) -> bool {
    let Some(start) = text.find("<!DOCTYPE") else {
        return false;
    };
    let rest = &text[start..];
    rest.find('>')
        .is_some_and(|end| !rest[..end].contains('[') && !rest[end..].contains("<!DOCTYPE"))
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
    /// glossa's concept of glossary-wide forbidden words.
    Forbidden(Vec<String>),
    /// No term in the source or target language: a warning.
    Skipped(String),
    Bad(InputError),
}

/// Where a concept is read: its languages, file and line, and whether
/// glossa wrote the file.
#[derive(Clone, Copy)]
struct Reading<'r> {
    langs: Langs<'r>,
    path: &'r str,
    line: usize,
    from_glossa: bool,
}

/// The fields of an entry a glossa export keeps in `glossa.*` notes.
#[derive(Default)]
struct Notes {
    id: Option<String>,
    context: Context,
    case_sensitive: bool,
    keep: bool,
    wide_forbidden: bool,
}

impl Notes {
    /// The `<note>glossa.FIELD: value</note>` children of a concept (other
    /// notes are a person's and ignored); an unknown field or value is an
    /// error naming the note.
    fn read(c: Node) -> Result<Notes, String> {
        let mut notes = Notes::default();
        for n in c.children() {
            if !(n.is_element() && n.tag_name().name() == "note") {
                continue;
            }
            let text = text_of(n);
            let Some(rest) = text.strip_prefix(NOTE) else {
                continue;
            };
            let (field, value) = rest.split_once(':').unwrap_or((rest, ""));
            let (field, value) = (field.trim(), value.trim());
            let flag = |what: &str| match value {
                "true" => Ok(true),
                _ => Err(format!(
                    "note `{text}`: glossa.{what} takes `true` (or is left out), not `{value}`"
                )),
            };
            match field {
                FIELD_ID => notes.id = Some(value.to_string()),
                FIELD_CONTEXT_ANY => notes.context.any.push(value.to_string()),
                FIELD_CONTEXT_NOT => notes.context.not.push(value.to_string()),
                FIELD_CASE_SENSITIVE => notes.case_sensitive = flag(field)?,
                FIELD_KEEP => notes.keep = flag(field)?,
                FIELD_WIDE_FORBIDDEN if value == WIDE_FORBIDDEN => notes.wide_forbidden = true,
                _ => {
                    return Err(format!(
                        "note `{text}`: not a glossa field (glossa.id, glossa.context.any, \
                         glossa.context.not, glossa.case_sensitive: true, glossa.keep: true, \
                         glossa.forbidden: glossary-wide)"
                    ))
                }
            }
        }
        Ok(notes)
    }
}

/// The entry of one concept (`termEntry`, `conceptEntry`) on `line`.
fn concept(c: Node, read: Reading, first_lines: &mut FirstLines) -> Concept {
    let Reading {
        langs, path, line, ..
    } = read;
    let sections = lang_sections(c);
    let notes = match read.from_glossa {
        true => match Notes::read(c) {
            Ok(notes) => notes,
            Err(message) => return Concept::Bad(InputError::at_line(path, line, message)),
        },
        false => Notes::default(),
    };
    if notes.wide_forbidden {
        let words = terms_in(&sections, langs.target).0;
        return Concept::Forbidden(words.into_iter().map(|(t, _)| t).collect());
    }
    let id = (notes.id.clone()).unwrap_or_else(|| c.attribute("id").unwrap_or("").to_string());
    let (sources, source_node) = terms_in(&sections, langs.source);
    // A deprecated source term still names the concept in a post (writers
    // do not follow the termbase): it stays, as an alias, and an admitted
    // one is preferred as the source.
    let sources: Vec<String> = accepted_first(sources)
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    let (mut targets, mut deprecated) = (Vec::new(), Vec::new());
    // Weblate marks a glossary term whose translation must not be used
    // with the status `forbidden` on its source term: its targets are.
    let pair_forbidden = weblate_forbidden(&sections, langs.source);
    for (term, forbidden) in terms_in(&sections, langs.target).0 {
        match forbidden || pair_forbidden {
            true => deprecated.push(term),
            false => targets.push(term),
        }
    }
    let shown = if id.is_empty() {
        String::new()
    } else {
        format!(" `{id}`")
    };
    let tag = c.tag_name().name();
    if !sources.is_empty() && targets.is_empty() && !deprecated.is_empty() {
        return Concept::Skipped(format!(
            "{path}:{line}: {tag}{shown} has only deprecated `{}` terms ({}); skipped, and they \
             are not forbidden elsewhere (add them to the glossary's top-level `forbidden` if \
             they are never right)",
            langs.target,
            deprecated.join(", ")
        ));
    }
    let (Some(source), Some(target)) = (sources.first(), targets.first()) else {
        let missing = if sources.is_empty() {
            langs.source
        } else {
            langs.target
        };
        return Concept::Skipped(format!(
            "{path}:{line}: {tag}{shown} has no `{missing}` term; skipped"
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
    let context = notes.context;
    Concept::Entry(Entry {
        id,
        source: source.clone(),
        target: target.clone(),
        sense: source_node.and_then(definition).or_else(|| definition(c)),
        case_sensitive: notes.case_sensitive,
        keep: notes.keep,
        aliases: others(source, &sources[1..], |alias| !alias.trim().is_empty()),
        context: (!context.any.is_empty() || !context.not.is_empty()).then_some(context),
        forms: others(target, &targets[1..], |_| true),
        // A term both admitted and deprecated (two statuses, or two
        // `tig`s) is allowed: forbidding it would fail its own target.
        forbidden: others(target, &deprecated, |t| !targets.iter().any(|a| a == t)),
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

/// Each term, and whether its status forbids it (deprecated, superseded,
/// not recommended, obsolete).
fn terms(section: Node) -> Vec<(String, bool)> {
    section
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "term")
        .map(|n| (text_of(n), forbidden_status(n)))
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

/// Whether a term of `lang` carries Weblate's status `forbidden`.
fn weblate_forbidden(sections: &[(String, Node)], lang: &str) -> bool {
    sections
        .iter()
        .filter(|(l, _)| lang_matches(l, lang))
        .flat_map(|(_, n)| n.descendants())
        .filter(|n| n.is_element() && n.tag_name().name() == "term")
        .any(|t| has_status(t, |v| v.eq_ignore_ascii_case("forbidden")))
}

/// Whether a TBX term's group marks it deprecated, superseded, not
/// recommended, obsolete or (Weblate) forbidden: such a term becomes a
/// `forbidden` term of its entry, never the target or a form.
fn forbidden_status(term: Node) -> bool {
    has_status(term, is_forbidden_status)
}

/// Whether a status of the term's group is one `wanted` accepts. The
/// status is read where the dialects write it:
/// `<termNote type="administrativeStatus">` (or `normativeAuthorization`)
/// in TBX 2008, TBX-Basic and TBX v3 DCA style, or an element of that name
/// (`<basic:administrativeStatus>`, TBX v3 DCT style; TBX-Min) beside the
/// term in its `tig`, `ntig`/`termGrp` or `termSec`.
fn has_status(term: Node, wanted: impl Fn(&str) -> bool) -> bool {
    let mut groups = term
        .ancestors()
        .skip(1)
        .take_while(|n| !matches!(n.tag_name().name(), "langSet" | "langSec"))
        .take(2);
    groups.any(|group| {
        group.children().any(|n| {
            let named = match n.tag_name().name() {
                "termNote" => matches!(
                    n.attribute("type"),
                    Some("administrativeStatus" | "normativeAuthorization")
                ),
                name => matches!(name, "administrativeStatus" | "normativeAuthorization"),
            };
            n.is_element() && named && wanted(&text_of(n))
        })
    })
}

/// `deprecatedTerm-admn-sts`, `supersededTerm-admn-sts`,
/// `notRecommendedTerm-admn-sts`, `obsoleteTerm-admn-sts`, and the bare
/// values (`deprecatedTerm`, TBX-Min's `notRecommended`, `obsolete`,
/// Weblate's `forbidden`).
fn is_forbidden_status(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    [
        "deprecated",
        "superseded",
        "notrecommended",
        "obsolete",
        "forbidden",
    ]
    .iter()
    .any(|word| v.contains(word))
}

/// Admitted terms first, then the forbidden ones, each in order.
fn accepted_first(terms: Vec<(String, bool)>) -> Vec<(String, bool)> {
    let (mut accepted, forbidden): (Vec<_>, Vec<_>) =
        terms.into_iter().partition(|(_, forbidden)| !forbidden);
    accepted.extend(forbidden);
    accepted
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
        // a deprecated one is neither the target nor a form, but forbidden.
        assert_eq!(e.forms, ["biscuits secs"]);
        assert_eq!(e.forbidden, ["gâteau sec"]);
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
    fn deprecated_target_terms_become_forbidden_in_every_dialect() {
        // TBX v3 DCT style: the status is an element of its own name.
        let dct = r#"<tbx type="TBX-Basic" style="dct" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2" xmlns:basic="http://www.tbxinfo.net/ns/basic"><text><body>
<conceptEntry id="c1"><langSec xml:lang="en"><termSec><term>download</term></termSec></langSec>
<langSec xml:lang="de"><termSec><term>herunterladen</term><basic:administrativeStatus>preferredTerm-admn-sts</basic:administrativeStatus></termSec>
<termSec><term>downloaden</term><basic:administrativeStatus>notRecommendedTerm-admn-sts</basic:administrativeStatus></termSec>
<termSec><term>runterladen</term><basic:administrativeStatus>obsoleteTerm-admn-sts</basic:administrativeStatus></termSec></langSec></conceptEntry>
</body></text></tbx>"#;
        let e = &import_tbx("dct.tbx", dct, &opts())
            .unwrap()
            .glossary
            .entries[0];
        assert_eq!(e.target, "herunterladen");
        assert_eq!(e.forbidden, ["downloaden", "runterladen"]);
        assert!(e.forms.is_empty());

        // TBX 2008 `tig` with `normativeAuthorization`, and a term both
        // admitted and deprecated (two `tig`s), which stays allowed.
        let tig = r#"<martif type="TBX"><text><body><termEntry id="t">
<langSet xml:lang="en"><tig><term>customer</term></tig></langSet>
<langSet xml:lang="fr"><tig><term>client</term><termNote type="normativeAuthorization">preferredTerm</termNote></tig>
<tig><term>chaland</term><termNote type="normativeAuthorization">deprecatedTerm</termNote></tig>
<tig><term>clientèle</term></tig>
<tig><term>clientèle</term><termNote type="administrativeStatus">supersededTerm-admn-sts</termNote></tig>
<tig><term>chaland</term><termNote type="normativeAuthorization">supersededTerm</termNote></tig></langSet>
</termEntry></body></text></martif>"#;
        let e = &import_tbx("tig.tbx", tig, &opts())
            .unwrap()
            .glossary
            .entries[0];
        assert_eq!(
            (e.target.as_str(), &e.forms, &e.forbidden),
            (
                "client",
                &vec!["clientèle".to_string()],
                &vec!["chaland".to_string()]
            )
        );
        // A status that allows (admitted, preferred) is no forbidding.
        assert!(!is_forbidden_status("admittedTerm-admn-sts"));
        assert!(is_forbidden_status("notRecommended"));
    }

    #[test]
    fn a_deprecated_source_term_stays_an_alias_behind_an_admitted_one() {
        let tbx = r#"<martif><text><body><termEntry id="e">
<langSet xml:lang="en"><ntig><termGrp><term>E-mail</term><termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote></termGrp></ntig>
<ntig><termGrp><term>email</term><termNote type="administrativeStatus">preferredTerm-admn-sts</termNote></termGrp></ntig></langSet>
<langSet xml:lang="de"><ntig><termGrp><term>E-Mail</term></termGrp></ntig></langSet>
</termEntry></body></text></martif>"#;
        let e = &import_tbx("src.tbx", tbx, &opts())
            .unwrap()
            .glossary
            .entries[0];
        assert_eq!(
            (e.source.as_str(), &e.aliases),
            ("email", &vec!["E-mail".to_string()])
        );
        assert!(
            e.forbidden.is_empty(),
            "source-language terms are not forbidden"
        );
    }

    #[test]
    fn a_doctype_naming_an_external_dtd_reads_and_an_internal_subset_is_refused() {
        let body = r#"<martif type="TBX-Basic"><text><body><termEntry id="a"><langSet xml:lang="en"><tig><term>tea</term></tig></langSet><langSet xml:lang="de"><tig><term>Tee</term></tig></langSet></termEntry></body></text></martif>"#;
        let external = format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE martif SYSTEM \"TBXBasiccoreStructV02.dtd\">\n{body}"
        );
        let g = import_tbx("ext.tbx", &external, &opts()).unwrap().glossary;
        assert_eq!(g.entries[0].target, "Tee");
        // Entities (a billion laughs) live in an internal subset: refused.
        let laughs = format!(
            "<!DOCTYPE martif [<!ENTITY lol \"lol\"><!ENTITY lol1 \"&lol;&lol;&lol;&lol;\">]>\n{}",
            body.replace("tea", "&lol1;")
        );
        let err = import_tbx("laughs.tbx", &laughs, &opts()).unwrap_err();
        assert!(err.to_string().contains("invalid XML"), "{err}");
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

    /// `glossa.*` notes, the title and the root's language are glossa's
    /// own export's: a termbase from elsewhere that happens to hold such a
    /// note imports as before; in a glossa export a bad one is an error
    /// naming its concept's line.
    #[test]
    fn glossa_notes_are_read_only_from_glossa_exports() {
        let body = |desc: &str, keep: &str| {
            format!(
                r#"<tbx type="TBX-Basic" style="dca" xml:lang="de" xmlns="urn:iso:std:iso:30042:ed-2">
<tbxHeader><fileDesc><titleStmt><title>Marken</title></titleStmt><sourceDesc><p>{desc}</p></sourceDesc></fileDesc></tbxHeader>
<text><body>
<conceptEntry id="c1"><note>glossa.keep: {keep}</note><note>glossa.context.any:  Kasse </note><note>checked by Ana</note>
<langSec xml:lang="de"><termSec><term>Acme</term></termSec></langSec>
<langSec xml:lang="fr"><termSec><term>Acme</term></termSec></langSec></conceptEntry>
</body></text></tbx>"#
            )
        };
        let other = body("a termbase from elsewhere", "true");
        let err = import_tbx("other.tbx", &other, &opts()).unwrap_err();
        // Not glossa's: the source language stays `en` (no `en` terms here).
        assert!(
            err.to_string().contains("several target languages"),
            "{err}"
        );
        let de = ImportOptions {
            source_lang: Some("de".into()),
            ..opts()
        };
        let g = import_tbx("other.tbx", &other, &de).unwrap().glossary;
        assert_eq!(
            (g.name.as_str(), g.entries[0].keep, &g.entries[0].context),
            ("t", false, &None)
        );

        let ours = body(EXPORTED_BY, "true");
        let g = import_tbx("ours.tbx", &ours, &opts()).unwrap().glossary;
        assert_eq!((g.name.as_str(), g.source_lang.as_str()), ("Marken", "de"));
        let e = &g.entries[0];
        assert!(e.keep && !e.case_sensitive);
        assert_eq!(e.context.as_ref().unwrap().any, ["Kasse"]);

        let err = import_tbx("ours.tbx", &body(EXPORTED_BY, "maybe"), &opts()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "ours.tbx:4: note `glossa.keep: maybe`: glossa.keep takes `true` (or is left out), not `maybe`"
        );
        let unknown = body(EXPORTED_BY, "true").replace("glossa.keep", "glossa.kept");
        let err = import_tbx("ours.tbx", &unknown, &opts()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("ours.tbx:4: note `glossa.kept: true`: not a glossa field"),
            "{err}"
        );
    }

    #[test]
    fn weblates_forbidden_status_forbids_the_translation() {
        // Weblate writes the status on the source term: the pair must not
        // be used, so its target is forbidden, never asked for.
        let pair = r#"<martif><text><body>
<termEntry><langSet xml:lang="en"><tig><term>bug</term><termNote type="administrativeStatus">forbidden</termNote></tig></langSet><langSet xml:lang="cs"><tig><term>brouk</term></tig></langSet></termEntry>
<termEntry><langSet xml:lang="en"><tig><term>bug</term></tig></langSet><langSet xml:lang="cs"><tig><term>chyba</term></tig><tig><term>bug</term><termNote type="administrativeStatus">forbidden</termNote></tig></langSet></termEntry>
</body></text></martif>"#;
        let got = import_tbx("w.tbx", pair, &opts()).unwrap();
        assert_eq!(got.warnings.len(), 1, "{:?}", got.warnings);
        assert!(got.warnings[0]
            .starts_with("w.tbx:2: termEntry has only deprecated `cs` terms (brouk)"));
        let e = &got.glossary.entries[0];
        assert_eq!(
            (e.target.as_str(), e.forbidden.as_slice()),
            ("chyba", ["bug".to_string()].as_slice())
        );
    }

    #[test]
    fn a_cut_off_tbx_is_named_by_its_last_line() {
        let cut = "<martif>\n<text><body>\n<termEntry>\n<langSet xml:lang=\"en\"><term>a</term>\n";
        let err = import_tbx("cut.tbx", cut, &opts()).unwrap_err().to_string();
        assert!(
            err.starts_with("cut.tbx:4: invalid XML: the file ends here"),
            "{err}"
        );
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
