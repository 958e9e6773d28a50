//! Calling providers robustly: retries with exponential backoff and full
//! jitter, honouring Retry-After; failover to the next provider; and the
//! reply cache in front of it all.

use crate::generate::cache::Cache;
use crate::generate::provider::{Completion, Provider, ProviderError, Reply, ReplyMeta, Request};
use crate::generate::secrets::scrub_completion;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How often and how patiently to retry one provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per provider, the first included (0 counts as 1).
    pub max_attempts: u32,
    /// Backoff cap after the first failure; doubles after each further one.
    pub base_delay: Duration,
    /// No wait is longer, Retry-After included.
    pub max_delay: Duration,
}

/// Attempts per provider when none is given (`--attempts`).
pub const DEFAULT_ATTEMPTS: u32 = 5;

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: DEFAULT_ATTEMPTS,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait after `failed` failed attempts (1-based). With the server's
    /// `retry_after`, that (capped by `max_delay`); otherwise "full jitter":
    /// `unit` (in [0, 1)) times `base_delay · 2^(failed-1)`, capped by
    /// `max_delay`. Full jitter spreads concurrent retries out best.
    pub(crate) fn delay(&self, failed: u32, retry_after: Option<Duration>, unit: f64) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_delay);
        }
        let doublings = failed.saturating_sub(1).min(30);
        let cap = self
            .base_delay
            .saturating_mul(1u32 << doublings)
            .min(self.max_delay);
        cap.mul_f64(unit.clamp(0.0, 1.0))
    }
}

/// Providers in failover order, a retry policy and an optional cache.
pub struct Client {
    providers: Vec<Box<dyn Provider>>,
    retry: RetryPolicy,
    cache: Option<Cache>,
    /// Whether a failed cache write was reported (once is enough).
    cache_warned: AtomicBool,
    rng: Mutex<u64>,
}

impl Client {
    pub fn new(
        providers: Vec<Box<dyn Provider>>,
        retry: RetryPolicy,
        cache: Option<Cache>,
    ) -> Client {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Client {
            providers,
            retry,
            cache,
            cache_warned: AtomicBool::new(false),
            // xorshift must not start at 0.
            rng: Mutex::new((nanos ^ 0x9e37_79b9_7f4a_7c15) | 1),
        }
    }

    pub(crate) fn providers(&self) -> &[Box<dyn Provider>] {
        &self.providers
    }

    pub fn retry(&self) -> &RetryPolicy {
        &self.retry
    }

    pub fn cache(&self) -> Option<&Cache> {
        self.cache.as_ref()
    }

    /// Answer `req`. For each provider in order: a cached answer is returned
    /// without a request; otherwise it is called, retrying retryable errors
    /// with backoff; a success is cached and returned; a non-retryable error
    /// or exhausted retries move on to the next provider. Errors that would
    /// fail every later request too ([`ProviderError::stops_run`]) return at
    /// once. Failures are never cached.
    pub async fn generate(&self, req: &Request) -> Result<Reply, ProviderError> {
        let mut attempts = 0;
        self.generate_counting(req, &mut attempts).await
    }

    /// [`Client::generate`], also telling how many calls a failure took.
    pub(crate) async fn generate_counted(
        &self,
        req: &Request,
    ) -> (Result<Reply, ProviderError>, u32) {
        let mut attempts = 0;
        let result = self.generate_counting(req, &mut attempts).await;
        (result, attempts)
    }

    async fn generate_counting(
        &self,
        req: &Request,
        attempts: &mut u32,
    ) -> Result<Reply, ProviderError> {
        let mut failures = Vec::new();
        for provider in &self.providers {
            let key = Cache::key(&provider.identity(), req);
            if let Some(mut cached) = self.cache.as_ref().and_then(|c| c.get_reply(&key)) {
                // A cache written before replies were scrubbed may hold a key.
                scrub_completion(&mut cached, &provider.secrets());
                return Ok(self.reply(provider.as_ref(), cached, *attempts, true));
            }
            match self.attempt(provider.as_ref(), req, attempts).await {
                Ok(completion) => {
                    self.store(&key, &completion);
                    return Ok(self.reply(provider.as_ref(), completion, *attempts, false));
                }
                Err(err) if err.stops_run() => return Err(err),
                Err(err) => failures.push(err),
            }
        }
        match failures.len() {
            0 => Err(ProviderError::NoProviders),
            1 => Err(failures.remove(0)),
            _ => Err(ProviderError::AllFailed(failures)),
        }
    }

