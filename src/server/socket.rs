//! One WebSocket connection: the handshake, the guards, and the two halves of the socket.
//!
//! The reader enforces the transport rules before anything reaches a room: the size limit
//! (`too_big`), the token bucket (`rate_limited`), three strikes (close 4404), strict parsing,
//! the 5 s handshake window and the 12 s heartbeat. The writer drains the connection's
//! bounded queue (filled by the room without ever waiting) into the socket, after the
//! configured test latency. The connection id travels with every message to the room, so a
//! late close from a replaced socket only ever removes itself.

use super::shared::Shared;
use super::upgrade::Socket;
use crate::room::{ConnLink, Out, RoomCmd};
use crate::wire::messages::{
    ClientMsg, MIN_SUPPORTED_VERSION, PROTOCOL_VERSION, Refusal, ServerMsg, close, code, limits,
    parse_client,
};
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// Frames a connection's send queue holds before the room starts dropping `snap`s for it.
pub const SEND_QUEUE: usize = 64;

/// The per-connection token bucket: capacity and refill both `rate` frames a second.
struct Bucket {
    tokens: f64,
    rate: f64,
    at: Instant,
}

impl Bucket {
    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens =
            (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.rate);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| (d.as_secs_f64() * 1000.0).round() / 1000.0)
}

fn text(msg: &ServerMsg) -> Out {
    Out::Text(Arc::from(msg.to_json()))
}

/// Queues an `err` and a close with its code, and counts the refusal.
fn refuse_and_close(shared: &Shared, tx: &mpsc::Sender<Out>, err: Refusal, close_code: u16) {
    let _ = tx.try_send(text(&ServerMsg::err(&err)));
    let _ = tx.try_send(Out::Close(close_code));
    shared.stats.refused(close_code);
}

