//! The JSON API behind the page (documented in the README, "The web page").
//!
//! Every error is `{"error": "a sentence a person can act on"}` with a
//! fitting status: 400 bad input, 404 unknown glossary or entry, 409 the
//! glossary changed since it was loaded, 413 body too large, 428 a version
//! is needed, 502 the model failed.

use super::explain::{self, LeftOut, Segment};
use super::store::{Loaded, StoreError};
use super::{AppState, ProviderChoice};
use crate::generate::pipeline::{Pipeline, Trace};
use crate::glossary::{Entry, Glossary};
use crate::otel;
use crate::retrieve::{BuildError, MatchKind, Retriever, UnknownRetriever};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

/// An error answer: a status and a message.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub(crate) status: StatusCode,
    pub(crate) message: String,
    /// The glossary's current version, for 409.
    pub(crate) version: Option<String>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            version: None,
        }
    }

    fn bad(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.message });
        if let Some(v) = &self.version {
            body["version"] = json!(v);
        }
        (self.status, axum::Json(body)).into_response()
    }
}

impl From<UnknownRetriever> for ApiError {
    fn from(e: UnknownRetriever) -> ApiError {
        ApiError::bad(e.to_string())
    }
}

impl From<BuildError> for ApiError {
    /// A spec that names nothing is the request's fault; a retriever whose
    /// file or parameter (given when the server started) is wrong, the
    /// server's.
    fn from(e: BuildError) -> ApiError {
        match e {
            BuildError::Unknown(e) => e.into(),
            e => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<crate::compiled::CompiledError> for ApiError {
    /// A glossary that does not read is the request's to fix, as when it
    /// is parsed whole; a compiled file that cannot be written, the
    /// server's.
    fn from(e: crate::compiled::CompiledError) -> ApiError {
        match e {
            crate::compiled::CompiledError::Input(e) => StoreError::Invalid(e.to_string()).into(),
            e => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        let status = match &e {
            StoreError::BadName(_) | StoreError::Invalid(_) => StatusCode::BAD_REQUEST,
            StoreError::NotFound(_) => StatusCode::NOT_FOUND,
            StoreError::Stale { .. } => StatusCode::CONFLICT,
            StoreError::NeedVersion => StatusCode::PRECONDITION_REQUIRED,
            StoreError::Outside(_) => StatusCode::FORBIDDEN,
            StoreError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let version = match &e {
            StoreError::Stale { current } if !current.is_empty() => Some(current.clone()),
            _ => None,
        };
        ApiError {
            status,
            message: e.to_string(),
            version,
        }
    }
}

/// A JSON request body, within the size limit, with errors as [`ApiError`].
pub(crate) struct JsonBody<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        // Only JSON: a page elsewhere cannot send it without asking first
        // (CORS), so a form or a plain-text fetch cannot change glossaries.
        let json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.trim()
                    .to_ascii_lowercase()
                    .starts_with("application/json")
            });
        if !json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "send the body as JSON, with the header Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e: BytesRejection| {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        format!(
                            "the request is too large: at most {} KiB is accepted",
                            super::BODY_LIMIT / 1024
                        ),
                    )
                } else {
                    ApiError::new(
                        e.status(),
                        format!("cannot read the request: {}", e.body_text()),
                    )
                }
            })?;
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::bad(format!("the request body is not what was expected: {e}")))
    }
}

/// A JSON object body that may name the version the client loaded (an
/// `If-Match` header, else its `version` field, which is taken out of it).
pub(crate) struct Versioned {
    pub(crate) version: Option<String>,
    pub(crate) body: Value,
}

impl<S: Send + Sync> FromRequest<S> for Versioned {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let headers = req.headers().clone();
        let JsonBody(mut body) = JsonBody::<Value>::from_request(req, state).await?;
        let version = expected_version(&headers, take_version(&mut body)?);
        Ok(Versioned { version, body })
    }
}

/// Run blocking file work off the async threads.
async fn blocking<T: Send + 'static, E: Into<ApiError> + Send + 'static>(
    f: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("internal error: {e}"),
            )
        })?
        .map_err(Into::into)
}

// ---------------------------------------------------------------------------
// Configuration and glossaries

