//! Compiled glossaries the server keeps open (docs/formats.md, "Compiled
//! glossaries"): a large glossary is not parsed per request; each request
//! loads from its compiled file only the entries its post could match.
//! The file stays open while the glossary file keeps its size and time,
//! and is reopened (or rebuilt) when the glossary changes, by a save of
//! the page or by hand.

use crate::compiled::{self, Compiled, CompiledError, Use};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// One glossary's open compiled file and the glossary file's size and
/// time it was opened for.
struct Open {
    size: u64,
    modified: Option<SystemTime>,
    compiled: Arc<Compiled>,
}

/// The open compiled glossaries, by glossary file.
pub(crate) struct Opened {
    mode: Use,
    /// Where compiled files are kept (`DIR/compiled/…`).
    cache_dir: PathBuf,
    open: Mutex<HashMap<PathBuf, Open>>,
}

impl Opened {
    pub(crate) fn new(mode: Use, cache_dir: impl Into<PathBuf>) -> Opened {
        Opened {
            mode,
            cache_dir: cache_dir.into(),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The compiled glossary of the glossary file `path` when the mode
    /// says so (one post per request): the one kept open while the file
    /// is unchanged, else opened fresh or rebuilt. Blocks while building.
    pub(crate) fn get(&self, path: &Path) -> Result<Option<Arc<Compiled>>, CompiledError> {
        if !compiled::wanted(self.mode, path, || 1) {
            return Ok(None);
        }
        let meta = std::fs::metadata(path).map_err(|cause| CompiledError::Io {
            path: path.to_path_buf(),
            cause,
        })?;
        let (size, modified) = (meta.len(), meta.modified().ok());
        // Held while opening or building, so that two requests do not
        // build the same file at once.
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(o) = open.get(path) {
            if o.size == size && o.modified == modified && modified.is_some() {
                return Ok(Some(Arc::clone(&o.compiled)));
            }
        }
        let file = compiled::cache_path(&self.cache_dir, path);
        let (compiled, how) = compiled::open_fresh(path, &file)?;
        if how != compiled::Freshness::Fresh {
            tracing::info!(
                glossary = %path.display(),
                file = %file.display(),
                how = ?how,
                "compiled the glossary"
            );
        }
        open.insert(
            path.to_path_buf(),
            Open {
                size,
                modified,
                compiled: Arc::clone(&compiled),
            },
        );
        Ok(Some(compiled))
    }
}
