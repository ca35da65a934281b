//! How a seat answers its room's frames: the host's `start` in the lobby, a walker's next
//! step, a planner's merge and inputs; and what each `snap` counts inside the window.

use super::{Mind, Role, SNAP_PREFIX, Seat};
use crate::sim::CookInput;
use crate::wire::merge::apply_frame;
use crate::wire::messages::client::input_message;
use crate::wire::view::FrameView;
use futures_util::SinkExt;
use serde_json::{Value, json};
use std::ops::ControlFlow;
use std::time::Instant;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

impl Seat {
    /// What one text frame makes the seat do; `Break` ends its play.
    pub(super) async fn take(&mut self, text: Utf8Bytes) -> ControlFlow<()> {
        if self.assignment.mind == Mind::Walks && text.as_str().starts_with(SNAP_PREFIX) {
            return self.walk(text.as_str()).await;
        }
        let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
            self.stats.error = Some("a frame that is not JSON".into());
            return ControlFlow::Break(());
        };
        match v["type"].as_str() {
            Some("welcome") => {
                let since = self.start.elapsed().as_secs_f64() * 1000.0;
                self.stats.handshake_ms.get_or_insert(since);
            }
            Some("lobby") => self.lobby(&v).await,
            Some("snap") => return self.plan(&v, text.len()).await,
            Some("err") => {
                self.stats.error = Some(format!("err {}: {}", v["code"], v["msg"]));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    /// The host starts once its three guests are ready (the room could start with one; a
    /// later guest's `ready` would then meet the countdown).
    async fn lobby(&mut self, v: &Value) {
        let ready = v["seats"]
            .as_array()
            .map_or(0, |s| s.iter().filter(|s| s["ready"] == true).count());
        if let Role::Host { .. } = self.assignment.role
            && !self.started
            && v["can_start"] == true
            && ready >= 3
        {
            self.started = true;
            let start = json!({"type": "start"}).to_string();
            let _ = self.tx.send(Message::text(start)).await;
        }
    }

    /// A walker's snap: counted, and answered with the walk's next step, two seconds one
    /// way and two seconds back. A socket that refuses the input ends the play.
    async fn walk(&mut self, text: &str) -> ControlFlow<()> {
        let now = Instant::now();
        if self.clock.measuring(now) {
            self.count(now, text.contains("\"full\":true"), text.len());
            self.pending_echo = Some(now);
        }
        self.walked += 1;
        let x = if (self.walked / 40).is_multiple_of(2) {
            1000
        } else {
            -1000
        };
        let step = CookInput {
            seat: self.assignment.seat,
            seq: self.walked,
            mv: (x, 0),
            act: false,
            face: None,
        };
        let sent = self
            .tx
            .send(Message::text(input_message(&step).to_string()));
        if sent.await.is_err() {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// A planner's snap: counted, merged, and answered with the bot's inputs. A frame that
    /// does not merge or decode ends the play.
    async fn plan(&mut self, v: &Value, bytes: usize) -> ControlFlow<()> {
        let now = Instant::now();
        if self.clock.measuring(now) {
            self.count(now, v["raw"]["full"] == true, bytes);
        }
        if apply_frame(&mut self.merged, &v["raw"]).is_err() {
            self.stats.error = Some("a frame that does not merge".into());
            return ControlFlow::Break(());
        }
        let view = match self.merged.as_ref().map(FrameView::from_json) {
            Some(Ok(view)) => view,
            Some(Err(e)) => {
                self.stats.error = Some(format!("a merged frame that does not decode: {e}"));
                return ControlFlow::Break(());
            }
            None => return ControlFlow::Continue(()),
        };
        for i in self.team.decide(&view) {
            let sent = self.tx.send(Message::text(input_message(&i).to_string()));
            if sent.await.is_err() {
                // Not the end: the next frame says how the socket ended.
                break;
            }
            if self.clock.measuring(now) {
                self.pending_echo.get_or_insert(now);
            }
        }
        ControlFlow::Continue(())
    }

    /// Counts a snap that arrived at `now`, inside the window, and the echo of the input
    /// that was waiting for it.
    fn count(&mut self, now: Instant, full: bool, bytes: usize) {
        self.window_start.get_or_insert(now);
        self.stats.snaps += 1;
        self.stats.full += full as u64;
        self.stats.bytes += bytes as u64;
        if let Some(sent) = self.pending_echo.take() {
            self.stats
                .echo_ms
                .push(sent.elapsed().as_secs_f64() * 1000.0);
        }
    }
}