/// `GET /api/config`: providers on offer (names and labels, never keys),
/// the retriever, the glossaries folder.
pub(crate) async fn config(State(state): State<Arc<AppState>>) -> Response {
    let providers: Vec<Value> = state
        .options
        .providers
        .iter()
        .map(|p| json!({ "name": p.name, "label": p.label }))
        .collect();
    axum::Json(json!({
        "providers": providers,
        "retriever": state.options.retriever,
        "glossaries_dir": state.store.dir().display().to_string(),
        "body_limit": super::BODY_LIMIT,
    }))
    .into_response()
}

/// `GET /api/glossaries`
pub(crate) async fn list_glossaries(
    State(state): State<Arc<AppState>>,
) -> Result<Response, ApiError> {
    let st = Arc::clone(&state);
    let list = blocking(move || st.store.list()).await?;
    Ok(
        axum::Json(json!({ "dir": state.store.dir().display().to_string(), "glossaries": list }))
            .into_response(),
    )
}

fn language_name(code: &str) -> Option<&'static str> {
    crate::language::code_of(code).and_then(|l| l.name)
}

/// A glossary as the API returns it, with its version also as the ETag.
fn glossary_response(status: StatusCode, loaded: &Loaded) -> Response {
    let g = &loaded.glossary;
    let body = json!({
        "name": loaded.name,
        "version": loaded.version,
        "title": g.name,
        "source_lang": g.source_lang,
        "target_lang": g.target_lang,
        // The languages' English names for the page (none for private use
        // or an unknown code; docs/formats.md, "Languages").
        "source_language": language_name(&g.source_lang),
        "target_language": language_name(&g.target_lang),
        "entries": g.entries,
    });
    let mut body = body;
    if !g.forbidden.is_empty() {
        body["forbidden"] = json!(g.forbidden);
    }
    let mut response = (status, axum::Json(body)).into_response();
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", loaded.version)) {
        response.headers_mut().insert(header::ETAG, etag);
    }
    response
}

/// `GET /api/glossaries/{name}`
pub(crate) async fn get_glossary(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let loaded = blocking(move || state.store.load(&name)).await?;
    Ok(glossary_response(StatusCode::OK, &loaded))
}

/// The version the client loaded: the `If-Match` header, else a `version`
/// field of the body or query.
fn expected_version(headers: &HeaderMap, field: Option<String>) -> Option<String> {
    headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.trim()
                .trim_start_matches("W/")
                .trim_matches('"')
                .to_string()
        })
        .filter(|v| !v.is_empty() && v != "*")
        .or(field.filter(|v| !v.is_empty()))
}

/// Take a `version` string field out of a JSON object.
fn take_version(body: &mut Value) -> Result<Option<String>, ApiError> {
    let Some(obj) = body.as_object_mut() else {
        return Err(ApiError::bad("the request body must be a JSON object"));
    };
    match obj.remove("version") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(v)) => Ok(Some(v)),
        Some(_) => Err(ApiError::bad(
            "`version` must be a string (the ETag you loaded)",
        )),
    }
}

/// A glossary as `GET` answers it, made the document of its file: the
/// answer's `name` is the file's name (the URL's), its `title` the file's
/// `name`; so what `GET` gave, `PUT` takes back (the languages' names it
/// added are dropped: the file holds codes).
fn as_file(body: &mut Value) {
    if let Some(obj) = body.as_object_mut() {
        obj.remove("source_language");
        obj.remove("target_language");
        if let Some(title) = obj.remove("title") {
            obj.insert("name".to_string(), title);
        }
    }
}

/// `PUT /api/glossaries/{name}`: the whole glossary document, as in a file
/// or as `GET` returned it.
/// Creates the glossary when it does not exist; replacing one needs the
/// version loaded.
pub(crate) async fn put_glossary(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Versioned { version, mut body }: Versioned,
) -> Result<Response, ApiError> {
    as_file(&mut body);
    let document = serde_json::to_string(&body).map_err(|e| ApiError::bad(e.to_string()))?;
    let (loaded, created) = blocking(move || {
        let existed = state.store.path(&name)?.exists();
        let loaded = state.store.put(&name, version.as_deref(), &document)?;
        Ok::<_, StoreError>((loaded, !existed))
    })
    .await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(glossary_response(status, &loaded))
}

