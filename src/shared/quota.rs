//! How many times one address may do a thing a minute: start a new session (a token the
//! server has not seen, for a seat or a spectator permit; known tokens are never counted,
//! so a returning player always gets back in), or ask for quick play.
//!
//! Each address may do it `per_minute` times in a fixed one-minute window; past that it is
//! refused `rate_limited` until the window turns. The map forgets windows that ended,
//! whenever it grows past 4,096 addresses.

use super::admission::Source;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);
const FORGET_PAST: usize = 4096;

pub struct Quota {
    per_minute: u32,
    windows: Mutex<HashMap<Source, (Instant, u32)>>,
}

impl Quota {
    pub fn new(per_minute: u32) -> Quota {
        Quota {
            per_minute,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `source` may do it once more now (counted when it may).
    pub fn admit(&self, source: Source, now: Instant) -> bool {
        let mut w = crate::lock::lock(&self.windows);
        if w.len() > FORGET_PAST {
            w.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, n) = w.entry(source).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *n = 0;
        }
        if *n >= self.per_minute {
            return false;
        }
        *n += 1;
        true
    }

    pub fn per_minute(&self) -> u32 {
        self.per_minute
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_starts_its_quota_a_minute_and_others_are_not_touched() {
        let n = Quota::new(3);
        let (a, b) = (
            Source::of("10.0.0.1".parse().unwrap()),
            Source::of("10.0.0.2".parse().unwrap()),
        );
        let t0 = Instant::now();
        assert!((0..3).all(|_| n.admit(a, t0)));
        assert!(!n.admit(a, t0 + Duration::from_secs(59)));
        assert!(n.admit(b, t0), "another address has its own quota");
        assert!(n.admit(a, t0 + WINDOW), "a new minute, a new quota");
    }
}
