//! The retrievers' parameters: [`Params`] and [`TUNABLE`], the one table
//! that declares each parameter's name, kind, default, accepted range and
//! help. `Params::default()`, the command-line flags and `glossa sweep`
//! all read that table, so a default is written once, here. A parameter
//! is a number (`Real`, `Integer`: swept, checked against its range) or a
//! path or a text (`Path`, `Text`: a file or a model name a retriever
//! reads, none by default).

use super::EditBounds;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The parameters shared by retrievers; each reads the ones it uses.
/// The CLI builds it from its flags; a library user starts from
/// `Params::default()` (`Params { threshold, ..Default::default() }`).
/// Every numeric field has a line in [`TUNABLE`]; the path and text
/// parameters given are in `text`, by name (in JSON beside the numbers,
/// `"lemmas": "lemmas.tsv"`, absent when not given).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Params {
    /// Minimum trigram Dice coefficient for `fuzzy`.
    pub threshold: f64,
    /// `edit`: key words of at least this many characters tolerate one edit.
    pub edit_one_from: usize,
    /// `edit`: key words of at least this many characters tolerate two edits.
    pub edit_two_from: usize,
    /// The `Path` and `Text` parameters given, by their [`TUNABLE`] name.
    #[serde(flatten)]
    pub text: BTreeMap<String, String>,
}

impl Default for Params {
    /// Every field at its [`TUNABLE`] default; no path or text given.
    fn default() -> Self {
        Params {
            threshold: THRESHOLD.default,
            edit_one_from: EDIT_ONE_FROM.default as usize,
            edit_two_from: EDIT_TWO_FROM.default as usize,
            text: BTreeMap::new(),
        }
    }
}

impl Params {
    /// Edit-distance bounds for `edit` (and `alias`).
    pub(crate) fn edit_bounds(&self) -> EditBounds {
        EditBounds {
            one_from: self.edit_one_from,
            two_from: self.edit_two_from,
        }
    }

    /// Set the numeric parameter `name` (see [`TUNABLE`]) to `value`.
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), BadParam> {
        let t = tunable(name)?.number()?;
        t.check(value)?;
        (t.put)(self, value);
        Ok(())
    }

    /// The value of the numeric parameter `name`.
    pub fn get(&self, name: &str) -> Result<f64, BadParam> {
        Ok((tunable(name)?.number()?.get)(self))
    }

    /// Set any parameter from its text as a flag takes it: a number read
    /// and checked for `Real` and `Integer`, kept as written for `Path`
    /// and `Text` (`set_str("lemmas", "lemmas.tsv")`).
    pub fn set_str(&mut self, name: &str, value: &str) -> Result<(), BadParam> {
        let t = tunable(name)?;
        if t.kind.is_number() {
            let v = t.parse(value)?;
            (t.put)(self, v);
        } else {
            self.text.insert(t.name.to_string(), value.to_string());
        }
        Ok(())
    }

    /// The `Path` or `Text` parameter `name` as given, if it was.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.text.get(name).map(String::as_str)
    }

    /// The `Path` parameter `name`, if given.
    pub fn path(&self, name: &str) -> Option<&Path> {
        self.text(name).map(Path::new)
    }
}

/// What a parameter takes: any number, whole numbers, a file's path, or a
/// text (a model name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    Real,
    Integer,
    Path,
    Text,
}

impl ParamKind {
    /// `Real` or `Integer`: swept, ranged, read with `Tunable::get`.
    pub fn is_number(self) -> bool {
        matches!(self, ParamKind::Real | ParamKind::Integer)
    }
}

/// A retriever parameter that can be set by name. For a `Path` or `Text`
/// kind the numeric fields mean nothing (see [`Tunable::path`]): its value
/// is read with [`Params::text`].
pub struct Tunable {
    /// The `Params` field (the command-line flag with `-` for `_`).
    pub name: &'static str,
    /// What it does, for `--help` and `glossa sweep --list-params`.
    pub(crate) summary: &'static str,
    pub kind: ParamKind,
    /// The value when none is given.
    pub default: f64,
    /// Smallest and largest accepted values.
    pub(crate) min: f64,
    pub max: f64,
    /// The range `glossa sweep` scans when none is given: from, to, step.
    pub range: (f64, f64, f64),
    pub get: fn(&Params) -> f64,
    pub(crate) put: fn(&mut Params, f64),
}

impl Tunable {
    /// A parameter that takes a file's path, with no default: a retriever
    /// that needs it refuses to build without it.
    pub(crate) const fn path(name: &'static str, summary: &'static str) -> Tunable {
        Tunable::of_text(name, summary, ParamKind::Path)
    }

    /// A parameter that takes a text (a model name, a service's URL), with
    /// no default.
    pub const fn text(name: &'static str, summary: &'static str) -> Tunable {
        Tunable::of_text(name, summary, ParamKind::Text)
    }

    const fn of_text(name: &'static str, summary: &'static str, kind: ParamKind) -> Tunable {
        Tunable {
            name,
            summary,
            kind,
            default: 0.0,
            min: 0.0,
            max: 0.0,
            range: (0.0, 0.0, 0.0),
            get: no_number,
            put: no_number_to_put,
        }
    }

