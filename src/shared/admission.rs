//! Who gets a connection: the caps on connections held at once (in all, and from one
//! address) and the reserve kept for operators and seated players.
//!
//! Every accepted TCP connection asks for a `Permit` before a byte is read, and holds it
//! until it closes — through a WebSocket upgrade, so a socket counts as the connection it
//! came from. Permits are counted under one lock (two map operations a connection, never
//! per frame). Past `max - reserve` a permit is a *reserve* permit, given only to an address
//! holding fewer than `RESERVE_PER_ADDRESS` connections (so the client that filled the
//! server cannot take the reserve too); the connection may then only ask for `/healthz`,
//! `/metrics`, `/api/stats` or return a seated player to its seat (`server::accept` and the
//! room's `hello` enforce that). An IPv6 address counts by its /64, the block one
//! subscriber is usually given.

use super::config::ConnectionLimits;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// An address holding this many connections gets no reserve permit.
pub const RESERVE_PER_ADDRESS: u32 = 2;

/// Why a connection was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Every permit, the reserve included, is taken (or the reserve is, and this address
    /// already holds connections).
    Full,
    /// This address holds its `per_ip` connections.
    PerAddress,
    /// A socket past the cap on sockets that have not said `hello`.
    PendingSockets,
    /// A socket past its address's share of those.
    PendingPerAddress,
    /// A reserve connection asked for something the reserve is not kept for.
    ReserveOnly,
    /// A request past its address's budget (answered `429`, not `503`).
    RequestBudget,
}

impl Refused {
    pub const ALL: [Refused; 6] = [
        Refused::Full,
        Refused::PerAddress,
        Refused::PendingSockets,
        Refused::PendingPerAddress,
        Refused::ReserveOnly,
        Refused::RequestBudget,
    ];

    /// The reason's label in `/metrics` and `/api/stats`.
    pub fn name(self) -> &'static str {
        match self {
            Refused::Full => "full",
            Refused::PerAddress => "per_address",
            Refused::PendingSockets => "pending_sockets",
            Refused::PendingPerAddress => "pending_per_address",
            Refused::ReserveOnly => "reserve_only",
            Refused::RequestBudget => "request_budget",
        }
    }

    /// What the client reads in its `503`.
    pub fn why(self) -> &'static str {
        match self {
            Refused::Full => "the server holds all the connections it takes; try again shortly",
            Refused::PerAddress => "your address holds all the connections it may; close one",
            Refused::PendingSockets => {
                "too many sockets are waiting to say hello; try again shortly"
            }
            Refused::PendingPerAddress => {
                "your address holds all the sockets waiting to say hello it may; say hello on one"
            }
            Refused::RequestBudget => {
                "your address is over its budget of requests; slow down (see Retry-After)"
            }
            Refused::ReserveOnly => {
                "the server is at its connection limit: only health checks and players returning to their seat are served"
            }
        }
    }
}

/// The key connections are counted by: an IPv4 address, or an IPv6 /64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Source(u128);

impl Source {
    pub fn of(ip: IpAddr) -> Source {
        match ip {
            IpAddr::V4(v4) => Source(u32::from(v4) as u128),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Source(u32::from(v4) as u128),
                None => Source((u128::from(v6) >> 64) | (1 << 127)),
            },
        }
    }

    /// The key as a forwarded request carries it to the room's node (a number, not an
    /// address: the /64 of an IPv6 player is all that is counted anyway).
    pub fn to_header(self) -> String {
        self.0.to_string()
    }

    /// The key a forwarding node sent; `None` when it is not one.
    pub fn from_header(text: &str) -> Option<Source> {
        text.parse().ok().map(Source)
    }
}

/// Places held in all and by each address: the count behind the connection permits and the
/// pending-socket places (`shared::pending`).
#[derive(Default)]
pub(super) struct Held {
    pub(super) open: usize,
    by_source: HashMap<Source, u32>,
}

impl Held {
    /// The places `source` holds.
    pub(super) fn of(&self, source: Source) -> u32 {
        self.by_source.get(&source).copied().unwrap_or(0)
    }

    pub(super) fn take(&mut self, source: Source) {
        self.open += 1;
        *self.by_source.entry(source).or_insert(0) += 1;
    }

    pub(super) fn give_back(&mut self, source: Source) {
        self.open = self.open.saturating_sub(1);
        if let Some(n) = self.by_source.get_mut(&source) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.by_source.remove(&source);
            }
        }
    }
}

/// The server's connection permits.
pub struct Admission {
    limits: ConnectionLimits,
    held: Mutex<Held>,
    refused: [AtomicU64; 6],
}

