//! Echoes (docs/formats.md, "Generation check"): a reply that copies the
//! prompt back instead of translating. A small model answers "- cookie →
//! dorpa (meaning: …)", or a run of the instructions, and such a reply
//! holds every glossary target, so the target check alone calls it right.
//!
//! A reply is an echo when it has
//! - a glossary line: a glossary source (or the words it matched in the
//!   post) or target right before an arrow (`→`, `->`, `=>`, `⇒`; anywhere
//!   in a line, whatever follows it), or the source as a whole line's start
//!   followed by `:` or `=` and its target; with or without the bullet;
//! - the block's note form `(meaning:`, or "meaning" and the words of a
//!   `sense` the glossary block gave (`dorpa (meaning: a sweet baked
//!   biscuit)`); or
//! - a run of [`RUN_WORDS`] consecutive words of the prompt's fixed text
//!   (the template outside the post and the glossary block, with the
//!   languages filled in), runs that the post itself holds excepted.
//!
//! Words are runs of letters and digits compared case-insensitively, so
//! quotes, bullets, bold marks and spacing do not hide a copy. A genuine
//! translation may hold a target, or the post's own words, without being
//! an echo: only the arrangement of a glossary line or a long run of the
//! instructions is one.

use serde::Serialize;
use std::collections::HashSet;
use std::ops::Range;

/// How many consecutive words of the prompt's fixed text make a copy of
/// the instructions (a sentence's worth: "use each glossary word exactly as
/// it is given" is nine).
pub(crate) const RUN_WORDS: usize = 8;

/// Arrows a model may write for the glossary block's `→`: they count
/// anywhere in a line, either way round.
const ARROWS: [&str; 4] = ["→", "->", "=>", "⇒"];
/// How the glossary block opens a sense note.
const NOTE_FORM: &str = "(meaning:";
/// Separators that count only after a line's first words (`cookie: dorpa`).
const LINE_SEPARATORS: [&str; 2] = [":", "="];

/// What a reply copied from the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Echo {
    /// A line of the glossary block, as the reply wrote it.
    GlossaryLine { copied: String },
    /// A run of the prompt's instructions, as the reply wrote it.
    Instructions { copied: String },
}

impl Echo {
    /// The copied text, as the reply wrote it.
    pub(crate) fn copied(&self) -> &str {
        match self {
            Echo::GlossaryLine { copied } | Echo::Instructions { copied } => copied,
        }
    }

    /// What was copied, in words: "the glossary", "the instructions".
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Echo::GlossaryLine { .. } => "the glossary",
            Echo::Instructions { .. } => "the instructions",
        }
    }
}

/// One line of the glossary block: the source, the words it matched in
/// the post, the target.
#[derive(Debug, Clone)]
pub(crate) struct EchoLine<'a> {
    pub(crate) source: &'a str,
    pub(crate) phrase: &'a str,
    pub(crate) target: &'a str,
    /// The sense note the block shows, if any.
    pub(crate) sense: Option<&'a str>,
}

/// A glossary line's source spellings' words, and its target's.
type LineWords = (Vec<Vec<String>>, Vec<String>);

/// The echo check for one prompt.
#[derive(Debug, Clone, Default)]
pub(crate) struct EchoCheck {
    /// Per glossary line: the source's words (and the matched phrase's,
    /// when they differ), and the target's.
    lines: Vec<LineWords>,
    /// Per sense note: "meaning" and the note's words.
    senses: Vec<Vec<String>>,
    /// Whether a reply writing the block's `(meaning:` copies it (the post
    /// does not write it).
    note_form: bool,
    /// Every run of [`RUN_WORDS`] words of the fixed text not in the post.
    runs: HashSet<Vec<String>>,
}

impl EchoCheck {
    /// The check for a prompt made of `fixed` texts (the template's parts
    /// outside the post and the glossary), the glossary `lines` and the
    /// `post` it translates.
    pub(crate) fn new(fixed: &[&str], lines: &[EchoLine], post: &str) -> EchoCheck {
        let post_runs: HashSet<Vec<String>> = runs_of(&plain(post)).collect();
        let runs = fixed
            .iter()
            .flat_map(|text| runs_of(&plain(text)).collect::<Vec<_>>())
            .filter(|run| !post_runs.contains(run))
            .collect();
        let senses: Vec<Vec<String>> = lines
            .iter()
            .filter_map(|l| l.sense)
            .map(|sense| {
                let mut words = vec!["meaning".to_string()];
                words.extend(plain(sense));
                words
            })
            .filter(|words| words.len() > 1)
            .collect();
        let lines = lines
            .iter()
            .map(|l| {
                let mut sources = vec![plain(l.source)];
                let phrase = plain(l.phrase);
                if !phrase.is_empty() && phrase != sources[0] {
                    sources.push(phrase);
                }
                (sources, plain(l.target))
            })
            .filter(|(sources, target)| !sources[0].is_empty() && !target.is_empty())
            // A post that itself writes "'unlink' => ..." is translated with
            // that arrow kept: only a form the post lacks is a copy.
            .filter(|entry| {
                !post
                    .lines()
                    .any(|l| is_glossary_line(std::slice::from_ref(entry), l))
            })
            .collect();
        let post_words = plain(post);
        let senses = senses
            .into_iter()
            .filter(|note: &Vec<String>| !holds(&post_words, note))
            .collect();
        EchoCheck {
            lines,
            senses,
            note_form: !post.to_lowercase().contains(NOTE_FORM),
            runs,
        }
    }

