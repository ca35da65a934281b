//! A round's live log on its way to PostgreSQL, on a cluster node (`store::log_stream`):
//! once a second, at the room's flush, the bytes its replay file took since the last time
//! are handed over as one chunk. While the stream's writer is behind (a room's chunks not
//! yet written reach `log_stream::MAX_PENDING`), the room keeps its bytes and hands them
//! over later in one piece, so the stored log never has a gap; nothing here waits.

use crate::shared::Shared;
use crate::store::log_stream::Chunk;
use crate::store::replay_file::ReplayFile;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

pub(super) struct Streaming {
    round_key: Arc<str>,
    room_code: Arc<str>,
    /// Bytes taken from the file and not yet handed over, and where they start in it.
    held: Vec<u8>,
    start: u64,
    pending: Arc<AtomicUsize>,
}

impl Streaming {
    pub fn new(round_key: &str, room_code: &str) -> Streaming {
        Streaming {
            round_key: round_key.into(),
            room_code: room_code.into(),
            held: Vec::new(),
            start: 0,
            pending: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Takes what `file` took since the last call and hands it over, or keeps it while the
    /// writer is behind.
    pub fn hand_over(&mut self, shared: &Shared, file: &mut ReplayFile) {
        let Some(stream) = shared.log_stream() else {
            return;
        };
        if let Some((start, bytes)) = file.take_tapped() {
            if self.held.is_empty() {
                self.start = start;
            }
            self.held.extend_from_slice(&bytes);
        }
        if self.held.is_empty() {
            return;
        }
        let chunk = Chunk {
            round_key: self.round_key.clone(),
            room_code: self.room_code.clone(),
            start: self.start,
            bytes: std::mem::take(&mut self.held),
            pending: self.pending.clone(),
        };
        let len = chunk.bytes.len() as u64;
        match stream.submit(chunk) {
            Ok(()) => self.start += len,
            Err(chunk) => self.held = chunk.bytes,
        }
    }
}
