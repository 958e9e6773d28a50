//! A run's batches at a provider's batch service (`glossa batch submit`,
//! `status`, `fetch`): the request files split within the service's
//! limits, and the ledger `DIR/batches.json` that records every step
//! (request file written, file uploaded, batch created, its state, results
//! downloaded, results recorded), rewritten atomically after each one, so
//! that a command stopped at any step continues where it stopped and the
//! same requests are never sent twice. See docs/formats.md, "Batches at
//! the provider".

pub mod gemini;
pub(crate) mod http;
pub(crate) mod openai;

use super::api::{custom_id, request_line, BatchError, Dialect, Limits, Sampling};
use crate::dataset::LabelledPost;
use crate::fsutil::{write_atomic, AtomicFile, WriteError};
use crate::generate::pipeline::Pipeline;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The ledger in the run folder.
pub const LEDGER_FILE: &str = "batches.json";
/// The folder (in the run folder) of request files and downloaded results.
pub const PARTS_DIR: &str = "batches";
/// The ledger's format version.
pub(crate) const LEDGER_VERSION: u32 = 1;

/// The batch states after which nothing changes (OpenAI's names).
pub(crate) const TERMINAL: [&str; 4] = ["completed", "expired", "cancelled", "failed"];

/// Why the ledger or a request file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{line}:{column}: not a glossa batches file: {detail}", path.display())]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        detail: String,
    },
    #[error("{}: version {found}; this glossa reads version {LEDGER_VERSION}", path.display())]
    Version { path: PathBuf, found: u32 },
    #[error("{}:{line}: not a request line glossa wrote (no `custom_id` or `key`)", path.display())]
    RequestLine { path: PathBuf, line: usize },
    #[error("one request line is {bytes} bytes, more than one batch file may hold ({max} bytes)")]
    LineTooLong { bytes: u64, max: u64 },
    #[error(
        "{}: part {part} was written for the {found} batch service, and this run's provider is \
         {wanted}; its requests cannot go to this run's service",
        path.display()
    )]
    OtherService {
        path: PathBuf,
        part: u32,
        found: String,
        wanted: &'static str,
    },
    #[error(transparent)]
    Batch(#[from] BatchError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// What a batch's requests came to (OpenAI's `request_counts`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCounts {
    pub(crate) total: u64,
    pub completed: u64,
    pub failed: u64,
}

/// What a batch service says of a batch, in the ledger's terms (OpenAI's
/// state names; Gemini's are mapped to them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    /// The batch id (`batch_...`; Gemini: `batches/...`).
    pub id: String,
    pub(crate) status: String,
    pub(crate) request_counts: Option<RequestCounts>,
    /// Results (Gemini: its one file, `responsesFile`, of results and
    /// failures alike).
    pub(crate) output_file_id: Option<String>,
    pub(crate) error_file_id: Option<String>,
    /// What went wrong with the whole batch.
    pub(crate) errors: Vec<String>,
}

impl From<&openai::BatchObject> for Remote {
    fn from(b: &openai::BatchObject) -> Remote {
        Remote {
            id: b.id.clone(),
            status: b.status.clone(),
            request_counts: b.request_counts,
            output_file_id: b.output_file_id.clone(),
            error_file_id: b.error_file_id.clone(),
            errors: b.error_messages(),
        }
    }
}

/// A run's batch service: the one client `glossa batch` talks to.
pub enum Service {
    OpenAi(openai::OpenAiBatches),
    Gemini(gemini::GeminiBatches),
}

impl Service {
    /// The service of `dialect` at `base` (the service's own when `None`),
    /// the key from `key_var` (the service's variable when `None`).
    pub fn new(
        dialect: Dialect,
        base: Option<&str>,
        key_var: Option<&str>,
    ) -> Result<Service, http::RemoteError> {
        Ok(match dialect {
            Dialect::OpenAi => Service::OpenAi(openai::OpenAiBatches::new(base, key_var)?),
            Dialect::Gemini => Service::Gemini(gemini::GeminiBatches::new(base, key_var)?),
        })
    }

