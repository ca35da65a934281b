//! Player sessions: who a token is, the name it goes by, and how far its campaign goes.
//!
//! Sessions are kept by the SHA-256 of their token (never the token) and carry a separate,
//! random, non-secret `id` that replay headers and the history use. The map is the server's
//! working copy; with a database every new session, rename and unlock is persisted through
//! the write chain (as a `Must`: never dropped), and the map is loaded from it at start, so
//! progress survives restarts.

use crate::store::chain::{Chain, Must};
use crate::store::rows::SessionRow;
use crate::store::token_hash;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Non-secret and random: safe in replays, logs and frames.
    pub id: String,
    pub name: String,
    /// The highest campaign `order` this session may play.
    pub unlocked: u32,
}

/// `bytes` random bytes as lowercase hex (tokens, session ids, seeds).
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS generator failing is not something a server can go on without.
    getrandom::fill(&mut buf).expect("the OS random number generator is available");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Default)]
pub struct Sessions {
    by_hash: Mutex<HashMap<String, Session>>,
    chain: OnceLock<Chain>,
}

impl Sessions {
    /// Persists through this chain from now on.
    pub fn persist_with(&self, chain: Chain) {
        let _ = self.chain.set(chain);
    }

    /// Loads sessions the database already has.
    pub fn preload(&self, rows: Vec<SessionRow>) {
        let mut map = self.by_hash.lock().unwrap_or_else(|p| p.into_inner());
        for r in rows {
            map.insert(
                r.token_hash,
                Session {
                    id: r.id,
                    name: r.name,
                    unlocked: r.unlocked,
                },
            );
        }
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

    /// The session of a token, created (level 1 unlocked) the first time it is seen. A
    /// non-empty `name` renames it.
    pub fn touch(&self, token: &str, name: Option<&str>) -> Session {
        let hash = token_hash(token);
        let mut map = self.by_hash.lock().unwrap_or_else(|p| p.into_inner());
        let mut changed = !map.contains_key(&hash);
        let s = map.entry(hash.clone()).or_insert_with(|| Session {
            id: random_hex(8),
            name: "Cook".to_string(),
            unlocked: 1,
        });
        if let Some(n) = name.filter(|n| !n.is_empty() && *n != s.name) {
            s.name = n.to_string();
            changed = true;
        }
        let s = s.clone();
        drop(map);
        if changed {
            self.persist(&hash, &s);
        }
        s
    }

    pub fn get(&self, token: &str) -> Option<Session> {
        self.by_hash
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&token_hash(token))
            .cloned()
    }

    /// Raises a session's unlocked level to at least `order` (the database gets it with
    /// the round's result).
    pub fn unlock(&self, token: &str, order: u32) {
        if let Some(s) = self
            .by_hash
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&token_hash(token))
        {
            s.unlocked = s.unlocked.max(order);
        }
    }
}
