//! Every file glossa writes goes through [`AtomicFile`]: a temporary file
//! in the destination's folder, flushed and fsynced (but for a compiled
//! glossary: [`AtomicFile::commit_unsynced`]), then renamed over the
//! destination. A crash, a full disk or an error on the way leaves the old
//! file untouched and no temporary file behind (the temporary is removed
//! when the write is abandoned).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// A file that could not be written; the old contents, if any, are intact.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {cause}", path.display())]
pub struct WriteError {
    pub(crate) path: PathBuf,
    pub(crate) cause: io::Error,
}

impl WriteError {
    fn new(path: &Path, cause: io::Error) -> WriteError {
        WriteError {
            path: path.to_path_buf(),
            cause,
        }
    }
}

/// A file being written in full: nothing appears at `path` until
/// [`AtomicFile::commit`]; dropped uncommitted, it leaves no trace.
pub struct AtomicFile {
    path: PathBuf,
    // Written through the plain file, whose errors do not name the
    // temporary; the temporary path removes the file when dropped.
    out: BufWriter<File>,
    temp: TempPath,
}

impl AtomicFile {
    /// Start writing `path` (its folder is created when missing).
    pub fn create(path: &Path) -> Result<AtomicFile, WriteError> {
        let fail = |e| WriteError::new(path, e);
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(dir).map_err(fail)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // What a plain `File::create` gives (0666 less the umask), not the
        // owner-only mode of temporary files.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let temp = builder.tempfile_in(dir).map_err(fail)?;
        let (file, temp) = temp.into_parts();
        Ok(AtomicFile {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            temp,
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush, fsync and rename over the destination.
    pub fn commit(self) -> Result<(), WriteError> {
        self.finish(true)
    }

    /// Flush and rename over the destination, without waiting for the
    /// disk: for a file that can be made again and whose every part is
    /// checked when it is read (a compiled glossary), where a crash that
    /// loses it costs one rebuild, and the wait (a third of a second for
    /// 250 MB) would be paid on every build.
    pub(crate) fn commit_unsynced(self) -> Result<(), WriteError> {
        self.finish(false)
    }

    fn finish(self, sync: bool) -> Result<(), WriteError> {
        let path = self.path;
        let fail = |e| WriteError::new(&path, e);
        let file = self.out.into_inner().map_err(|e| fail(e.into_error()))?;
        if sync {
            file.sync_all().map_err(fail)?;
        }
        drop(file);
        // On failure the error holds the temporary path, and dropping it
        // removes the file.
        self.temp.persist(&path).map_err(|e| fail(e.error))?;
        if sync {
            sync_folder(&path);
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Replace `path` with `bytes`, atomically (see [`AtomicFile`]).
pub fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), WriteError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes.as_ref())
        .map_err(|e| WriteError::new(path, e))?;
    file.commit()
}

/// Make the rename itself durable; best effort (not every platform or
/// file system can sync a folder).
fn sync_folder(path: &Path) {
    #[cfg(unix)]
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// SHA-256 of a file's bytes in lower-case hex, streamed; a built-in demo
/// file that is not on disk: of the built-in copy. Results and run folders
/// record these so that two of them are known to be about the same inputs.
pub(crate) fn sha256_file(path: &Path) -> io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read as _;
    let mut hasher = Sha256::new();
    match File::open(path) {
        Ok(mut file) => {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = file.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                hasher.update(&buf[..n]);
            }
        }
        Err(e) => match crate::demo::builtin(&path.display().to_string()) {
            Some(text) if e.kind() == io::ErrorKind::NotFound => hasher.update(text.as_bytes()),
            _ => return Err(e),
        },
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_the_file_and_leaves_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/out.json");
        write_atomic(&path, "one").unwrap();
        write_atomic(&path, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(names(&dir.path().join("sub")), ["out.json"]);
    }

    #[test]
    fn an_abandoned_write_keeps_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.tsv");
        std::fs::write(&path, "old contents").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(&vec![b'x'; 100_000]).unwrap();
            // An error on the way: the file is dropped, not committed.
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old contents");
        assert_eq!(names(dir.path()), ["out.tsv"]);
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        // A non-empty folder where the file should go: the rename fails.
        let path = dir.path().join("taken");
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), "x").unwrap();
        let err = write_atomic(&path, "new").unwrap_err();
        assert!(err
            .to_string()
            .starts_with(&format!("cannot write {}", path.display())));
        assert_eq!(names(dir.path()), ["taken"]);
    }

    #[cfg(unix)]
    #[test]
    fn files_get_the_usual_mode_not_the_temporary_one() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomic(&path, "{}").unwrap();
        let plain = dir.path().join("plain.json");
        std::fs::write(&plain, "{}").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&path), mode(&plain));
    }
}
