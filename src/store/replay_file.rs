//! A live round's replay file, which holds its bytes in memory while the disk refuses them.
//!
//! The round writes through this instead of a `BufWriter<File>`. Bytes are buffered (8 KiB,
//! as a `BufWriter` would) and appended to the file; when the file refuses them (disk full,
//! read-only, an I/O error) they stay in memory, in order, and the next flush (the room
//! flushes once a second) tries again from the first byte the file did not take,
//! so the file ends up exactly as if nothing had happened. The round plays on meanwhile: a
//! full disk no longer aborts every live round. Memory is bounded: past 8 MiB held by one
//! round, or 64 MiB by all rounds together, a write fails and the round is aborted as
//! before (a 150 s round's replay is under 256 KB, so this takes a long outage). At the
//! round's end the file goes to the process's `Rescue` (`Rescue::close`), which keeps
//! trying what is still held once a second and, at shutdown, writes it to the rescue folder.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Bytes gathered before a write to the file is attempted.
const BUFFER: usize = 8 * 1024;
/// Bytes one round may hold while the file refuses them.
const ROUND_LIMIT: usize = 8 << 20;
/// Bytes all rounds together may hold.
const PROCESS_LIMIT: usize = 64 << 20;

/// Bytes held by every live replay file beyond its buffer.
static HELD: AtomicUsize = AtomicUsize::new(0);

pub struct ReplayFile {
    file: File,
    path: PathBuf,
    /// Bytes the file has taken: where `pending` starts in it.
    written: u64,
    pending: Vec<u8>,
    /// What of `pending` is counted in `HELD` (the part beyond one buffer).
    counted: usize,
    /// Set while the file refuses writes (logged once per outage).
    refusing: bool,
    /// In a cluster, a copy of every byte written since the room last took it, for the
    /// live log stream (`store::log_stream`); `None` when nothing streams.
    tap: Option<Vec<u8>>,
}

impl ReplayFile {
    pub fn create(path: PathBuf) -> io::Result<ReplayFile> {
        Ok(ReplayFile {
            file: File::create(&path)?,
            path,
            written: 0,
            pending: Vec::with_capacity(BUFFER),
            counted: 0,
            refusing: false,
            tap: None,
        })
    }

    /// Keeps a copy of every byte from now on for `take_tapped` (the live log stream).
    pub fn tap(mut self) -> ReplayFile {
        self.tap = Some(Vec::new());
        self
    }

    /// The bytes written since the last call, and where they start in the file; `None`
    /// when the file is not tapped.
    pub fn take_tapped(&mut self) -> Option<(u64, Vec<u8>)> {
        let tap = self.tap.as_mut()?;
        let bytes = std::mem::take(tap);
        let start = self.written + self.pending.len() as u64 - bytes.len() as u64;
        Some((start, bytes))
    }

    /// The file of a round being resumed, cut back to its first `len` bytes (where its
    /// last closed tick ends); writes go on from there.
    pub fn reopen(path: PathBuf, len: u64) -> io::Result<ReplayFile> {
        use std::io::Seek;
        let mut file = File::options().write(true).open(&path)?;
        file.set_len(len)?;
        file.seek(io::SeekFrom::Start(len))?;
        Ok(ReplayFile {
            file,
            path,
            written: len,
            pending: Vec::with_capacity(BUFFER),
            counted: 0,
            refusing: false,
            tap: None,
        })
    }

