//! The secrets a run knows (API keys read from the environment) and their
//! removal from everything a model sends back. Replies are scrubbed once,
//! where they enter glossa ([`crate::generate::retry::Client`]), so no
//! writer (calls.jsonl, summary.json, the cache, stdout, the page) needs to
//! know: a reply that echoes the key can never put it on disk or a screen.
//! See docs/formats.md, "Secrets in replies".

use crate::generate::reply::Completion;

/// Shorter values are not treated as secrets: replacing every "ab" in a
/// reply would mangle it, and no real key is that short.
pub(crate) const MIN_SECRET_CHARS: usize = 4;

/// One secret: the variable it came from (named in the marker, never the
/// value) and its value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    pub(crate) var: String,
    pub(crate) value: String,
}

impl std::fmt::Debug for Secret {
    /// Never the value, even in a debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret({})", self.var)
    }
}

impl Secret {
    /// What stands in for the value: `[REDACTED:OPENAI_API_KEY]`.
    pub(crate) fn marker(&self) -> String {
        format!("[REDACTED:{}]", self.var)
    }
}

/// `text` with every secret replaced by its marker, or `None` when it held
/// none. Longer secrets go first, so one that contains another is replaced
/// whole.
pub(crate) fn scrub(text: &str, secrets: &[Secret]) -> Option<String> {
    let mut order: Vec<&Secret> = secrets
        .iter()
        .filter(|s| s.value.chars().count() >= MIN_SECRET_CHARS)
        .collect();
    order.sort_by_key(|s| std::cmp::Reverse(s.value.len()));
    let mut out: Option<String> = None;
    for secret in order {
        let current = out.as_deref().unwrap_or(text);
        if current.contains(secret.value.as_str()) {
            out = Some(current.replace(secret.value.as_str(), &secret.marker()));
        }
    }
    out
}

/// Scrub every text a completion carries (its text, finish reason and
/// served model), marking it `redacted` when anything was replaced.
pub(crate) fn scrub_completion(completion: &mut Completion, secrets: &[Secret]) {
    if secrets.is_empty() {
        return;
    }
    let mut redacted = false;
    let mut fix = |field: &mut String| {
        if let Some(clean) = scrub(field, secrets) {
            *field = clean;
            redacted = true;
        }
    };
    fix(&mut completion.text);
    if let Some(reason) = completion.meta.finish_reason.as_mut() {
        fix(reason);
    }
    if let Some(model) = completion.meta.served_model.as_mut() {
        fix(model);
    }
    if redacted {
        completion.meta.redacted = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(var: &str, value: &str) -> Secret {
        Secret {
            var: var.into(),
            value: value.into(),
        }
    }

    #[test]
    fn every_occurrence_is_replaced_by_the_marker() {
        let s = [secret("OPENAI_API_KEY", "sk-abc123")];
        assert_eq!(
            scrub("key sk-abc123 and sk-abc123!", &s).as_deref(),
            Some("key [REDACTED:OPENAI_API_KEY] and [REDACTED:OPENAI_API_KEY]!")
        );
        assert_eq!(scrub("nothing here", &s), None);
    }

    #[test]
    fn a_longer_secret_holding_a_shorter_one_is_replaced_whole() {
        let s = [secret("A", "abcd"), secret("B", "xxabcdxx")];
        assert_eq!(
            scrub("xxabcdxx abcd", &s).as_deref(),
            Some("[REDACTED:B] [REDACTED:A]")
        );
    }

    #[test]
    fn short_values_are_not_secrets() {
        assert_eq!(scrub("a b c", &[secret("A", "a")]), None);
    }

    #[test]
    fn a_completion_is_marked_when_scrubbed() {
        let s = [secret("K", "secret-key")];
        let mut c = Completion {
            text: "here: secret-key".into(),
            ..Completion::default()
        };
        c.meta.served_model = Some("m-secret-key".into());
        scrub_completion(&mut c, &s);
        assert_eq!(c.text, "here: [REDACTED:K]");
        assert_eq!(c.meta.served_model.as_deref(), Some("m-[REDACTED:K]"));
        assert!(c.meta.redacted);
        let mut clean = Completion {
            text: "fine".into(),
            ..Completion::default()
        };
        scrub_completion(&mut clean, &s);
        assert!(!clean.meta.redacted);
    }

    #[test]
    fn debug_never_shows_the_value() {
        assert_eq!(format!("{:?}", secret("K", "hunter22")), "Secret(K)");
    }
}
