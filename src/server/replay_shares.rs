//! Each address's share of the replay API: how many of its requests may be in the replay
//! routes at once.
//!
//! A replay answer costs a database look-up, a blocking-pool task and, on a miss, a file read
//! and a decode under one of `replay_cache::DECODERS` permits; a download then holds a
//! connection's bandwidth. Without a share one address with many keep-alive connections held
//! every permit and every blocking thread while the others queued behind it. Now an address
//! (an IPv6 /64 counts as one, as for connections: `shared::admission::Source`) holds at
//! most `PER_ADDRESS` requests in the routes (a `/file` download until its last byte is
//! sent, at up to `replays_api::RATE`). Its other requests wait their turn, idle, for up to
//! `WAIT`, then are refused `429 rate_limited` with `Retry-After`: a client that ignores the
//! refusal and asks again at once is kept waiting rather than spinning. So one address holds
//! at most half of the decoders and sends at most `PER_ADDRESS` files at once, and any other
//! address has its own share.

use crate::shared::admission::Source;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Replay requests one address may have in the routes at once: a viewer asks for a round
/// and its frames together.
pub const PER_ADDRESS: usize = 2;

/// How long a request past its address's share waits for a place before it is refused.
pub const WAIT: Duration = Duration::from_secs(5);

/// Each address's places; an address is forgotten when nothing holds or awaits one.
#[derive(Default)]
pub struct ReplayShares {
    held: Mutex<HashMap<Option<Source>, Arc<Semaphore>>>,
}

/// One request's place in its address's share, given back when dropped.
pub struct Share {
    shares: Arc<ReplayShares>,
    from: Option<Source>,
    place: Option<OwnedSemaphorePermit>,
}

impl Drop for Share {
    fn drop(&mut self) {
        drop(self.place.take());
        self.shares.forget_if_idle(self.from);
    }
}

impl ReplayShares {
    /// A place for a request from `from` (`None`: one that did not come through the accept
    /// loop, all of which share one key), waiting up to `wait` for one; `None` past it.
    pub async fn take(self: &Arc<Self>, from: Option<Source>, wait: Duration) -> Option<Share> {
        let places = crate::lock::lock(&self.held)
            .entry(from)
            .or_insert_with(|| Arc::new(Semaphore::new(PER_ADDRESS)))
            .clone();
        let place = tokio::time::timeout(wait, places.acquire_owned()).await;
        match place {
            Ok(Ok(place)) => Some(Share {
                shares: self.clone(),
                from,
                place: Some(place),
            }),
            _ => {
                self.forget_if_idle(from);
                None
            }
        }
    }

    /// Drops `from`'s entry once the map's is the only handle left (no place held, none
    /// awaited), so the map holds only addresses with requests under way.
    fn forget_if_idle(&self, from: Option<Source>) {
        let mut held = crate::lock::lock(&self.held);
        if held.get(&from).is_some_and(|s| Arc::strong_count(s) == 1) {
            held.remove(&from);
        }
    }

    /// Addresses holding or awaiting a place now.
    #[cfg(test)]
    pub fn addresses(&self) -> usize {
        crate::lock::lock(&self.held).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ip: &str) -> Option<Source> {
        Some(Source::of(ip.parse().unwrap()))
    }

    #[tokio::test]
    async fn one_address_holds_its_share_and_another_still_gets_one() {
        let shares = Arc::new(ReplayShares::default());
        let short = Duration::from_millis(50);
        let mut mine = Vec::new();
        for _ in 0..PER_ADDRESS {
            mine.push(shares.take(at("10.0.0.1"), short).await.unwrap());
        }
        assert!(
            shares.take(at("10.0.0.1"), short).await.is_none(),
            "past its share"
        );
        let other = shares.take(at("2001:db8::1"), short).await;
        assert!(other.is_some(), "another address is served");
        // The same /64 is the same address.
        let _more = shares.take(at("2001:db8:0:0:1::1"), short).await.unwrap();
        assert!(shares.take(at("2001:db8::ffff"), short).await.is_none());
        // A request past the share waits its turn and gets the place given back.
        let waiting = tokio::spawn({
            let shares = shares.clone();
            async move { shares.take(at("10.0.0.1"), WAIT).await.is_some() }
        });
        tokio::time::sleep(short).await;
        mine.pop();
        assert!(waiting.await.unwrap(), "the waiting request got the place");
        drop((mine, other, _more));
        assert_eq!(
            shares.addresses(),
            0,
            "every place given back, every address forgotten"
        );
    }
}