    /// This parameter, if it is a number; why not otherwise.
    pub fn number(&self) -> Result<&Tunable, BadParam> {
        match self.kind.is_number() {
            true => Ok(self),
            false => Err(BadParam(format!(
                "`{}` takes a {}, not a number",
                self.name,
                self.kind_word()
            ))),
        }
    }

    /// `path` or `text`, as messages say it.
    fn kind_word(&self) -> &'static str {
        match self.kind {
            ParamKind::Path => "path",
            ParamKind::Text => "text",
            ParamKind::Real | ParamKind::Integer => "number",
        }
    }
}

// The numeric accessors of a path or text parameter: never called
// (`Tunable::number` refuses first), there because the table is one type.
fn no_number(_: &Params) -> f64 {
    f64::NAN
}

fn no_number_to_put(_: &mut Params, _: f64) {}

/// `fuzzy`'s threshold (docs/formats.md: default 0.75).
pub const THRESHOLD: Tunable = Tunable {
    name: "threshold",
    summary: "fuzzy: minimum character-trigram Dice coefficient",
    kind: ParamKind::Real,
    default: 0.75,
    min: 0.0,
    max: 1.0,
    range: (0.5, 1.0, 0.05),
    get: |p| p.threshold,
    put: |p, v| p.threshold = v,
};

/// A word length from which `edit` tolerates edits, named by its `Params`
/// field: an integer from 1 to a `u16`'s largest value (the flag's type),
/// swept from 1 to 12.
macro_rules! word_length {
    ($field:ident, $summary:expr, $default:expr) => {
        Tunable {
            name: stringify!($field),
            summary: $summary,
            kind: ParamKind::Integer,
            default: $default,
            min: 1.0,
            max: u16::MAX as f64,
            range: (1.0, 12.0, 1.0),
            get: |p| p.$field as f64,
            put: |p, v| p.$field = v as usize,
        }
    };
}

/// The shortest key word `edit` lets differ by one edit.
pub const EDIT_ONE_FROM: Tunable = word_length!(
    edit_one_from,
    "edit: key words of at least this many characters tolerate one edit",
    4.0
);

/// The shortest key word `edit` lets differ by two edits.
pub const EDIT_TWO_FROM: Tunable = word_length!(
    edit_two_from,
    "edit: key words of at least this many characters tolerate two edits",
    8.0
);

/// `lemmas`' table (`--lemmas FILE`, docs/formats.md "Beyond the reference
/// five").
pub const LEMMAS: Tunable = Tunable::path(
    "lemmas",
    "lemmas: word forms and their lemmas, `form<TAB>lemma` a line (`mice<TAB>mouse`), for -r glossa+lemmas",
);

/// Every parameter of every retriever: the numbers first.
pub const TUNABLE: &[Tunable] = &[THRESHOLD, EDIT_ONE_FROM, EDIT_TWO_FROM, LEMMAS];

/// The numeric parameters (the ones `glossa sweep` scans), in table order.
pub fn numeric() -> impl Iterator<Item = &'static Tunable> {
    TUNABLE.iter().filter(|t| t.kind.is_number())
}

/// A parameter name that is not in [`TUNABLE`], or a value it does not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadParam(pub(crate) String);

/// The parameter called `name` (`-` and `_` are the same).
pub fn tunable(name: &str) -> Result<&'static Tunable, BadParam> {
    let wanted = name.trim().replace('-', "_");
    TUNABLE.iter().find(|t| t.name == wanted).ok_or_else(|| {
        BadParam(format!(
            "unknown parameter `{name}`; numeric retriever parameters: {}",
            numeric().map(|t| t.name).collect::<Vec<_>>().join(", ")
        ))
    })
}

impl Tunable {
    /// Check that `value` is one this parameter takes.
    pub fn check(&self, value: f64) -> Result<(), BadParam> {
        if !value.is_finite() || value < self.min || value > self.max {
            return Err(BadParam(format!(
                "{} = {} is outside [{}, {}]",
                self.name,
                format_value(value),
                format_value(self.min),
                format_value(self.max)
            )));
        }
        if self.kind == ParamKind::Integer && value.fract() != 0.0 {
            return Err(BadParam(format!(
                "{} takes whole numbers, not {}",
                self.name,
                format_value(value)
            )));
        }
        Ok(())
    }

    /// Read `text` as a value of this parameter (a flag's value).
    pub fn parse(&self, text: &str) -> Result<f64, BadParam> {
        let value: f64 = text
            .trim()
            .parse()
            .map_err(|_| BadParam(format!("`{text}` is not a number")))?;
        self.check(value)?;
        Ok(value)
    }

    /// The default value.
    pub(crate) fn default_value(&self) -> f64 {
        self.default
    }

    /// The help of the parameter's flag: what it does and what it accepts.
    pub fn flag_help(&self) -> String {
        let accepts = match self.kind {
            ParamKind::Real => format!("{} to {}", format_value(self.min), format_value(self.max)),
            ParamKind::Integer => format!("whole numbers from {}", format_value(self.min)),
            ParamKind::Path => "a file".to_string(),
            ParamKind::Text => "a text".to_string(),
        };
        format!("{} ({accepts})", self.summary)
    }
}

