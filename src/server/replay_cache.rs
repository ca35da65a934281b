//! The replay API's answers, kept per file and built off the HTTP runtime.
//!
//! A 3,000-tick round's `/frames` answer took 14 ms of CPU to build (the attack report's
//! figure) and is 250 KB gzipped, the same for every viewer: the answer is built once on
//! tokio's blocking pool and kept, keyed by the file's path, length and modification time (a
//! file rewritten is built again), or for a replay stored in PostgreSQL
//! (`store::stored_replays`) by its round key and stored size. The `.ucr` file itself
//! (`/file`) is kept the same way, so a thousand downloads of one round read the disk once
//! and share one buffer. The cache holds at most `MAX_ENTRIES` answers and its byte budget in
//! all (`UNDERCOOKED_REPLAY_CACHE_MB`, `DEFAULT_MB` by default), dropping the least recently
//! used; an answer bigger than `MAX_ENTRY_BYTES` (or than the budget) is served but not kept.
//! At most `DECODERS` files are read and decoded at once, so requests for many crafted files
//! cannot hold more than that many decodes' memory (each bounded by the readers' limits), and
//! each address holds at most its share of the requests (`replay_shares`).

use super::replay_decode::Decoded;
use super::replay_shares::{ReplayShares, Share};
use crate::log::FileError;
use crate::shared::admission::Source;
use crate::store::stored_replays;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
use tokio::sync::Semaphore;

/// Answers kept.
pub const MAX_ENTRIES: usize = 32;
/// Mebibytes kept in all unless `UNDERCOOKED_REPLAY_CACHE_MB` says otherwise (a 3,000-tick
/// round's frames are about 2 MB plain and 250 KB gzip, its file about 100 KB).
pub const DEFAULT_MB: usize = 64;
/// The largest answer kept.
pub const MAX_ENTRY_BYTES: usize = 16 << 20;
/// Files read and decoded at once: twice an address's share (`replay_shares::PER_ADDRESS`),
/// so one address never holds them all.
pub const DECODERS: usize = 2 * super::replay_shares::PER_ADDRESS;

/// Which answer of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Round,
    Frames,
    /// The file's bytes as they are (`/file`).
    File,
}

