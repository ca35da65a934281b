//! The transport rules a socket enforces before anything reaches a room: the token bucket
//! (`rate_limited`), the size limit (`too_big`), binary frames refused, and three strikes
//! in a row (oversize or rate-limited) closing the socket with 4404.

use crate::wire::messages::{Refusal, code, limits};
use std::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// The per-connection token bucket: capacity and refill both `rate` frames a second.
struct Bucket {
    tokens: f64,
    rate: f64,
    at: Instant,
}

impl Bucket {
    fn take(&mut self, now: Instant) -> bool {
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.rate);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What the guard makes of one data frame.
pub enum Checked {
    /// A text frame within the rules.
    Pass,
    /// Refused, the socket stays open.
    Refused(Refusal),
    /// Refused for the third strike in a row: close the socket (4404).
    Abuse(Refusal),
}

pub struct Guard {
    bucket: Bucket,
    max_bytes: usize,
    strikes: u32,
}

impl Guard {
    pub fn new(max_inputs_per_s: u32, max_bytes: usize) -> Guard {
        let rate = max_inputs_per_s as f64;
        Guard {
            bucket: Bucket {
                tokens: rate,
                rate,
                at: Instant::now(),
            },
            max_bytes,
            strikes: 0,
        }
    }

    /// Checks one data frame (text or binary), read at `now`, against the rate and the
    /// size.
    pub fn check(&mut self, frame: &Message, now: Instant) -> Checked {
        let (refusal, strike) = if !self.bucket.take(now) {
            let why = format!("more than {} frames a second", self.bucket.rate);
            (Refusal::new(code::RATE_LIMITED, why), true)
        } else if frame.len() > self.max_bytes {
            let why = format!(
                "frame of {} bytes is over the {}-byte limit",
                frame.len(),
                self.max_bytes
            );
            (Refusal::new(code::TOO_BIG, why), true)
        } else if frame.is_binary() {
            let why = "binary frames are refused; send JSON text";
            (Refusal::new(code::BAD_FIELD, why), false)
        } else {
            return Checked::Pass;
        };
        if !strike {
            return Checked::Refused(refusal);
        }
        self.strikes += 1;
        if self.strikes >= limits::STRIKES {
            Checked::Abuse(refusal)
        } else {
            Checked::Refused(refusal)
        }
    }

    /// A frame that parsed ends the run of strikes.
    pub fn parsed(&mut self) {
        self.strikes = 0;
    }
}
