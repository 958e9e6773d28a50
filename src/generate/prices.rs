//! A price table for showing what a run's tokens cost: a small JSON file
//! given with `glossa run --prices FILE`,
//!
//! ```json
//! { "gpt-4o-mini": { "input": 0.15, "output": 0.60 },
//!   "gpt-5-mini":  { "input": 0.25, "output": 2.00 } }
//! ```
//!
//! per model, the price of one million input (prompt) and output
//! (completion, reasoning included) tokens, in whatever currency the user
//! writes them. A model's price is the entry named exactly as the served
//! model, else the longest entry name the served model starts with
//! (`gpt-4o-mini` prices `gpt-4o-mini-2024-07-18`).

use crate::error::{read_text, InputError};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The highest price of a million tokens a table may give: far above any
/// real one, and low enough that no run's cost (tokens are counted in
/// `u64`) can overflow.
pub(crate) const MAX_PRICE: f64 = 1e6;

/// The price of a million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Price {
    pub(crate) input: f64,
    pub(crate) output: f64,
}

/// Prices by model name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices(BTreeMap<String, Price>);

impl Prices {
    /// Read a price table; errors name the file, the line and the model.
    pub fn load(path: &Path) -> Result<Prices, InputError> {
        let shown = path.display().to_string();
        let text = read_text(path)?;
        let table: BTreeMap<String, Price> =
            serde_json::from_str(&text).map_err(|e| InputError::json(&shown, 1, &e))?;
        for (model, price) in &table {
            for (field, value) in [("input", price.input), ("output", price.output)] {
                // Bounded, not only finite: 1e308 times the tokens of a run
                // is infinite, shown as `inf` and written as `null`.
                if !(value.is_finite() && (0.0..=MAX_PRICE).contains(&value)) {
                    return Err(InputError::file(
                        &shown,
                        format!(
                            "model `{model}`, field `{field}`: {} is not a price; prices \
                             are numbers from 0 to {MAX_PRICE} (per million tokens)",
                            shown_number(value)
                        ),
                    ));
                }
            }
        }
        Ok(Prices(table))
    }

    /// The price of `model`: exact, else the longest prefix.
    pub(crate) fn of(&self, model: &str) -> Option<Price> {
        self.0.get(model).copied().or_else(|| {
            self.0
                .iter()
                .filter(|(name, _)| model.starts_with(name.as_str()))
                .max_by_key(|(name, _)| name.len())
                .map(|(_, price)| *price)
        })
    }

    /// What `input` and `output` tokens of `model` cost, if it has a price.
    pub(crate) fn cost(&self, model: &str, input: u64, output: u64) -> Option<f64> {
        let price = self.of(model)?;
        Some((input as f64 * price.input + output as f64 * price.output) / 1_000_000.0)
    }
}

/// A number as written in a table: `1e308`, not its 309 digits.
fn shown_number(value: f64) -> String {
    if value.is_finite() && value.abs() < 1e9 {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_by_exact_name_or_longest_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(
            &path,
            r#"{"gpt-4o": {"input": 2.5, "output": 10}, "gpt-4o-mini": {"input": 0.15, "output": 0.6}}"#,
        )
        .unwrap();
        let prices = Prices::load(&path).unwrap();
        assert_eq!(prices.of("gpt-4o-mini-2024-07-18").unwrap().input, 0.15);
        assert_eq!(prices.of("gpt-4o").unwrap().input, 2.5);
        assert!(prices.of("o3").is_none());
        let cost = prices.cost("gpt-4o-mini", 1_000_000, 500_000).unwrap();
        assert!((cost - 0.45).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn a_bad_price_table_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(&path, "{\n \"m\": {\"input\": 1, \"ouput\": 2}\n}").unwrap();
        let err = Prices::load(&path).unwrap_err().to_string();
        assert!(err.contains("prices.json:2"), "{err}");
        assert!(err.contains("ouput"), "{err}");
        std::fs::write(&path, r#"{"m": {"input": -1, "output": 2}}"#).unwrap();
        let err = Prices::load(&path).unwrap_err().to_string();
        assert!(err.contains("model `m`, field `input`"), "{err}");
    }

    #[test]
    fn prices_that_would_overflow_are_refused_naming_file_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(&path, r#"{"m": {"input": 1, "output": 1e308}}"#).unwrap();
        let err = Prices::load(&path).unwrap_err().to_string();
        assert!(err.contains("prices.json"), "{err}");
        assert!(
            err.contains("model `m`, field `output`: 1e308 is not a price"),
            "{err}"
        );
        assert!(err.contains("from 0 to 1000000"), "{err}");
        // The highest price allowed keeps the largest cost finite.
        std::fs::write(&path, r#"{"m": {"input": 1e6, "output": 1e6}}"#).unwrap();
        let prices = Prices::load(&path).unwrap();
        assert!(prices.cost("m", u64::MAX, u64::MAX).unwrap().is_finite());
    }
}
