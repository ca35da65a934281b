//! The connection over a real loopback pair: a client's end (a plain `TcpStream` that
//! writes masked frames by hand) and the server's `Connection`.

use super::conn::Connection;
use super::frame::Frame;
use super::heard::Heard;
use super::phase::{Limits, Phase, Reader};
use super::read::{Budget, Stop};
use super::ticks::Ticks;
use super::write::SEND_QUEUE;
use crate::wire::messages::{RoomMsg, close};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

const TEXT: u8 = 0x1;
const BINARY: u8 = 0x2;
const CONTINUE: u8 = 0x0;
const CLOSE: u8 = 0x8;
const PING: u8 = 0x9;
const PONG: u8 = 0xA;

fn limits() -> Limits {
    Limits {
        frames_per_s: 40,
        message_bytes: 4096,
        frame_bytes: 64 * 1024,
        latency: Duration::ZERO,
    }
}

/// A connected pair: the client's end, and the server's connection.
fn pair(limits: Limits) -> (TcpStream, Arc<Connection>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let client = TcpStream::connect(listener.local_addr().expect("address")).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    server.set_nonblocking(true).expect("non-blocking");
    client
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("timeout");
    let conn = Connection::new(7, server, Vec::new(), limits, Ticks::new());
    (client, conn)
}

/// A client's frame: masked (with a key that changes every byte), `fin` or not.
fn masked(opcode: u8, fin: bool, payload: &[u8]) -> Vec<u8> {
    let key = [0x37, 0xfa, 0x21, 0x3d];
    let mut out = vec![opcode | if fin { 0x80 } else { 0 }];
    match payload.len() {
        n @ 0..=125 => out.push(0x80 | n as u8),
        n @ 126..=65535 => {
            out.push(0x80 | 126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(0x80 | 127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&key);
    out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    out
}

fn text(s: &str) -> Vec<u8> {
    masked(TEXT, true, s.as_bytes())
}

/// Sends `bytes` and gives the kernel a moment to pass them on.
fn send(client: &mut TcpStream, bytes: &[u8]) {
    client.write_all(bytes).expect("client write");
    std::thread::sleep(Duration::from_millis(30));
}

/// The bytes the client has received so far.
fn received_bytes(client: &mut TcpStream) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    client
        .set_read_timeout(Some(Duration::from_millis(100)))
        .expect("timeout");
    while let Ok(n @ 1..) = client.read(&mut buf) {
        bytes.extend_from_slice(&buf[..n]);
    }
    bytes
}

/// The server's frames in `bytes` (whole ones): (opcode, payload).
fn frames(bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut frames = Vec::new();
    let mut at = 0;
    while at + 2 <= bytes.len() {
        let (op, len7) = (bytes[at] & 0x0f, (bytes[at + 1] & 0x7f) as usize);
        let (len, head) = match len7 {
            126 => (
                u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) as usize,
                4,
            ),
            127 => {
                let mut n = [0u8; 8];
                n.copy_from_slice(&bytes[at + 2..at + 10]);
                (u64::from_be_bytes(n) as usize, 10)
            }
            n => (n, 2),
        };
        if at + head + len > bytes.len() {
            break;
        }
        frames.push((op, bytes[at + head..at + head + len].to_vec()));
        at += head + len;
    }
    frames
}

/// The server's frames the client has received so far.
fn received(client: &mut TcpStream) -> Vec<(u8, Vec<u8>)> {
    frames(&received_bytes(client))
}

/// What the room hears in one tick.
fn hear(conn: &Connection) -> (Vec<RoomMsg>, Option<u16>) {
    let mut heard = Vec::new();
    let closed = conn.hear(Instant::now(), &mut heard);
    (heard.into_iter().map(|(_, m)| m).collect(), closed)
}

fn set_level(n: usize) -> String {
    format!("{{\"type\":\"set_level\",\"level\":\"L{n}\"}}")
}

fn level_of(msg: &RoomMsg) -> String {
    match msg {
        RoomMsg::SetLevel { level } => level.clone(),
        other => format!("{other:?}"),
    }
}

#[test]
fn the_reading_handed_from_task_to_room_loses_and_reorders_nothing() {
    let (mut client, conn) = pair(limits());
    let mut sent = text("{\"type\":\"hello\",\"p\":1}");
    for n in 0..6 {
        sent.extend(text(&set_level(n)));
    }
    send(&mut client, &sent);
    let mut got: Vec<String> = Vec::new();
    let mut hello = 0;
    // The task reads up to the hello and stops there: the rest waits for its decision.
    conn.read(Reader::Task, Instant::now(), |h| match h {
        Heard::Hello { .. } => hello += 1,
        Heard::Room(m) => got.push(level_of(&m)),
    });
    assert_eq!((hello, got.len()), (1, 0));
    conn.hello_sent();
    // Until the room claims it, the task reads on (into the room's mailbox).
    assert!(
        hear(&conn).0.is_empty(),
        "the room does not read before its claim"
    );
    conn.read(Reader::Task, Instant::now(), |h| {
        if let Heard::Room(m) = h {
            got.push(level_of(&m));
        }
    });
    conn.claim();
    assert_eq!(conn.phase(), Phase::Joined);
    assert!(conn.read(Reader::Task, Instant::now(), |_| {}).is_none());
    let mut more = Vec::new();
    for n in 6..12 {
        more.extend(text(&set_level(n)));
    }
    send(&mut client, &more);
    got.extend(hear(&conn).0.iter().map(level_of));
    let want: Vec<String> = (0..12).map(|n| format!("L{n}")).collect();
    assert_eq!(got, want);
}

#[test]
fn a_partial_write_waits_in_the_backlog_and_comes_out_in_order_with_the_close_last() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    // Frames until the kernel's buffers are full and the backlog holds some.
    let big = "x".repeat(60_000);
    let mut sent = 0;
    while conn.write_out(Instant::now()).stalled_since.is_none() {
        let frame = Frame::from(format!("{sent:06}{big}"));
        assert!(conn.send(&frame).is_some());
        sent += 1;
    }
    // Then a few that only the backlog holds, and the close behind them.
    for _ in 0..3 {
        assert!(conn.send(&Frame::from(format!("{sent:06}{big}"))).is_some());
        sent += 1;
    }
    conn.close(close::ABUSE);
    assert_eq!(conn.phase(), Phase::Closing);
    assert!(
        conn.send(&Frame::from(String::from("late"))).is_none(),
        "nothing after a close"
    );
    // The client reads; the task writes the backlog out as the kernel takes it.
    let mut bytes = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !matches!(conn.phase(), Phase::Draining { .. }) && Instant::now() < deadline {
        bytes.extend(received_bytes(&mut client));
        conn.write_out(Instant::now());
    }
    bytes.extend(received_bytes(&mut client));
    let frames = frames(&bytes);
    let texts: Vec<usize> = frames
        .iter()
        .filter(|(op, _)| *op == TEXT)
        .map(|(_, p)| String::from_utf8_lossy(&p[..6]).parse().expect("numbered"))
        .collect();
    assert_eq!(
        texts,
        (0..sent).collect::<Vec<_>>(),
        "every frame, in order"
    );
    assert_eq!(
        frames.last(),
        Some(&(CLOSE, 4404u16.to_be_bytes().to_vec()))
    );
}

