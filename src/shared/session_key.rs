//! The server's session key, and the one way a token becomes what is stored of it.
//!
//! A token is kept as HMAC-SHA-256(key, SHA-256(token)), hex. Keyed, so a copy of the
//! database alone cannot test guessed tokens (a client may choose a weak one); over the
//! SHA-256, so rows written before the key existed (plain SHA-256) are rehashed without
//! their tokens. The key is 32 random bytes in `<data dir>/session.key` (or the file
//! `UNDERCOOKED_SESSION_KEY_FILE` names: the nodes of a cluster share one), made at the
//! first start and read through `key_file` (owner-only, written whole or not at all, never
//! over a key another process made first; a file others could write is refused); a server
//! without a data dir (a test, a headless run) uses a key for its own lifetime. Losing the file logs every player out of their progress:
//! `docs/SECURITY.md` says to back it up with the database. A shared database keeps the
//! key's `fingerprint`, so a node started with another key is refused.

use super::key_file::{self, Form, KeyFileError};
use super::random::to_hex;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::path::Path;

pub const FILE: &str = "session.key";

/// What the session key file holds: the key's 32 bytes as 64 hex digits (a line end
/// after them, or spaces around them, are fine).
const FORM: Form<SessionKey> = Form {
    what: "session key file",
    must: "it must hold 64 hex digits, as `undercooked serve` writes it",
    parse: |text| parse(text.trim()),
};

pub struct SessionKey([u8; 32]);

impl SessionKey {
    /// A key for this process only.
    pub fn ephemeral() -> SessionKey {
        let mut k = [0u8; 32];
        super::random::fill(&mut k);
        SessionKey(k)
    }

    /// The key in `dir`, made there when there is none yet.
    pub fn load_or_create(dir: &Path) -> Result<SessionKey, KeyFileError> {
        SessionKey::load_or_create_file(&dir.join(FILE))
    }

    /// The key in the file `path`, made there when there is none yet (a key another node
    /// made a moment before is read instead).
    pub fn load_or_create_file(path: &Path) -> Result<SessionKey, KeyFileError> {
        key_file::read_or_create(path, &FORM, || SessionKey::ephemeral().hex())
    }

    fn hex(&self) -> String {
        to_hex(&self.0)
    }

    /// What identifies the key without revealing it: the first 16 bytes of its HMAC over a
    /// fixed label, hex. Stored in a shared database so every node can check it holds the
    /// same key.
    pub fn fingerprint(&self) -> String {
        let mut full = self.keyed(b"undercooked session key fingerprint");
        full.truncate(32);
        full
    }

    /// What the database keeps of `token`.
    pub fn hash(&self, token: &str) -> String {
        self.keyed(&Sha256::digest(token.as_bytes()))
    }

    /// What the database keeps of a token whose plain SHA-256 (hex) is `sha256` (a row
    /// from before the key); `None` when it is not 64 hex digits.
    pub fn rekey(&self, sha256: &str) -> Option<String> {
        let bytes = unhex(sha256)?;
        Some(self.keyed(&bytes))
    }

    fn keyed(&self, digest: &[u8]) -> String {
        // HMAC takes a key of any length; 32 bytes cannot be refused.
        let Ok(mut mac) = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0) else {
            return String::new();
        };
        mac.update(digest);
        to_hex(&mac.finalize().into_bytes())
    }
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    super::random::from_hex(text)?.try_into().ok()
}

fn parse(text: &str) -> Option<SessionKey> {
    unhex(text).map(SessionKey)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_and_read_back_and_hashes_depend_on_it() {
        let dir = std::env::temp_dir().join(format!("uc-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = SessionKey::load_or_create(&dir).unwrap();
        let b = SessionKey::load_or_create(&dir).unwrap();
        assert_eq!(a.hash("tok"), b.hash("tok"), "the same key after a restart");
        assert_ne!(a.hash("tok"), SessionKey::ephemeral().hash("tok"));
        assert_ne!(a.hash("tok"), a.hash("tok2"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "owner-only");
        }
        // A row from before the key rehashes to what the token now hashes to.
        let sha: String = Sha256::digest(b"tok")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(a.rekey(&sha), Some(a.hash("tok")));
        assert_eq!(a.rekey("not hex"), None);
        // A file of the wrong form is named as the key file, with the form it must have.
        for text in [&b"short"[..], b"\xff\xfe"] {
            std::fs::write(dir.join(FILE), text).unwrap();
            let e = SessionKey::load_or_create(&dir).err().unwrap().to_string();
            let want = format!(
                "{} is not a session key file: it must hold 64 hex digits, as `undercooked serve` writes it",
                dir.join(FILE).display()
            );
            assert_eq!(e, want);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