/// An entry as sent by the page, with the CLI's field rules (unknown
/// fields are errors).
fn entry_from(body: Value) -> Result<Entry, ApiError> {
    let mut entry: Entry =
        serde_json::from_value(body).map_err(|e| ApiError::bad(format!("entry: {e}")))?;
    entry.source = entry.source.trim().to_string();
    // An entry sent without an id is saved under its source, as the CLI
    // names it, never as `"id": ""`.
    entry.id = match entry.id.trim() {
        "" => entry.source.clone(),
        id => id.to_string(),
    };
    // A blank target stays as sent, for the glossary's own message about
    // it; "keep as written" with none: the target is the source.
    let target = entry.target.trim();
    if !target.is_empty() {
        entry.target = target.to_string();
    } else if entry.keep {
        entry.target = entry.source.clone();
    }
    entry.sense = entry
        .sense
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    entry.aliases = entry
        .aliases
        .into_iter()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    entry.forms = entry
        .forms
        .into_iter()
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    entry.forbidden = entry
        .forbidden
        .into_iter()
        .map(|f| f.trim().to_string())
        .filter(|f| !f.is_empty())
        .collect();
    Ok(entry)
}

/// `POST /api/glossaries/{name}/entries`: add one entry (appended).
pub(crate) async fn add_entry(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
    Versioned { version, body }: Versioned,
) -> Result<Response, ApiError> {
    let entry = entry_from(body)?;
    let loaded = blocking(move || {
        state.store.edit(&name, version.as_deref(), |entries| {
            let id = &entry.id;
            if entries.iter().any(|e| &e.id == id) {
                return Err(StoreError::Invalid(format!(
                    "there is already an entry `{id}`; edit it, or give the new one another id"
                )));
            }
            refuse_duplicate_key(entries, &entry, None)?;
            entries.push(entry);
            Ok(())
        })
    })
    .await?;
    Ok(glossary_response(StatusCode::CREATED, &loaded))
}

/// `PUT /api/glossaries/{name}/entries/{id}`: replace entry `id` (it may
/// get a new id).
pub(crate) async fn edit_entry(
    State(state): State<Arc<AppState>>,
    Path((name, id)): Path<(String, String)>,
    Versioned { version, body }: Versioned,
) -> Result<Response, ApiError> {
    let entry = entry_from(body)?;
    let loaded = blocking(move || {
        state.store.edit(&name, version.as_deref(), |entries| {
            let i = find(entries, &id, &name)?;
            refuse_duplicate_key(entries, &entry, Some(i))?;
            entries[i] = entry;
            Ok(())
        })
    })
    .await?;
    Ok(glossary_response(StatusCode::OK, &loaded))
}

#[derive(Deserialize)]
pub(crate) struct VersionQuery {
    version: Option<String>,
}

/// `DELETE /api/glossaries/{name}/entries/{id}` (version in `If-Match` or
/// `?version=`).
pub(crate) async fn delete_entry(
    State(state): State<Arc<AppState>>,
    Path((name, id)): Path<(String, String)>,
    Query(query): Query<VersionQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let version = expected_version(&headers, query.version);
    let loaded = blocking(move || {
        state.store.edit(&name, version.as_deref(), |entries| {
            let i = find(entries, &id, &name)?;
            entries.remove(i);
            Ok(())
        })
    })
    .await?;
    Ok(glossary_response(StatusCode::OK, &loaded))
}

