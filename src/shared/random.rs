//! The server's one source of randomness: the OS generator, for tokens, session ids,
//! room codes, round seeds and the session key. (The kitchen's randomness is the round's
//! seeded RNG, never this.)

/// Fills `buf` from the OS generator.
pub fn fill(buf: &mut [u8]) {
    // The OS generator failing (no getrandom syscall, no /dev/urandom) is not something a
    // server can go on without: no input reaches this.
    getrandom::fill(buf).expect("the OS random number generator is available");
}

/// A random `u64` (a round's seed).
pub fn u64() -> u64 {
    let mut b = [0u8; 8];
    fill(&mut b);
    u64::from_le_bytes(b)
}

/// `bytes` random bytes as lowercase hex (tokens, session ids).
pub fn hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    fill(&mut buf);
    to_hex(&buf)
}

/// Bytes as lowercase hex.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes a hex text spells (either case), or `None` when it is not an even run of hex
/// digits. (Keys and secrets are read back this way.)
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[i * 2..i * 2 + 2], 16).ok())
        .collect()
}
