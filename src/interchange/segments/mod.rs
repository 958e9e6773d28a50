//! TEMPORARY stub of the segment readers (JSONL only), replaced by the
//! `segments` branch's readers at merge.

use crate::error::InputError;
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    pub id: String,
    pub source: String,
    pub target: String,
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentFormat {
    Tmx,
    Xliff,
    Po,
    Lines,
    Jsonl,
}

impl SegmentFormat {
    pub fn name(self) -> &'static str {
        match self {
            SegmentFormat::Tmx => "tmx",
            SegmentFormat::Xliff => "xliff",
            SegmentFormat::Po => "po",
            SegmentFormat::Lines => "lines",
            SegmentFormat::Jsonl => "jsonl",
        }
    }
}

impl std::str::FromStr for SegmentFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "jsonl" => Ok(SegmentFormat::Jsonl),
            _ => Err(format!("unknown format `{s}`")),
        }
    }
}

pub struct Options<'a> {
    pub format: Option<SegmentFormat>,
    pub source_lang: Option<&'a str>,
    pub target_lang: Option<&'a str>,
    pub target_file: Option<&'a Path>,
}

pub type Segments = Box<dyn Iterator<Item = Result<Segment, InputError>> + Send>;

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    id: Option<String>,
    source: String,
    target: String,
}

pub fn open(path: &Path, _options: &Options) -> Result<Segments, InputError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| InputError::file(&shown, e.to_string()))?;
    let lines = std::io::BufReader::new(file).lines().enumerate();
    Ok(Box::new(lines.filter_map(move |(i, line)| {
        let line = match line {
            Ok(l) => l,
            Err(e) => return Some(Err(InputError::at_line(&shown, i + 1, e.to_string()))),
        };
        if line.trim().is_empty() {
            return None;
        }
        Some(
            serde_json::from_str::<Line>(&line)
                .map(|l| Segment {
                    id: l.id.unwrap_or_else(|| (i + 1).to_string()),
                    source: l.source,
                    target: l.target,
                    line: i + 1,
                })
                .map_err(|e| InputError::json(&shown, i + 1, &e)),
        )
    })))
}