/// A number as people write it: `0.75`, `4`, `0.05`.
pub fn format_value(v: f64) -> String {
    let s = format!("{:.6}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_from_the_table() {
        let params = Params::default();
        for t in numeric() {
            assert_eq!((t.get)(&params), t.default, "{}", t.name);
            t.check(t.default).unwrap();
        }
        // `edit`'s own default (edit.rs) must agree with the table.
        assert_eq!(params.edit_bounds(), EditBounds::default());
    }

    #[test]
    fn retriever_summaries_quote_the_table_defaults() {
        // fuzzy.rs and edit.rs write these numbers in their help lines.
        let summary = |name: &str| {
            super::super::REGISTRY
                .iter()
                .find(|info| info.name == name)
                .map(|info| info.summary)
                .unwrap()
        };
        let threshold = format!("default {}", format_value(THRESHOLD.default));
        assert!(summary("fuzzy").contains(&threshold));
        for t in [EDIT_ONE_FROM, EDIT_TWO_FROM] {
            let from = format!("from {} ", format_value(t.default));
            assert!(summary("edit").contains(&from), "{}", t.name);
        }
    }

    #[test]
    fn every_numeric_params_field_is_tunable() {
        // A new numeric field in `Params` must get a line in TUNABLE.
        let v = serde_json::to_value(Params::default()).unwrap();
        for (field, value) in v.as_object().unwrap() {
            if value.is_number() {
                let t = tunable(field)
                    .unwrap_or_else(|_| panic!("Params::{field} is numeric but not in TUNABLE"));
                assert_eq!((t.get)(&Params::default()), value.as_f64().unwrap());
            }
        }
    }

    #[test]
    fn set_and_get_by_name() {
        let mut p = Params::default();
        p.set("threshold", 0.8).unwrap();
        assert_eq!(p.threshold, 0.8);
        p.set("edit-one-from", 5.0).unwrap();
        assert_eq!(p.edit_one_from, 5);
        assert_eq!(p.get("edit_one_from").unwrap(), 5.0);
        assert!(p
            .set("threshold", 1.5)
            .unwrap_err()
            .0
            .contains("outside [0, 1]"));
        assert!(p
            .set("edit_two_from", 2.5)
            .unwrap_err()
            .0
            .contains("whole numbers"));
        assert!(p
            .set("treshold", 0.5)
            .unwrap_err()
            .0
            .contains("unknown parameter `treshold`"));
    }

    #[test]
    fn path_parameters_are_set_as_text_and_refused_as_numbers() {
        let mut p = Params::default();
        assert_eq!(p.path("lemmas"), None);
        p.set_str("lemmas", "my lemmas.tsv").unwrap();
        assert_eq!(p.path("lemmas"), Some(Path::new("my lemmas.tsv")));
        // Set by text, a number is still read and checked.
        p.set_str("threshold", "0.9").unwrap();
        assert_eq!(p.threshold, 0.9);
        assert!(p.set_str("threshold", "x").is_err());
        assert_eq!(
            p.set("lemmas", 1.0).unwrap_err().0,
            "`lemmas` takes a path, not a number"
        );
        assert!(p.get("lemmas").is_err());
        // Beside the numbers in JSON, absent when not given, read back.
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(json["lemmas"], "my lemmas.tsv");
        assert_eq!(serde_json::from_value::<Params>(json).unwrap(), p);
        let none = serde_json::to_string(&Params::default()).unwrap();
        assert_eq!(
            none,
            r#"{"threshold":0.75,"edit_one_from":4,"edit_two_from":8}"#
        );
        assert_eq!(LEMMAS_HELP, LEMMAS.flag_help());
        let model = Tunable::text("embed_model", "embed: the embedding model");
        assert_eq!(model.flag_help(), "embed: the embedding model (a text)");
        assert_eq!(
            model.number().err().map(|e| e.0).as_deref(),
            Some("`embed_model` takes a text, not a number")
        );
    }

    const LEMMAS_HELP: &str = "lemmas: word forms and their lemmas, `form<TAB>lemma` a line \
         (`mice<TAB>mouse`), for -r glossa+lemmas (a file)";

    #[test]
    fn parse_reads_a_flag_value_and_names_what_is_wrong() {
        assert_eq!(THRESHOLD.parse(" 0.8").unwrap(), 0.8);
        assert_eq!(
            THRESHOLD.parse("high").unwrap_err().0,
            "`high` is not a number"
        );
        assert_eq!(
            EDIT_ONE_FROM.parse("0").unwrap_err().0,
            "edit_one_from = 0 is outside [1, 65535]"
        );
        assert_eq!(
            THRESHOLD.flag_help(),
            "fuzzy: minimum character-trigram Dice coefficient (0 to 1)"
        );
    }

    #[test]
    fn values_format_without_noise() {
        assert_eq!(format_value(0.75), "0.75");
        assert_eq!(format_value(4.0), "4");
        assert_eq!(format_value(0.0), "0");
    }
}
