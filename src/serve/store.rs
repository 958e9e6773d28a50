//! The glossaries folder behind `glossa serve`: listing, loading with a
//! version, and saving safely.
//!
//! Every save
//! 1. checks the version the editor loaded against the file on disk (a
//!    stale write is refused, never merged silently),
//! 2. validates the new document with the CLI's own rules and messages
//!    ([`Glossary::parse`]),
//! 3. writes it to a temporary file in the same folder, flushed to disk,
//! 4. copies the previous version to `.backup/NAME.<UTC time>.json`,
//! 5. renames the temporary file over the glossary (atomic on POSIX), so a
//!    reader or a crash sees either the old file or the new one, never half.
//!
//! Saves are serialised by an advisory lock on `.glossa.lock` in the
//! folder (see [`FolderLock`]), held from the version check to the rename:
//! any number of `glossa serve` processes, and `glossa import --out`, can
//! share one folder without losing a save.
//!
//! Files are read and written only inside the folder: a glossary, or the
//! `.backup` folder, that is a symbolic link to a place outside it is
//! refused, so a link cannot expose or overwrite files elsewhere.

use crate::error::InputError;
pub(crate) use crate::glossary::Head;
use crate::glossary::{Entry, Glossary};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Folder (inside the glossaries folder) that keeps previous versions.
pub(crate) const BACKUP_DIR: &str = ".backup";

/// Previous versions kept per glossary; older backups are deleted.
pub(crate) const KEEP_BACKUPS: usize = 50;

/// Longest glossary name accepted, in characters.
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// Environment variable for fault injection in tests: `abort-mid-write`
/// stops the process after half of the temporary file is written,
/// `abort-before-rename` after all of it, before the rename.
pub(crate) const FAULT_ENV: &str = "GLOSSA_SERVE_FAULT";

/// Why a store operation failed; each maps to one HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The name is not a plain glossary name (400).
    #[error("{0}")]
    BadName(String),
    /// No such glossary, or no such entry (404).
    #[error("{0}")]
    NotFound(String),
    /// The document or entry breaks the glossary rules (400).
    #[error("{0}")]
    Invalid(String),
    /// The file changed since the editor loaded it (409).
    #[error(
        "the glossary changed since you loaded it (another tab or person saved it); \
         reload it, then make your change again"
    )]
    Stale { current: String },
    /// An existing glossary was overwritten without a version (428).
    #[error(
        "send the version you loaded (the ETag, as an If-Match header or a \"version\" field) \
         so that a newer version is not overwritten"
    )]
    NeedVersion,
    /// The file is a symbolic link out of the glossaries folder (403).
    #[error("{0}")]
    Outside(String),
    /// The disk said no (500).
    #[error("{0}")]
    Io(String),
}

/// A glossary as loaded, with its version.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub(crate) name: String,
    pub glossary: Glossary,
    pub(crate) head: Head,
    /// Short hex digest of the file's bytes: the ETag.
    pub(crate) version: String,
}

/// One line of the folder listing.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub(crate) name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) entries: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) version: Option<String>,
    /// Why the file cannot be used, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The glossaries folder.
pub struct Store {
    dir: PathBuf,
}

/// File (inside the glossaries folder) that saves lock.
pub(crate) const LOCK_FILE: &str = ".glossa.lock";

/// An exclusive advisory lock on a glossaries folder, held until dropped.
/// Every process that writes glossaries there takes it around reading the
/// current version and renaming the new file into place, so two writers
/// never both act on the same version. Advisory: only glossa honours it.
pub struct FolderLock {
    _file: fs::File,
}

impl FolderLock {
    /// Wait for the lock of folder `dir` (created if missing).
    pub fn acquire(dir: &Path) -> Result<FolderLock, StoreError> {
        fs::create_dir_all(dir).map_err(|e| io_error(dir, "cannot create", &e))?;
        let path = dir.join(LOCK_FILE);
        if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(StoreError::Outside(format!(
                "{} is a symbolic link; glossa locks only a plain file there (remove the link)",
                path.display()
            )));
        }
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| io_error(&path, "cannot open the lock file", &e))?;
        file.lock()
            .map_err(|e| io_error(&path, "cannot lock", &e))?;
        Ok(FolderLock { _file: file })
    }
}

