//! Language names in a sheet's header row. Spreadsheets made by people
//! name their columns `English,Welsh,Notes`, not `en,cy,notes`; read as
//! data, that header became an entry (English → Welsh) that rewrote "full
//! English breakfast" as "full Welsh breakfast". The importer already
//! reads language codes in a header, so names are turned into codes first.

/// English names of languages and their codes (ISO 639-1 where there is
/// one). Compared case-insensitively.
const LANGUAGES: &[(&str, &str)] = &[
    ("afrikaans", "af"),
    ("albanian", "sq"),
    ("amharic", "am"),
    ("arabic", "ar"),
    ("armenian", "hy"),
    ("basque", "eu"),
    ("belarusian", "be"),
    ("bengali", "bn"),
    ("bosnian", "bs"),
    ("breton", "br"),
    ("bulgarian", "bg"),
    ("catalan", "ca"),
    ("chinese", "zh"),
    ("cornish", "kw"),
    ("croatian", "hr"),
    ("czech", "cs"),
    ("danish", "da"),
    ("dutch", "nl"),
    ("english", "en"),
    ("esperanto", "eo"),
    ("estonian", "et"),
    ("faroese", "fo"),
    ("finnish", "fi"),
    ("french", "fr"),
    ("frisian", "fy"),
    ("galician", "gl"),
    ("georgian", "ka"),
    ("german", "de"),
    ("greek", "el"),
    ("gujarati", "gu"),
    ("hausa", "ha"),
    ("hebrew", "he"),
    ("hindi", "hi"),
    ("hungarian", "hu"),
    ("icelandic", "is"),
    ("igbo", "ig"),
    ("indonesian", "id"),
    ("irish", "ga"),
    ("italian", "it"),
    ("japanese", "ja"),
    ("kazakh", "kk"),
    ("korean", "ko"),
    ("kurdish", "ku"),
    ("latin", "la"),
    ("latvian", "lv"),
    ("lithuanian", "lt"),
    ("luxembourgish", "lb"),
    ("macedonian", "mk"),
    ("malay", "ms"),
    ("maltese", "mt"),
    ("manx", "gv"),
    ("maori", "mi"),
    ("marathi", "mr"),
    ("mongolian", "mn"),
    ("nepali", "ne"),
    ("norwegian", "no"),
    ("persian", "fa"),
    ("polish", "pl"),
    ("portuguese", "pt"),
    ("punjabi", "pa"),
    ("romanian", "ro"),
    ("russian", "ru"),
    ("scottish gaelic", "gd"),
    ("gaelic", "gd"),
    ("serbian", "sr"),
    ("sinhala", "si"),
    ("slovak", "sk"),
    ("slovenian", "sl"),
    ("somali", "so"),
    ("spanish", "es"),
    ("swahili", "sw"),
    ("swedish", "sv"),
    ("tagalog", "tl"),
    ("tamil", "ta"),
    ("telugu", "te"),
    ("thai", "th"),
    ("turkish", "tr"),
    ("ukrainian", "uk"),
    ("urdu", "ur"),
    ("uzbek", "uz"),
    ("vietnamese", "vi"),
    ("welsh", "cy"),
    ("xhosa", "xh"),
    ("yiddish", "yi"),
    ("yoruba", "yo"),
    ("zulu", "zu"),
];

/// The code of a language named in English (`Welsh` → `cy`).
pub fn language_code(name: &str) -> Option<&'static str> {
    let name = name.trim().to_lowercase();
    LANGUAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, code)| *code)
}

/// A candidate header row with language names replaced by their codes
/// (`English,Welsh,Notes` → `en,cy,Notes`); other cells as they are. The
/// header rules then decide whether the row is a header.
pub fn with_language_codes<'a>(cells: &[&'a str]) -> Vec<&'a str> {
    cells
        .iter()
        .map(|cell| language_code(cell).unwrap_or(*cell))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_names_become_codes() {
        assert_eq!(
            with_language_codes(&["English", "Welsh", "Notes"]),
            ["en", "cy", "Notes"]
        );
        assert_eq!(with_language_codes(&[" english ", "FRENCH"]), ["en", "fr"]);
    }

    #[test]
    fn other_cells_are_left_alone() {
        assert_eq!(
            with_language_codes(&["cold coffee", "frosk mavi"]),
            ["cold coffee", "frosk mavi"]
        );
        assert_eq!(language_code("englishman"), None);
    }
}
