//! The transport's rules for what a client sends, before anything reaches a room: every
//! frame it sends takes a token from its bucket (`rate_limited` when there is none), a
//! message over `max_message_bytes` is `too_big`, binary messages are refused, and three
//! strikes in a row (rate or size) close the socket with `4404`.
//!
//! Every frame counts, whatever its kind: text and binary, each fragment of a fragmented
//! message, pings, unsolicited pongs and the close. A client that floods any of them runs
//! out of tokens within a second and is closed on its third strike.
//!
//! Rate is judged by arrival, not by when the server got round to reading. The kernel does
//! not say when each frame arrived, only that the frames found waiting arrived since the
//! socket was last read dry; so the bucket's capacity stretches to the rate times that
//! window (a second at least). A room that was late finds its players' frames from the
//! whole time it was late, and lets them through as the rate allows over that time; a
//! client that sends faster than the rate still finds the bucket empty.

use crate::wire::messages::{Refusal, code, limits};
use std::time::Instant;

/// What the guard makes of a frame or a message.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Within the rules.
    Pass,
    /// Refused; the socket stays open.
    Refused(Refusal),
    /// Refused for the third strike in a row: the socket closes (4404).
    Abuse(Refusal),
}

/// One socket's rules and their state.
#[derive(Debug)]
pub struct Guard {
    /// Frames a second, and the bucket's capacity for a window of a second.
    rate: f64,
    tokens: f64,
    /// When the bucket was last filled up to date.
    at: Instant,
    /// When the socket was last read dry: the frames found since arrived after it.
    dry_at: Instant,
    max_bytes: usize,
    strikes: u32,
}

impl Guard {
    /// A full bucket of `max_frames_per_s`, and the message limit `max_bytes`.
    pub fn new(max_frames_per_s: u32, max_bytes: usize, now: Instant) -> Guard {
        let rate = max_frames_per_s.max(1) as f64;
        Guard {
            rate,
            tokens: rate,
            at: now,
            dry_at: now,
            max_bytes,
            strikes: 0,
        }
    }

    /// One frame of any kind, read at `now`: its token, or a strike.
    pub fn frame(&mut self, now: Instant) -> Verdict {
        let window = now.saturating_duration_since(self.dry_at).as_secs_f64();
        let capacity = self.rate * window.max(1.0);
        let earned = now.saturating_duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + earned).min(capacity);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            return Verdict::Pass;
        }
        let why = format!("more than {} frames a second", self.rate);
        self.strike(Refusal::new(code::RATE_LIMITED, why))
    }

    /// A whole message of `len` bytes whose frames passed: its size, and binary refused
    /// (not a strike: a client that sends the wrong kind is not flooding).
    pub fn message(&mut self, len: usize, binary: bool) -> Verdict {
        if len > self.max_bytes {
            let why = format!(
                "frame of {len} bytes is over the {}-byte limit",
                self.max_bytes
            );
            return self.strike(Refusal::new(code::TOO_BIG, why));
        }
        if binary {
            let why = "binary frames are refused; send JSON text";
            return Verdict::Refused(Refusal::new(code::BAD_FIELD, why));
        }
        Verdict::Pass
    }

    /// A message that parsed ends the run of strikes.
    pub fn parsed(&mut self) {
        self.strikes = 0;
    }

    /// The socket was read dry at `now`: frames found later arrived after it.
    pub fn read_dry(&mut self, now: Instant) {
        self.dry_at = now;
    }

    fn strike(&mut self, refusal: Refusal) -> Verdict {
        self.strikes += 1;
        match self.strikes >= limits::STRIKES {
            true => Verdict::Abuse(refusal),
            false => Verdict::Refused(refusal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn code_of(v: &Verdict) -> Option<&'static str> {
        match v {
            Verdict::Pass => None,
            Verdict::Refused(r) | Verdict::Abuse(r) => Some(r.code),
        }
    }

    #[test]
    fn a_burst_past_the_bucket_strikes_three_times_and_a_parsed_message_forgives() {
        let t0 = Instant::now();
        let mut guard = Guard::new(40, 4096, t0);
        for _ in 0..40 {
            assert_eq!(guard.frame(t0), Verdict::Pass);
        }
        assert!(matches!(guard.frame(t0), Verdict::Refused(_)));
        guard.parsed();
        assert!(matches!(guard.frame(t0), Verdict::Refused(_)));
        assert!(matches!(guard.frame(t0), Verdict::Refused(_)));
        let third = guard.frame(t0);
        assert!(matches!(third, Verdict::Abuse(_)));
        assert_eq!(code_of(&third), Some(code::RATE_LIMITED));
    }

    #[test]
    fn a_room_that_was_late_lets_through_what_arrived_at_the_rate_while_it_was() {
        // A client sends 20 frames a second; the server reads nothing for 3 s, then finds
        // the 60 frames waiting, read at the same instant.
        let t0 = Instant::now();
        let mut guard = Guard::new(40, 4096, t0);
        guard.read_dry(t0);
        let late = t0 + Duration::from_secs(3);
        for n in 0..60 {
            assert_eq!(guard.frame(late), Verdict::Pass, "frame {n}");
        }
        // Read dry again: the window is back to a second, and a flood is still a flood.
        guard.read_dry(late);
        let next = late + Duration::from_millis(50);
        let refused = (0..80)
            .filter(|_| guard.frame(next) != Verdict::Pass)
            .count();
        assert!(refused >= 30, "only {refused} of 80 frames refused");
    }

    #[test]
    fn a_socket_never_read_dry_earns_only_the_rate() {
        // A flooder whose frames are always waiting: the window grows, but tokens come at
        // the rate, and the bucket was spent.
        let t0 = Instant::now();
        let mut guard = Guard::new(40, 4096, t0);
        let passed = (0..20u32)
            .map(|tick| t0 + Duration::from_millis(50) * tick)
            .map(|at| (0..32).filter(|_| guard.frame(at) == Verdict::Pass).count())
            .sum::<usize>();
        assert!(passed <= 40 + 40, "{passed} frames passed in a second");
    }

    #[test]
    fn a_big_message_is_a_strike_and_binary_is_refused_without_one() {
        let mut guard = Guard::new(40, 4096, Instant::now());
        assert_eq!(guard.message(4096, false), Verdict::Pass);
        assert_eq!(code_of(&guard.message(4097, false)), Some(code::TOO_BIG));
        assert_eq!(code_of(&guard.message(10, true)), Some(code::BAD_FIELD));
        assert_eq!(code_of(&guard.message(4097, false)), Some(code::TOO_BIG));
        assert!(matches!(guard.message(65536, true), Verdict::Abuse(_)));
    }
}
