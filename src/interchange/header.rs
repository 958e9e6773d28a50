//! Language names in a sheet's header row. Spreadsheets made by people
//! name their columns `English,Welsh,Notes`, not `en,cy,notes`; read as
//! data, that header became an entry (English → Welsh) that rewrote "full
//! English breakfast" as "full Welsh breakfast". The importer already
//! reads language codes in a header, so names are turned into codes first.

/// The code of a language named in English (`Welsh` → `cy`, `Gaelic` →
/// `gd`), from the ISO 639 table in [`crate::language`]. Names only: a
/// header cell `id` or `no` stays a column name, not Indonesian or
/// Norwegian.
pub(crate) fn language_code(name: &str) -> Option<&'static str> {
    let language = crate::language::by_name(name)?;
    Some(language.to_639_1().unwrap_or_else(|| language.to_639_3()))
}

/// A candidate header row with language names replaced by their codes
/// (`English,Welsh,Notes` → `en,cy,Notes`); other cells as they are. The
/// header rules then decide whether the row is a header.
pub(crate) fn with_language_codes<'a>(cells: &[&'a str]) -> Vec<&'a str> {
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
        assert_eq!(with_language_codes(&["English", "Khmer"]), ["en", "km"]);
        assert_eq!(
            with_language_codes(&["Gaelic", "id", "no", "pos", "en", "Lao"]),
            ["gd", "id", "no", "pos", "en", "Lao"]
        );
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