    /// What `output` copied from the prompt, if anything.
    pub(crate) fn find(&self, output: &str) -> Option<Echo> {
        self.glossary_line(output)
            .map(|copied| Echo::GlossaryLine { copied })
            .or_else(|| {
                self.instructions(output)
                    .map(|copied| Echo::Instructions { copied })
            })
    }

    /// The first line of `output` that is a glossary line or holds a
    /// sense note.
    fn glossary_line(&self, output: &str) -> Option<String> {
        output
            .lines()
            .find(|line| self.is_glossary_line(line) || self.has_sense_note(line))
            .map(|line| line.trim().to_string())
    }

    fn is_glossary_line(&self, line: &str) -> bool {
        is_glossary_line(&self.lines, line)
    }

    fn has_sense_note(&self, line: &str) -> bool {
        if self.note_form && line.to_lowercase().contains(NOTE_FORM) {
            return true;
        }
        let words = plain(line);
        self.senses.iter().any(|note| holds(&words, note))
    }

    /// The first run of the fixed text in `output`, as written there.
    fn instructions(&self, output: &str) -> Option<String> {
        let words = word_ranges(output);
        if self.runs.is_empty() || words.len() < RUN_WORDS {
            return None;
        }
        let folded: Vec<String> = words
            .iter()
            .map(|r| output[r.clone()].to_lowercase())
            .collect();
        let copied = |i: usize| self.runs.contains(&folded[i..i + RUN_WORDS]);
        let first = (0..=words.len() - RUN_WORDS).find(|&i| copied(i))?;
        // The whole copied run, for the message.
        let last = (first..=words.len() - RUN_WORDS)
            .take_while(|&i| copied(i))
            .last()
            .unwrap_or(first);
        Some(output[words[first].start..words[last + RUN_WORDS - 1].end].to_string())
    }
}

/// Whether `line` is a glossary line of one of `lines` (see the module doc).
fn is_glossary_line(lines: &[LineWords], line: &str) -> bool {
    let tokens = tokens(line);
    tokens.iter().enumerate().any(|(i, t)| {
        let Token::Separator(sep) = t else {
            return false;
        };
        let before = words_before(&tokens, i);
        let after = words_after(&tokens, i);
        if ARROWS.contains(sep) {
            // "coffee → kafe" and "dorpa → delar" copy the block's form
            // with words of the model's own; a translation puts neither a
            // source nor a target before an arrow its post does not have.
            lines.iter().any(|(sources, target)| {
                before.ends_with(target) || sources.iter().any(|s| before.ends_with(s))
            })
        } else {
            // `cookie: dorpa` only as the line's own start: "Menu: dorpa"
            // in a translation is not a glossary line.
            let at_start = !tokens[..i].iter().any(|t| matches!(t, Token::Separator(_)));
            at_start
                && lines.iter().any(|(sources, target)| {
                    // A target spelt as its source ("conv=CONV") is text,
                    // not a glossary line.
                    sources.iter().any(|s| before == *s && s != target) && after.starts_with(target)
                })
        }
    })
}

/// Whether `words` holds `run` as consecutive words.
fn holds(words: &[String], run: &[String]) -> bool {
    words.windows(run.len()).any(|w| w == run)
}

/// The parts of a template outside `{{text}}` and `{{glossary}}`, with the
/// languages filled in: the text a reply must not copy.
pub(crate) fn fixed_text(body: &str, source_lang: &str, target_lang: &str) -> Vec<String> {
    let (source_lang, target_lang) = crate::language::prompt_names(source_lang, target_lang);
    let (source_lang, target_lang) = (source_lang.as_ref(), target_lang.as_ref());
    body.split("{{text}}")
        .flat_map(|part| part.split("{{glossary}}"))
        .map(|part| {
            part.replace("{{target_lang}}", target_lang)
                .replace("{{source_lang}}", source_lang)
        })
        .filter(|part| !part.trim().is_empty())
        .collect()
}

/// A line's words and separators, other characters dropped.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Separator(&'static str),
}

