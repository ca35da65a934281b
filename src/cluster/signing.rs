//! Every request one node sends another is signed on its own: an HMAC-SHA-256, under the
//! node secret, over its method, path, sender, time, a fresh nonce, the player's address
//! key, the hash of its `Authorization` and the hash of its body. The receiver refuses a
//! signature it cannot check, a time more than `WINDOW_S` away from its clock, and a nonce
//! it has seen: a request captured on the wire cannot be replayed, reused for another path
//! or body, or kept for later. (The old scheme sent one fixed secret as a header, so one
//! captured request opened rooms for ever.)
//!
//! The secret is the node secret's own (`secret::NodeSecrets`), not the session key's, so
//! it can be rotated without logging any player out: the first secret signs, every listed
//! one verifies.

use super::secret::NodeSecrets;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

pub const NODE_HEADER: &str = "x-undercooked-node";
pub const TIME_HEADER: &str = "x-undercooked-time";
pub const NONCE_HEADER: &str = "x-undercooked-nonce";
pub const SIGNATURE_HEADER: &str = "x-undercooked-signature";
/// The player's address key, as the forwarding node counted it (signed with the rest).
pub const SOURCE_HEADER: &str = "x-undercooked-source";

/// How far a request's time may be from the receiver's clock, either way, in seconds. The
/// nodes' clocks must agree within it (NTP keeps them within milliseconds).
pub const WINDOW_S: i64 = 10;

/// The most nonces a node keeps at once (one window's worth of internal requests).
const NONCES_MAX: usize = 200_000;

/// What is signed of one request.
pub struct Request<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub node: &'a str,
    pub source: Option<&'a str>,
    pub authorization: Option<&'a str>,
    pub body: &'a [u8],
}

/// The headers that sign `req` at unix time `now` with `nonce` (hex).
pub fn sign(
    secrets: &NodeSecrets,
    req: &Request<'_>,
    now: i64,
    nonce: &str,
) -> [(&'static str, String); 4] {
    let mac = mac(secrets.signing(), req, now, nonce);
    [
        (NODE_HEADER, req.node.to_string()),
        (TIME_HEADER, now.to_string()),
        (NONCE_HEADER, nonce.to_string()),
        (SIGNATURE_HEADER, hex(&mac)),
    ]
}

fn mac(secret: &[u8; 32], req: &Request<'_>, time: i64, nonce: &str) -> [u8; 32] {
    let mut m = match <Hmac<Sha256> as KeyInit>::new_from_slice(secret) {
        Ok(m) => m,
        // HMAC takes a key of any length: a 32-byte one cannot be refused.
        Err(_) => return [0; 32],
    };
    m.update(&message(req, time, nonce));
    m.finalize().into_bytes().into()
}

/// The canonical text a signature covers: each part on a line of its own, the free-form
/// ones (`Authorization`, the body) as their SHA-256.
fn message(req: &Request<'_>, time: i64, nonce: &str) -> Vec<u8> {
    let auth = req
        .authorization
        .map(|a| hex(&Sha256::digest(a.as_bytes())));
    format!(
        "undercooked-internal-v1\n{}\n{}\n{}\n{time}\n{nonce}\n{}\n{}\n{}",
        req.method,
        req.path,
        req.node,
        req.source.unwrap_or(""),
        auth.unwrap_or_default(),
        hex(&Sha256::digest(req.body)),
    )
    .into_bytes()
}

/// Why an internal request was refused (said to the caller, and logged).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("the request is not signed (the {0} header is missing)")]
    Unsigned(&'static str),
    #[error("the request's time is {0} s from this node's clock (the window is {WINDOW_S} s)")]
    Stale(i64),
    #[error("the request's signature does not verify under any node secret of this node")]
    BadSignature,
    #[error("the request was seen before (a replay)")]
    Replayed,
    #[error("too many internal requests within the window")]
    Flooded,
}

/// The signature headers of a request as received.
pub struct Headers<'a> {
    pub node: Option<&'a str>,
    pub time: Option<&'a str>,
    pub nonce: Option<&'a str>,
    pub signature: Option<&'a str>,
}

/// The nonces seen within the window, so a request is taken once.
#[derive(Default)]
pub struct Nonces {
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    by_nonce: HashMap<String, i64>,
    /// (the time it leaves, the nonce), oldest first.
    order: VecDeque<(i64, String)>,
}

