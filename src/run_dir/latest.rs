//! "The latest record wins" (docs/formats.md, "Run folders": a later record
//! of the same call replaces the earlier one), written once. A call is its
//! retriever, repeat and post ([`CallKey`]); its provider, model, prompt
//! and outcome are not part of it, so a `--retry-errors` record (or a
//! later shard folder's, in `merge`) replaces the failed one. Read a whole
//! file with [`super::calls::latest_in`].

use super::record::{CallKey, CallRecord};
use std::collections::HashMap;

/// For each call, what its latest record says (`V`: whatever the reader
/// keeps of a record).
#[derive(Debug, Clone)]
pub struct Latest<V> {
    by_call: HashMap<CallKey, V>,
}

impl<V> Default for Latest<V> {
    fn default() -> Self {
        Latest {
            by_call: HashMap::new(),
        }
    }
}

impl<V> Latest<V> {
    /// `value` is now what `record`'s call did; what it replaces, if a
    /// record of that call came before.
    pub fn record(&mut self, record: &CallRecord, value: V) -> Option<V> {
        self.record_key(record.key(), value)
    }

    /// [`Latest::record`] for a call named by its key.
    pub(crate) fn record_key(&mut self, key: CallKey, value: V) -> Option<V> {
        self.by_call.insert(key, value)
    }

    pub fn get(&self, key: &CallKey) -> Option<&V> {
        self.by_call.get(key)
    }

    pub fn contains(&self, key: &CallKey) -> bool {
        self.by_call.contains_key(key)
    }

    /// How many calls (not records).
    pub(crate) fn len(&self) -> usize {
        self.by_call.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_call.is_empty()
    }

    /// Each call's latest value, in no particular order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.by_call.values()
    }
}

impl<V> IntoIterator for Latest<V> {
    type Item = (CallKey, V);
    type IntoIter = std::collections::hash_map::IntoIter<CallKey, V>;

    /// Each call with its latest value, in no particular order.
    fn into_iter(self) -> Self::IntoIter {
        self.by_call.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(retriever: &str, repeat: u32, post: &str, provider: &str, error: bool) -> CallRecord {
        let line = format!(
            r#"{{"retriever":"{retriever}","repeat":{repeat},"post":"{post}","prompt":{{"name":"translate","version":"v1"}},"provider":"{provider}","model":"m-{provider}","output":"x","check":{{"missing":[],"leaked":[],"ok":true}},"group":"complete","retrieved":[],"wrong_sense_retrieved":[],"wrong_sense_used":[],"attempts":1,"cached":false,"error":{},"ms":0.5}}"#,
            if error { "\"boom\"" } else { "null" }
        );
        serde_json::from_str(&line).unwrap()
    }

    fn key(retriever: &str, repeat: u32, post: &str) -> CallKey {
        (retriever.to_string(), repeat, post.to_string())
    }

    #[test]
    fn a_later_record_of_the_same_call_replaces_the_earlier_one() {
        let mut latest = Latest::default();
        assert_eq!(
            latest.record(&record("exact", 1, "a", "openai", true), 1),
            None
        );
        // Another provider and model, same retriever, repeat and post: the
        // same call, redone.
        assert_eq!(
            latest.record(&record("exact", 1, "a", "gemini", false), 2),
            Some(1)
        );
        assert_eq!(latest.len(), 1);
        assert_eq!(latest.get(&key("exact", 1, "a")), Some(&2));
    }

    #[test]
    fn retriever_repeat_and_post_each_make_another_call() {
        let mut latest = Latest::default();
        for (i, r) in [
            record("exact", 1, "a", "offline", false),
            record("fuzzy", 1, "a", "offline", false),
            record("exact", 2, "a", "offline", false),
            record("exact", 1, "b", "offline", false),
        ]
        .iter()
        .enumerate()
        {
            assert_eq!(latest.record(r, i), None, "{:?}", r.key());
        }
        assert_eq!(latest.len(), 4);
        assert!(latest.contains(&key("exact", 2, "a")));
        assert!(!latest.contains(&key("exact", 3, "a")));
    }
}