impl Store {
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every `NAME.json` with a plain name, sorted by name; files that do
    /// not load are listed with their error.
    pub fn list(&self) -> Result<Vec<Summary>, StoreError> {
        let read = match fs::read_dir(&self.dir) {
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&self.dir, "cannot list", &e)),
        };
        let mut names: Vec<String> = read
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| {
                let file = e.file_name().into_string().ok()?;
                let name = file.strip_suffix(".json")?;
                check_name(name).ok().map(|_| name.to_string())
            })
            .collect();
        names.sort();
        Ok(names
            .into_iter()
            .map(|name| match self.load(&name) {
                Ok(loaded) => Summary {
                    entries: Some(loaded.glossary.len()),
                    version: Some(loaded.version),
                    error: None,
                    name,
                },
                Err(e) => Summary {
                    entries: None,
                    version: None,
                    error: Some(e.to_string()),
                    name,
                },
            })
            .collect())
    }

    /// The file of glossary `name`, once the name is checked and the file,
    /// if it is a link, is found to stay inside the folder.
    pub(crate) fn path(&self, name: &str) -> Result<PathBuf, StoreError> {
        check_name(name)?;
        let path = self.dir.join(format!("{name}.json"));
        self.check_inside(&path)?;
        Ok(path)
    }

    /// Refuse `path` when it is a symbolic link that leads out of the
    /// folder (or nowhere): reading it would serve, and writing beside it
    /// would touch, a file the folder does not hold.
    fn check_inside(&self, path: &Path) -> Result<(), StoreError> {
        let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Ok(());
        }
        let root =
            fs::canonicalize(&self.dir).map_err(|e| io_error(&self.dir, "cannot resolve", &e))?;
        match fs::canonicalize(path) {
            Ok(target) if target.starts_with(&root) => Ok(()),
            _ => Err(StoreError::Outside(format!(
                "{} is a symbolic link out of the glossaries folder {}; glossa reads and writes only \
                 files inside it (copy the file in instead)",
                path.display(),
                self.dir.display()
            ))),
        }
    }

    /// Load and validate glossary `name`.
    pub(crate) fn load(&self, name: &str) -> Result<Loaded, StoreError> {
        let path = self.path(name)?;
        let bytes = read_current(&path)?.ok_or_else(|| {
            StoreError::NotFound(format!(
                "no glossary named `{name}` in {}",
                self.dir.display()
            ))
        })?;
        parse(name, &path, &bytes)
    }

    /// Replace the whole glossary with `document` (glossary JSON, as in a
    /// file). Creating a new glossary needs no version; overwriting one
    /// does.
    pub(crate) fn put(
        &self,
        name: &str,
        expected: Option<&str>,
        document: &str,
    ) -> Result<Loaded, StoreError> {
        let path = self.path(name)?;
        // Validate what was sent first, so that its errors point into it:
        // they name the request body, not the file it would replace.
        let shown = format!("the request body (for {})", path.display());
        let (glossary, head) =
            Glossary::parse_with_head(&shown, name, document).map_err(invalid)?;
        let _lock = FolderLock::acquire(&self.dir)?;
        let current = read_current(&path)?;
        match (&current, expected) {
            (Some(bytes), Some(v)) if version_of(bytes) != v => {
                return Err(StoreError::Stale {
                    current: version_of(bytes),
                })
            }
            (Some(_), None) => return Err(StoreError::NeedVersion),
            (None, Some(_)) => {
                return Err(StoreError::Stale {
                    current: String::new(),
                })
            }
            _ => {}
        }
        self.commit(
            name,
            &path,
            current.as_deref(),
            &render(&head, &glossary.entries),
        )
    }

    /// Change the entries of glossary `name` with `change`, applied to the
    /// file as it is now. With `expected`, the save is refused if the file
    /// is no longer that version.
    pub(crate) fn edit(
        &self,
        name: &str,
        expected: Option<&str>,
        change: impl FnOnce(&mut Vec<Entry>) -> Result<(), StoreError>,
    ) -> Result<Loaded, StoreError> {
        let path = self.path(name)?;
        let _lock = FolderLock::acquire(&self.dir)?;
        let bytes = read_current(&path)?.ok_or_else(|| {
            StoreError::NotFound(format!(
                "no glossary named `{name}` in {}",
                self.dir.display()
            ))
        })?;
        if let Some(v) = expected {
            if version_of(&bytes) != v {
                return Err(StoreError::Stale {
                    current: version_of(&bytes),
                });
            }
        }
        let current = parse(name, &path, &bytes)?;
        let mut entries = current.glossary.entries.clone();
        change(&mut entries)?;
        for e in &mut entries {
            e.line = 0;
        }
        // The CLI's rules and messages, about the entries (no file line:
        // the editor did not write one).
        let g = &current.glossary;
        let validated = Glossary::new(
            &path.display().to_string(),
            g.name.clone(),
            g.source_lang.clone(),
            g.target_lang.clone(),
            entries,
        )
        .map_err(|e| StoreError::Invalid(e.message))?;
        // The entries as validated: an id left empty is filled in there.
        self.commit(
            name,
            &path,
            Some(&bytes),
            &render(&current.head, &validated.entries),
        )
    }

    /// Validate `text`, then write it over `path` atomically, keeping
    /// `previous` as a backup.
    fn commit(
        &self,
        name: &str,
        path: &Path,
        previous: Option<&[u8]>,
        text: &str,
    ) -> Result<Loaded, StoreError> {
        // The same rules and messages as the CLI; line numbers point into
        // the file as it would be written.
        let loaded = parse(name, path, text.as_bytes())?;
        fs::create_dir_all(&self.dir).map_err(|e| io_error(&self.dir, "cannot create", &e))?;
        let tmp = self.temporary(name);
        let written = write_synced(&tmp, text.as_bytes());
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(io_error(&tmp, "cannot write", &e));
        }
        fault("abort-before-rename");
        if let Some(previous) = previous {
            if let Err(e) = self.backup(name, previous) {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        }
        if let Err(e) = fs::rename(&tmp, path) {
            let _ = fs::remove_file(&tmp);
            return Err(io_error(path, "cannot replace", &e));
        }
        // Make the rename itself durable.
        if let Ok(dir) = fs::File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        Ok(loaded)
    }

    fn backup(&self, name: &str, previous: &[u8]) -> Result<(), StoreError> {
        let dir = self.dir.join(BACKUP_DIR);
        // Pruning deletes files there: never through a link elsewhere.
        self.check_inside(&dir)?;
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "cannot create", &e))?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let stamp = format!(
            "{}{:06}",
            crate::runs::format_timestamp(now.as_secs()).trim_end_matches('Z'),
            now.subsec_micros()
        );
        let mut path = dir.join(format!("{name}.{stamp}Z.json"));
        let mut k = 1;
        while path.exists() {
            k += 1;
            path = dir.join(format!("{name}.{stamp}Z-{k}.json"));
        }
        write_synced(&path, previous)
            .map_err(|e| io_error(&path, "cannot write the backup", &e))?;
        self.prune(name, &dir);
        Ok(())
    }

    /// Keep the newest [`KEEP_BACKUPS`] backups of `name`.
    fn prune(&self, name: &str, dir: &Path) {
        let prefix = format!("{name}.");
        let Ok(read) = fs::read_dir(dir) else { return };
        let mut backups: Vec<String> = read
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|f| {
                f.strip_prefix(&prefix)
                    .and_then(|rest| rest.strip_suffix(".json"))
                    .is_some_and(|stamp| {
                        stamp.starts_with(|c: char| c.is_ascii_digit()) && !stamp.contains('.')
                    })
            })
            .collect();
        if backups.len() <= KEEP_BACKUPS {
            return;
        }
        backups.sort();
        for old in &backups[..backups.len() - KEEP_BACKUPS] {
            let _ = fs::remove_file(dir.join(old));
        }
    }

    /// A new temporary file name for a save of `name`:
    /// `.NAME.json.tmp-PID-N`, unique per process (its pid) and per save
    /// (a counter shared by the process's stores), so another process
    /// can tell whose it is ([`Store::clean_temporaries`]).
    fn temporary(&self, name: &str) -> PathBuf {
        let n = SAVES.fetch_add(1, Ordering::Relaxed);
        self.dir
            .join(format!(".{name}.json.tmp-{}-{n}", std::process::id()))
    }

    /// Delete temporary files left by a crash mid-save; returns how many.
    /// Another server on the same folder may be saving right now: a file
    /// is removed only when the process named in it has ended (or none is
    /// named), or when it is older than [`STALE_TEMPORARY`] (a pid may
    /// have been reused). This process's own recent files are kept too.
    pub fn clean_temporaries(&self) -> usize {
        let Ok(read) = fs::read_dir(&self.dir) else {
            return 0;
        };
        let now = SystemTime::now();
        read.filter_map(Result::ok)
            .filter(|e| {
                let Some(file) = e.file_name().to_str().map(str::to_string) else {
                    return false;
                };
                if !(file.starts_with('.') && file.contains(".json.tmp-")) {
                    return false;
                }
                let old = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| now.duration_since(t).unwrap_or_default() > STALE_TEMPORARY);
                let gone = match owner_of(&file) {
                    Some(pid) if pid == std::process::id() => false,
                    Some(pid) => process_alive(pid) == Some(false),
                    None => true,
                };
                old || gone
            })
            .filter(|e| fs::remove_file(e.path()).is_ok())
            .count()
    }
}