    pub fn dialect(&self) -> Dialect {
        match self {
            Service::OpenAi(_) => Dialect::OpenAi,
            Service::Gemini(_) => Dialect::Gemini,
        }
    }

    /// The base URL as shown and recorded (without credentials).
    pub fn base_shown(&self) -> String {
        match self {
            Service::OpenAi(s) => s.base_shown(),
            Service::Gemini(s) => s.base_shown(),
        }
    }

    /// Upload a request file; its id at the service.
    pub async fn upload(&self, path: &Path) -> Result<String, http::RemoteError> {
        match self {
            Service::OpenAi(s) => s.upload(path).await,
            Service::Gemini(s) => s.upload(path).await,
        }
    }

    /// Create the batch of an uploaded file for `model`, named after the
    /// run folder `run` and its part number (OpenAI: in its metadata;
    /// Gemini: its display name).
    pub async fn create(
        &self,
        input: &str,
        model: &str,
        run: &str,
        part: u32,
    ) -> Result<Remote, http::RemoteError> {
        match self {
            Service::OpenAi(s) => {
                let metadata = [
                    ("glossa_run", run.to_string()),
                    ("glossa_part", part.to_string()),
                ];
                Ok(Remote::from(
                    &s.create(input, super::api::ENDPOINT, &metadata).await?,
                ))
            }
            Service::Gemini(s) => {
                let name = format!("glossa {run} part {part}");
                s.create(input, model, &name).await
            }
        }
    }

    /// The batch as the service sees it now.
    pub async fn get(&self, id: &str) -> Result<Remote, http::RemoteError> {
        match self {
            Service::OpenAi(s) => Ok(Remote::from(&s.get(id).await?)),
            Service::Gemini(s) => s.get(id).await,
        }
    }

    /// The batch created from the uploaded file `input`, if the service
    /// lists one (for a create request whose answer was lost).
    pub async fn find_by_input(&self, input: &str) -> Result<Option<Remote>, http::RemoteError> {
        match self {
            Service::OpenAi(s) => Ok(s.find_by_input(input).await?.as_ref().map(Remote::from)),
            Service::Gemini(s) => s.find_by_input(input).await,
        }
    }

    /// Download a results file to `to` (atomically, without the key); the
    /// bytes written.
    pub async fn download(&self, file: &str, to: &Path) -> Result<u64, http::RemoteError> {
        match self {
            Service::OpenAi(s) => s.download(file, to).await,
            Service::Gemini(s) => s.download(file, to).await,
        }
    }
}

/// One request file and what became of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Part {
    /// Counted from 1 across the run's submissions.
    pub part: u32,
    /// The service its requests were written for (`openai`, `gemini`);
    /// none in a ledger from before Gemini: the ledger's `service`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) service: Option<String>,
    /// The request file, relative to the run folder.
    pub requests_file: String,
    pub requests: usize,
    pub(crate) bytes: u64,
    /// Its requests redo failed calls (`submit --retry-errors`).
    #[serde(default)]
    pub retry_errors: bool,
    /// The uploaded file's id.
    pub input_file_id: Option<String>,
    /// The batch create request went out (its answer may have been lost).
    #[serde(default)]
    pub create_sent: bool,
    pub batch_id: Option<String>,
    /// The batch's state when last asked.
    pub status: Option<String>,
    pub request_counts: Option<RequestCounts>,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    /// What the service said went wrong with the whole batch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Downloaded results, relative to the run folder.
    #[serde(default)]
    pub results: Vec<String>,
    /// Finished, and its results recorded in `calls.jsonl`: its requests
    /// still without a result may be sent again.
    #[serde(default)]
    pub done: bool,
}

