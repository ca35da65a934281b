//! The fuzz targets' entry points: one function per kind of bytes the server takes from
//! outside, each of which must return for any input and never panic.
//!
//! `fuzz/` (cargo-fuzz, on nightly) feeds them what libFuzzer makes; `tests/sim/fuzz_corpus.rs`
//! replays the committed, minimized corpus (`fuzz/corpus/<target>/`) through the same
//! functions on stable, so an input that once found a crash fails CI if it comes back.
//! docs/SECURITY.md has the runs' figures.

/// A client's WebSocket text frame, as the socket parses it (strict JSON, duplicate keys
/// refused, every field checked).
pub fn client_frame(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::wire::messages::parse_client(text);
    }
}

/// A replay file, as `verify` and `replay` read it: records decoded, the round re-run,
/// every recorded frame decompressed and compared.
pub fn replay_file(data: &[u8]) {
    let _ = crate::verify::replay_bytes(data);
}

/// A level file, as the server and `levels check` load it: TOML, the grammar, the lints.
pub fn level_file(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(level) = crate::levels::check_level_file("fuzzed.toml", text)
    {
        let _ = crate::levels::lint::lints(&level);
        let _ = crate::frame_budget::lint("fuzzed.toml", text, &level);
    }
}

/// An HTTP request body as a room route parses it. The first byte picks the declared
/// content type and the route's body (`{name?, token?}` or a bot's `{seat?}`); the rest is
/// the body.
pub fn http_body(data: &[u8]) {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let content_type = match pick % 4 {
        0 => None,
        1 => Some("application/json"),
        2 => Some("application/json; charset=utf-8"),
        _ => Some("text/plain"),
    };
    let _ = crate::server::parse_room_body(content_type, body, pick & 4 != 0);
}
