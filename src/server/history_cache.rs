//! The history page's answers, kept a few seconds: a leaderboard is the same for every
//! player who opens it, and a page drawn again (the level picker changed back, a reload)
//! asks the same questions. Each answer is kept under its question (`board:<level>:<by>:
//! <page>`, `me:<session id>:…`; never a token) until it is older than its time to live.
//!
//! Bounded: at most `MAX_ENTRIES` answers (each a page of at most 20 rows, a few KB); a
//! new one past that evicts the oldest. The lock is held only to look up or insert, never
//! across a database call, so a slow database slows only the requests that miss.

use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Answers kept at most: about 2 MB of JSON at the most.
pub const MAX_ENTRIES: usize = 512;

pub struct HistoryCache {
    entries: Mutex<BTreeMap<String, (Instant, Arc<Value>)>>,
}

impl HistoryCache {
    pub fn new() -> HistoryCache {
        HistoryCache {
            entries: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, (Instant, Arc<Value>)>> {
        // A panic elsewhere while holding it leaves the map whole: keep using it.
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer kept for `key`, if it is younger than `ttl`.
    pub fn get(&self, key: &str, ttl: Duration) -> Option<Arc<Value>> {
        let map = self.lock();
        let (at, v) = map.get(key)?;
        (at.elapsed() < ttl).then(|| v.clone())
    }

    /// Keeps `value` for `key`, evicting the oldest answer when the cache is full.
    pub fn put(&self, key: String, value: Arc<Value>) {
        let mut map = self.lock();
        if !map.contains_key(&key) && map.len() >= MAX_ENTRIES {
            let oldest = map
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                map.remove(&k);
            }
        }
        map.insert(key, (Instant::now(), value));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_keeps_at_most_its_bound_and_forgets_the_oldest() {
        let c = HistoryCache::new();
        for i in 0..MAX_ENTRIES + 10 {
            c.put(format!("k{i}"), Arc::new(Value::from(i)));
        }
        assert_eq!(c.len(), MAX_ENTRIES);
        let long = Duration::from_secs(60);
        assert!(c.get("k0", long).is_none(), "the oldest went first");
        assert_eq!(
            c.get(&format!("k{}", MAX_ENTRIES + 9), long).as_deref(),
            Some(&Value::from(MAX_ENTRIES + 9))
        );
        assert!(
            c.get("k20", Duration::ZERO).is_none(),
            "an old answer is asked again"
        );
    }
}
