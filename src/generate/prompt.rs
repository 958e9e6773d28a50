//! Versioned prompt templates (`prompts/<name>.v<N>.md`) and the glossary
//! block they receive.
//!
//! Placeholders: `{{text}}` (required), `{{glossary}}`, `{{target_lang}}`,
//! `{{source_lang}}` (the languages' English names: `Khmer`; a private-use
//! code as written: `x-cafe`; `the target language` when none is given). The template's name and version are recorded in every
//! result, so two runs with different prompts are never confused.

use crate::error::{read_text, InputError};
use crate::language;
use serde::{Deserialize, Serialize};
use std::path::Path;

const PLACEHOLDERS: [&str; 4] = ["text", "glossary", "target_lang", "source_lang"];

const BUILTIN: [(&str, &str); 3] = [
    (
        "translate.v1",
        include_str!("../../prompts/translate.v1.md"),
    ),
    ("simplify.v1", include_str!("../../prompts/simplify.v1.md")),
    // Placeholders of its own ({{prompt}}, {{output}}, {{problems}}):
    // rendered by the repair turn, never loaded from a file.
    ("repair.v1", include_str!("../../prompts/repair.v1.md")),
];

/// A prompt template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    pub(crate) name: String,
    pub(crate) version: String,
    #[serde(skip)]
    pub(crate) body: String,
}

/// The identity of a template in results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PromptId {
    pub(crate) name: String,
    pub(crate) version: String,
}

/// One line of the glossary block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GlossaryLine {
    pub(crate) source: String,
    pub(crate) target: String,
    pub(crate) sense: Option<String>,
    /// The entry's flags (docs/formats.md, "Case and keep"): a line says
    /// so only when one is set, so other prompts stay as they were.
    pub(crate) case_sensitive: bool,
    pub(crate) keep: bool,
    /// The entry's forbidden terms: "never: X, Y" on its line.
    pub(crate) forbidden: Vec<String>,
    /// The longer entry's source when this entry is written in the post
    /// only inside that longer term and their targets conflict: "here part
    /// of 'ice cream'" on its line (docs/formats.md, `longest`).
    pub(crate) part_of: Option<String>,
}

impl Template {
    /// A template shipped with glossa, e.g. `translate.v1`.
    pub fn builtin(full_name: &str) -> Template {
        let body = BUILTIN
            .iter()
            .find(|(n, _)| *n == full_name)
            .map(|(_, b)| *b)
            .unwrap_or_else(|| panic!("no built-in prompt {full_name}"));
        let (name, version) = split_name(full_name);
        Template {
            name,
            version,
            body: body.to_string(),
        }
    }

    /// Load a template file; its name and version come from the file name
    /// (`translate.v2.md` → `translate`, `v2`).
    pub fn load(path: &Path) -> Result<Template, InputError> {
        let body = read_text(path)?;
        let shown = path.display().to_string();
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (name, version) = split_name(&stem);
        let template = Template {
            name,
            version,
            body,
        };
        template.validate(&shown)?;
        Ok(template)
    }

    fn validate(&self, path: &str) -> Result<(), InputError> {
        let mut rest = self.body.as_str();
        let mut offset = 0;
        while let Some(i) = rest.find("{{") {
            let after = &rest[i + 2..];
            // Counted only for an error: counting for every placeholder
            // made a long template quadratic.
            let line = || crate::error::line_of(&self.body, offset + i);
            let Some(end) = after.find("}}") else {
                return Err(InputError::at_line(
                    path,
                    line(),
                    "`{{` without a closing `}}`",
                ));
            };
            let name = after[..end].trim();
            if !PLACEHOLDERS.contains(&name) {
                return Err(InputError::at_line(
                    path,
                    line(),
                    format!(
                        "unknown placeholder `{{{{{name}}}}}`; known: {}",
                        PLACEHOLDERS.map(|p| format!("{{{{{p}}}}}")).join(", ")
                    ),
                ));
            }
            offset += i + 2 + end + 2;
            rest = &after[end + 2..];
        }
        if !self.body.contains("{{text}}") {
            return Err(InputError::file(
                path,
                "the template has no `{{text}}` placeholder",
            ));
        }
        Ok(())
    }

    pub(crate) fn id(&self) -> PromptId {
        PromptId {
            name: self.name.clone(),
            version: self.version.clone(),
        }
    }