/// The page's editor refuses a second entry for a source or alias another
/// entry already has ("Coffee" beside "coffee": a post naming it retrieves
/// both), unless the new entry says which meaning it is (a `sense` or a
/// `context`) or either is case-sensitive and they differ as written.
/// `glossa lint` reports such a pair in files written by hand.
fn refuse_duplicate_key(
    entries: &[Entry],
    entry: &Entry,
    replacing: Option<usize>,
) -> Result<(), StoreError> {
    use crate::phrase::{key, nfc};
    if entry.sense.is_some() || entry.context.is_some() {
        return Ok(());
    }
    let written: Vec<&str> = std::iter::once(entry.source.as_str())
        .chain(entry.aliases.iter().map(String::as_str))
        .collect();
    for (i, other) in entries.iter().enumerate() {
        if Some(i) == replacing {
            continue;
        }
        let theirs: Vec<&str> = std::iter::once(other.source.as_str())
            .chain(other.aliases.iter().map(String::as_str))
            .collect();
        for mine in &written {
            let k = key(&nfc(mine));
            let clash = theirs.iter().find(|t| {
                key(&nfc(t)) == k
                    && !k.is_empty()
                    && !((entry.case_sensitive || other.case_sensitive) && t != &mine)
            });
            if let Some(t) = clash {
                return Err(StoreError::Invalid(format!(
                    "`{mine}` is already written as `{t}` in entry `{}`: a post naming it would \
                     retrieve both. Edit that entry instead, or give this one a sense or a context \
                     if both meanings are real",
                    other.id
                )));
            }
        }
    }
    Ok(())
}

fn find(entries: &[Entry], id: &str, glossary: &str) -> Result<usize, StoreError> {
    entries.iter().position(|e| e.id == id).ok_or_else(|| {
        StoreError::NotFound(format!(
            "glossary `{glossary}` has no entry `{id}` (was it renamed or deleted in another tab?)"
        ))
    })
}

// ---------------------------------------------------------------------------
// Translation and retrieval

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TranslateRequest {
    /// The post.
    pub(crate) text: String,
    /// A glossary name in the glossaries folder.
    pub(crate) glossary: String,
    /// A provider on offer (`GET /api/config`); default the first, offline.
    #[serde(default)]
    pub(crate) provider: Option<String>,
    /// A retriever spec; default the server's.
    #[serde(default)]
    pub(crate) retriever: Option<String>,
}

/// A glossary entry the translation used.
#[derive(Debug, Serialize)]
pub(crate) struct UsedOut {
    pub(crate) id: String,
    pub(crate) source: String,
    pub(crate) target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sense: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) aliases: Vec<String>,
    /// Accepted forms of the target.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) forms: Vec<String>,
    /// Terms the translation must not hold.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) forbidden: Vec<String>,
    /// How it matched: exact, stem, fuzzy, edit, split, alias, or a
    /// kind a retriever adds (`lemma`).
    pub(crate) kind: MatchKind,
    /// A close spelling, not the entry's words ([`MatchKind::approximate_at`]):
    /// the page underlines it dashed. The one place the page learns it.
    pub(crate) approximate: bool,
    /// What the kind means, in a few words (the page's "how it matched").
    pub(crate) how: &'static str,
    /// The words of the post that matched, as written.
    pub(crate) phrase: String,
    pub(crate) score: f64,
    /// Whether its target is in the translation (absent for retrieval only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) in_output: Option<bool>,
    /// Not in the translation, but matched only inside this longer entry,
    /// whose target is: the longer term chose the words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) inside: Option<String>,
}

/// A warning in plain words.
#[derive(Debug, Serialize)]
pub(crate) struct Warning {
    /// `left_out`, `no_entry`, `not_in_output`, `check_match` (matched by
    /// stem or spelling, not as written), `unconfirmed` (an ambiguous
    /// entry whose sense nothing in the post confirms), `echo` (the reply
    /// copied the prompt), `repaired`, `forbidden` (a forbidden term in the
    /// translation; `word` is the term, `entry` absent for a glossary-wide
    /// one), `invariant` (a number, handle, placeholder... of the post
    /// missing or changed in the translation).
    pub(crate) kind: &'static str,
    pub(crate) message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) word: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) entry: Option<String>,
}

/// What translate and retrieve share: the trace of one post and what the
/// page needs to explain it.
struct Analysis {
    source: Source,
    trace: Trace,
    used: Vec<UsedOut>,
    left_out: Vec<LeftOut>,
    warnings: Vec<Warning>,
    retriever: String,
}

