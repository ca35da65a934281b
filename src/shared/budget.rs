//! A request budget per address: a token bucket for each address (an IPv4 address, an IPv6
//! /64), refilled at a steady rate up to a burst. Every HTTP request and every socket
//! upgrade takes a token from its address's bucket before anything else is done for it —
//! before a route runs, and so before any database lookup — and a request that finds the
//! bucket empty is answered `429` with `Retry-After` (`server::accept`). One address cannot
//! spend the server's work on everyone else's behalf; an address that stays under the rate
//! never notices.
//!
//! Tokens are counted in thousandths, so the arithmetic is whole numbers. The map forgets
//! addresses whose bucket has refilled whole, whenever it grows past `FORGET_PAST`.

use super::admission::Source;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const MILLI: u64 = 1000;
const FORGET_PAST: usize = 8192;

/// One kind of budget: its rate and burst, and each address's bucket.
pub struct Budget {
    per_s: u64,
    burst: u64,
    buckets: Mutex<HashMap<Source, Bucket>>,
}

#[derive(Clone, Copy)]
struct Bucket {
    /// Thousandths of a token.
    milli: u64,
    at: Instant,
}

impl Budget {
    /// `per_s` tokens a second, at most `burst` saved up (a new address starts full).
    pub fn new(per_s: u32, burst: u32) -> Budget {
        Budget {
            per_s: per_s as u64,
            burst: (burst.max(1)) as u64,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `source` at `now`: `Ok`, or how long until one is there.
    pub fn take(&self, source: Source, now: Instant) -> Result<(), Duration> {
        let mut buckets = crate::lock::lock(&self.buckets);
        if buckets.len() > FORGET_PAST {
            let (per_s, burst) = (self.per_s, self.burst);
            buckets.retain(|_, b| refilled(*b, now, per_s, burst) < burst * MILLI);
        }
        let full = Bucket {
            milli: self.burst * MILLI,
            at: now,
        };
        let b = buckets.entry(source).or_insert(full);
        b.milli = refilled(*b, now, self.per_s, self.burst);
        b.at = now;
        if b.milli >= MILLI {
            b.milli -= MILLI;
            return Ok(());
        }
        let missing = MILLI - b.milli;
        let wait_ms = if self.per_s == 0 {
            u64::MAX
        } else {
            missing.div_ceil(self.per_s)
        };
        Err(Duration::from_millis(wait_ms))
    }

    pub fn per_s(&self) -> u64 {
        self.per_s
    }
}

/// The bucket's thousandths at `now`, refilled since it was last touched.
fn refilled(b: Bucket, now: Instant, per_s: u64, burst: u64) -> u64 {
    let elapsed_ms = now.saturating_duration_since(b.at).as_millis() as u64;
    let gained = elapsed_ms.saturating_mul(per_s);
    b.milli.saturating_add(gained).min(burst * MILLI)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(s: &str) -> Source {
        Source::of(s.parse().unwrap())
    }

    #[test]
    fn an_address_spends_its_burst_then_its_rate_and_others_keep_theirs() {
        let b = Budget::new(10, 5);
        let t0 = Instant::now();
        let a = src("10.0.0.1");
        assert!((0..5).all(|_| b.take(a, t0).is_ok()), "the burst");
        let wait = b.take(a, t0).expect_err("the burst is spent");
        assert_eq!(
            wait,
            Duration::from_millis(100),
            "one token in 100 ms at 10 a second"
        );
        assert!(
            b.take(src("10.0.0.2"), t0).is_ok(),
            "another address has its own"
        );
        assert!(
            b.take(a, t0 + Duration::from_millis(100)).is_ok(),
            "refilled"
        );
        assert!(b.take(a, t0 + Duration::from_millis(150)).is_err());
        // A long quiet refills to the burst, no more.
        let later = t0 + Duration::from_secs(60);
        assert!((0..5).all(|_| b.take(a, later).is_ok()));
        assert!(b.take(a, later).is_err());
    }
}
