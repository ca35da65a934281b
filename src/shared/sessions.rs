//! Player sessions: who a token is, the name it goes by, and how far its campaign goes.
//!
//! Sessions are kept by the keyed hash of their token (`session_key`: never the token) and
//! carry a separate, random, non-secret `id` that replay headers and the history use. The
//! map here is a cache of the sessions in play, not of every session ever: the edges (the
//! HTTP routes and a socket's `hello`, which may wait) `load` a token from the database
//! the first time they see it, so the rooms (which never wait) find it here. Rooms `keep`
//! their players' sessions every minute; a session nobody used for 10 minutes leaves the
//! cache (`evict_idle`). Every new session, rename and unlock is persisted through the
//! write chain (as a `Must`: never dropped), and a session loaded again has its `last_seen`
//! refreshed the same way, as is every hour of a session a room keeps: a session in use
//! never expires (`store::sessions::expire`, only for sessions that never finished a round).
//! On a database other nodes share (PostgreSQL), a cached session's unlocked level is read
//! again each time an edge loads it, so a level won on another node counts here, and a new
//! token's session is made in the database at its first edge (`claim`), so every node
//! names it by one id.

use super::admission::Source;
use super::quota::Quota;
use super::random;
use super::session_key::SessionKey;
use crate::store::Store;
use crate::store::chain::{Chain, Must};
use crate::store::rows::SessionRow;
use crate::wire::messages::{Refusal, code};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Non-secret and random: safe in replays, logs and frames.
    pub id: String,
    pub name: String,
    /// The highest campaign `order` this session may play.
    pub unlocked: u32,
}

struct Cached {
    session: Session,
    used: Instant,
    /// When its `last_seen` was last written.
    seen_written: Instant,
}

/// How often a kept session's `last_seen` is written again.
const SEEN_EVERY: Duration = Duration::from_secs(3600);

pub struct Sessions {
    by_hash: Mutex<HashMap<String, Cached>>,
    /// New sessions started per address a minute.
    newcomers: Quota,
    key: OnceLock<SessionKey>,
    chain: OnceLock<Chain>,
    store: OnceLock<Store>,
    /// Tokens looked up in the database (the cache did not have them).
    lookups: AtomicU64,
}

impl Sessions {
    /// Sessions whose addresses may each start `new_per_minute` of them a minute.
    pub fn new(new_per_minute: u32) -> Sessions {
        Sessions {
            by_hash: Mutex::default(),
            newcomers: Quota::new(new_per_minute),
            key: OnceLock::new(),
            chain: OnceLock::new(),
            store: OnceLock::new(),
            lookups: AtomicU64::new(0),
        }
    }

    /// Tokens looked up in the database so far (`/metrics`: `session_lookups_total`).
    pub fn lookups(&self) -> u64 {
        self.lookups.load(Relaxed)
    }

    /// Whether `token` may come in from `from` (`None`: not through the accept loop, so not
    /// counted): a token the server knows (its session is loaded, for the room to find)
    /// always may; an unknown one, or none, starts a session, which each address may do
    /// `UNDERCOOKED_NEW_SESSIONS_PER_MIN` times a minute. Else the `rate_limited` refusal.
    pub async fn admit(&self, token: Option<&str>, from: Option<Source>) -> Result<(), Refusal> {
        let known = match token {
            Some(t) => self.load(t).await.is_some(),
            None => false,
        };
        match from {
            Some(from) if !known && !self.newcomers.admit(from, Instant::now()) => {
                Err(Refusal::new(
                    code::RATE_LIMITED,
                    format!(
                        "your address started {} new sessions this minute; try again shortly",
                        self.newcomers.per_minute()
                    ),
                ))
            }
            _ => {
                if let (false, Some(t)) = (known, token) {
                    self.claim(t).await;
                }
                Ok(())
            }
        }
    }

    /// On a database other nodes share (PostgreSQL), a token seen for the first time has its
    /// session made there before anything uses it, so two nodes that see it at once (a
    /// player's first calls, before the write chain stored the first node's session) agree
    /// on one session id: the first insert wins and the other node reads it back. Else (one
    /// node, or a database that does not answer) `touch` makes it, as before.
    async fn claim(&self, token: &str) {
        let Some(store) = self.store.get() else {
            return;
        };
        if store.dialect() != crate::store::db::Dialect::Postgres {
            return;
        }
        let hash = self.hash(token);
        let fresh = SessionRow {
            id: random::hex(8),
            token_hash: hash.clone(),
            name: "Cook".to_string(),
            unlocked: 1,
        };
        let row = match crate::store::sessions::claim(store, &fresh).await {
            Ok(row) => row,
            Err(e) => {
                tracing::warn!(error = %e, "a new session could not be stored at once");
                return;
            }
        };
        let now = Instant::now();
        self.cache().entry(hash).or_insert(Cached {
            session: Session {
                id: row.id,
                name: row.name,
                unlocked: row.unlocked,
            },
            used: now,
            seen_written: now,
        });
    }

    /// Looks sessions up in `store`, hashes tokens with `key` and persists through `chain`
    /// from now on (before the server serves anyone).
    pub fn attach(&self, store: Store, chain: Chain, key: SessionKey) {
        let _ = self.key.set(key);
        let _ = self.chain.set(chain);
        let _ = self.store.set(store);
    }