/// Where a replay's bytes are.
#[derive(Clone, Debug)]
pub enum Place {
    /// A file on this node's disk.
    File(PathBuf),
    /// A replay stored in PostgreSQL, by round key, with its stored size.
    Stored {
        store: crate::store::Store,
        round_key: String,
        size: i64,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Origin {
    File {
        path: PathBuf,
        len: u64,
        modified: Option<SystemTime>,
    },
    Stored {
        round_key: String,
        size: i64,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Key {
    origin: Origin,
    kind: Kind,
}

/// Why there is no answer to give.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The file cannot be opened or read (it is gone), or the stored copy is no longer there.
    #[error("{0}")]
    Gone(std::io::Error),
    /// The database did not answer.
    #[error("the stored replay could not be read: {0}")]
    Database(String),
    /// The blocking task did not finish (the runtime is shutting down).
    #[error("the decoding task failed: {0}")]
    Task(String),
}

pub struct ReplayCache {
    /// (key, answer, its size), the most recently used at the back.
    entries: Mutex<VecDeque<(Key, Arc<Decoded>, usize)>>,
    /// Bytes kept in all.
    budget: usize,
    decoders: Semaphore,
    shares: Arc<ReplayShares>,
}

impl Default for ReplayCache {
    fn default() -> ReplayCache {
        ReplayCache::new(DEFAULT_MB << 20)
    }
}

impl ReplayCache {
    /// A cache keeping at most `budget` bytes of answers.
    pub fn new(budget: usize) -> ReplayCache {
        ReplayCache {
            entries: Mutex::new(VecDeque::new()),
            budget,
            decoders: Semaphore::new(DECODERS),
            shares: Arc::new(ReplayShares::default()),
        }
    }

    /// A place for a request from `from` in its address's share (waiting its turn up to
    /// `replay_shares::WAIT`), or `None` past it (the request is refused).
    pub async fn share(&self, from: Option<Source>) -> Option<Share> {
        self.shares.take(from, super::replay_shares::WAIT).await
    }

    /// The `kind` answer for the replay at `source`, from the cache or built now.
    pub async fn get(&self, source: &Place, kind: Kind) -> Result<Arc<Decoded>, CacheError> {
        let key = match source {
            Place::File(path) => {
                blocking({
                    let path = path.clone();
                    move || key_of(path, kind)
                })
                .await??
            }
            Place::Stored {
                round_key, size, ..
            } => Key {
                origin: Origin::Stored {
                    round_key: round_key.clone(),
                    size: *size,
                },
                kind,
            },
        };
        if let Some(hit) = self.find(&key) {
            return Ok(hit);
        }
        // One decode per permit; a request that waited may find its answer built meanwhile.
        let _permit = self
            .decoders
            .acquire()
            .await
            .map_err(|e| CacheError::Task(e.to_string()))?;
        if let Some(hit) = self.find(&key) {
            return Ok(hit);
        }
        // The stored bytes are fetched under the permit too: at most `DECODERS` replays'
        // bytes are held at once, whichever their source.
        type Read = Box<dyn FnOnce() -> Result<Vec<u8>, FileError> + Send>;
        let read: Read = match source {
            Place::File(path) => {
                let path = path.clone();
                Box::new(move || crate::log::read_file(&path))
            }
            Place::Stored {
                store, round_key, ..
            } => {
                let got = match stored_replays::fetch(store, round_key).await {
                    Ok(Some((bytes, _))) => Ok(bytes),
                    Ok(None) => {
                        let why = format!(
                            "the stored replay of round {round_key} is no longer in the database"
                        );
                        return Err(CacheError::Gone(std::io::Error::other(why)));
                    }
                    Err(stored_replays::GetError::TooBig(n)) => Err(FileError::TooBig(n)),
                    Err(e) => return Err(CacheError::Database(e.to_string())),
                };
                Box::new(move || got)
            }
        };
        let decoded = blocking(move || {
            let bytes = match read() {
                Ok(b) => b,
                Err(crate::log::FileError::Io(e)) => return Err(CacheError::Gone(e)),
                Err(e) => return Ok(Decoded::Unreadable(e.to_string())),
            };
            Ok::<_, CacheError>(match kind {
                Kind::Round => super::replay_decode::round(&bytes),
                Kind::Frames => super::replay_decode::frames(&bytes),
                Kind::File => Decoded::File(bytes::Bytes::from(bytes)),
            })
        })
        .await??;
        let decoded = Arc::new(decoded);
        self.keep(key, decoded.clone());
        Ok(decoded)
    }

    fn find(&self, key: &Key) -> Option<Arc<Decoded>> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let at = entries.iter().position(|(k, _, _)| k == key)?;
        let entry = entries.remove(at)?;
        let hit = entry.1.clone();
        entries.push_back(entry);
        Some(hit)
    }

    fn keep(&self, key: Key, decoded: Arc<Decoded>) {
        let size = decoded.bytes();
        if size > MAX_ENTRY_BYTES.min(self.budget) {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.retain(|(k, _, _)| k != &key);
        entries.push_back((key, decoded, size));
        let mut total: usize = entries.iter().map(|(_, _, n)| n).sum();
        while entries.len() > MAX_ENTRIES || total > self.budget {
            let Some((_, _, dropped)) = entries.pop_front() else {
                break;
            };
            total -= dropped;
        }
    }
}

/// The file's cache key (its length and modification time are read now).
fn key_of(path: PathBuf, kind: Kind) -> Result<Key, CacheError> {
    let meta = std::fs::metadata(&path).map_err(CacheError::Gone)?;
    Ok(Key {
        origin: Origin::File {
            len: meta.len(),
            modified: meta.modified().ok(),
            path,
        },
        kind,
    })
}

/// `f` on tokio's blocking pool, so file reads and decoding never hold an HTTP worker.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, CacheError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| CacheError::Task(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_is_built_once_per_file_version_and_the_cache_stays_bounded() {
        let dir = std::env::temp_dir().join(format!("uc-replay-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/replays/01_first_kitchen.ucr");
        let file = dir.join("round.ucr");
        std::fs::copy(golden, &file).unwrap();
        let cache = ReplayCache::default();
        // The same file twice: one build, the same answer.
        let a = cache
            .get(&Place::File(file.clone()), Kind::Frames)
            .await
            .unwrap();
        let b = cache
            .get(&Place::File(file.clone()), Kind::Frames)
            .await
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert!(matches!(&*a, Decoded::Frames { .. }));
        // The file rewritten (another length): built again, and what it now is.
        std::fs::write(&file, b"UCREPLAY").unwrap();
        let c = cache
            .get(&Place::File(file.clone()), Kind::Frames)
            .await
            .unwrap();
        assert!(matches!(&*c, Decoded::Unreadable(_)));
        // Many files: never more than MAX_ENTRIES kept.
        for n in 0..MAX_ENTRIES + 5 {
            let f = dir.join(format!("{n}.ucr"));
            std::fs::write(&f, format!("not a replay {n}")).unwrap();
            cache
                .get(&Place::File(f.clone()), Kind::Round)
                .await
                .unwrap();
        }
        let kept = cache.entries.lock().unwrap().len();
        assert_eq!(kept, MAX_ENTRIES);
        assert!(matches!(
            cache
                .get(&Place::File(dir.join("gone.ucr")), Kind::Round)
                .await,
            Err(CacheError::Gone(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_file_is_read_once_for_every_download_and_the_byte_budget_holds() {
        let dir = std::env::temp_dir().join(format!("uc-replay-budget-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/replays/01_first_kitchen.ucr");
        let len = std::fs::metadata(golden).unwrap().len() as usize;
        // Room for two of the files, not three.
        let cache = ReplayCache::new(2 * len + len / 2);
        let files: Vec<_> = (0..3)
            .map(|n| {
                let f = dir.join(format!("{n}.ucr"));
                std::fs::copy(golden, &f).unwrap();
                f
            })
            .collect();
        let a = cache
            .get(&Place::File(files[0].clone()), Kind::File)
            .await
            .unwrap();
        let b = cache
            .get(&Place::File(files[0].clone()), Kind::File)
            .await
            .unwrap();
        assert!(Arc::ptr_eq(&a, &b), "one read, one buffer");
        let Decoded::File(bytes) = &*a else {
            panic!("not the file");
        };
        assert_eq!(&bytes[..], &std::fs::read(golden).unwrap()[..]);
        for f in &files[1..] {
            cache
                .get(&Place::File(f.clone()), Kind::File)
                .await
                .unwrap();
        }
        let entries = cache.entries.lock().unwrap();
        let kept: usize = entries.iter().map(|(_, _, n)| n).sum();
        assert_eq!(entries.len(), 2, "the oldest dropped");
        assert!(kept <= cache.budget, "{kept} bytes kept");
        drop(entries);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