async fn analyse(
    state: Arc<AppState>,
    req: TranslateRequest,
    translate: bool,
) -> Result<Analysis, ApiError> {
    if req.text.trim().is_empty() {
        return Err(ApiError::bad(
            "the post is empty: paste the text to translate",
        ));
    }
    let client = if translate {
        Arc::clone(&chosen_provider(&state, req.provider.as_deref())?.client)
    } else {
        // Retrieval only: the offline provider costs nothing.
        Arc::clone(&super::offline().client)
    };
    let spec = req
        .retriever
        .clone()
        .unwrap_or_else(|| state.options.retriever.clone());
    let (st, name, text, s) = (
        Arc::clone(&state),
        req.glossary.clone(),
        req.text.clone(),
        spec.clone(),
    );
    let part = blocking(move || compiled_part(&st, &name, &text, &s)).await?;
    let (source, glossary, retriever, unfiltered) = match part {
        Some(part) => part,
        None => {
            let name = req.glossary.clone();
            let st = Arc::clone(&state);
            let loaded = blocking(move || st.store.load(&name)).await?;
            let glossary = Arc::new(loaded.glossary.clone());
            let (retriever, unfiltered) =
                built_retrievers(&state, &loaded, &glossary, &spec).await?;
            let source = Source {
                name: loaded.name,
                version: loaded.version,
            };
            (source, glossary, retriever, unfiltered)
        }
    };
    let pipeline = Pipeline::new(Arc::clone(&glossary), &spec, retriever, client, false)
        .map_err(|e| ApiError::bad(e.to_string()))?;
    let trace = pipeline.run(&req.text, None, 1).await;
    // One trace per request.
    let request = otel::invocation("glossa serve", Vec::new(), None);
    pipeline.record_spans(&request, &trace, "1", None, std::time::SystemTime::now());
    otel::end_invocation(&request, trace.generate.output.error.as_deref());
    if let Some(err) = &trace.retrieve_error {
        return Err(ApiError::new(StatusCode::BAD_GATEWAY, err.clone()));
    }
    let joined = trace.simplify.output.join("\n");
    let left_out = match &unfiltered {
        Some(unfiltered) => explain::left_out(
            &glossary,
            unfiltered.as_ref(),
            &joined,
            &trace.retrieve.output,
        ),
        None => Vec::new(),
    };
    let used = used_entries(&trace, &glossary, translate);
    let warnings = warnings(&trace, &used, &left_out, &joined, translate);
    Ok(Analysis {
        source,
        trace,
        used,
        left_out,
        warnings,
        retriever: spec,
    })
}

/// The glossary a translation read: its name and version (the ETag).
struct Source {
    name: String,
    version: String,
}

/// What a request retrieves from: the glossary (whole, or the entries
/// the post could match), the retriever of its spec and the same without
/// filters.
type Retrieving = (
    Source,
    Arc<Glossary>,
    Arc<dyn Retriever>,
    Option<Arc<dyn Retriever>>,
);

/// For a glossary read from its compiled file ([`super::compiled`]): the
/// entries the post (and its sentences, which retrieval sees) could match,
/// with retrievers built on them; `None` when the glossary is parsed
/// whole (small, `--compiled never`, missing, or a spec that reads every
/// entry).
fn compiled_part(
    state: &AppState,
    name: &str,
    text: &str,
    spec: &str,
) -> Result<Option<Retrieving>, ApiError> {
    let path = state.store.path(name)?;
    if !path.is_file() {
        return Ok(None);
    }
    let params = &state.options.params;
    let unfiltered = explain::unfiltered_spec(spec);
    let specs: Vec<&str> = std::iter::once(spec).chain(unfiltered.as_deref()).collect();
    if specs
        .iter()
        .any(|s| crate::compiled::supports(s, params).is_err())
    {
        return Ok(None);
    }
    let Some(compiled) = state.compiled.get(&path)? else {
        return Ok(None);
    };
    let texts = std::iter::once(text.to_string()).chain(crate::generate::simplify::sentences(text));
    let loaded = compiled.load(&specs, params, texts, [], false)?;
    let glossary = Arc::new(loaded.glossary);
    let build = |spec: &str| -> Result<Arc<dyn Retriever>, BuildError> {
        Ok(Arc::from(crate::retrieve::build(spec, &glossary, params)?))
    };
    let retriever = build(spec)?;
    let unfiltered = unfiltered.as_deref().map(build).transpose()?;
    let source = Source {
        name: name.to_string(),
        version: compiled
            .header
            .sha256
            .get(..16)
            .unwrap_or_default()
            .to_string(),
    };
    Ok(Some((source, glossary, retriever, unfiltered)))
}