/// Age after which a temporary save file is removed whoever wrote it: a
/// save takes well under a second, so such a file is left by a crash.
pub(crate) const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Numbers the saves of this process, across its stores (see
/// [`Store::temporary`]).
static SAVES: AtomicU64 = AtomicU64::new(0);

/// The pid in a temporary file name `.NAME.json.tmp-PID-…`, if any.
fn owner_of(file: &str) -> Option<u32> {
    let (_, rest) = file.rsplit_once(".json.tmp-")?;
    rest.split('-').next()?.parse().ok()
}

/// Whether process `pid` is running: `None` where the system does not
/// say (no `/proc`); then only the age of a file decides.
fn process_alive(pid: u32) -> Option<bool> {
    if !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new(&format!("/proc/{pid}")).exists())
}

/// A glossary name is a plain file name: letters, digits, `-` and `_`, at
/// most [`MAX_NAME_CHARS`] characters. No dots, so no `..`, no hidden files
/// and no extension games; no slashes, so no paths.
pub(crate) fn check_name(name: &str) -> Result<(), StoreError> {
    let plain = !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if plain {
        Ok(())
    } else {
        let shown: String = name.chars().take(80).collect();
        Err(StoreError::BadName(format!(
            "`{shown}` is not a glossary name: use a plain name such as `cafe` (letters, digits, - and _, \
             at most {MAX_NAME_CHARS}), not a path or a file name"
        )))
    }
}

