//! JSONL: one `{"id", "source", "target"}` object a line (docs/formats.md,
//! "Translations to check").

use super::text::{open_decoded, Lines};
use super::{too_long, Segment, Segments, MAX_SEGMENT_BYTES};
use crate::error::InputError;
use serde::Deserialize;
use std::path::Path;

/// One line. Unknown fields are refused, as in every JSONL file glossa
/// reads, so a misspelt `"taget"` is reported instead of checked as empty.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    #[serde(default)]
    id: Option<String>,
    source: String,
    target: String,
}

pub(super) fn open(path: &Path) -> Result<Segments, InputError> {
    let reader = open_decoded(path, |_| None)?;
    let shown = path.display().to_string();
    // Two texts at their limit, escaped (`\uXXXX` is six bytes).
    let lines = Lines::new(&shown, reader, 12 * MAX_SEGMENT_BYTES + 4096);
    let mut done = false;
    Ok(Box::new(lines.filter_map(move |read| {
        if done {
            return None;
        }
        let item = read.and_then(|(line, text)| {
            if text.trim().is_empty() {
                return Ok(None);
            }
            let record: Record =
                serde_json::from_str(&text).map_err(|e| InputError::json(&shown, line, &e))?;
            for (what, text) in [("source", &record.source), ("target", &record.target)] {
                if text.len() > MAX_SEGMENT_BYTES {
                    return Err(too_long(&shown, line, what));
                }
            }
            // A blank translation is not a segment (as in every format).
            if record.target.trim().is_empty() {
                return Ok(None);
            }
            Ok(Some(Segment {
                id: record.id.unwrap_or_else(|| line.to_string()),
                source: record.source,
                target: record.target,
                line,
            }))
        });
        done = item.is_err();
        item.transpose()
    })))
}
