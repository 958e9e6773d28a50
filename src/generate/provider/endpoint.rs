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
    /// The JSON request body for one prompt.
    fn body(&self, model: &str, prompt: &str) -> Vec<u8>;
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
        let body = self.api.body(&self.model, &req.prompt);
        let reply = self
            .http
            .post(&self.url, &self.model, body, A::JUDGE)
            .await?;
        judged(A::NAME, &self.url, (A::REPLY)(&reply))
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
}

/// The model named in the settings, if any (blank counts as none).
pub(super) fn named_model(settings: &Settings) -> Option<&str> {
    settings
        .model
        .as_deref()
        .map(str::trim)
        .filter(|model| !model.is_empty())
}