impl Nonces {
    /// Checks a received request: its headers, signed over `method`, `path`, `source`,
    /// `authorization` and `body`, at unix time `now`.
    pub fn verify(
        &self,
        secrets: &NodeSecrets,
        h: &Headers<'_>,
        req: &Request<'_>,
        now: i64,
    ) -> Result<(), Refused> {
        let node = h.node.ok_or(Refused::Unsigned(NODE_HEADER))?;
        let time = h.time.ok_or(Refused::Unsigned(TIME_HEADER))?;
        let nonce = h.nonce.ok_or(Refused::Unsigned(NONCE_HEADER))?;
        let signature = h.signature.ok_or(Refused::Unsigned(SIGNATURE_HEADER))?;
        let time: i64 = time.parse().map_err(|_| Refused::BadSignature)?;
        if (time - now).abs() > WINDOW_S {
            return Err(Refused::Stale(time - now));
        }
        if nonce.len() != 32 || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refused::BadSignature);
        }
        let given = crate::shared::random::from_hex(signature).ok_or(Refused::BadSignature)?;
        let signed = Request { node, ..*req };
        let good = secrets.all().any(|secret| {
            let Ok(mut m) = <Hmac<Sha256> as KeyInit>::new_from_slice(secret) else {
                return false;
            };
            m.update(&message(&signed, time, nonce));
            m.verify_slice(&given).is_ok()
        });
        if !good {
            return Err(Refused::BadSignature);
        }
        self.first_sight(nonce, time + WINDOW_S + 1, now)
    }

    /// Records `nonce` until `leaves`; `Replayed` when it is already there.
    fn first_sight(&self, nonce: &str, leaves: i64, now: i64) -> Result<(), Refused> {
        let mut seen = crate::lock::lock(&self.seen);
        while let Some((at, _)) = seen.order.front() {
            if *at > now {
                break;
            }
            if let Some((_, old)) = seen.order.pop_front() {
                seen.by_nonce.remove(&old);
            }
        }
        if seen.by_nonce.contains_key(nonce) {
            return Err(Refused::Replayed);
        }
        if seen.by_nonce.len() >= NONCES_MAX {
            return Err(Refused::Flooded);
        }
        seen.by_nonce.insert(nonce.to_string(), leaves);
        seen.order.push_back((leaves, nonce.to_string()));
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    crate::shared::random::to_hex(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(lines: &str) -> NodeSecrets {
        NodeSecrets::parse(lines).expect("secrets")
    }

    const A: &str = "aa00000000000000000000000000000000000000000000000000000000000000";
    const B: &str = "bb00000000000000000000000000000000000000000000000000000000000000";
    const NONCE: &str = "0123456789abcdef0123456789abcdef";

    fn req(body: &[u8]) -> Request<'_> {
        Request {
            method: "POST",
            path: "/internal/quick",
            node: "a",
            source: Some("2130706433"),
            authorization: None,
            body,
        }
    }

    fn headers<'a>(h: &'a [(&'static str, String); 4]) -> Headers<'a> {
        Headers {
            node: Some(&h[0].1),
            time: Some(&h[1].1),
            nonce: Some(&h[2].1),
            signature: Some(&h[3].1),
        }
    }

    #[test]
    fn a_signed_request_passes_once_and_never_again() {
        let s = secrets(A);
        let signed = sign(&s, &req(b"{}"), 1000, NONCE);
        let nonces = Nonces::default();
        assert_eq!(
            nonces.verify(&s, &headers(&signed), &req(b"{}"), 1001),
            Ok(())
        );
        assert_eq!(
            nonces.verify(&s, &headers(&signed), &req(b"{}"), 1002),
            Err(Refused::Replayed)
        );
    }

    #[test]
    fn another_body_path_time_or_secret_does_not_verify() {
        let s = secrets(A);
        let signed = sign(&s, &req(b"{}"), 1000, NONCE);
        let nonces = Nonces::default();
        let h = headers(&signed);
        let other_body = req(b"{\"token\":\"x\"}");
        assert_eq!(
            nonces.verify(&s, &h, &other_body, 1000),
            Err(Refused::BadSignature)
        );
        let other_path = Request {
            path: "/internal/rooms/ABCD/join",
            ..req(b"{}")
        };
        assert_eq!(
            nonces.verify(&s, &h, &other_path, 1000),
            Err(Refused::BadSignature)
        );
        let spoofed = Request {
            source: Some("1"),
            ..req(b"{}")
        };
        assert_eq!(
            nonces.verify(&s, &h, &spoofed, 1000),
            Err(Refused::BadSignature)
        );
        assert_eq!(
            nonces.verify(&s, &h, &req(b"{}"), 1000 + WINDOW_S + 1),
            Err(Refused::Stale(-WINDOW_S - 1))
        );
        assert_eq!(
            nonces.verify(&secrets(B), &h, &req(b"{}"), 1000),
            Err(Refused::BadSignature)
        );
    }

    #[test]
    fn during_a_rotation_both_secrets_verify_and_the_first_signs() {
        let old = secrets(A);
        let both = secrets(&format!("{B}\n{A}\n"));
        let nonces = Nonces::default();
        let by_old = sign(&old, &req(b"{}"), 1000, NONCE);
        assert_eq!(
            nonces.verify(&both, &headers(&by_old), &req(b"{}"), 1000),
            Ok(())
        );
        let by_new = sign(&both, &req(b"{}"), 1000, "1123456789abcdef0123456789abcdef");
        let only_new = secrets(B);
        assert_eq!(
            Nonces::default().verify(&only_new, &headers(&by_new), &req(b"{}"), 1000),
            Ok(())
        );
    }

    #[test]
    fn an_unsigned_request_names_the_missing_header() {
        let h = Headers {
            node: Some("a"),
            time: None,
            nonce: None,
            signature: None,
        };
        assert_eq!(
            Nonces::default().verify(&secrets(A), &h, &req(b""), 0),
            Err(Refused::Unsigned(TIME_HEADER))
        );
    }
}
