//! Where results are saved: `runs/<UTC timestamp, ms>_<suite>_<kind>.json`,
//! never over another result.

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// Default folder for saved results.
pub const RUNS_DIR: &str = "runs";

/// The current UTC time as `YYYYMMDDTHHMMSS.mmmZ` (to the millisecond),
/// safe in file names.
pub(crate) fn utc_timestamp() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let seconds = format_timestamp(now.as_secs());
    format!(
        "{}.{:03}Z",
        seconds.trim_end_matches('Z'),
        now.subsec_millis()
    )
}

/// A new path `dir/<timestamp>_<name><ext>` that nothing else has: the
/// timestamp is to the millisecond, and a name already taken (two runs in
/// one millisecond, or another process) gets `-2`, `-3`, ... The path is
/// reserved by creating it (an empty file, or a folder when `ext` is
/// empty), so no two callers ever get the same one.
pub fn unique_path(dir: &Path, name: &str, ext: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let stamp = utc_timestamp();
    for n in 1u32.. {
        let counter = if n == 1 {
            String::new()
        } else {
            format!("-{n}")
        };
        let path = dir.join(format!("{stamp}_{name}{counter}{ext}"));
        let reserved = if ext.is_empty() {
            std::fs::create_dir(&path)
        } else {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .map(drop)
        };
        match reserved {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("a free name is found before the counter runs out")
}

/// Format seconds since the Unix epoch as `YYYYMMDDTHHMMSSZ`.
pub(crate) fn format_timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to civil date (Howard Hinnant's algorithm), valid for any date
    // after 1970.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}T{:02}{:02}{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// A file-name-safe form of a suite name.
pub fn suite_name(path: &str) -> String {
    let stem = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if clean.is_empty() {
        "suite".to_string()
    } else {
        clean
    }
}

/// A result that could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("cannot save a result in {}", dir.display())]
    Folder {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot save a result: {0}")]
    Serialize(#[from] serde_json::Error),
    #[error(transparent)]
    Write(#[from] crate::fsutil::WriteError),
}

/// Write `value` as pretty JSON to `dir/<timestamp>_<suite>_<kind>.json`,
/// creating `dir`; returns the path.
pub fn save_json<T: Serialize>(
    dir: &Path,
    suite: &str,
    kind: &str,
    value: &T,
) -> Result<PathBuf, SaveError> {
    let path = unique_path(dir, &format!("{suite}_{kind}"), ".json").map_err(|source| {
        SaveError::Folder {
            dir: dir.to_path_buf(),
            source,
        }
    })?;
    fill_reserved(&path, serde_json::to_string_pretty(value)? + "\n")?;
    Ok(path)
}

/// Write a path reserved by [`unique_path`] atomically; when that fails (a
/// full disk) the empty reservation is removed too, so no 0-byte result is
/// left behind to be read as one.
pub fn fill_reserved(
    path: &Path,
    bytes: impl AsRef<[u8]>,
) -> Result<(), crate::fsutil::WriteError> {
    write_atomic(path, bytes).inspect_err(|_| {
        let _ = std::fs::remove_file(path);
    })
}

/// The one atomic write (creating the file's folder): see [`crate::fsutil`].
pub use crate::fsutil::write_atomic;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_timestamp(0), "19700101T000000Z");
        assert_eq!(format_timestamp(951_782_400), "20000229T000000Z");
        assert_eq!(format_timestamp(1_795_984_218), "20261129T203018Z");
    }

    #[test]
    fn unique_paths_never_repeat_within_a_millisecond() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..5)
            .map(|_| unique_path(dir.path(), "cafe_eval", ".json").unwrap())
            .collect();
        let mut names: Vec<_> = paths.iter().map(|p| p.file_name().unwrap()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 5);
        let folder = unique_path(dir.path(), "cafe_run", "").unwrap();
        assert!(folder.is_dir());
        assert!(utc_timestamp().ends_with('Z') && utc_timestamp().contains('.'));
    }

    #[test]
    fn a_result_that_cannot_be_saved_names_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, "").unwrap();
        let err = save_json(&file, "cafe", "eval", &1)
            .unwrap_err()
            .to_string();
        assert_eq!(err, format!("cannot save a result in {}", file.display()));
    }

    #[test]
    fn suite_names_are_file_safe() {
        assert_eq!(suite_name("posts/cafe.jsonl"), "cafe");
        assert_eq!(suite_name("a b.jsonl"), "a-b");
    }
}