#[test]
fn the_backlog_is_bounded_and_a_client_that_never_reads_leaves_one_pong_waiting() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    // Until the kernel's buffers are full, frames go straight to it.
    let frame = Frame::from("y".repeat(8_000));
    while conn.write_out(Instant::now()).stalled_since.is_none() {
        assert!(conn.send(&frame).is_some());
    }
    let mut queued = 0;
    while conn.send(&frame).is_some() {
        queued += 1;
    }
    assert!(
        queued < SEND_QUEUE,
        "{queued} frames queued behind the kernel"
    );
    assert!(
        conn.send(&Frame::from(String::from("small"))).is_none(),
        "at the bound"
    );
    let waiting = conn.backlog_entries();
    // Thirty pings the client never reads the answers to: one pong waits, not thirty.
    let mut pings = Vec::new();
    for n in 0..30u8 {
        pings.extend(masked(PING, true, &[n; 100]));
    }
    send(&mut client, &pings);
    assert_eq!(hear(&conn).1, None);
    assert_eq!(conn.backlog_entries(), waiting + 1);
    assert!(
        conn.write_out(Instant::now()).stalled_since.is_some(),
        "still refused"
    );
}

#[test]
fn a_ping_flood_leaves_at_most_one_pong_waiting_and_is_closed_for_abuse() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    let mut flood = Vec::new();
    for _ in 0..200 {
        flood.extend(masked(PING, true, &[7u8; 125]));
    }
    send(&mut client, &flood);
    let mut closed = None;
    for _ in 0..10 {
        if let (_, Some(code)) = hear(&conn) {
            closed = Some(code);
            break;
        }
    }
    assert_eq!(closed, Some(close::ABUSE), "pings count against the rate");
    let frames = received(&mut client);
    let pongs = frames.iter().filter(|(op, _)| *op == PONG).count();
    assert!(pongs <= 41, "{pongs} pongs for 40 pings let through");
    assert_eq!(frames.last().map(|f| f.0), Some(CLOSE));
}

#[test]
fn unsolicited_pongs_and_empty_fragments_count_against_the_rate() {
    for flood_frame in [masked(PONG, true, b""), masked(CONTINUE, false, b"")] {
        let (mut client, conn) = pair(limits());
        conn.hello_sent();
        conn.claim();
        let mut flood = masked(TEXT, false, b"{");
        for _ in 0..500 {
            flood.extend(&flood_frame);
        }
        send(&mut client, &flood);
        let (mut reads, mut closed) = (0, None);
        while closed.is_none() && reads < 50 {
            closed = hear(&conn).1;
            reads += 1;
        }
        assert_eq!(closed, Some(close::ABUSE));
        assert!(reads <= 3, "closed after {reads} reads");
    }
}

