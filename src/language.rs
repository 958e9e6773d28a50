//! Languages known by name and code (docs/formats.md, "Languages"): one
//! table, ISO 639 as the `isolang` crate ships it, used by import, lint,
//! the prompt and the page.
//!
//! [`code_of`] reads what people write: a code (`km`, `khm`), a locale
//! (`km_KH`, `km-KH`, `EN-us`) or an English name (`Khmer`, `Gaelic`), in
//! any case. Private-use codes (`x-cafe`, `qaa`–`qtz`) are kept as given,
//! with no name.

use isolang::Language;

/// What a glossary loaded without `target_lang` holds in its place. Never
/// written back (an export leaves the field out) and never shown in a
/// prompt ([`prompt_name`]).
pub(crate) const MISSING_TARGET: &str = "target";

/// A language: its code (ISO 639-1 where there is one, else ISO 639-3;
/// a private-use code as given) and its English name (none for private
/// use).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lang {
    pub code: String,
    pub(crate) name: Option<&'static str>,
}

impl Lang {
    fn of(language: Language) -> Lang {
        Lang {
            code: language
                .to_639_1()
                .unwrap_or_else(|| language.to_639_3())
                .to_string(),
            name: Some(display_name(language.to_name())),
        }
    }

    /// Private use: `x-…` or `qaa`–`qtz`.
    pub fn is_private(&self) -> bool {
        self.name.is_none()
    }
}

/// Common English names that ISO 639 words otherwise; an ambiguous name
/// resolves to the language people mean by it alone (`Gaelic` is Scottish
/// Gaelic, `gd`; Irish is `ga`).
const ALIASES: &[(&str, &str)] = &[
    ("gaelic", "gd"),
    ("greek", "el"),
    ("frisian", "fy"),
    ("punjabi", "pa"),
    ("pashto", "ps"),
    ("farsi", "fa"),
    ("kyrgyz", "ky"),
    ("uyghur", "ug"),
    ("haitian creole", "ht"),
    ("chichewa", "ny"),
    ("flemish", "nl"),
    ("valencian", "ca"),
    ("bokmal", "nb"),
    ("nynorsk", "nn"),
];

/// ISO's English name without its qualifier: `Modern Greek (1453-)` →
/// `Modern Greek`, `Malay (macrolanguage)` → `Malay`.
fn display_name(iso: &'static str) -> &'static str {
    iso.split(" (").next().unwrap_or(iso)
}

/// The language a code, locale or English name stands for
/// (case-insensitive); `None` when it is none of them.
pub fn code_of(name_or_code: &str) -> Option<Lang> {
    let given = name_or_code.trim();
    let lower = given.to_lowercase();
    if is_private(&lower) {
        return Some(Lang {
            code: given.to_string(),
            name: None,
        });
    }
    let primary = lower.split(['-', '_', '.', '@']).next().unwrap_or("");
    let by_code = match primary.len() {
        2 => Language::from_639_1(primary),
        3 => Language::from_639_3(primary),
        _ => None,
    };
    if let Some(language) = by_code {
        return Some(Lang::of(language));
    }
    by_name(&lower).map(Lang::of)
}

/// The language named in English (`Welsh`, `scottish gaelic`), not a code.
/// Three letters or fewer are never read as a name (ISO has languages named
/// `En` and `Are`): they are codes for [`code_of`], and a header cell `id`,
/// `pos` or `en` stays as written.
pub fn by_name(name: &str) -> Option<Language> {
    let name = name.trim().to_lowercase();
    if name.chars().count() <= 3 {
        return None;
    }
    // Names are letters, spaces and a few marks; anything else (a sentence
    // in a header cell) is not looked up in the table at all.
    if name.is_empty()
        || name.len() > 40
        || !name
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '\'')
    {
        return None;
    }
    if let Some((_, code)) = ALIASES.iter().find(|(n, _)| *n == name) {
        return Language::from_639_1(code);
    }
    let wanted = name.clone();
    // Several entries can share a name (`Swahili` the macrolanguage and the
    // individual language): the one with a two-letter code wins.
    let mut found: Vec<Language> =
        Language::match_names(move |n| display_name_of(n).to_lowercase() == wanted).collect();
    found.sort_by_key(|l| l.to_639_1().is_none());
    found.into_iter().next()
}

fn display_name_of(iso: &str) -> &str {
    iso.split(" (").next().unwrap_or(iso)
}

/// A language with a two-letter code whose English name is closest to
/// `typed` (`Frnch` → French), for a suggestion; none when nothing is near.
pub(crate) fn nearest(typed: &str) -> Option<Lang> {
    let typed = typed.trim().to_lowercase();
    Language::match_names(|_| true)
        .filter(|l| l.to_639_1().is_some())
        .map(|l| {
            let name = display_name(l.to_name()).to_lowercase();
            (strsim::normalized_damerau_levenshtein(&typed, &name), l)
        })
        .filter(|(score, _)| *score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, l)| Lang::of(l))
}

