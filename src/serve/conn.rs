//! Connections of `glossa serve`: how many at once, how long each may live,
//! and how long a request's body may take to arrive.
//!
//! A client that sends its headers with a `Content-Length` and then nothing
//! would otherwise hold its connection, and a file descriptor, forever;
//! a few hundred of them used up the descriptors and stopped the server.
//! So: a bounded number of connections (beyond it, a brief wait for a
//! slot, then 503); a body must arrive whole within [`BODY_TIMEOUT`], and
//! within [`PRESSED_BODY_TIMEOUT`] while connections wait for a slot; and a
//! connection takes no new request after [`CONNECTION_DEADLINE`].

use super::BODY_LIMIT;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt as _;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Time a request's body has to arrive whole once its headers are in
/// (64 KiB in 10 s: any real client is far faster).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// While connections wait for a slot, a body still arriving after this
/// is cut (408): stalled clients make room for live ones at once.
pub(crate) const PRESSED_BODY_TIMEOUT: Duration = Duration::from_millis(250);

/// A connection takes no new request after this; one still open at twice
/// this (a request in flight that does not end, a client that does not
/// read its answer) is dropped.
pub const CONNECTION_DEADLINE: Duration = Duration::from_secs(300);

/// How long a connection beyond the bound waits for a slot before its 503.
pub(crate) const SLOT_WAIT: Duration = Duration::from_secs(1);

/// Connections served at once when the open-file limit is unknown.
const DEFAULT_CONNECTIONS: usize = 128;

/// Connections served at once: half the process's open-file limit (the
/// other half for waiting connections, glossaries, cache and log files),
/// between 16 and 1024.
pub fn max_connections() -> usize {
    open_file_limit().map_or(DEFAULT_CONNECTIONS, |n| (n / 2).clamp(16, 1024))
}

/// The soft limit on open files, if the system says.
#[cfg(unix)]
fn open_file_limit() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    ok.then(|| usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX))
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<usize> {
    None
}

/// The connection slots of one server.
pub(crate) struct Slots {
    free: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
}

impl Slots {
    /// `max` connections at once, and up to half as many more waiting.
    pub(crate) fn new(max: usize) -> Slots {
        let max = max.max(1);
        Slots {
            free: Arc::new(Semaphore::new(max)),
            waiting: AtomicUsize::new(0),
            max_waiting: (max / 2).max(1),
        }
    }

    /// Connections are waiting for a slot: stalled bodies should give way.
    pub(crate) fn pressed(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) > 0
    }

    /// A slot for a new connection: at once, or after a wait of up to
    /// [`SLOT_WAIT`]; `None` when the server is full (answer 503).
    pub(crate) async fn take(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(permit) = Arc::clone(&self.free).try_acquire_owned() {
            return Some(permit);
        }
        if self.waiting.fetch_add(1, Ordering::Relaxed) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            return None;
        }
        let got = tokio::time::timeout(SLOT_WAIT, Arc::clone(&self.free).acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        got.ok().and_then(Result::ok)
    }
}

/// Answer a connection the server has no room for, and close it.
pub(crate) async fn refuse(mut stream: tokio::net::TcpStream) {
    let body = r#"{"error": "the server is busy (too many connections); try again in a second"}"#;
    let reply = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
         Retry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(reply.as_bytes())).await;
}

/// Why a body was not read.
pub(crate) enum BodyError {
    /// It did not arrive in time (408).
    Late(Duration),
    /// It is larger than [`BODY_LIMIT`] (413).
    TooLarge,
    /// The client broke off (400).
    Broken,
}

/// `request` with its body read into memory, within `timeout` (or
/// [`PRESSED_BODY_TIMEOUT`] while `slots` are pressed). Reads one byte
/// past [`BODY_LIMIT`] at most, so the extractors still answer 413.
pub(crate) async fn buffered(
    request: Request,
    timeout: Duration,
    slots: &Slots,
) -> Result<Request, BodyError> {
    let started = Instant::now();
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, BODY_LIMIT + 1);
    tokio::pin!(read);
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        tokio::select! {
            read = &mut read => {
                return match read {
                    Ok(bytes) => Ok(Request::from_parts(parts, Body::from(bytes))),
                    Err(e) if e.to_string().contains("length limit") => Err(BodyError::TooLarge),
                    Err(_) => Err(BodyError::Broken),
                };
            }
            () = tokio::time::sleep(left.min(PRESSED_BODY_TIMEOUT)) => {
                let waited = started.elapsed();
                if waited >= timeout || (slots.pressed() && waited >= PRESSED_BODY_TIMEOUT) {
                    return Err(BodyError::Late(waited));
                }
            }
        }
    }
}

impl BodyError {
    /// The status and message of the answer.
    pub(crate) fn answer(&self) -> (StatusCode, String) {
        match self {
            BodyError::Late(after) => (
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {:.1} s; send it whole right after the headers",
                    after.as_secs_f64()
                ),
            ),
            BodyError::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request is too large: at most {} KiB is accepted",
                    BODY_LIMIT / 1024
                ),
            ),
            BodyError::Broken => (
                StatusCode::BAD_REQUEST,
                "the request body could not be read".to_string(),
            ),
        }
    }
}
