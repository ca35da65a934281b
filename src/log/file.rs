//! The replay file: a write-ahead log of records.
//!
//! Layout: the 8-byte magic `UCREPLAY`, the format version (u16 little-endian), two
//! reserved bytes, then records, each `len: LEB128 varint | crc32(payload): u32 LE |
//! payload` with the payload a bincode (standard config) `Record`. A crash can only cut the file:
//! a record that runs past the end is a *torn tail* (the prefix before it still replays),
//! while a complete record whose checksum fails is *corruption*. The reader never panics.

use super::records::Record;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"UCREPLAY";
pub use super::records::FORMAT_VERSION;
pub const PREAMBLE_LEN: usize = 12;
/// No record is anywhere near this big; a larger length is corruption, not a big record.
pub const MAX_RECORD_LEN: u32 = 16 << 20;

/// Appends records to any writer (a file, a buffer).
pub struct ReplayWriter<W: Write> {
    out: W,
    /// A record's payload, and the whole record (length, checksum, payload), written in
    /// one piece: both kept, so a record (a live room appends about five a tick)
    /// allocates nothing.
    payload: Vec<u8>,
    record: Vec<u8>,
}

impl<W: Write> ReplayWriter<W> {
    pub fn new(mut out: W) -> io::Result<ReplayWriter<W>> {
        let mut preamble = [0u8; PREAMBLE_LEN];
        preamble[..8].copy_from_slice(MAGIC);
        preamble[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.write_all(&preamble)?;
        Ok(ReplayWriter {
            out,
            payload: Vec::new(),
            record: Vec::new(),
        })
    }

    /// A writer that appends to a file already holding a preamble and records (a resumed
    /// round's, cut back to where it resumes).
    pub fn continuing(out: W) -> ReplayWriter<W> {
        ReplayWriter {
            out,
            payload: Vec::new(),
            record: Vec::new(),
        }
    }

    pub fn append(&mut self, record: &Record) -> io::Result<()> {
        self.record.clear();
        self.payload.clear();
        bincode::serde::encode_into_std_write(
            record,
            &mut self.payload,
            bincode::config::standard(),
        )
        .map_err(io::Error::other)?;
        let mut len = self.payload.len() as u64;
        loop {
            let byte = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                self.record.push(byte);
                break;
            }
            self.record.push(byte | 0x80);
        }
        self.record
            .extend_from_slice(&crc32fast::hash(&self.payload).to_le_bytes());
        self.record.extend_from_slice(&self.payload);
        self.out.write_all(&self.record)?;
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Why a file cannot be read at all (verify's exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}byte {offset}: {reason}", record.map_or(String::new(), |n| format!("record {n} at ")))]
pub struct Unreadable {
    pub offset: usize,
    /// The 0-based record number where it went wrong, when past the preamble.
    pub record: Option<usize>,
    pub reason: String,
}

fn bad(offset: usize, record: Option<usize>, reason: impl Into<String>) -> Unreadable {
    Unreadable {
        offset,
        record,
        reason: reason.into(),
    }
}

/// A file read as far as it goes.
#[derive(Debug, Clone)]
pub struct ReplayRead {
    pub records: Vec<Record>,
    /// The byte offset just past each record (where a resume may cut the file).
    pub ends: Vec<usize>,
    /// The byte offset where a torn (incomplete) last record starts, if the file has one.
    pub torn_at: Option<usize>,
}

/// Reads a whole replay. Corruption and foreign files are `Err`; a torn tail is not.
pub fn read_replay(bytes: &[u8]) -> Result<ReplayRead, Unreadable> {
    check_preamble(bytes)?;
    let mut records = Vec::new();
    let mut ends = Vec::new();
    let mut at = PREAMBLE_LEN;
    while at < bytes.len() {
        let n = records.len();
        let Some((record, len)) = read_record(&bytes[at..], at, n)? else {
            return Ok(ReplayRead {
                records,
                ends,
                torn_at: Some(at),
            });
        };
        if (n == 0) != matches!(record, Record::Started(_)) {
            let why = if n == 0 {
                "the first record is not a Started header"
            } else {
                "a second Started header"
            };
            return Err(bad(at, Some(n), why));
        }
        records.push(record);
        at += len;
        ends.push(at);
    }
    Ok(ReplayRead {
        records,
        ends,
        torn_at: None,
    })
}

/// The magic, the format version and the reserved bytes.
fn check_preamble(bytes: &[u8]) -> Result<(), Unreadable> {
    if bytes.is_empty() {
        return Err(bad(0, None, "the file is empty"));
    }
    if bytes.len() < PREAMBLE_LEN {
        let is_prefix = MAGIC.starts_with(&bytes[..bytes.len().min(8)]);
        let why = if is_prefix {
            "the file ends inside its preamble"
        } else {
            "not an Undercooked replay (bad magic)"
        };
        return Err(bad(0, None, why));
    }
    if &bytes[..8] != MAGIC {
        return Err(bad(0, None, "not an Undercooked replay (bad magic)"));
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    if version > FORMAT_VERSION {
        return Err(bad(
            8,
            None,
            format!("format version {version} is newer than this build reads ({FORMAT_VERSION})"),
        ));
    }
    if bytes[10] != 0 || bytes[11] != 0 {
        return Err(bad(
            10,
            None,
            "the reserved preamble bytes are not zero (corrupt or foreign)",
        ));
    }
    if version == 0 {
        return Err(bad(8, None, "format version 0 does not exist"));
    }
    Ok(())
}

/// The record `n` at the start of `rest` (file offset `at`) and the bytes it takes, or
/// `None` when the file ends inside it (a torn tail).
fn read_record(rest: &[u8], at: usize, n: usize) -> Result<Option<(Record, usize)>, Unreadable> {
    // The length: a LEB128 varint of at most 4 bytes (MAX_RECORD_LEN fits in 4).
    let mut len: u64 = 0;
    let mut used = 0;
    loop {
        let Some(&byte) = rest.get(used) else {
            return Ok(None);
        };
        len |= ((byte & 0x7f) as u64) << (7 * used);
        used += 1;
        if byte & 0x80 == 0 {
            break;
        }
        if used >= 4 {
            return Err(bad(
                at,
                Some(n),
                "record length field is corrupt (too long)",
            ));
        }
    }
    if len > MAX_RECORD_LEN as u64 {
        return Err(bad(
            at,
            Some(n),
            format!("record length {len} is implausible (corrupt length field)"),
        ));
    }
    let head = used + 4;
    let end = head + len as usize;
    if rest.len() < end {
        return Ok(None);
    }
    let crc = u32::from_le_bytes([rest[used], rest[used + 1], rest[used + 2], rest[used + 3]]);
    let payload = &rest[head..end];
    if crc32fast::hash(payload) != crc {
        return Err(bad(
            at,
            Some(n),
            "checksum mismatch (the record is corrupt)",
        ));
    }
    // The decode limit makes a length a record claims (a string's, a list's) an error
    // before anything is allocated for it: without it bincode allocates what a corrupt
    // varint says, 2^50 bytes included, and the process aborts.
    let config = bincode::config::standard().with_limit::<{ MAX_RECORD_LEN as usize }>();
    match bincode::serde::decode_from_slice(payload, config) {
        Ok((record, used)) if used == payload.len() => Ok(Some((record, end))),
        Ok(_) => Err(bad(at, Some(n), "record has trailing bytes")),
        Err(
            bincode::error::DecodeError::LimitExceeded
            | bincode::error::DecodeError::UnexpectedEnd { .. },
        ) => Err(bad(
            at,
            Some(n),
            format!(
                "record claims a length past its {} bytes (a corrupt length field)",
                payload.len()
            ),
        )),
        Err(e) => Err(bad(at, Some(n), format!("record does not decode: {e}"))),
    }
}

/// The largest replay file a reader takes: a 150 s round is under 256 KB and an hour at the
/// protocol's highest input rate about 16 MB, so past this a file is not a round.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// Why a replay file's bytes could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("the file is {0} bytes; a replay file is at most 256 MiB")]
    TooBig(u64),
}

/// A replay file's bytes, refused past `MAX_FILE_BYTES` before it is read (and if it grew
/// past it while being read): a reader never holds more than that of one file.
pub fn read_file(path: &Path) -> Result<Vec<u8>, FileError> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > MAX_FILE_BYTES {
        return Err(FileError::TooBig(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(FileError::TooBig(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Every replay file (`*.ucr`) in `dir`, sorted by name.
pub fn replay_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ucr"))
        .collect();
    files.sort();
    Ok(files)
}