    /// Fill in the placeholders. The languages are codes; the prompt names
    /// them ([`language::prompt_names`]: `km` → `Khmer`, `x-cafe` as is).
    pub(crate) fn render(
        &self,
        text: &str,
        glossary: &str,
        source_lang: &str,
        target_lang: &str,
    ) -> String {
        let (source_lang, target_lang) = language::prompt_names(source_lang, target_lang);
        let (source_lang, target_lang) = (source_lang.as_ref(), target_lang.as_ref());
        // One pass over the template: what is filled in (the text, the
        // glossary) is never read again for placeholders, and a template
        // of many placeholders costs its length, not length × count.
        let mut out = String::with_capacity(self.body.len() + text.len() + glossary.len());
        let mut rest = self.body.as_str();
        while let Some(i) = rest.find("{{") {
            out.push_str(&rest[..i]);
            rest = &rest[i..];
            let filled = [
                ("{{text}}", text),
                ("{{glossary}}", glossary),
                ("{{target_lang}}", target_lang),
                ("{{source_lang}}", source_lang),
            ]
            .into_iter()
            .find(|(token, _)| rest.starts_with(token));
            match filled {
                Some((token, value)) => {
                    out.push_str(value);
                    rest = &rest[token.len()..];
                }
                // Not a placeholder here (`{{{text}}}`): keep one brace and
                // look again from the next.
                None => {
                    out.push('{');
                    rest = &rest[1..];
                }
            }
        }
        out.push_str(rest);
        out
    }
}

fn split_name(stem: &str) -> (String, String) {
    match stem.rsplit_once('.') {
        Some((name, version))
            if version.starts_with('v')
                && version[1..].chars().all(|c| c.is_ascii_digit())
                && version.len() > 1 =>
        {
            (name.to_string(), version.to_string())
        }
        _ => (stem.to_string(), "unversioned".to_string()),
    }
}