    /// Cache a paid reply. A failure (full disk, unwritable folder) is
    /// warned about once and otherwise ignored: the reply is still
    /// returned, and recorded by the caller, rather than thrown away.
    fn store(&self, key: &str, completion: &Completion) {
        let Some(cache) = &self.cache else { return };
        if let Err(e) = cache.put_reply(key, completion) {
            if !self.cache_warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "{}; replies are kept (in calls.jsonl for a run) but not cached",
                    ProviderError::Cache {
                        dir: cache.dir().display().to_string(),
                        detail: e.to_string(),
                    }
                );
            }
        }
    }

    /// One provider, with retries; `attempts` counts every call made.
    async fn attempt(
        &self,
        provider: &dyn Provider,
        req: &Request,
        attempts: &mut u32,
    ) -> Result<Completion, ProviderError> {
        let max = self.retry.max_attempts.max(1);
        let mut failed = 0;
        loop {
            *attempts += 1;
            // The one seam where replies enter glossa: scrub the secrets
            // here, before the cache, the records and the screen see them.
            let err = match provider.call(req).await {
                Ok(mut completion) => {
                    scrub_completion(&mut completion, &provider.secrets());
                    return Ok(completion);
                }
                Err(ProviderError::Stopped {
                    provider: name,
                    url,
                    refusal,
                    mut reply,
                }) => {
                    scrub_completion(&mut reply, &provider.secrets());
                    ProviderError::Stopped {
                        provider: name,
                        url,
                        refusal,
                        reply,
                    }
                }
                Err(err) => err,
            };
            failed += 1;
            if !err.retryable() || failed >= max {
                return Err(err);
            }
            let wait = self.retry.delay(failed, err.retry_after(), self.unit());
            tokio::time::sleep(wait).await;
        }
    }

    fn reply(
        &self,
        provider: &dyn Provider,
        completion: Completion,
        attempts: u32,
        cached: bool,
    ) -> Reply {
        let answered = Answered {
            provider: provider.name().to_string(),
            model: provider.model().to_string(),
            attempts,
            cached,
        };
        answered.reply(completion)
    }

    /// A uniform number in [0, 1) for jitter (xorshift64*: jitter needs
    /// spread, not cryptographic quality).
    fn unit(&self) -> f64 {
        let mut state = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        let mut x = *state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *state = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Who answered a completion, and how: what makes it a [`Reply`].
pub(crate) struct Answered {
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) attempts: u32,
    pub(crate) cached: bool,
}

impl Answered {
    /// The reply of `completion` (a cached one used no tokens this time).
    pub(crate) fn reply(self, completion: Completion) -> Reply {
        Reply {
            text: completion.text,
            provider: self.provider,
            model: self.model,
            attempts: self.attempts,
            cached: self.cached,
            meta: ReplyMeta {
                usage: if self.cached {
                    None
                } else {
                    completion.meta.usage
                },
                ..completion.meta
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        let full = |failed| policy.delay(failed, None, 1.0);
        assert_eq!(full(1), Duration::from_millis(100));
        assert_eq!(full(2), Duration::from_millis(200));
        assert_eq!(full(4), Duration::from_millis(800));
        assert_eq!(full(5), Duration::from_millis(1000));
        assert_eq!(full(200), Duration::from_millis(1000));
        assert_eq!(policy.delay(3, None, 0.5), Duration::from_millis(200));
        assert_eq!(policy.delay(3, None, 0.0), Duration::ZERO);
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let policy = RetryPolicy::default();
        let two = Some(Duration::from_secs(2));
        assert_eq!(policy.delay(1, two, 0.0), Duration::from_secs(2));
        let long = Some(Duration::from_secs(3600));
        assert_eq!(policy.delay(1, long, 0.9), Duration::from_secs(30));
    }

    #[test]
    fn jitter_is_in_the_unit_interval_and_varies() {
        let client = Client::new(Vec::new(), RetryPolicy::default(), None);
        let draws: Vec<f64> = (0..1000).map(|_| client.unit()).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((0.4..0.6).contains(&mean), "mean {mean}");
    }
}
