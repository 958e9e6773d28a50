//! `glossa serve`: one web page and a JSON API over the translation
//! pipeline and the glossaries folder.
//!
//! The page (`web/index.html`, `app.js`, `style.css`) is compiled into the
//! binary. The API is in [`api`], the glossary files behind it in
//! [`store`]. [`router`] builds the whole application, so tests and other
//! programs can serve it on any listener:
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use glossa::serve::{self, AppState, Options};
//! let state = AppState::new(Options::new("glossaries"));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! serve::serve(listener, state).await
//! # }
//! ```

pub(crate) mod api;
pub(crate) mod compiled;
pub mod conn;
pub(crate) mod explain;
pub(crate) mod hosts;
mod providers;
pub mod store;

pub use hosts::Hosts;
pub use providers::{offline, providers_from_env, ModelSettings, ProviderChoice};

use crate::glossary::Glossary;
use crate::retrieve::{self, BuildError, Params, Retriever, RECOMMENDED};
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Router;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use store::Store;

/// Largest request body accepted, in bytes.
pub const BODY_LIMIT: usize = 64 * 1024;

/// How long a connection may take to send a request's headers, and may
/// stay open idle between requests: idle connections are closed, so
/// thousands of them cannot use up the server's file descriptors.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// Default address: this machine only.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";

/// The `tracing` target of the access log (`serve --log`): one event per
/// request, which the binary prints as it stands.
pub const ACCESS_LOG: &str = "glossa::access";

const INDEX_HTML: &str = include_str!("../../web/index.html");
const APP_JS: &str = include_str!("../../web/app.js");
const STYLE_CSS: &str = include_str!("../../web/style.css");

/// What the server is set up with.
pub struct Options {
    /// The glossaries folder.
    pub glossaries: PathBuf,
    /// The retriever spec used for the page.
    pub retriever: String,
    pub params: Params,
    /// Providers offered, the first being the default; `offline` is always
    /// there.
    pub providers: Vec<ProviderChoice>,
    /// Log one line per request on stderr.
    pub log: bool,
    /// The `Host` names answered (see [`Hosts`]): a web page elsewhere
    /// cannot reach the server through a DNS name that points here (DNS
    /// rebinding).
    pub hosts: Hosts,
    /// See [`HEADER_TIMEOUT`].
    pub header_timeout: Duration,
    /// See [`conn::BODY_TIMEOUT`].
    pub body_timeout: Duration,
    /// See [`conn::CONNECTION_DEADLINE`].
    pub connection_deadline: Duration,
    /// Connections served at once (see [`conn::max_connections`]).
    pub max_connections: usize,
    /// When a glossary is read from its compiled file
    /// ([`compiled::Opened`]).
    pub compiled: crate::compiled::Use,
    /// Where compiled glossaries are kept (`DIR/compiled/…`).
    pub compiled_cache: PathBuf,
}

impl Options {
    /// The recommended retriever, only the offline provider, no log.
    pub fn new(glossaries: impl Into<PathBuf>) -> Options {
        Options {
            glossaries: glossaries.into(),
            retriever: RECOMMENDED.to_string(),
            params: Params::default(),
            providers: vec![offline()],
            log: false,
            hosts: Hosts::new(std::net::Ipv4Addr::LOCALHOST.into(), Vec::new()),
            header_timeout: HEADER_TIMEOUT,
            body_timeout: conn::BODY_TIMEOUT,
            connection_deadline: conn::CONNECTION_DEADLINE,
            max_connections: conn::max_connections(),
            compiled: crate::compiled::Use::Auto,
            compiled_cache: PathBuf::from(crate::generate::cache::DEFAULT_DIR),
        }
    }
}

/// Shared by every request.
pub struct AppState {
    pub(crate) store: Store,
    pub(crate) options: Options,
    pub(crate) retrievers: Retrievers,
    /// Connections served and waiting.
    pub(crate) slots: conn::Slots,
    /// Compiled glossaries kept open.
    pub(crate) compiled: compiled::Opened,
}

impl AppState {
    pub fn new(options: Options) -> Arc<AppState> {
        Arc::new(AppState {
            slots: conn::Slots::new(options.max_connections),
            store: Store::new(options.glossaries.clone()),
            compiled: compiled::Opened::new(options.compiled, options.compiled_cache.clone()),
            options,
            retrievers: Retrievers::default(),
        })
    }
}

/// Retrievers already built, by glossary name, version and spec: building
/// the indexes of a large glossary takes seconds, and every translation
/// of the same glossary version can share them.
#[derive(Default)]
pub(crate) struct Retrievers {
    built: Mutex<Vec<Built>>,
}

/// A built retriever by glossary name, glossary version and spec.
struct Built {
    name: String,
    version: String,
    spec: String,
    retriever: Arc<dyn Retriever>,
}

/// Built retrievers kept at most; the oldest goes first.
const RETRIEVERS_KEPT: usize = 8;