#[test]
fn a_read_takes_at_most_its_budget_and_leaves_the_rest_in_the_kernel() {
    let mut wide = limits();
    wide.frames_per_s = 1000;
    let (mut client, conn) = pair(wide);
    conn.hello_sent();
    conn.claim();
    let mut flood = Vec::new();
    for _ in 0..100 {
        flood.extend(text("{\"type\":\"ready\"}"));
    }
    send(&mut client, &flood);
    let mut per_read = Vec::new();
    loop {
        let (heard, _) = hear(&conn);
        if heard.is_empty() {
            break;
        }
        per_read.push(heard.len());
    }
    assert_eq!(per_read.iter().sum::<usize>(), 100, "nothing lost");
    assert!(
        per_read.iter().all(|&n| n <= Budget::READ.frames),
        "{per_read:?}"
    );
}

#[test]
fn invalid_utf8_closes_1007_and_a_frame_past_the_limit_1009_unread() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    send(&mut client, &masked(TEXT, true, &[b'{', 0xff, 0xfe, b'}']));
    assert_eq!(hear(&conn).1, Some(1007));
    assert_eq!(
        received(&mut client).last(),
        Some(&(CLOSE, 1007u16.to_be_bytes().to_vec()))
    );

    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    // Only the header of a 1 GiB frame: it is refused before a byte of it is read.
    let mut header = vec![0x81, 0x80 | 127];
    header.extend_from_slice(&(1u64 << 30).to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]);
    send(&mut client, &header);
    assert_eq!(hear(&conn).1, Some(1009));
}

#[test]
fn a_64_kib_frame_is_read_refused_too_big_and_counted_three_close_4404() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    let mut frames = vec![masked(TEXT, true, "z".repeat(65_536).as_bytes())];
    frames.push(masked(BINARY, true, &[0u8; 65_536]));
    frames.push(masked(TEXT, true, "z".repeat(65_536).as_bytes()));
    let mut closed = None;
    for (n, frame) in frames.iter().enumerate() {
        send(&mut client, frame);
        for _ in 0..8 {
            closed = closed.or(hear(&conn).1);
        }
        let answers = received(&mut client);
        let err = answers
            .iter()
            .find(|(op, _)| *op == TEXT)
            .expect("an answer");
        assert!(
            String::from_utf8_lossy(&err.1).contains("too_big"),
            "frame {n}"
        );
        assert_eq!(closed.is_some(), n == 2, "frame {n}");
    }
    assert_eq!(closed, Some(close::ABUSE));
}

#[test]
fn a_fragmented_message_is_put_together_around_a_ping() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    let mut parts = masked(TEXT, false, b"{\"type\":");
    parts.extend(masked(PING, true, b"mid-message"));
    parts.extend(masked(CONTINUE, true, b"\"ready\"}"));
    send(&mut client, &parts);
    let (heard, closed) = hear(&conn);
    assert_eq!(closed, None);
    assert!(matches!(heard.as_slice(), [RoomMsg::Ready]), "{heard:?}");
    assert_eq!(received(&mut client), vec![(PONG, b"mid-message".to_vec())]);
}

#[test]
fn the_clients_close_is_answered_and_ends_the_connection() {
    let (mut client, conn) = pair(limits());
    conn.hello_sent();
    conn.claim();
    send(&mut client, &masked(CLOSE, true, &4000u16.to_be_bytes()));
    let read = conn.read(Reader::Room, Instant::now(), |_| {});
    assert_eq!(read.map(|t| t.stop), Some(Stop::Halted));
    assert_eq!(conn.phase(), Phase::Closed);
    conn.write_out(Instant::now());
    assert_eq!(
        received(&mut client),
        vec![(CLOSE, 4000u16.to_be_bytes().to_vec())]
    );
}

#[tokio::test]
async fn an_answer_that_starts_the_backlog_wakes_the_task() {
    // With the test latency every frame waits in the backlog: the pong the room's read
    // answers a ping with must wake the task that writes it out, as a room's frame does.
    let mut held = limits();
    held.latency = Duration::from_millis(100);
    let (mut client, conn) = pair(held);
    conn.hello_sent();
    conn.claim();
    send(&mut client, &text("{\"type\":\"ping\",\"t\":7}"));
    assert_eq!(hear(&conn), (Vec::new(), None));
    let woken = tokio::time::timeout(Duration::from_millis(50), conn.changed()).await;
    assert!(woken.is_ok(), "the task was not woken for the answer");
    std::thread::sleep(Duration::from_millis(120));
    conn.write_out(Instant::now());
    let got = received(&mut client);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(String::from_utf8_lossy(&got[0].1).contains("\"pong\""));
}