impl Part {
    /// Note what the service says of the part's batch.
    pub fn record(&mut self, batch: &Remote) {
        self.batch_id = Some(batch.id.clone());
        self.status = Some(batch.status.clone());
        self.request_counts = batch.request_counts.or(self.request_counts);
        self.output_file_id = batch.output_file_id.clone().or(self.output_file_id.take());
        self.error_file_id = batch.error_file_id.clone().or(self.error_file_id.take());
        self.errors = batch.errors.clone();
    }

    /// Its batch is finished at the service.
    pub fn is_terminal(&self) -> bool {
        self.status
            .as_deref()
            .is_some_and(|s| TERMINAL.contains(&s))
    }
}

/// `DIR/batches.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ledger {
    pub(crate) version: u32,
    /// The batch service of the first part: `openai` (OpenAI-compatible)
    /// or `gemini`; each part records its own.
    pub(crate) service: String,
    /// The base URL the batches were created at (without credentials).
    pub base_url: Option<String>,
    pub parts: Vec<Part>,
}

impl Ledger {
    pub fn new(service: &str) -> Ledger {
        Ledger {
            version: LEDGER_VERSION,
            service: service.to_string(),
            base_url: None,
            parts: Vec::new(),
        }
    }

    /// The run folder's ledger, or `None` when nothing was submitted.
    pub fn load(dir: &Path) -> Result<Option<Ledger>, LedgerError> {
        let path = dir.join(LEDGER_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(LedgerError::Read { path, source }),
        };
        let ledger: Ledger = serde_json::from_str(&text).map_err(|e| LedgerError::Parse {
            path: path.clone(),
            line: e.line(),
            column: e.column(),
            detail: e.to_string(),
        })?;
        if ledger.version != LEDGER_VERSION {
            return Err(LedgerError::Version {
                path,
                found: ledger.version,
            });
        }
        Ok(Some(ledger))
    }

    /// Write it (atomically: a crash leaves the old ledger or the new).
    pub fn save(&self, dir: &Path) -> Result<(), LedgerError> {
        let text = serde_json::to_string_pretty(self).expect("a ledger always serialises") + "\n";
        write_atomic(&dir.join(LEDGER_FILE), text)?;
        Ok(())
    }

    /// The `custom_id`s of the parts not yet done: sent (or about to be),
    /// and not to be sent again.
    pub fn in_flight(&self, dir: &Path) -> Result<HashSet<String>, LedgerError> {
        let mut ids = HashSet::new();
        for part in self.parts.iter().filter(|p| !p.done) {
            ids.extend(read_ids(&dir.join(&part.requests_file))?);
        }
        Ok(ids)
    }

    /// Refuse a ledger whose parts were written for another service than
    /// `dialect` (the run's): their request lines are not its requests.
    pub fn check_service(&self, dir: &Path, dialect: Dialect) -> Result<(), LedgerError> {
        let wanted = dialect.provider();
        let part = self
            .parts
            .iter()
            .find(|p| p.service.as_deref().unwrap_or(&self.service) != wanted);
        match part {
            Some(p) => Err(LedgerError::OtherService {
                path: dir.join(LEDGER_FILE),
                part: p.part,
                found: p.service.clone().unwrap_or_else(|| self.service.clone()),
                wanted,
            }),
            None => Ok(()),
        }
    }

    /// The number the next part gets.
    pub fn next_part(&self) -> u32 {
        self.parts.iter().map(|p| p.part).max().unwrap_or(0) + 1
    }
}

#[derive(Deserialize)]
struct IdOnly {
    /// A Gemini request line's `key`.
    #[serde(alias = "key")]
    custom_id: String,
}

/// The `custom_id` (OpenAI) or `key` (Gemini) of every line of a request
/// file.
pub(crate) fn read_ids(path: &Path) -> Result<Vec<String>, LedgerError> {
    let read = |source| LedgerError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read)?;
    let mut ids = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(read)?;
        if line.trim().is_empty() {
            continue;
        }
        let id: IdOnly = serde_json::from_str(&line).map_err(|_| LedgerError::RequestLine {
            path: path.to_path_buf(),
            line: n + 1,
        })?;
        ids.push(id.custom_id);
    }
    Ok(ids)
}