/// The provider asked for, or the first one offered.
fn chosen_provider<'s>(
    state: &'s AppState,
    name: Option<&str>,
) -> Result<&'s ProviderChoice, ApiError> {
    let offered = &state.options.providers;
    let Some(name) = name else {
        return Ok(&offered[0]);
    };
    offered.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = offered.iter().map(|p| p.name.as_str()).collect();
        ApiError::bad(format!(
            "provider `{name}` is not available on this server (available: {}); \
             a provider is offered when its key is set in the server's environment",
            names.join(", ")
        ))
    })
}

/// The retriever of `spec` and, when it filters, the same without its
/// filters (to explain what they left out). Indexes are built off the
/// async threads, once per glossary version.
async fn built_retrievers(
    state: &Arc<AppState>,
    loaded: &Loaded,
    glossary: &Arc<Glossary>,
    spec: &str,
) -> Result<(Arc<dyn Retriever>, Option<Arc<dyn Retriever>>), ApiError> {
    let unfiltered = explain::unfiltered_spec(spec);
    let (st, glossary, spec) = (Arc::clone(state), Arc::clone(glossary), spec.to_string());
    let (name, version) = (loaded.name.clone(), loaded.version.clone());
    blocking(move || {
        let get = |spec: &str| {
            let params = &st.options.params;
            st.retrievers.get(&name, &version, &glossary, spec, params)
        };
        Ok::<_, BuildError>((get(&spec)?, unfiltered.as_deref().map(get).transpose()?))
    })
    .await
}

/// The entries used, with whether their target is in the translation.
fn used_entries(trace: &Trace, glossary: &Glossary, translate: bool) -> Vec<UsedOut> {
    let translated = translate && trace.generate.output.text.is_some();
    trace
        .retrieve
        .output
        .iter()
        .zip(&trace.review.targets)
        .map(|(u, t)| UsedOut {
            id: u.entry.clone(),
            source: u.source.clone(),
            target: u.target.clone(),
            sense: u.sense.clone(),
            aliases: glossary
                .index_of(&u.entry)
                .map(|i| glossary.entries[i].aliases.clone())
                .unwrap_or_default(),
            forms: u.forms.clone(),
            forbidden: u.forbidden.clone(),
            kind: u.kind,
            approximate: u.kind.approximate_at(u.score),
            how: u.kind.info().summary,
            phrase: u.phrase.clone(),
            score: u.score,
            in_output: translated.then_some(t.in_output),
            inside: translated
                .then(|| trace.review.inside_used(t).map(str::to_string))
                .flatten(),
        })
        .collect()
}

fn warnings(
    trace: &Trace,
    used: &[UsedOut],
    left_out: &[LeftOut],
    joined: &str,
    translate: bool,
) -> Vec<Warning> {
    let mut out = if translate {
        reply_warnings(trace)
    } else {
        Vec::new()
    };
    for l in left_out {
        out.push(Warning {
            kind: "left_out",
            message: l.message.clone(),
            word: Some(l.phrase.to_lowercase()),
            entry: Some(l.id.clone()),
        });
    }
    // Words inside a left-out phrase are explained above, not "no entry".
    let words = crate::phrase::words(joined);
    let explained: Vec<&str> = left_out
        .iter()
        .flat_map(|l| l.words.iter().copied())
        .flat_map(|(first, len)| words[first..first + len].iter().map(|w| w.text.as_str()))
        .collect();
    for w in &trace.review.uncovered {
        if !explained.contains(&w.as_str()) {
            out.push(Warning {
                kind: "no_entry",
                message: format!("'{w}' matched no entry"),
                word: Some(w.clone()),
                entry: None,
            });
        }
    }
    for u in &trace.review.unconfirmed {
        out.push(Warning {
            kind: "unconfirmed",
            message: crate::report::translate::unconfirmed_message(u),
            word: Some(u.phrase.to_lowercase()),
            entry: Some(u.entry.clone()),
        });
    }
    for u in used {
        // The CLI's "second look" list: anything but as written.
        if trace.review.not_exact.contains(&u.id) {
            out.push(Warning {
                kind: "check_match",
                message: format!(
                    "'{}' was read as '{}' ({} match): check that is what the post means",
                    u.phrase.to_lowercase(),
                    u.source,
                    u.kind
                ),
                word: Some(u.phrase.to_lowercase()),
                entry: Some(u.id.clone()),
            });
        }
        if translate && u.in_output == Some(false) && u.inside.is_none() {
            out.push(Warning {
                kind: "not_in_output",
                message: format!(
                    "'{}' (for '{}') is not in the translation",
                    u.target, u.source
                ),
                word: None,
                entry: Some(u.id.clone()),
            });
        }
    }
    out
}