    fn hash(&self, token: &str) -> String {
        self.key.get_or_init(SessionKey::ephemeral).hash(token)
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, HashMap<String, Cached>> {
        crate::lock::lock(&self.by_hash)
    }

    fn persist(&self, hash: &str, s: &Session) {
        if let Some(chain) = self.chain.get() {
            chain.must(Must::Session(SessionRow {
                id: s.id.clone(),
                token_hash: hash.to_string(),
                name: s.name.clone(),
                unlocked: s.unlocked,
            }));
        }
    }

    /// The session of a token, from the cache or else the database (then cached, and its
    /// `last_seen` refreshed); `None` for a token the server has never seen. A database
    /// that cannot answer counts as not knowing the token (logged).
    pub async fn load(&self, token: &str) -> Option<Session> {
        let hash = self.hash(token);
        let cached = self.cache().get_mut(&hash).map(|c| {
            c.used = Instant::now();
            c.session.clone()
        });
        if let Some(session) = cached {
            return Some(self.refreshed(&hash, session).await);
        }
        let store = self.store.get()?;
        self.lookups.fetch_add(1, Relaxed);
        let row = match crate::store::sessions::find(store, &hash).await {
            Ok(row) => row?,
            Err(e) => {
                tracing::warn!(error = %e, "a session could not be looked up");
                return None;
            }
        };
        let session = Session {
            id: row.id,
            name: row.name,
            unlocked: row.unlocked,
        };
        let used = Instant::now();
        let mut cache = self.cache();
        // Another request may have loaded (or a room changed) it meanwhile: that one wins.
        let s = cache
            .entry(hash.clone())
            .or_insert(Cached {
                session,
                used,
                seen_written: used,
            })
            .session
            .clone();
        drop(cache);
        self.persist(&hash, &s);
        Some(s)
    }

    /// A cached session as the database has it now, when other nodes share the database
    /// (PostgreSQL): a level unlocked by a round on another node counts here from the next
    /// time the token reaches this node. A database that does not answer leaves the cached
    /// session as it is.
    async fn refreshed(&self, hash: &str, session: Session) -> Session {
        let Some(store) = self.store.get() else {
            return session;
        };
        if store.dialect() != crate::store::db::Dialect::Postgres {
            return session;
        }
        self.lookups.fetch_add(1, Relaxed);
        let Ok(Some(row)) = crate::store::sessions::find(store, hash).await else {
            return session;
        };
        let mut cache = self.cache();
        match cache.get_mut(hash) {
            Some(c) if row.unlocked > c.session.unlocked => {
                c.session.unlocked = row.unlocked;
                c.session.clone()
            }
            Some(c) => c.session.clone(),
            None => session,
        }
    }

    /// The session of a token, created (level 1 unlocked) the first time it is seen. A
    /// non-empty `name` renames it. (The edges `load` a token first, so a session that
    /// exists is found here.)
    pub fn touch(&self, token: &str, name: Option<&str>) -> Session {
        let hash = self.hash(token);
        let mut map = self.cache();
        let mut changed = !map.contains_key(&hash);
        let c = map.entry(hash.clone()).or_insert_with(|| Cached {
            session: Session {
                id: random::hex(8),
                name: "Cook".to_string(),
                unlocked: 1,
            },
            used: Instant::now(),
            seen_written: Instant::now(),
        });
        c.used = Instant::now();
        if let Some(n) = name.filter(|n| !n.is_empty() && *n != c.session.name) {
            c.session.name = n.to_string();
            changed = true;
        }
        let s = c.session.clone();
        drop(map);
        if changed {
            self.persist(&hash, &s);
        }
        s
    }

    /// The cached session of a token.
    pub fn get(&self, token: &str) -> Option<Session> {
        self.cache()
            .get(&self.hash(token))
            .map(|c| c.session.clone())
    }

    /// Raises a session's unlocked level to at least `order` (the database gets it with
    /// the round's result).
    pub fn unlock(&self, token: &str, order: u32) {
        if let Some(c) = self.cache().get_mut(&self.hash(token)) {
            c.session.unlocked = c.session.unlocked.max(order);
            c.used = Instant::now();
        }
    }

    /// Marks these tokens' sessions as in use (a room's players), so they stay cached;
    /// their `last_seen` is written again once an hour.
    pub fn keep<'a>(&self, tokens: impl Iterator<Item = &'a str>) {
        let hashes: Vec<String> = tokens.map(|t| self.hash(t)).collect();
        let now = Instant::now();
        let mut seen = Vec::new();
        let mut cache = self.cache();
        for h in hashes {
            if let Some(c) = cache.get_mut(&h) {
                c.used = now;
                if now.duration_since(c.seen_written) >= SEEN_EVERY {
                    c.seen_written = now;
                    seen.push((h, c.session.clone()));
                }
            }
        }
        drop(cache);
        for (h, s) in seen {
            self.persist(&h, &s);
        }
    }

    /// Drops the sessions nobody used for `idle` from the cache (the database keeps them):
    /// how many were dropped.
    pub fn evict_idle(&self, idle: Duration) -> usize {
        let now = Instant::now();
        let mut cache = self.cache();
        let before = cache.len();
        cache.retain(|_, c| now.duration_since(c.used) < idle);
        before - cache.len()
    }

    /// Sessions cached now.
    pub fn cached(&self) -> usize {
        self.cache().len()
    }
}