/// Serves one socket for room `code` until it closes.
pub async fn serve(ws: Socket, code: String, shared: Arc<Shared>) {
    let id = shared.conn_id();
    shared.stats.sockets.fetch_add(1, Relaxed);
    let (mut sink, mut stream) = ws.split();
    let (tx, mut rx) = mpsc::channel::<Out>(SEND_QUEUE);
    let latency = Duration::from_millis(shared.config.sim_latency_ms);

    let writer = tokio::spawn(async move {
        while let Some(first) = rx.recv().await {
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
            }
            let mut batch = vec![first];
            while let Ok(more) = rx.try_recv() {
                batch.push(more);
            }
            for out in batch {
                let sent = match out {
                    Out::Text(t) => sink.send(Message::text(t.to_string())).await,
                    Out::Close(c) => {
                        let _ = sink
                            .send(Message::Close(Some(CloseFrame {
                                code: CloseCode::from(c),
                                reason: "".into(),
                            })))
                            .await;
                        return;
                    }
                };
                if sent.is_err() {
                    return;
                }
            }
        }
    });

    let room = shared.room(&code);
    let mut joined = false;
    let mut strikes = 0u32;
    let mut bucket = Bucket {
        tokens: shared.config.max_inputs_per_s as f64,
        rate: shared.config.max_inputs_per_s as f64,
        at: Instant::now(),
    };
    let opened = Instant::now();
    let mut last_seen = Instant::now();
    let max = shared.config.max_message_bytes;
    // After the server sends a close, the socket is drained (frames read and ignored) until
    // the client answers or 3 s pass: closing with unread data would reset the connection
    // and the client would never see the close code.
    let mut closing: Option<Instant> = None;

    loop {
        if let Some(since) = closing {
            match tokio::time::timeout_at((since + Duration::from_secs(3)).into(), stream.next())
                .await
            {
                Ok(Some(Ok(_))) => continue,
                _ => break,
            }
        }
        let deadline = if joined {
            last_seen + Duration::from_secs(limits::HEARTBEAT_DEAD_S)
        } else {
            opened + Duration::from_secs(limits::HANDSHAKE_S)
        };
        let next = match tokio::time::timeout_at(deadline.into(), stream.next()).await {
            Ok(Some(Ok(m))) => m,
            Ok(Some(Err(_))) | Ok(None) => break,
            Err(_) => {
                // Silence: no hello in time (4400), or a dead client (1000).
                let code = if joined {
                    close::NORMAL
                } else {
                    close::PROTOCOL_MISMATCH
                };
                if !joined {
                    shared.stats.refused(code);
                }
                let _ = tx.try_send(Out::Close(code));
                closing = Some(Instant::now());
                continue;
            }
        };
        last_seen = Instant::now();
        if next.is_close() {
            // Keep reading until the stream ends so the close handshake completes.
            continue;
        }
        if next.is_ping() || next.is_pong() {
            continue;
        }
        let oversize = next.len() > max;
        let refusal = if !bucket.take() {
            Some((
                Refusal::new(
                    code::RATE_LIMITED,
                    format!(
                        "more than {} frames a second",
                        shared.config.max_inputs_per_s
                    ),
                ),
                true,
            ))
        } else if oversize {
            Some((
                Refusal::new(
                    code::TOO_BIG,
                    format!("frame of {} bytes is over the {max}-byte limit", next.len()),
                ),
                true,
            ))
        } else if next.is_binary() {
            Some((
                Refusal::new(code::BAD_FIELD, "binary frames are refused; send JSON text"),
                false,
            ))
        } else {
            None
        };
        if let Some((r, strike)) = refusal {
            if strike {
                strikes += 1;
                if strikes >= limits::STRIKES {
                    refuse_and_close(&shared, &tx, r, close::ABUSE);
                    tracing::info!(room = %code, conn = id, "closed for abuse (3 strikes)");
                    closing = Some(Instant::now());
                    continue;
                }
            }
            let _ = tx.try_send(text(&ServerMsg::err(&r)));
            continue;
        }
        let msg = match parse_client(next.to_text().unwrap_or_default()) {
            Ok(m) => m,
            Err(r) => {
                let _ = tx.try_send(text(&ServerMsg::err(&r)));
                continue;
            }
        };
        strikes = 0;
        let cmd = match msg {
            ClientMsg::Ping { t } => {
                let _ = tx.try_send(text(&ServerMsg::Pong {
                    p: PROTOCOL_VERSION,
                    t,
                    now: now_s(),
                }));
                continue;
            }
            ClientMsg::Hello { p, token, name } => {
                if p < MIN_SUPPORTED_VERSION as i64 || p > PROTOCOL_VERSION as i64 {
                    let r = Refusal::new(
                        code::PROTOCOL_MISMATCH,
                        format!(
                            "protocol {p} is not supported (this server speaks {MIN_SUPPORTED_VERSION}..{PROTOCOL_VERSION})"
                        ),
                    );
                    refuse_and_close(&shared, &tx, r, close::PROTOCOL_MISMATCH);
                    closing = Some(Instant::now());
                    continue;
                }
                if room.is_none() {
                    refuse_and_close(
                        &shared,
                        &tx,
                        Refusal::new(code::ROOM_GONE, format!("no room {code}")),
                        close::ROOM_GONE,
                    );
                    closing = Some(Instant::now());
                    continue;
                }
                joined = true;
                RoomCmd::Hello {
                    conn: ConnLink { id, tx: tx.clone() },
                    token,
                    name,
                }
            }
            other if !joined => {
                let r = Refusal::new(
                    code::WRONG_STATE,
                    format!("{} before hello: say hello first", other.kind()),
                );
                let _ = tx.try_send(text(&ServerMsg::err(&r)));
                continue;
            }
            other => RoomCmd::Msg {
                conn: id,
                msg: other,
            },
        };
        // One way to the room for every message; a room that is gone closes the socket.
        if let Some(room) = room.as_ref()
            && room.tx.send(cmd).await.is_err()
        {
            refuse_and_close(
                &shared,
                &tx,
                Refusal::new(code::ROOM_GONE, "the room closed"),
                close::ROOM_GONE,
            );
            closing = Some(Instant::now());
        }
    }
    if joined && let Some(room) = room.as_ref() {
        let _ = room.tx.send(RoomCmd::Gone { conn: id }).await;
    }
    drop(tx);
    // Let the writer flush what is queued (a close frame, a last error), briefly.
    let _ = tokio::time::timeout(Duration::from_secs(2), writer).await;
    shared.stats.sockets.fetch_sub(1, Relaxed);
}