/// The request lines of `calls`, written to `DIR/batches/part-NNN.jsonl`
/// files (from part `first` on), each within `limits`; the parts, not yet
/// uploaded. Each file is written atomically.
pub fn write_parts(
    dir: &Path,
    first: u32,
    pipelines: &[Arc<Pipeline>],
    posts: &[LabelledPost],
    calls: &[(usize, u32, usize)],
    sampling: &Sampling,
    limits: Limits,
) -> Result<Vec<Part>, LedgerError> {
    let folder = dir.join(PARTS_DIR);
    std::fs::create_dir_all(&folder).map_err(|source| LedgerError::Read {
        path: folder.clone(),
        source,
    })?;
    let mut parts = Vec::new();
    let mut open: Option<(AtomicFile, Part)> = None;
    for &(ri, repeat, pi) in calls {
        let pipeline = &pipelines[ri];
        let post = &posts[pi];
        let prepared = pipeline
            .prepare_local(&post.post.text, Some(&post.label), repeat)
            .ok_or(BatchError::SimplifiesWithModel)?;
        let id = custom_id(&pipeline.retriever_name, repeat, &post.post.id);
        let line = request_line(&id, &prepared, sampling);
        let bytes = line.len() as u64;
        if bytes > limits.bytes {
            return Err(LedgerError::LineTooLong {
                bytes,
                max: limits.bytes,
            });
        }
        let full = open.as_ref().is_some_and(|(_, p)| {
            p.requests + 1 > limits.requests || p.bytes + bytes > limits.bytes
        });
        if full {
            let (file, part) = open.take().expect("an open part");
            file.commit()?;
            parts.push(part);
        }
        if open.is_none() {
            let number = first + parts.len() as u32;
            let name = format!("{PARTS_DIR}/part-{number:03}.jsonl");
            let file = AtomicFile::create(&dir.join(&name))?;
            let part = Part {
                part: number,
                service: Some(sampling.dialect.provider().to_string()),
                requests_file: name,
                ..Part::default()
            };
            open = Some((file, part));
        }
        let (file, part) = open.as_mut().expect("an open part");
        file.write_all(line.as_bytes())
            .map_err(|source| BatchError::Write {
                path: dir.join(&part.requests_file),
                source,
            })?;
        part.requests += 1;
        part.bytes += bytes;
    }
    if let Some((file, part)) = open {
        file.commit()?;
        parts.push(part);
    }
    Ok(parts)
}

/// How many of a part's requests have no line in its downloaded results
/// (Gemini: the requests a batch that expired or was cancelled never
/// ran).
pub fn unanswered(dir: &Path, part: &Part) -> Result<usize, LedgerError> {
    let mut lines = 0usize;
    for file in &part.results {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).map_err(|source| LedgerError::Read {
            path: path.clone(),
            source,
        })?;
        lines += text.lines().filter(|l| !l.trim().is_empty()).count();
    }
    Ok(part.requests.saturating_sub(lines))
}

/// The error codes of requests a batch never executed (it expired or was
/// cancelled first): no result, so the call stays missing, not failed.
pub(crate) const UNEXECUTED: [&str; 2] = ["batch_expired", "batch_cancelled"];

