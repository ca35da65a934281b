//! Sockets that have not said `hello` yet, shared out: the server holds at most `cap` of
//! them, one address (an IPv4 address, an IPv6 /64) at most `per_address`, and the last
//! `reserve` places go only to addresses the server already knows (`Known`: a socket from
//! there said `hello` and was let in, within the hour) — so a player reopening the socket
//! to its own room is let in while strangers' silent sockets fill the rest. Each socket
//! takes a `Pending` at its upgrade and gives it back with its `hello` (or its end).
//!
//! The window a socket has to say `hello` shortens as the places fill (`hello_window`):
//! 5 s while under half the cap, down to 1 s at the cap, so silent sockets held to fill it
//! turn over five times faster.

use super::admission::{Held, Refused, Source};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The places and their holders.
pub struct PendingSockets {
    cap: usize,
    per_address: u32,
    reserve: usize,
    held: Mutex<Held>,
}

/// A socket's place while it has not said `hello`; given back when dropped.
pub struct Pending {
    of: Arc<PendingSockets>,
    source: Source,
}

impl Drop for Pending {
    fn drop(&mut self) {
        crate::lock::lock(&self.of.held).give_back(self.source);
    }
}

/// The longest and shortest windows a socket has to say `hello`.
const WINDOW_MAX: Duration = Duration::from_secs(5);
const WINDOW_MIN: Duration = Duration::from_secs(1);

impl PendingSockets {
    /// `cap` places, `per_address` of them for one address; the last quarter (a reserve)
    /// for addresses already known.
    pub fn new(cap: usize, per_address: u32) -> Arc<PendingSockets> {
        Arc::new(PendingSockets {
            cap,
            per_address,
            reserve: cap / 4,
            held: Mutex::new(Held::default()),
        })
    }

    /// A place for a socket from `source` (`known`: the server has let a socket from there
    /// in before), or why not.
    pub fn admit(self: &Arc<Self>, source: Source, known: bool) -> Result<Pending, Refused> {
        let mut held = crate::lock::lock(&self.held);
        if held.of(source) >= self.per_address {
            return Err(Refused::PendingPerAddress);
        }
        let open = held.open < self.cap.saturating_sub(self.reserve);
        if !(open || (known && held.open < self.cap)) {
            return Err(Refused::PendingSockets);
        }
        held.take(source);
        Ok(Pending {
            of: self.clone(),
            source,
        })
    }

    /// Places taken now.
    pub fn held(&self) -> usize {
        crate::lock::lock(&self.held).open
    }

    /// How long a socket has to say `hello` now: 5 s while under half the cap, then less
    /// as the places fill, 1 s at the cap.
    pub fn hello_window(&self) -> Duration {
        window(self.held(), self.cap)
    }
}

fn window(held: usize, cap: usize) -> Duration {
    let half = cap / 2;
    if cap == 0 || held <= half {
        return WINDOW_MAX;
    }
    let over = (held - half).min(cap - half) as u32;
    let span = (cap - half).max(1) as u32;
    WINDOW_MAX - (WINDOW_MAX - WINDOW_MIN) * over / span
}

/// Addresses a socket came from that said `hello` and was let in, with when (an hour's
/// worth, at most `KNOWN_MAX` of them): the players the pending reserve is kept for.
#[derive(Default)]
pub struct Known(Mutex<HashMap<Source, Instant>>);

const KNOWN_FOR: Duration = Duration::from_secs(3600);
const KNOWN_MAX: usize = 65_536;

impl Known {
    pub fn note(&self, source: Source) {
        let mut m = crate::lock::lock(&self.0);
        let now = Instant::now();
        if m.len() >= KNOWN_MAX {
            m.retain(|_, at| now.duration_since(*at) < KNOWN_FOR);
            if m.len() >= KNOWN_MAX {
                return;
            }
        }
        m.insert(source, now);
    }

    pub fn knows(&self, source: Source) -> bool {
        crate::lock::lock(&self.0)
            .get(&source)
            .is_some_and(|at| at.elapsed() < KNOWN_FOR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(s: &str) -> Source {
        Source::of(s.parse().unwrap())
    }

    #[test]
    fn an_address_holds_its_share_and_the_reserve_is_for_the_known() {
        let p = PendingSockets::new(8, 3);
        let a: Vec<Pending> = (0..3)
            .map(|_| p.admit(src("10.0.0.1"), false).unwrap())
            .collect();
        assert_eq!(
            p.admit(src("10.0.0.1"), false).err(),
            Some(Refused::PendingPerAddress)
        );
        let b: Vec<Pending> = (0..3)
            .map(|_| p.admit(src("10.0.0.2"), false).unwrap())
            .collect();
        // 6 of 8 held: the last 2 are the reserve.
        assert_eq!(
            p.admit(src("10.0.0.3"), false).err(),
            Some(Refused::PendingSockets)
        );
        let known = p
            .admit(src("10.0.0.4"), true)
            .expect("a known address gets the reserve");
        drop(a);
        assert!(p.admit(src("10.0.0.3"), false).is_ok(), "places come back");
        drop((b, known));
    }

    #[test]
    fn the_hello_window_shortens_from_half_full_to_one_second_at_the_cap() {
        assert_eq!(window(0, 256), Duration::from_secs(5));
        assert_eq!(window(128, 256), Duration::from_secs(5));
        assert_eq!(window(192, 256), Duration::from_secs(3));
        assert_eq!(window(256, 256), Duration::from_secs(1));
        assert_eq!(window(300, 256), Duration::from_secs(1));
    }
}