    /// Appends what the file will take; false while it refuses.
    pub(super) fn drain(&mut self) -> bool {
        let mut taken = 0;
        let result = loop {
            if taken == self.pending.len() {
                break Ok(());
            }
            match self.file.write(&self.pending[taken..]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => taken += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        self.pending.drain(..taken);
        self.written += taken as u64;
        self.recount();
        match result {
            Ok(()) => {
                if std::mem::take(&mut self.refusing) {
                    tracing::warn!(path = %self.path.display(), "the replay file takes writes again; nothing was lost");
                }
                true
            }
            Err(e) => {
                if !std::mem::replace(&mut self.refusing, true) {
                    tracing::error!(path = %self.path.display(), error = %e, held = self.pending.len(), "the replay file refuses writes; the round plays on and its bytes are held in memory");
                }
                false
            }
        }
    }

    /// Whether `n` more bytes may be held, by this round and by all of them.
    fn fits(&self, n: usize) -> bool {
        self.pending.len() + n <= ROUND_LIMIT && HELD.load(Relaxed) + n <= PROCESS_LIMIT
    }

    fn recount(&mut self) {
        let now = self.pending.len().saturating_sub(BUFFER);
        // Most writes leave the count as it was: no touch of the process-wide figure, which
        // every room's thread shares (an atomic write per record showed in the profile).
        if now == self.counted {
            return;
        }
        if now > self.counted {
            HELD.fetch_add(now - self.counted, Relaxed);
        } else {
            HELD.fetch_sub(self.counted - now, Relaxed);
        }
        self.counted = now;
    }

    /// The file, where in it the held bytes start, and the held bytes.
    pub(super) fn tail(&self) -> (&std::path::Path, u64, &[u8]) {
        (&self.path, self.written, &self.pending)
    }

    /// Forgets the held bytes (they were written elsewhere, or reported as lost).
    pub(super) fn forget(&mut self) {
        self.pending.clear();
        self.recount();
    }
}

impl Write for ReplayFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Only a refusing file holds more than its buffer, so only then do the bounds
        // matter (one more try before giving up); a writing round pays nothing for them.
        if self.refusing && !self.fits(buf.len()) {
            self.drain();
            if !self.fits(buf.len()) {
                return Err(io::Error::other(format!(
                    "{} refuses writes and the bytes held for it reached the limit",
                    self.path.display()
                )));
            }
        }
        self.pending.extend_from_slice(buf);
        if let Some(tap) = &mut self.tap {
            tap.extend_from_slice(buf);
        }
        // While the file refuses, it is tried again at the next flush, not at every write.
        if self.pending.len() >= BUFFER && !self.refusing {
            self.drain();
        }
        self.recount();
        Ok(buf.len())
    }

    /// Never fails while the bytes fit in memory: a refusing file is retried at the next.
    fn flush(&mut self) -> io::Result<()> {
        if self.drain() {
            self.file.flush()?;
        }
        Ok(())
    }
}

impl Drop for ReplayFile {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            self.drain();
        }
        HELD.fetch_sub(self.counted, Relaxed);
        self.counted = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A replay file over `/dev/full`, which refuses every write with ENOSPC as a full disk
    /// does; `None` where there is no such device.
    fn on_a_full_disk(path: PathBuf) -> Option<ReplayFile> {
        let full = File::options().write(true).open("/dev/full").ok()?;
        Some(ReplayFile {
            file: full,
            path,
            written: 0,
            pending: Vec::new(),
            counted: 0,
            refusing: false,
            tap: None,
        })
    }

    #[test]
    fn bytes_refused_by_the_file_are_held_and_written_in_order_later() {
        let dir = std::env::temp_dir().join(format!("uc-replay-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.ucr");
        let Some(mut f) = on_a_full_disk(path.clone()) else {
            return;
        };
        let bytes: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        for chunk in bytes.chunks(1000) {
            assert_eq!(f.write(chunk).unwrap(), chunk.len());
        }
        f.flush().unwrap();
        assert_eq!(
            f.pending.len(),
            bytes.len(),
            "the disk took nothing; everything is held"
        );
        // The disk has room again.
        f.file = File::create(&path).unwrap();
        f.flush().unwrap();
        assert_eq!(f.pending.len(), 0);
        drop(f);
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }

    #[test]
    fn a_round_holds_at_most_its_limit() {
        let Some(mut f) = on_a_full_disk(PathBuf::from("/dev/full")) else {
            return;
        };
        let chunk = vec![0u8; 1 << 20];
        let mut accepted = 0;
        while f.write(&chunk).is_ok() {
            accepted += 1;
            assert!(accepted <= 8, "held more than 8 MiB");
        }
        assert_eq!(accepted, 8);
    }
}