/// The version of a file's contents: the first 16 hex digits of its SHA-256.
pub(crate) fn version_of(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Write a glossary file: the head fields as they were, then one entry per
/// line, so that diffs of hand-kept glossaries stay readable.
pub(crate) fn render(head: &Head, entries: &[Entry]) -> String {
    let mut out = String::from("{\n");
    for (key, value) in [
        ("name", &head.name),
        ("source_lang", &head.source_lang),
        ("target_lang", &head.target_lang),
    ] {
        if let Some(v) = value {
            out.push_str(&format!("  \"{key}\": {},\n", spaced_json(v)));
        }
    }
    if !head.forbidden.is_empty() {
        let words = spaced_json(&head.forbidden);
        out.push_str(&format!("  \"forbidden\": {words},\n"));
    }
    out.push_str("  \"entries\": [\n");
    for (i, e) in entries.iter().enumerate() {
        out.push_str("    ");
        out.push_str(&spaced_json(e));
        out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
    }
    out.push_str("  ]\n}\n");
    out
}

/// JSON on one line with a space after `:` and `,`, as the demo files are
/// written.
fn spaced_json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut buf = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, Spaced);
    value
        .serialize(&mut ser)
        .expect("glossary values serialise");
    String::from_utf8(buf).expect("serde_json writes UTF-8")
}

struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        comma_unless_first(w, first)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        comma_unless_first(w, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// `, ` between items of an array or object, none before the first.
fn comma_unless_first<W: ?Sized + io::Write>(w: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}

fn parse(name: &str, path: &Path, bytes: &[u8]) -> Result<Loaded, StoreError> {
    let shown = path.display().to_string();
    let text = crate::error::decode_text(&shown, bytes.to_vec()).map_err(invalid)?;
    let (glossary, head) = Glossary::parse_with_head(&shown, name, &text).map_err(invalid)?;
    Ok(Loaded {
        name: name.to_string(),
        glossary,
        head,
        version: version_of(bytes),
    })
}

fn invalid(e: InputError) -> StoreError {
    StoreError::Invalid(e.to_string())
}

fn read_current(path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path, "cannot read", &e)),
    }
}

fn io_error(path: &Path, what: &str, e: &io::Error) -> StoreError {
    StoreError::Io(format!("{what} {}: {e}", path.display()))
}

/// Create `path` (it must not exist), write `bytes` and flush them to disk.
fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    if std::env::var(FAULT_ENV).is_ok_and(|f| f == "abort-mid-write") {
        file.write_all(&bytes[..bytes.len() / 2])?;
        file.sync_all()?;
        fault("abort-mid-write");
    }
    file.write_all(bytes)?;
    file.sync_all()
}