/// A connection's permit, given back when dropped.
pub struct Permit {
    admission: Arc<Admission>,
    source: Source,
    reserve: bool,
}

impl Permit {
    /// Whether this is a reserve permit (health checks and seated players only).
    pub fn reserve(&self) -> bool {
        self.reserve
    }

    /// The address (or IPv6 /64) the connection came from.
    pub fn source(&self) -> Source {
        self.source
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.admission.lock().give_back(self.source);
    }
}

impl Admission {
    pub fn new(limits: ConnectionLimits) -> Arc<Admission> {
        Arc::new(Admission {
            limits,
            held: Mutex::new(Held::default()),
            refused: Default::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        crate::lock::lock(&self.held)
    }

    /// A permit for a connection from `ip`, or why not (counted).
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Permit, Refused> {
        let source = Source::of(ip);
        let mut held = self.lock();
        let mine = held.of(source);
        let verdict = if mine as usize >= self.limits.per_ip {
            Err(Refused::PerAddress)
        } else if held.open < self.limits.max - self.limits.reserve {
            Ok(false)
        } else if held.open < self.limits.max && mine < RESERVE_PER_ADDRESS {
            Ok(true)
        } else {
            Err(Refused::Full)
        };
        match verdict {
            Ok(reserve) => {
                held.take(source);
                Ok(Permit {
                    admission: self.clone(),
                    source,
                    reserve,
                })
            }
            Err(why) => {
                drop(held);
                self.refuse(why);
                Err(why)
            }
        }
    }

    /// Counts a refusal.
    pub fn refuse(&self, why: Refused) {
        self.refused[why as usize].fetch_add(1, Relaxed);
    }

    /// Connections held now.
    pub fn open(&self) -> usize {
        self.lock().open
    }

    /// Refusals so far, by reason.
    pub fn refusals(&self) -> [(Refused, u64); 6] {
        Refused::ALL.map(|r| (r, self.refused[r as usize].load(Relaxed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn admission(max: usize, per_ip: usize, reserve: usize) -> Arc<Admission> {
        Admission::new(ConnectionLimits {
            max,
            per_ip,
            reserve,
            pending_sockets: 8,
            pending_per_ip: 8,
            header_timeout: Duration::from_secs(1),
        })
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn one_address_is_held_to_its_cap_and_others_still_get_in() {
        let g = admission(100, 3, 4);
        let held: Vec<Permit> = (0..3).map(|_| g.admit(ip("10.0.0.1")).unwrap()).collect();
        assert_eq!(g.admit(ip("10.0.0.1")).err(), Some(Refused::PerAddress));
        assert!(g.admit(ip("10.0.0.2")).is_ok());
        drop(held);
        assert_eq!(g.open(), 0, "every permit given back");
        assert!(
            g.admit(ip("10.0.0.1")).is_ok(),
            "the address's permits came back"
        );
    }

    #[test]
    fn the_reserve_goes_only_to_addresses_holding_little() {
        let g = admission(10, 100, 3);
        let flood: Vec<Permit> = (0..7).map(|_| g.admit(ip("10.0.0.9")).unwrap()).collect();
        assert!(flood.iter().all(|p| !p.reserve()));
        // The flooding address gets no reserve permit; a quiet one does.
        assert_eq!(g.admit(ip("10.0.0.9")).err(), Some(Refused::Full));
        let checker = g.admit(ip("10.0.0.1")).unwrap();
        assert!(checker.reserve());
        let a = g.admit(ip("10.0.0.2")).unwrap();
        let b = g.admit(ip("10.0.0.3")).unwrap();
        assert_eq!(g.admit(ip("10.0.0.4")).err(), Some(Refused::Full));
        assert_eq!(g.refusals()[Refused::Full as usize].1, 2);
        drop((checker, a, b));
        drop(flood);
        assert_eq!(g.open(), 0);
    }

    #[test]
    fn an_ipv6_subscriber_block_counts_as_one_address() {
        let g = admission(100, 2, 0);
        let _a = g.admit(ip("2001:db8:1:2::1")).unwrap();
        let _b = g.admit(ip("2001:db8:1:2:ffff::7")).unwrap();
        assert_eq!(
            g.admit(ip("2001:db8:1:2::99")).err(),
            Some(Refused::PerAddress)
        );
        assert!(g.admit(ip("2001:db8:1:3::1")).is_ok());
        // An IPv4-mapped address is its IPv4 address.
        let _c = g.admit(ip("10.1.1.1")).unwrap();
        let _d = g.admit(ip("::ffff:10.1.1.1")).unwrap();
        assert_eq!(g.admit(ip("10.1.1.1")).err(), Some(Refused::PerAddress));
    }
}
