//! The model providers the page offers: every row of the provider table
//! ([`provider::PROVIDERS`]) whose key is set.

use crate::generate::cache::Cache;
use crate::generate::provider::{self, ProviderKind, Settings};
use crate::generate::retry::{Client, RetryPolicy};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A provider the page may pick.
pub struct ProviderChoice {
    /// The registered name: `offline`, `openai`, `gemini`.
    pub name: String,
    /// What the picker shows.
    pub label: String,
    pub client: Arc<Client>,
}

/// The offline provider: glossary substitution, no model, no key.
pub fn offline() -> ProviderChoice {
    let p = provider::build("offline", &Settings::default()).expect("offline always builds");
    ProviderChoice {
        name: "offline".into(),
        label: label(
            provider::kind("offline").expect("offline is registered"),
            None,
            None,
        ),
        client: Arc::new(Client::new(vec![p], RetryPolicy::default(), None)),
    }
}

/// How to reach the model providers, when their keys are set. Each map is
/// keyed by provider name (see [`provider::PROVIDERS`]).
#[derive(Debug, Clone, Default)]
pub struct ModelSettings {
    /// The model asked of a provider; its table default otherwise.
    pub models: BTreeMap<String, String>,
    /// A provider's base URL (e.g. a local Ollama for `openai`).
    pub base_urls: BTreeMap<String, String>,
    /// The variable a provider's key is read from; its table default otherwise.
    pub api_key_envs: BTreeMap<String, String>,
    pub cache_dir: Option<PathBuf>,
    pub timeout: Option<std::time::Duration>,
    pub temperature: Option<f32>,
    pub seed: Option<u64>,
    /// `max_tokens` and the cap from the post's length (see
    /// [`Settings::max_tokens_auto`]).
    pub max_tokens: (Option<u32>, Option<provider::LengthCap>),
}

/// The providers to offer, in the order of [`provider::PROVIDERS`] but
/// those needing no key first (the page's default): those always; the
/// others when their key variable is set,
/// or when a base URL was given for them (a server on this machine needs
/// no key). Keys stay in this process: the page only sees names and
/// labels. Problems are returned as warnings.
pub fn providers_from_env(m: &ModelSettings) -> (Vec<ProviderChoice>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut kinds: Vec<_> = provider::PROVIDERS.iter().collect();
    kinds.sort_by_key(|kind| kind.key_var.is_some());
    for kind in kinds {
        let given = |map: &BTreeMap<String, String>| map.get(kind.name).cloned();
        let key_var = given(&m.api_key_envs).or(kind.key_var.map(str::to_string));
        let base_url = given(&m.base_urls);
        let has_key = key_var
            .as_deref()
            .is_some_and(|var| std::env::var(var).is_ok_and(|v| !v.trim().is_empty()));
        if kind.key_var.is_some() && !has_key && base_url.is_none() {
            continue;
        }
        let model = given(&m.models).or(kind.default_model.map(str::to_string));
        let settings = Settings {
            model: model.clone(),
            base_url: base_url.clone(),
            api_key_env: given(&m.api_key_envs),
            timeout: m.timeout,
            temperature: m.temperature,
            seed: m.seed,
            max_tokens: m.max_tokens.0,
            max_tokens_auto: m.max_tokens.1,
            ..Settings::default()
        };
        match provider::build(kind.name, &settings) {
            Ok(p) => out.push(ProviderChoice {
                name: kind.name.to_string(),
                label: label(kind, model.as_deref(), base_url.as_deref()),
                client: Arc::new(Client::new(vec![p], serve_retries(kind), cache(m, kind))),
            }),
            Err(e) => warnings.push(format!("{} is not offered: {e}", kind.name)),
        }
    }
    (out, warnings)
}

/// What the picker shows: `OpenAI gpt-4o-mini`, `llama3 at URL`, or the
/// bare label of a provider without a model.
fn label(kind: &ProviderKind, model: Option<&str>, base_url: Option<&str>) -> String {
    match (model, base_url) {
        (Some(model), Some(url)) => format!("{model} at {url}"),
        (Some(model), None) => format!("{} {model}", kind.label),
        (None, _) => kind.label.to_string(),
    }
}

/// A person is waiting: fewer attempts than a batch run makes. A provider
/// without a model never fails, so it gets the defaults.
fn serve_retries(kind: &ProviderKind) -> RetryPolicy {
    match kind.key_var {
        Some(_) => RetryPolicy {
            max_attempts: 3,
            ..RetryPolicy::default()
        },
        None => RetryPolicy::default(),
    }
}

/// Model replies are cached; a provider without a model has nothing to cache.
fn cache(m: &ModelSettings, kind: &ProviderKind) -> Option<Cache> {
    kind.key_var?;
    m.cache_dir.as_ref().map(Cache::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every keyed provider reads its key from `var`.
    fn keys_in(var: &str) -> ModelSettings {
        let keyed = provider::PROVIDERS.iter().filter(|k| k.key_var.is_some());
        ModelSettings {
            api_key_envs: keyed
                .map(|k| (k.name.to_string(), var.to_string()))
                .collect(),
            ..ModelSettings::default()
        }
    }

    #[test]
    fn every_provider_of_the_table_is_offered_when_its_key_is_set() {
        std::env::set_var("GLOSSA_TEST_SERVE_KEY", "sk-test");
        let (offered, warnings) = providers_from_env(&keys_in("GLOSSA_TEST_SERVE_KEY"));
        assert!(warnings.is_empty(), "{warnings:?}");
        let mut expected: Vec<_> = provider::PROVIDERS.iter().collect();
        expected.sort_by_key(|kind| kind.key_var.is_some());
        let names: Vec<&str> = offered.iter().map(|p| p.name.as_str()).collect();
        let table: Vec<&str> = expected.iter().map(|kind| kind.name).collect();
        assert_eq!(names, table);
        for (choice, kind) in offered.iter().zip(expected) {
            let label = match kind.default_model {
                Some(model) => format!("{} {model}", kind.label),
                None => kind.label.to_string(),
            };
            assert_eq!(choice.label, label);
        }
    }

    #[test]
    fn a_provider_without_its_key_is_not_offered_unless_given_a_base_url() {
        let mut m = keys_in("GLOSSA_TEST_SERVE_KEY_UNSET");
        let (offered, _) = providers_from_env(&m);
        let names: Vec<&str> = offered.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["offline"]);

        m.base_urls
            .insert("openai".into(), "http://127.0.0.1:11434/v1".into());
        m.api_key_envs.remove("openai");
        m.models.insert("openai".into(), "llama3".into());
        let (offered, warnings) = providers_from_env(&m);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(offered[1].name, "openai");
        assert_eq!(offered[1].label, "llama3 at http://127.0.0.1:11434/v1");
    }
}