fn tokens(line: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let separator = ARROWS
            .iter()
            .chain(&LINE_SEPARATORS)
            .find(|s| rest.starts_with(**s));
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            out.push(Token::Word(std::mem::take(&mut word)));
        }
        let step = match separator {
            Some(sep) => {
                out.push(Token::Separator(sep));
                sep.len()
            }
            None => c.len_utf8(),
        };
        rest = &rest[step..];
    }
    if !word.is_empty() {
        out.push(Token::Word(word));
    }
    out
}

/// The words right before token `i`, back to the previous separator.
fn words_before(tokens: &[Token], i: usize) -> Vec<String> {
    let mut out: Vec<String> = tokens[..i]
        .iter()
        .rev()
        .map_while(|t| match t {
            Token::Word(w) => Some(w.clone()),
            Token::Separator(_) => None,
        })
        .collect();
    out.reverse();
    out
}

/// The words right after token `i`, up to the next separator.
fn words_after(tokens: &[Token], i: usize) -> Vec<String> {
    tokens[i + 1..]
        .iter()
        .map_while(|t| match t {
            Token::Word(w) => Some(w.clone()),
            Token::Separator(_) => None,
        })
        .collect()
}

/// Byte ranges of the runs of letters and digits in `text`.
fn word_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(at),
            (false, Some(s)) => {
                out.push(s..at);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// `text`'s words, lower-cased.
fn plain(text: &str) -> Vec<String> {
    word_ranges(text)
        .into_iter()
        .map(|r| text[r].to_lowercase())
        .collect()
}

fn runs_of(words: &[String]) -> impl Iterator<Item = Vec<String>> + '_ {
    words.windows(RUN_WORDS).map(<[String]>::to_vec)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = include_str!("../../prompts/translate.v1.md");

    fn cafe(post: &str) -> EchoCheck {
        let fixed = fixed_text(TEMPLATE, "en", "x-cafe");
        let fixed: Vec<&str> = fixed.iter().map(String::as_str).collect();
        let lines = [
            EchoLine {
                source: "cookie",
                phrase: "cookies",
                target: "dorpa",
                sense: Some("a sweet baked biscuit"),
            },
            EchoLine {
                source: "cold coffee",
                phrase: "cold coffee",
                target: "frosk mavi",
                sense: None,
            },
        ];
        EchoCheck::new(&fixed, &lines, post)
    }

    fn is_echo(post: &str, output: &str) -> bool {
        cafe(post).find(output).is_some()
    }

    #[test]
    fn glossary_lines_in_any_spelling_are_echoes() {
        let post = "Fresh cookies and cold coffee.";
        for output in [
            "- cookie → dorpa (meaning: a sweet baked biscuit)",
            "cookie → dorpa",
            "* Cookie -> Dorpa",
            "1. cookies => dorpa",
            "**cookie**: dorpa",
            "Cold coffee = frosk mavi",
            "dorpa → cookie",
            "Here is the glossary: cookie → dorpa",
            // The block's form with a target of the model's own.
            "- cold coffee → kalt kafe",
            // The source left out, the sense note kept.
            "- dorpa (meaning: a sweet baked biscuit)",
            // The block's form, words of the model's own (SmolLM2-135M).
            "Mocha can be a dessert.\n\n- dorpa → delar (meaning: cheese)",
            "- frosk mavi → kalt",
            "Tan (meaning: cheese)",
            "Fresh dorpa and frosk mavi.\n- cold coffee → frosk mavi",
        ] {
            assert!(is_echo(post, output), "{output}");
        }
        let echo = cafe(post)
            .find("Tan dorpa.\n  - cookie → dorpa  \n")
            .unwrap();
        assert_eq!(
            echo,
            Echo::GlossaryLine {
                copied: "- cookie → dorpa".into()
            }
        );
    }

    #[test]
    fn targets_and_the_posts_words_in_a_translation_are_not_echoes() {
        let post = "Fresh cookies and cold coffee.";
        for output in [
            "Fresh dorpa and frosk mavi.",
            "Frische dorpa: cookie-Liebhaber aufgepasst.",
            "Menu: dorpa, frosk mavi.",
            "Fresh cookies and cold coffee.",
            "dorpa",
            "Cookie dorpa frosk mavi cold coffee",
            // Arrows that are no glossary line.
            "Menü → Getränke: frosk mavi",
            "Getränke → frosk mavi",
            // The sense's words without the note's "meaning".
            "Dorpa, a sweet baked biscuit, fresh today.",
        ] {
            assert!(!is_echo(post, output), "{output}");
        }
    }

    #[test]
    fn a_long_run_of_the_instructions_is_an_echo_and_a_short_one_is_not() {
        let post = "Fresh cookies.";
        let long = "Use each glossary word exactly as it is given here.";
        let echo = cafe(post).find(long).unwrap();
        assert_eq!(echo.what(), "the instructions");
        assert_eq!(
            echo.copied(),
            "Use each glossary word exactly as it is given here"
        );
        // The language is filled in, so its sentence counts as written.
        assert!(is_echo(
            post,
            "Translate the English text below into X-CAFE, please."
        ));
        // Seven words are not a copy.
        assert!(!is_echo(post, "Reply with the translation only, dorpa."));
        assert!(!is_echo(post, "Here is the translation: dorpa tan."));
    }

    #[test]
    fn runs_the_post_itself_holds_are_not_instructions() {
        let post = "Please reply with the translation only, one sentence per line today.";
        assert!(!is_echo(post, post));
        assert!(is_echo("Fresh cookies.", post));
    }

    #[test]
    fn a_posts_own_arrows_and_notes_are_kept_in_translation() {
        let post = "Cold coffee → 3 € (meaning: per cup)";
        assert!(!is_echo(post, "Frosk mavi → 3 € (meaning: pro Tasse)"));
        assert!(is_echo("Cold coffee, 3 €", "Frosk mavi → 3 €"));
        assert!(is_echo(
            "Cold coffee, 3 €",
            "Frosk mavi, 3 € (meaning: pro Tasse)"
        ));
    }

    /// The messages of a gettext `.mo` file: (English, translation), the
    /// first plural form of each, the header and context-only ones left out.
    fn mo_pairs(bytes: &[u8]) -> Vec<(String, String)> {
        let word = |at: usize| -> Option<u32> {
            let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
            match u32::from_le_bytes(b) {
                0x9504_12de => Some(u32::from_le_bytes(b)),
                _ => Some(u32::from_le_bytes(b)),
            }
        };
        if word(0) != Some(0x9504_12de) {
            return Vec::new();
        }
        let (n, originals, translations) = (
            word(8).unwrap_or(0) as usize,
            word(12).unwrap_or(0) as usize,
            word(16).unwrap_or(0) as usize,
        );
        let string = |table: usize, i: usize| -> Option<String> {
            let len = word(table + 8 * i)? as usize;
            let at = word(table + 8 * i + 4)? as usize;
            let raw = std::str::from_utf8(bytes.get(at..at + len)?).ok()?;
            let first = raw.split('\0').next()?;
            Some(first.rsplit('\u{4}').next()?.to_string())
        };
        (0..n)
            .filter_map(|i| Some((string(originals, i)?, string(translations, i)?)))
            .filter(|(en, tr)| !en.is_empty() && !tr.is_empty() && en != tr)
            .collect()
    }

    /// Real translations nobody here wrote: coreutils', grep's and apt's
    /// messages in six languages, as Debian installs them. None is an
    /// echo, with every word it shares with its English message given as
    /// a glossary entry (so the targets and the post's own words are in
    /// it) and the prompt's instructions in its language.
    #[test]
    fn real_translations_are_not_echoes() {
        let mut pairs = Vec::new();
        for lang in ["de", "fr", "es", "cs", "ru", "ja"] {
            for domain in ["coreutils", "grep", "apt"] {
                let path = format!("/usr/share/locale/{lang}/LC_MESSAGES/{domain}.mo");
                if let Ok(bytes) = std::fs::read(&path) {
                    pairs.extend(mo_pairs(&bytes).into_iter().map(|p| (lang, p)));
                }
            }
        }
        if pairs.is_empty() {
            assert!(
                std::env::var_os("CI").is_none(),
                "no gettext translations under /usr/share/locale (coreutils' are Essential on Debian)"
            );
            eprintln!("skipped: no gettext translations under /usr/share/locale");
            return;
        }
        let mut with_targets = 0;
        for (lang, (en, tr)) in &pairs {
            let shared: Vec<String> = plain(en)
                .into_iter()
                .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 3)
                .filter(|w| plain(tr).contains(w))
                .collect();
            let lines: Vec<EchoLine> = shared
                .iter()
                .map(|w| EchoLine {
                    source: w,
                    phrase: w,
                    target: w,
                    sense: None,
                })
                .collect();
            with_targets += usize::from(!lines.is_empty());
            let fixed = fixed_text(TEMPLATE, "en", lang);
            let fixed: Vec<&str> = fixed.iter().map(String::as_str).collect();
            let echo = EchoCheck::new(&fixed, &lines, en).find(tr);
            assert_eq!(echo, None, "{lang}: {en:?} → {tr:?}");
        }
        assert!(pairs.len() > 1000, "{} messages", pairs.len());
        assert!(with_targets > 500, "{with_targets} with a shared word");
    }

    #[test]
    fn fixed_text_leaves_out_the_post_and_the_glossary() {
        let parts = fixed_text(
            "Into {{target_lang}}:\n{{glossary}}\nText:\n{{text}}\n",
            "en",
            "de",
        );
        // The languages as the prompt names them.
        assert_eq!(parts, ["Into German:\n", "\nText:\n"]);
    }
}