impl Retrievers {
    /// The retriever of `spec` over version `version` of glossary `name`.
    pub(crate) fn get(
        &self,
        name: &str,
        version: &str,
        glossary: &Arc<Glossary>,
        spec: &str,
        params: &Params,
    ) -> Result<Arc<dyn Retriever>, BuildError> {
        let same = |b: &&Built| b.name == name && b.version == version && b.spec == spec;
        if let Some(b) = self.lock().iter().find(same) {
            return Ok(Arc::clone(&b.retriever));
        }
        // Built without the lock: other requests go on meanwhile.
        let retriever: Arc<dyn Retriever> = Arc::from(retrieve::build(spec, glossary, params)?);
        let mut built = self.lock();
        // A saved glossary's older versions are never asked for again.
        built.retain(|b| b.name != name || b.version == version);
        if built.len() >= RETRIEVERS_KEPT {
            built.remove(0);
        }
        built.push(Built {
            name: name.to_string(),
            version: version.to_string(),
            spec: spec.to_string(),
            retriever: Arc::clone(&retriever),
        });
        Ok(retriever)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Built>> {
        // A panic elsewhere leaves the list whole: keep using it.
        self.built.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The whole application: the page, its assets and the API.
pub(crate) fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/config", get(api::config))
        .route("/glossaries", get(api::list_glossaries))
        .route(
            "/glossaries/{name}",
            get(api::get_glossary).put(api::put_glossary),
        )
        .route("/glossaries/{name}/entries", post(api::add_entry))
        .route(
            "/glossaries/{name}/entries/{id}",
            put(api::edit_entry).delete(api::delete_entry),
        )
        .route("/translate", post(api::translate))
        .route("/retrieve", post(api::retrieve));
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .nest("/api", api)
        .fallback(|| async {
            api::ApiError::new(StatusCode::NOT_FOUND, "no such page or API route")
        })
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), around))
        .with_state(state)
}

/// Serve the application on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>) -> std::io::Result<()> {
    serve_until(listener, state, std::future::pending()).await
}

/// Serve the application on `listener` until `shutdown` completes. Each
/// connection gets [`Options::header_timeout`] to send its headers and to
/// sit idle between requests (axum's own `serve` sets no timeout), and
/// lives at most [`Options::connection_deadline`]; at most
/// [`Options::max_connections`] are served at once (see [`conn`]).
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let timeout = state.options.header_timeout;
    let deadline = state.options.connection_deadline;
    let app = router(Arc::clone(&state));
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors, most likely: idle connections
                // time out and free some; try again shortly.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => return Ok(()),
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let Some(_slot) = state.slots.take().await else {
                return conn::refuse(stream).await;
            };
            // A connection that fails or times out concerns only its client.
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                () = tokio::time::sleep(deadline) => {}
            }
            // No new request; the one in flight may finish, within bounds.
            connection.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(deadline, connection).await;
        });
    }
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// Around every request: errors that are not JSON yet (a wrong method, a
/// body over the limit) become JSON errors, security headers are set, and
/// one line is logged.
async fn around(
    axum::extract::State(state): axum::extract::State<Arc<AppState>>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let refused = refuse_foreign(&state, &request);
    let mut response = match refused {
        Some(error) => error.into_response(),
        None => {
            match conn::buffered(request, state.options.body_timeout, &state.slots).await {
                Ok(request) => next.run(request).await,
                Err(e) => {
                    let (status, message) = e.answer();
                    let mut response = api::ApiError::new(status, message).into_response();
                    // The rest of the body may still come: not on this connection.
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                    response
                }
            }
        }
    };
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if (status.is_client_error() || status.is_server_error()) && !is_json {
        let message = match status {
            StatusCode::PAYLOAD_TOO_LARGE => format!(
                "the request is too large: at most {} KiB is accepted",
                BODY_LIMIT / 1024
            ),
            StatusCode::METHOD_NOT_ALLOWED => format!("{method} is not allowed on {path}"),
            _ => status.canonical_reason().unwrap_or("error").to_string(),
        };
        response = api::ApiError::new(status, message).into_response();
    }
    let headers = response.headers_mut();
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    if state.options.log {
        tracing::info!(
            target: ACCESS_LOG,
            "{method} {path} {} {:.1} ms",
            response.status().as_u16(),
            started.elapsed().as_secs_f64() * 1000.0
        );
    }
    response
}

/// Requests from elsewhere that a local server must not answer: a `Host`
/// it does not answer at ([`Hosts`]), and writes whose `Origin` is another
/// site than the one addressed.
fn refuse_foreign(state: &AppState, request: &Request) -> Option<api::ApiError> {
    let headers = request.headers();
    if headers.get_all(header::HOST).iter().count() > 1 {
        // Proxies and this server could each read a different one.
        return Some(api::ApiError::new(
            StatusCode::BAD_REQUEST,
            "the request has more than one Host header",
        ));
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default();
    if !state.options.hosts.allows(host) {
        return Some(api::ApiError::new(
            StatusCode::FORBIDDEN,
            state.options.hosts.refusal(host),
        ));
    }
    let writes = !matches!(request.method().as_str(), "GET" | "HEAD" | "OPTIONS");
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        // The page is served over plain HTTP: its origin is `http://HOST`;
        // `https://HOST` (or any other scheme) is another site.
        if writes && !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
            return Some(api::ApiError::new(
                StatusCode::FORBIDDEN,
                format!("a page at {origin} may not change this server's glossaries"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retrievers_are_built_once_per_glossary_version_and_spec() {
        let g = Arc::new(
            Glossary::parse(
                "g.json",
                "g",
                r#"{"entries":[{"source":"tea","target":"cha"}]}"#,
            )
            .unwrap(),
        );
        let cache = Retrievers::default();
        let p = Params::default();
        let first = cache.get("g", "v1", &g, "exact", &p).unwrap();
        let again = cache.get("g", "v1", &g, "exact", &p).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert!(!Arc::ptr_eq(
            &first,
            &cache.get("g", "v1", &g, "fuzzy", &p).unwrap()
        ));
        // A new version replaces the old ones of that glossary.
        let saved = cache.get("g", "v2", &g, "exact", &p).unwrap();
        assert!(!Arc::ptr_eq(&first, &saved));
        assert_eq!(cache.lock().len(), 1);
        assert!(cache.get("g", "v2", &g, "nope", &p).is_err());
    }
}