/// What the check said of the model's reply: an echo, and what the
/// repair turn (`--repair 1` on the page) asked to fix.
fn reply_warnings(trace: &Trace) -> Vec<Warning> {
    let mut out = Vec::new();
    for f in &trace.review.forbidden {
        out.push(Warning {
            kind: "forbidden",
            message: crate::report::translate::forbidden_message(f),
            word: Some(f.term.clone()),
            entry: f.entry.clone(),
        });
    }
    if let Some(echo) = &trace.review.echo {
        out.push(Warning {
            kind: "echo",
            message: format!(
                "echo: the reply copies the prompt/glossary, not a translation (it copied {}: \"{}\")",
                echo.what(),
                echo.copied()
            ),
            word: None,
            entry: None,
        });
    }
    for issue in &trace.invariants {
        out.push(Warning {
            kind: "invariant",
            message: format!("invariant not kept: {}", issue.describe()),
            word: None,
            entry: None,
        });
    }
    if let (Some(first), Some(last)) = (trace.turns.first(), trace.turns.last()) {
        let outcome = match (&last.error, last.problems.is_empty()) {
            (Some(err), _) => format!("the repair call failed ({err}); this is the first reply"),
            (None, true) => "a second turn fixed them".to_string(),
            (None, false) => format!("after a second turn, still: {}", last.problems.join("; ")),
        };
        out.push(Warning {
            kind: "repaired",
            message: format!(
                "The first reply had problems ({}); {outcome}",
                first.problems.join("; ")
            ),
            word: None,
            entry: None,
        });
    }
    out
}

/// `POST /api/translate`
pub(crate) async fn translate(
    State(state): State<Arc<AppState>>,
    JsonBody(req): JsonBody<TranslateRequest>,
) -> Result<Response, ApiError> {
    let started = Instant::now();
    let a = analyse(state, req, true).await?;
    let g = &a.trace.generate.output;
    if let Some(err) = &g.error {
        return Err(ApiError::new(
            StatusCode::BAD_GATEWAY,
            format!("the model did not answer: {err}"),
        ));
    }
    let translation = g.text.clone().unwrap_or_default();
    let segments: Vec<Segment> = explain::highlight(&translation, &a.trace.retrieve.output);
    Ok(axum::Json(json!({
        "translation": translation,
        "check": crate::report::translate::check_summary(&a.trace),
        "segments": segments,
        "entries": a.used,
        "left_out": a.left_out,
        "warnings": a.warnings,
        "glossary": a.source.name,
        "version": a.source.version,
        "retriever": a.retriever,
        "provider": g.provider,
        "model": g.model,
        "cached": g.cached,
        "ms": started.elapsed().as_secs_f64() * 1000.0,
        "trace": a.trace,
    }))
    .into_response())
}

/// `POST /api/retrieve`: the glossary entries for a post, no model.
pub(crate) async fn retrieve(
    State(state): State<Arc<AppState>>,
    JsonBody(req): JsonBody<TranslateRequest>,
) -> Result<Response, ApiError> {
    if req.provider.is_some() {
        return Err(ApiError::bad(
            "retrieve calls no model: leave out `provider`",
        ));
    }
    let a = analyse(state, req, false).await?;
    Ok(axum::Json(json!({
        "entries": a.used,
        "left_out": a.left_out,
        "uncovered": a.trace.review.uncovered,
        "warnings": a.warnings,
        "phrases": a.trace.phrases.output,
        "glossary": a.source.name,
        "version": a.source.version,
        "retriever": a.retriever,
    }))
    .into_response())
}