/// The glossary block: one line per entry, `source → target`, with the
/// sense note when there is one; `keep as written: source` for an entry
/// not to be translated, `(exact case)` after a case-sensitive one and
/// "(never: X, Y)" when the entry has forbidden terms, "(here part of
/// 'ice cream')" for a term written only inside a longer one whose target
/// conflicts with its own; then, when the
/// glossary has glossary-wide forbidden words, a line "- never write: X,
/// Y". Without flags or forbidden terms the block is what it was before
/// they existed, so prompts and their cache keys do not change.
pub(crate) fn glossary_block(lines: &[GlossaryLine], forbidden: &[String]) -> String {
    let never = (!forbidden.is_empty()).then(|| format!("- never write: {}", forbidden.join(", ")));
    if lines.is_empty() {
        let none = "(no glossary entries apply to this text)".to_string();
        return match never {
            Some(never) => format!("{none}\n{never}"),
            None => none,
        };
    }
    lines
        .iter()
        .map(|l| {
            let mut line = if l.keep {
                format!("- keep as written: {}", l.source)
            } else {
                format!("- {} → {}", l.source, l.target)
            };
            let notes: Vec<String> = [
                l.case_sensitive.then(|| "exact case".to_string()),
                l.sense.as_ref().map(|sense| format!("meaning: {sense}")),
                l.part_of
                    .as_ref()
                    .map(|longer| format!("here part of '{longer}'")),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !notes.is_empty() {
                line.push_str(&format!(" ({})", notes.join("; ")));
            }
            if !l.forbidden.is_empty() {
                line.push_str(&format!(" (never: {})", l.forbidden.join(", ")));
            }
            line
        })
        .chain(never)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_translate_renders_every_placeholder() {
        let t = Template::builtin("translate.v1");
        assert_eq!((t.name.as_str(), t.version.as_str()), ("translate", "v1"));
        let block = glossary_block(
            &[GlossaryLine {
                source: "date".into(),
                target: "zimbo".into(),
                sense: Some("the fruit".into()),
                case_sensitive: false,
                keep: false,
                forbidden: Vec::new(),
                part_of: None,
            }],
            &[],
        );
        let p = t.render("Sticky date cake {{glossary}}", &block, "en", "x-cafe");
        assert!(p.contains("- date → zimbo (meaning: the fruit)"));
        assert!(p.contains("into x-cafe"));
        assert!(
            p.contains("Sticky date cake {{glossary}}"),
            "text is inserted verbatim"
        );
        assert!(!p.contains("{{text}}"));
    }

    #[test]
    fn loaded_templates_take_name_and_version_from_the_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("terse.v3.md");
        std::fs::write(&path, "To {{target_lang}}: {{text}}").unwrap();
        let t = Template::load(&path).unwrap();
        assert_eq!((t.name.as_str(), t.version.as_str()), ("terse", "v3"));
        let bad = dir.path().join("bad.md");
        std::fs::write(&bad, "line one\n{{txt}}").unwrap();
        let err = Template::load(&bad).unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(
            err.message.contains("unknown placeholder `{{txt}}`"),
            "{err}"
        );
    }

    #[test]
    fn kept_and_case_sensitive_entries_say_so_and_only_they() {
        let line = |source: &str, target: &str, sense: Option<&str>, case: bool, keep: bool| {
            GlossaryLine {
                source: source.into(),
                target: target.into(),
                sense: sense.map(Into::into),
                case_sensitive: case,
                keep,
                forbidden: Vec::new(),
                part_of: None,
            }
        };
        let block = glossary_block(
            &[
                line("US", "EE. UU.", Some("the country"), true, false),
                line("us", "nosotros", None, false, false),
                line("Glossa Café", "Glossa Café", None, true, true),
                line("Acme", "Acme", None, false, true),
            ],
            &[],
        );
        assert_eq!(
            block,
            "- US → EE. UU. (exact case; meaning: the country)\n\
             - us → nosotros\n\
             - keep as written: Glossa Café (exact case)\n\
             - keep as written: Acme"
        );
    }

    #[test]
    fn a_term_written_inside_a_longer_one_says_so() {
        let line = |source: &str, target: &str, part_of: Option<&str>| GlossaryLine {
            source: source.into(),
            target: target.into(),
            sense: None,
            case_sensitive: false,
            keep: false,
            forbidden: Vec::new(),
            part_of: part_of.map(Into::into),
        };
        let block = glossary_block(
            &[
                line("cream", "Sahne", Some("ice cream")),
                line("ice cream", "Eis", None),
            ],
            &[],
        );
        assert_eq!(
            block,
            "- cream → Sahne (here part of 'ice cream')\n- ice cream → Eis"
        );
    }

    #[test]
    fn empty_glossary_block_says_so() {
        assert!(glossary_block(&[], &[]).contains("no glossary entries"));
    }

    /// The chain of replacements render used to be, for comparison.
    fn replaced(body: &str, text: &str, glossary: &str, source: &str, target: &str) -> String {
        body.replace("{{glossary}}", glossary)
            .replace("{{target_lang}}", target)
            .replace("{{source_lang}}", source)
            .replace("{{text}}", text)
    }

    fn template(body: &str) -> Template {
        Template {
            name: "t".into(),
            version: "v1".into(),
            body: body.into(),
        }
    }

    #[test]
    fn one_pass_renders_as_the_replacements_did() {
        let builtin = Template::builtin("translate.v1").body;
        for body in [
            builtin.as_str(),
            "{{text}}",
            "{{{text}}}",
            "{{ text }} and {{text}}{{text}}",
            "a {{glossary}} b {{source_lang}}→{{target_lang}} c {{text}} d {{",
            "{{unknown}} {{text}} }} {{",
            "",
        ] {
            for text in ["Sticky date cake", "braces {{glossary}} in the text", ""] {
                // Codes in, names out: `en` is English, a private code as is.
                let want = replaced(body, text, "- date → zimbo", "English", "x-cafe");
                assert_eq!(
                    template(body).render(text, "- date → zimbo", "en", "x-cafe"),
                    want,
                    "{body:?} with {text:?}"
                );
            }
        }
    }

    #[test]
    fn the_prompt_names_the_language() {
        let t = template("From {{source_lang}} into {{target_lang}}: {{text}}");
        assert_eq!(t.render("x", "", "en", "km"), "From English into Khmer: x");
        assert_eq!(
            t.render("x", "", "en", "km_KH"),
            "From English into Khmer: x"
        );
        assert_eq!(
            t.render("x", "", "en", "x-cafe"),
            "From English into x-cafe: x"
        );
        // A glossary without `target_lang` never says "into target".
        assert_eq!(
            t.render("x", "", "en", crate::language::MISSING_TARGET),
            "From English into the target language: x"
        );
    }

    #[test]
    fn what_is_filled_in_is_never_read_for_placeholders() {
        // The chain of replacements filled the text into a glossary line
        // that held `{{text}}`.
        let t = template("{{glossary}} / {{text}}");
        assert_eq!(
            t.render("post", "- a → {{text}}", "en", "fr"),
            "- a → {{text}} / post"
        );
    }

    #[test]
    fn a_template_of_many_placeholders_is_checked_and_rendered_whole() {
        let body = "{{text}} {{source_lang}}\n".repeat(20_000);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("many.v1.md");
        std::fs::write(&path, &body).unwrap();
        let t = Template::load(&path).unwrap();
        let out = t.render("T", "", "en", "fr");
        assert_eq!(out, "T English\n".repeat(20_000));
        // An error past them still names its line.
        std::fs::write(&path, body + "{{nope}}").unwrap();
        assert_eq!(Template::load(&path).unwrap_err().line, Some(20_001));
    }
}
