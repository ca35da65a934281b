//! The crafted replay files of issue 23's attack, built with the project's own writer and
//! records plus hand-built bytes. Each claims far more than it holds: before the readers
//! were bounded, each aborted `verify`, `replay` and `reindex` or took gigabytes, and one
//! killed the server through `/frames`. They are committed to the fuzz corpus
//! (`fuzz/corpus/replay_file/crafted-*`, checked against these builders by
//! `tests/sim/fuzz_corpus.rs`), and `tests/cli.rs` and `tests/live/replay_attacks.rs` run
//! the committed files through every command and the server.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use undercooked::log::file::MAX_RECORD_LEN;
use undercooked::log::{Header, Record, ReplayWriter};
use zstd::zstd_safe::zstd_sys::ZSTD_EndDirective;
use zstd::zstd_safe::{CCtx, CParameter, InBuffer, OutBuffer};

/// One crafted file: its name in the corpus, how to build it, and what every reader must
/// say about it (a fragment of the `unreadable: …` message).
pub struct Crafted {
    pub name: &'static str,
    pub build: fn() -> Vec<u8>,
    pub says: &'static str,
}

pub fn all() -> Vec<Crafted> {
    vec![
        Crafted {
            name: "crafted-huge-level-text",
            build: huge_level_text,
            says: "record claims a length past its",
        },
        Crafted {
            name: "crafted-newline-block",
            build: newline_block,
            says: "recorded frame 0 is empty",
        },
        Crafted {
            name: "crafted-forty-blocks",
            build: forty_blocks,
            says: "recorded frame 0 is longer than 1 MiB",
        },
        Crafted {
            name: "crafted-wrong-pass",
            build: wrong_pass,
            says: "frames start at pass 1, expected 0",
        },
        Crafted {
            name: "crafted-more-frames",
            build: more_frames,
            says: "more recorded frames than passes",
        },
        Crafted {
            name: "crafted-empty-frame",
            build: empty_frame,
            says: "recorded frame 1 is empty",
        },
    ]
}

/// The committed copy of a crafted file.
pub fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus/replay_file")
        .join(name)
}

/// A header of the first campaign level, 20 Hz, no seats.
fn header() -> Header {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    let text = std::fs::read_to_string(dir.join("01_first_kitchen.toml")).unwrap();
    Header::new("01_first_kitchen.toml", &text, 1, 20)
}

fn file_of(records: &[Record]) -> Vec<u8> {
    let mut w = ReplayWriter::new(Vec::new()).unwrap();
    for r in records {
        w.append(r).unwrap();
    }
    w.into_inner()
}

/// One record's framing around a hand-built payload: LEB128 length, crc32, payload.
fn framed(payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() <= MAX_RECORD_LEN as usize);
    let mut out = Vec::new();
    let mut len = payload.len() as u64;
    loop {
        let byte = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    }
    out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// A zstd stream as the writer makes it (64 KB window, unended), cut after each block.
fn zstd_blocks(blocks: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut cctx = CCtx::create();
    cctx.set_parameter(CParameter::CompressionLevel(3)).unwrap();
    cctx.set_parameter(CParameter::WindowLog(16)).unwrap();
    let mut out = Vec::new();
    for block in blocks {
        let mut bytes: Vec<u8> = Vec::with_capacity(1 << 20);
        let mut input = InBuffer::around(block);
        loop {
            if bytes.capacity() - bytes.len() < 4096 {
                bytes.reserve(bytes.capacity());
            }
            let at = bytes.len();
            let mut output = OutBuffer::around_pos(&mut bytes, at);
            let left = cctx
                .compress_stream2(&mut output, &mut input, ZSTD_EndDirective::ZSTD_e_flush)
                .unwrap();
            if left == 0 {
                break;
            }
        }
        out.push(bytes);
    }
    out
}

/// A Started header whose level text's length claims 2^50 bytes, in an 11 KB record.
fn huge_level_text() -> Vec<u8> {
    let mut h = header();
    h.level_toml = "x".repeat(11_000);
    let payload =
        bincode::serde::encode_to_vec(Record::Started(h), bincode::config::standard()).unwrap();
    // Bincode's varint for 11,000: 251 then the u16; for 2^50: 253 then the u64.
    let was = [&[251u8][..], &11_000u16.to_le_bytes()].concat();
    let at = payload.windows(3).position(|w| w == was).unwrap();
    let claim = [&[253u8][..], &(1u64 << 50).to_le_bytes()].concat();
    let payload = [&payload[..at], &claim, &payload[at + 3..]].concat();
    let mut file = file_of(&[]);
    file.extend_from_slice(&framed(&payload));
    file
}

fn frames_sent(first_pass: u32, compressed: Vec<u8>) -> Record {
    Record::FramesSent {
        first_pass,
        compressed,
    }
}

/// One block of 63 MiB of newlines: 66 million empty frames in about 2 KB.
fn newline_block() -> Vec<u8> {
    let block = zstd_blocks(&[&vec![b'\n'; 63 << 20]]).remove(0);
    file_of(&[Record::Started(header()), frames_sent(0, block)])
}

/// 40 blocks of 63 MiB each without a newline: one frame that never ends.
fn forty_blocks() -> Vec<u8> {
    let a = vec![b'a'; 63 << 20];
    let blocks = zstd_blocks(&vec![&a[..]; 40]);
    let mut records = vec![Record::Started(header())];
    records.extend(blocks.into_iter().map(|b| frames_sent(0, b)));
    file_of(&records)
}

/// The first golden round with its first frames block claiming pass 1 (the rest intact).
fn wrong_pass() -> Vec<u8> {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("replays/01_first_kitchen.ucr");
    let read = undercooked::log::read_replay(&std::fs::read(golden).unwrap()).unwrap();
    let mut records = read.records;
    let first = records
        .iter_mut()
        .find(|r| matches!(r, Record::FramesSent { .. }))
        .unwrap();
    if let Record::FramesSent { first_pass, .. } = first {
        *first_pass = 1;
    }
    file_of(&records)
}

/// The frame of tick 0's pass, as the round sent it (so a re-run finds it identical).
fn first_frame() -> String {
    let fold = undercooked::log::RoundFold::new(header()).unwrap();
    let (_, first) = undercooked::round::PlayerPasses::start(&fold);
    first.raw().to_string()
}

/// Tick 0's frame three times: tick 0 has one pass.
fn more_frames() -> Vec<u8> {
    let text = format!("{0}\n{0}\n{0}\n", first_frame());
    let block = zstd_blocks(&[text.as_bytes()]).remove(0);
    file_of(&[Record::Started(header()), frames_sent(0, block)])
}

/// Tick 0's frame, then an empty one.
fn empty_frame() -> Vec<u8> {
    let text = format!("{}\n\n", first_frame());
    let block = zstd_blocks(&[text.as_bytes()]).remove(0);
    file_of(&[Record::Started(header()), frames_sent(0, block)])
}
