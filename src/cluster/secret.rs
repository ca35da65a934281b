//! The node secret: what signs the requests nodes send each other (`signing`), in a file of
//! its own, `UNDERCOOKED_NODE_SECRET_FILE` (default: `node.secret` beside the session key
//! file, which the nodes of a cluster share already). One secret a line, each 64 hex
//! digits: the first signs, every one verifies. So it rotates with no restart and no
//! player logged out: add the new secret as a second line on every node, then make it the
//! first, then drop the old one (each node reads the file again when it changes, within a
//! second). It is made, owner-only, when missing.

use crate::shared::key_file::{self, Form, KeyFileError};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The file's default name, beside the session key file.
pub const FILE: &str = "node.secret";

/// What a node secret file must hold.
const FORM: Form<NodeSecrets> = Form {
    what: "node secret file",
    must: "it must hold one or more lines of 64 hex digits (the first signs, every one verifies), as `undercooked serve` writes it",
    parse: |text| NodeSecrets::parse(text).ok(),
};

/// The secrets of a node secret file, the signing one first.
#[derive(Clone, Debug)]
pub struct NodeSecrets(Vec<[u8; 32]>);

impl NodeSecrets {
    /// The secrets in a file's text, or why it is not a node secret file.
    pub fn parse(text: &str) -> Result<NodeSecrets, String> {
        let mut secrets = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let secret = unhex32(line).ok_or_else(|| {
                format!(
                    "line {} is not a secret: each line must hold 64 hex digits (32 bytes)",
                    i + 1
                )
            })?;
            secrets.push(secret);
        }
        if secrets.is_empty() {
            return Err(
                "it holds no secret: it must hold one or more lines of 64 hex digits".into(),
            );
        }
        Ok(NodeSecrets(secrets))
    }

    /// The secret that signs.
    pub fn signing(&self) -> &[u8; 32] {
        &self.0[0]
    }

    /// Every secret that verifies.
    pub fn all(&self) -> impl Iterator<Item = &[u8; 32]> {
        self.0.iter()
    }

    /// How many secrets the file lists.
    pub fn count(&self) -> usize {
        self.0.len()
    }
}

/// The node secret file, read again when it changes.
#[derive(Clone)]
pub struct SecretFile {
    path: PathBuf,
    current: Arc<Mutex<(Arc<NodeSecrets>, Option<SystemTime>)>>,
}

impl SecretFile {
    /// Reads `path` (checked as every key file is: `shared::key_file`), making it (one
    /// fresh secret, owner-only) when it is missing.
    pub fn open(path: &Path) -> Result<SecretFile, KeyFileError> {
        let secrets = key_file::read_or_create(path, &FORM, || {
            let mut k = [0u8; 32];
            crate::shared::random::fill(&mut k);
            format!("{}\n", crate::shared::random::to_hex(&k))
        })?;
        Ok(SecretFile {
            path: path.to_path_buf(),
            current: Arc::new(Mutex::new((Arc::new(secrets), modified(path)))),
        })
    }

    /// The secrets now.
    pub fn secrets(&self) -> Arc<NodeSecrets> {
        crate::lock::lock(&self.current).0.clone()
    }

    /// Reads the file again if it changed since it was last read. A file that no longer
    /// reads as node secrets is named in the log and the secrets in use are kept.
    pub fn reload(&self) {
        let now = modified(&self.path);
        if now == crate::lock::lock(&self.current).1 {
            return;
        }
        match key_file::read(&self.path, &FORM) {
            Ok(secrets) => {
                tracing::info!(file = %self.path.display(), secrets = secrets.count(), "the node secret file changed: its secrets are in use");
                *crate::lock::lock(&self.current) = (Arc::new(secrets), now);
            }
            Err(why) => {
                tracing::error!(file = %self.path.display(), why = %why, "the node secret file changed but cannot be used; the secrets read before stay in use");
                crate::lock::lock(&self.current).1 = now;
            }
        }
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn unhex32(text: &str) -> Option<[u8; 32]> {
    crate::shared::random::from_hex(text)?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_lists_secrets_one_a_line_and_names_a_bad_line() {
        let a = "a".repeat(64);
        let s = NodeSecrets::parse(&format!(
            "# rotated in December\n{a}\n\n{}\n",
            "b".repeat(64)
        ))
        .expect("two secrets");
        assert_eq!(s.count(), 2);
        assert_eq!(s.signing(), &[0xaa; 32]);
        let e = NodeSecrets::parse(&format!("{a}\nnot hex\n")).expect_err("a bad line");
        assert!(e.contains("line 2") && e.contains("64 hex digits"), "{e}");
        assert!(NodeSecrets::parse("\n# only a comment\n").is_err());
    }
}
