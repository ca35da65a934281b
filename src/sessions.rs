//! Player sessions: who a token is, the name it goes by, and how far its campaign goes.
//!
//! A session is keyed by its token and carries a separate, random, non-secret `id` that
//! replay headers and (later) the history use, so the token itself is never written
//! anywhere. Progress lives in memory behind this interface until the history issue
//! persists it in SQLite.

use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Non-secret and random: safe in replays, logs and frames.
    pub id: String,
    pub name: String,
    /// The highest campaign `order` this session may play.
    pub unlocked: u32,
}

/// 128 random bits as 32 lowercase hex characters (tokens, session ids, seeds).
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    // The OS generator failing is not something a server can go on without.
    getrandom::fill(&mut buf).expect("the OS random number generator is available");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Default)]
pub struct Sessions {
    by_token: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    /// The session of a token, created (level 1 unlocked) the first time it is seen. A
    /// non-empty `name` renames it.
    pub fn touch(&self, token: &str, name: Option<&str>) -> Session {
        let mut map = self.by_token.lock().unwrap_or_else(|p| p.into_inner());
        let s = map.entry(token.to_string()).or_insert_with(|| Session {
            id: random_hex(8),
            name: "Cook".to_string(),
            unlocked: 1,
        });
        if let Some(n) = name.filter(|n| !n.is_empty()) {
            s.name = n.to_string();
        }
        s.clone()
    }

    pub fn get(&self, token: &str) -> Option<Session> {
        self.by_token
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .cloned()
    }

    /// Raises a session's unlocked level to at least `order`.
    pub fn unlock(&self, token: &str, order: u32) {
        if let Some(s) = self
            .by_token
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(token)
        {
            s.unlocked = s.unlocked.max(order);
        }
    }
}
