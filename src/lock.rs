//! The poison-tolerant lock: a leaf below every module that shares a map, a queue or a
//! connection between threads or tasks.
//!
//! Each of those locks guards something its holder changes in one step (an insert, a push,
//! a swap, one socket's read or write), so a panic elsewhere never leaves it half-changed,
//! and refusing every later caller would turn one panic into a dead server.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, taking it over when a panic poisoned it.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