/// Stop the process here when the test fault `point` is set.
fn fault(point: &str) {
    if std::env::var(FAULT_ENV).is_ok_and(|f| f == point) {
        tracing::error!("{FAULT_ENV}={point}: aborting");
        std::process::abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINI: &str =
        r#"{"name": "mini", "entries": [{"id": "tea", "source": "tea", "target": "tesh"}]}"#;

    #[test]
    fn names_are_plain() {
        for bad in [
            "",
            "..",
            ".",
            "../x",
            "a/b",
            "a\\b",
            ".backup",
            "cafe.json",
            "a b",
            "x\0",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for good in ["cafe", "my-shop_2", "café"] {
            assert!(check_name(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn render_keeps_the_head_and_one_entry_per_line() {
        let g = Glossary::parse("g.json", "g", MINI).unwrap();
        let head = Head {
            name: Some("mini".into()),
            ..Head::default()
        };
        let text = render(&head, &g.entries);
        assert_eq!(
            text,
            "{\n  \"name\": \"mini\",\n  \"entries\": [\n    {\"id\": \"tea\", \"source\": \"tea\", \"target\": \"tesh\"}\n  ]\n}\n"
        );
        let again = Glossary::parse("g.json", "g", &text).unwrap();
        assert_eq!(again.entries[0].line, 4);
        assert_eq!(
            (&again.entries[0].id, &again.entries[0].target),
            (&g.entries[0].id, &g.entries[0].target)
        );
    }

    #[test]
    fn the_glossary_wide_forbidden_list_and_entry_terms_survive_an_edit() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let first = store
            .put(
                "mini",
                None,
                r#"{"name": "mini", "forbidden": ["cheap"], "entries": [{"id": "tea", "source": "tea", "target": "tesh"}]}"#,
            )
            .unwrap();
        let second = store
            .edit("mini", Some(&first.version), |entries| {
                entries[0].forbidden = vec!["chai".into()];
                Ok(())
            })
            .unwrap();
        let text = fs::read_to_string(dir.path().join("mini.json")).unwrap();
        assert!(
            text.starts_with("{\n  \"name\": \"mini\",\n  \"forbidden\": [\"cheap\"],\n"),
            "{text}"
        );
        assert!(text.contains(r#""forbidden": ["chai"]"#), "{text}");
        assert_eq!(second.glossary.forbidden, ["cheap"]);
        assert_eq!(second.glossary.entries[0].forbidden, ["chai"]);
        // An empty term is refused with the CLI's message.
        let err = store
            .edit("mini", Some(&second.version), |entries| {
                entries[0].forbidden = vec![" ".into()];
                Ok(())
            })
            .unwrap_err();
        assert!(
            err.to_string().contains("forbidden term \" \" is empty"),
            "{err}"
        );
    }

    #[test]
    fn saves_keep_a_backup_and_refuse_stale_versions() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let first = store.put("mini", None, MINI).unwrap();
        assert!(matches!(
            store.put("mini", None, MINI),
            Err(StoreError::NeedVersion)
        ));
        let second = store
            .edit("mini", Some(&first.version), |entries| {
                entries[0].target = "chai".into();
                Ok(())
            })
            .unwrap();
        assert_ne!(first.version, second.version);
        let stale = store.edit("mini", Some(&first.version), |_| Ok(()));
        assert!(matches!(stale, Err(StoreError::Stale { .. })), "{stale:?}");
        let backups: Vec<_> = fs::read_dir(dir.path().join(BACKUP_DIR)).unwrap().collect();
        assert_eq!(backups.len(), 1);
        assert_eq!(
            store.load("mini").unwrap().glossary.entries[0].target,
            "chai"
        );
    }

    #[test]
    fn invalid_edits_leave_the_file_alone_with_the_cli_message() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::new(dir.path());
        let first = store.put("mini", None, MINI).unwrap();
        let err = store
            .edit("mini", Some(&first.version), |entries| {
                entries[0].target = " ".into();
                Ok(())
            })
            .unwrap_err();
        assert!(
            err.to_string().contains("entry `tea`: `target` is empty"),
            "{err}"
        );
        assert_eq!(store.load("mini").unwrap().version, first.version);
    }

    /// A second server starting on the folder removes only temporary
    /// saves whose process is gone, or that are older than an hour; the
    /// in-flight save of a live process (this test's own pid stands for
    /// the other server) stays.
    #[test]
    fn cleaning_at_start_spares_the_temporaries_of_live_processes() {
        let dir = tempfile::tempdir().unwrap();
        let first = Store::new(dir.path());
        first.put("mini", None, MINI).unwrap();
        let live = std::process::id();
        // A process that has ended: its pid is free (reuse is unlikely
        // within the test, and the age rule covers it anyway).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let in_flight = dir.path().join(format!(".mini.json.tmp-{live}-0"));
        let orphan = dir.path().join(format!(".mini.json.tmp-{dead}-3"));
        let ancient = dir.path().join(format!(".mini.json.tmp-{live}-9"));
        let unnamed = dir.path().join(".mini.json.tmp-junk");
        for path in [&in_flight, &orphan, &ancient, &unnamed] {
            fs::write(path, MINI).unwrap();
        }
        let old = SystemTime::now() - STALE_TEMPORARY - std::time::Duration::from_secs(60);
        for path in [&ancient, &unnamed] {
            fs::File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        let second = Store::new(dir.path());
        assert_eq!(second.clean_temporaries(), 3);
        assert!(in_flight.exists(), "a live process's save was removed");
        assert!(!orphan.exists() && !ancient.exists() && !unnamed.exists());
        // The names of one process's saves are its pid and a counter.
        let name = first.temporary("mini");
        let name = name.file_name().unwrap().to_str().unwrap();
        assert_eq!(owner_of(name), Some(live), "{name}");
        assert_ne!(first.temporary("mini"), first.temporary("mini"));
    }
}
