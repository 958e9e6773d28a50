//! A line-aligned pair: line N of the source file is translated by line N
//! of the translation file (docs/formats.md, "Translations to check").

use super::text::{open_decoded, Lines};
use super::{Segment, Segments, MAX_SEGMENT_BYTES};
use crate::error::InputError;
use std::path::Path;

pub(super) fn open(source: &Path, target: &Path) -> Result<Segments, InputError> {
    let open = |path: &Path| -> Result<Lines, InputError> {
        let reader = open_decoded(path, |_| None)?;
        Ok(Lines::new(
            &path.display().to_string(),
            reader,
            MAX_SEGMENT_BYTES,
        ))
    };
    Ok(Box::new(Pair {
        sources: open(source)?,
        targets: open(target)?,
        done: false,
    }))
}

struct Pair {
    sources: Lines,
    targets: Lines,
    done: bool,
}

impl Iterator for Pair {
    type Item = Result<Segment, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.step();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}

impl Pair {
    fn step(&mut self) -> Option<Result<Segment, InputError>> {
        if self.done {
            return None;
        }
        loop {
            let source = self.sources.next().transpose();
            let target = self.targets.next().transpose();
            let (source, target) = match (source, target) {
                (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
                (Ok(None), Ok(None)) => return None,
                (Ok(Some(s)), Ok(Some(t))) => (s, t),
                (Ok(s), Ok(t)) => return Some(Err(self.mismatch(s.is_some(), t.is_some()))),
            };
            let ((line, source), (_, target)) = (source, target);
            // A blank line on both sides separates paragraphs; a blank
            // translation is not a segment (as in every format).
            if target.trim().is_empty() {
                continue;
            }
            return Some(Ok(Segment {
                id: line.to_string(),
                source,
                target,
                line,
            }));
        }
    }

    /// One file ended before the other: count the rest of the longer one.
    fn mismatch(&mut self, source_left: bool, target_left: bool) -> InputError {
        let longer = if source_left {
            &mut self.sources
        } else {
            &mut self.targets
        };
        debug_assert!(source_left != target_left);
        let _ = target_left;
        while let Some(Ok(_)) = longer.next() {}
        let (s, t) = (self.sources.line(), self.targets.line());
        InputError::file(
            self.sources.path(),
            format!(
                "{} has {s} lines but its translation {} has {t}; line-aligned files must have \
                 as many lines",
                self.sources.path(),
                self.targets.path()
            ),
        )
    }
}
