//! What every HTTP provider shares: one endpoint, one model, one client.
//! A provider file supplies only its [`Api`]: the request body and how to
//! read a reply.

use super::{judged, CallFuture, Http, Provider, ProviderError, Request, Settings, Verdict};
use crate::generate::reply::Completion;
use serde_json::Value;

/// The dialect of one HTTP API.
pub(super) trait Api: Send + Sync + 'static {
    /// The registered provider name.
    const NAME: &'static str;
    /// The JSON request body for one request.
    fn body(&self, model: &str, req: &Request) -> Vec<u8>;
    /// The default cap sent with `req` (no `--max-tokens` given), if any.
    fn default_cap(&self, _req: &Request) -> Option<u32> {
        None
    }
    /// Provider-specific failures recognised in an error reply.
    const JUDGE: Judge;
    /// The reply's text and metadata, or why it holds none.
    const REPLY: ReadReply;
}

/// Reads an error reply: status, JSON, text.
pub(super) type Judge = fn(u16, &Value, &str) -> Verdict;
/// Reads a successful reply.
pub(super) type ReadReply = fn(&Value) -> Result<Completion, String>;

/// An HTTP provider: an [`Api`] spoken to one URL for one model.
pub(super) struct Endpoint<A> {
    pub(super) api: A,
    pub(super) http: Http,
    pub(super) url: String,
    pub(super) model: String,
    /// Computed once: see [`Provider::identity`].
    pub(super) identity: String,
}

impl<A: Api> Endpoint<A> {
    async fn complete(&self, req: &Request) -> Result<Completion, ProviderError> {
        let body = self.api.body(&self.model, req);
        let reply = self
            .http
            .post(&self.url, &self.model, body, A::JUDGE)
            .await?;
        let judged = judged(A::NAME, &self.url, (A::REPLY)(&reply));
        match (judged, self.api.default_cap(req)) {
            (Err(err), Some(cap)) => Err(cut_by_default(err, cap)),
            (judged, _) => judged,
        }
    }
}

/// A reply cut off by the default cap says how to raise or lift it.
fn cut_by_default(err: ProviderError, cap: u32) -> ProviderError {
    match err {
        ProviderError::Stopped {
            provider,
            url,
            refusal,
            reply,
        } if reply.meta.finish_reason.as_deref() == Some("length") => ProviderError::Stopped {
            provider,
            url,
            refusal: format!(
                "{refusal}; the default cap for this post is {cap} tokens: \
                 raise it with --max-tokens N, or lift it with --max-tokens none"
            ),
            reply,
        },
        other => other,
    }
}

impl<A: Api> Provider for Endpoint<A> {
    fn name(&self) -> &str {
        A::NAME
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn call<'a>(&'a self, req: &'a Request) -> CallFuture<'a> {
        Box::pin(self.complete(req))
    }

    fn secrets(&self) -> Vec<crate::generate::secrets::Secret> {
        let var = self.http.key_var.clone();
        self.http
            .key
            .iter()
            .map(|value| crate::generate::secrets::Secret {
                var: var.clone(),
                value: value.clone(),
            })
            .collect()
    }
}

/// The model named in the settings, if any (blank counts as none).
pub(super) fn named_model(settings: &Settings) -> Option<&str> {
    settings
        .model
        .as_deref()
        .map(str::trim)
        .filter(|model| !model.is_empty())
}