/// `x-…` (BCP 47 private use) or `qaa`–`qtz` (ISO 639 reserved for local use).
fn is_private(lower: &str) -> bool {
    if lower.starts_with("x-") && lower.len() > 2 {
        return true;
    }
    let primary = lower.split(['-', '_']).next().unwrap_or("");
    let b = primary.as_bytes();
    b.len() == 3 && b[0] == b'q' && (b'a'..=b't').contains(&b[1]) && b[2].is_ascii_lowercase()
}

/// How a prompt names the language of `code`: its English name (`Khmer`),
/// a private or unknown code as written (`x-cafe`), and `fallback` (`the
/// target language`) when none was given.
pub(crate) fn prompt_name<'a>(code: &'a str, fallback: &'a str) -> std::borrow::Cow<'a, str> {
    if code.trim().is_empty() || code == MISSING_TARGET {
        return fallback.into();
    }
    match code_of(code) {
        Some(Lang {
            name: Some(name), ..
        }) => name.into(),
        _ => code.into(),
    }
}

/// The source and target languages as a prompt names them
/// ([`prompt_name`], with `the source language` / `the target language`
/// when none is given).
pub(crate) fn prompt_names<'a>(
    source: &'a str,
    target: &'a str,
) -> (std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>) {
    (
        prompt_name(source, "the source language"),
        prompt_name(target, "the target language"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(s: &str) -> Option<String> {
        code_of(s).map(|l| l.code)
    }

    #[test]
    fn names_in_any_case() {
        let km = code_of("Khmer").unwrap();
        assert_eq!((km.code.as_str(), km.name), ("km", Some("Khmer")));
        assert_eq!(code("KHMER").as_deref(), Some("km"));
        assert_eq!(code(" welsh ").as_deref(), Some("cy"));
        assert_eq!(code("Scottish Gaelic").as_deref(), Some("gd"));
        // Ambiguous: Gaelic alone means Scottish Gaelic; Irish is its own.
        assert_eq!(code("Gaelic").as_deref(), Some("gd"));
        assert_eq!(code("Irish").as_deref(), Some("ga"));
        // ISO words these with a qualifier; the common name still works.
        assert_eq!(code("Greek").as_deref(), Some("el"));
        assert_eq!(code("Malay").as_deref(), Some("ms"));
        assert_eq!(code("Swahili").as_deref(), Some("sw"));
        assert_eq!(code_of("el").unwrap().name, Some("Modern Greek"));
    }

    #[test]
    fn codes_of_both_lengths_and_regions() {
        assert_eq!(code("km").as_deref(), Some("km"));
        assert_eq!(code("khm").as_deref(), Some("km"));
        assert_eq!(code("km_KH").as_deref(), Some("km"));
        assert_eq!(code("km-KH").as_deref(), Some("km"));
        assert_eq!(code("EN-us").as_deref(), Some("en"));
        assert_eq!(code("de_DE.UTF-8").as_deref(), Some("de"));
        // No two-letter code: the three-letter one, with its name.
        let yue = code_of("yue").unwrap();
        assert_eq!((yue.code.as_str(), yue.name), ("yue", Some("Yue Chinese")));
    }

    #[test]
    fn private_use_is_kept_as_given() {
        let cafe = code_of("x-cafe").unwrap();
        assert_eq!((cafe.code.as_str(), cafe.name), ("x-cafe", None));
        assert!(cafe.is_private());
        assert_eq!(code("qaa").as_deref(), Some("qaa"));
        assert_eq!(code("qtz-Latn").as_deref(), Some("qtz-Latn"));
        // `qua` is Quapaw, not private use.
        assert_eq!(code_of("qua").unwrap().name, Some("Quapaw"));
    }

    #[test]
    fn unknown_is_none() {
        for s in [
            "Frnch",
            "englishman",
            "",
            "x-",
            "zz",
            "target",
            "cold coffee",
            "Notes",
        ] {
            assert_eq!(code(s), None, "{s}");
        }
    }

    #[test]
    fn near_misses_suggest_a_language() {
        assert_eq!(nearest("Frnch").map(|l| l.code).as_deref(), Some("fr"));
        assert_eq!(nearest("Germna").map(|l| l.code).as_deref(), Some("de"));
        assert_eq!(nearest("zzzzzz"), None);
    }

    #[test]
    fn prompt_names() {
        let t = "the target language";
        assert_eq!(prompt_name("km", t), "Khmer");
        assert_eq!(prompt_name("x-cafe", t), "x-cafe");
        assert_eq!(prompt_name(MISSING_TARGET, t), t);
        assert_eq!(prompt_name("", t), t);
        assert_eq!(prompt_name("Frnch", t), "Frnch");
    }
}