/// Move the lines of requests never executed (error code in
/// [`UNEXECUTED`]) out of the error file `path` into `set_aside`; how many
/// there were. Both files are rewritten atomically.
pub fn set_aside_unexecuted(path: &Path, set_aside: &Path) -> Result<usize, LedgerError> {
    let text = std::fs::read_to_string(path).map_err(|source| LedgerError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let (mut kept, mut aside) = (String::new(), String::new());
    for line in text.lines() {
        let code = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| v.pointer("/error/code")?.as_str().map(str::to_string));
        let out = match code {
            Some(code) if UNEXECUTED.contains(&code.as_str()) => &mut aside,
            _ => &mut kept,
        };
        out.push_str(line);
        out.push('\n');
    }
    let count = aside.lines().count();
    if count > 0 {
        write_atomic(set_aside, aside)?;
        write_atomic(path, kept)?;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_round_trips_and_a_bad_one_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Ledger::load(dir.path()).unwrap(), None);
        let mut ledger = Ledger::new("openai");
        ledger.parts.push(Part {
            part: 1,
            requests_file: "batches/part-001.jsonl".into(),
            requests: 2,
            input_file_id: Some("file-1".into()),
            ..Part::default()
        });
        ledger.save(dir.path()).unwrap();
        assert_eq!(Ledger::load(dir.path()).unwrap(), Some(ledger.clone()));
        assert_eq!(ledger.next_part(), 2);
        std::fs::write(
            dir.path().join(LEDGER_FILE),
            "{\n  \"version\": 1,\n  \"parts\": 3\n}",
        )
        .unwrap();
        let err = Ledger::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("batches.json:"), "{err}");
        std::fs::write(
            dir.path().join(LEDGER_FILE),
            r#"{"version": 9, "service": "openai", "base_url": null, "parts": []}"#,
        )
        .unwrap();
        let err = Ledger::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("version 9"), "{err}");
    }

    #[test]
    fn in_flight_ids_come_from_parts_not_done() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(PARTS_DIR)).unwrap();
        std::fs::write(
            dir.path().join("batches/part-001.jsonl"),
            "{\"custom_id\":\"a|1|p\"}\n{\"custom_id\":\"a|1|q\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("batches/part-002.jsonl"),
            "{\"custom_id\":\"a|1|r\"}\n",
        )
        .unwrap();
        let mut ledger = Ledger::new("openai");
        for (n, done) in [(1, false), (2, true)] {
            ledger.parts.push(Part {
                part: n,
                requests_file: format!("batches/part-{n:03}.jsonl"),
                done,
                ..Part::default()
            });
        }
        let ids = ledger.in_flight(dir.path()).unwrap();
        assert_eq!(ids.len(), 2);
        // A ledger from before Gemini: its parts are the ledger's service's.
        assert!(ledger.check_service(dir.path(), Dialect::OpenAi).is_ok());
        ledger.parts[1].service = Some("gemini".into());
        let err = ledger
            .check_service(dir.path(), Dialect::OpenAi)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("part 2 was written for the gemini batch service"),
            "{err}"
        );
        assert!(ids.contains("a|1|q") && !ids.contains("a|1|r"));
        std::fs::write(dir.path().join("batches/part-001.jsonl"), "{}\n").unwrap();
        let err = ledger.in_flight(dir.path()).unwrap_err().to_string();
        assert!(err.contains("part-001.jsonl:1:"), "{err}");
    }

    #[test]
    fn requests_never_executed_are_set_aside_from_the_error_file() {
        let dir = tempfile::tempdir().unwrap();
        let errors = dir.path().join("e.jsonl");
        std::fs::write(
            &errors,
            concat!(
                "{\"custom_id\":\"a|1|p\",\"response\":null,\"error\":{\"code\":\"batch_expired\",\"message\":\"m\"}}\n",
                "{\"custom_id\":\"a|1|q\",\"response\":{\"status_code\":500,\"body\":{}},\"error\":null}\n",
                "{\"custom_id\":\"a|1|r\",\"response\":null,\"error\":{\"code\":\"batch_cancelled\",\"message\":\"m\"}}\n",
            ),
        )
        .unwrap();
        let aside = dir.path().join("x.jsonl");
        assert_eq!(set_aside_unexecuted(&errors, &aside).unwrap(), 2);
        let kept = std::fs::read_to_string(&errors).unwrap();
        assert_eq!(kept.lines().count(), 1);
        assert!(kept.contains("a|1|q"));
        assert_eq!(std::fs::read_to_string(&aside).unwrap().lines().count(), 2);
    }
}
