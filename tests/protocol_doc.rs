//! docs/PROTOCOL.md and the code agree: every table of messages, wire objects, error codes,
//! close codes and limits is read from the document and compared with the definitions.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use undercooked::shared::config::ServerConfig;
use undercooked::wire::messages::*;

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/PROTOCOL.md")).unwrap()
}

/// The table rows (cells, trimmed) under each heading, keyed by the heading text.
fn tables(doc: &str) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    let mut heading = String::new();
    for line in doc.lines() {
        if let Some(h) = line
            .strip_prefix("### ")
            .or_else(|| line.strip_prefix("## "))
        {
            heading = h.trim().to_string();
            continue;
        }
        let l = line.trim();
        if l.starts_with('|') && !l.starts_with("|---") {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            out.entry(heading.clone()).or_default().push(cells);
        }
    }
    // drop the header row of each table
    for rows in out.values_mut() {
        rows.remove(0);
    }
    out
}

fn ticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

fn first_column(rows: &[Vec<String>]) -> Vec<String> {
    rows.iter()
        .map(|r| ticked(&r[0]).into_iter().next().unwrap_or_default())
        .collect()
}

#[test]
fn the_client_message_table_matches_the_definitions() {
    let t = tables(&doc());
    let rows = &t["Client → server messages"];
    assert_eq!(rows.len(), CLIENT_MESSAGES.len());
    for (row, (kind, _, fields, states)) in rows.iter().zip(CLIENT_MESSAGES) {
        assert_eq!(ticked(&row[0]), [kind]);
        assert_eq!(
            ticked(&row[1]),
            fields.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
            "{kind} fields"
        );
        let doc_states: Vec<&str> = if row[2] == "any state" {
            vec!["lobby", "countdown", "playing", "round_end", "closed"]
        } else {
            row[2].split(", ").collect()
        };
        let code_states: Vec<&str> = states.iter().map(|s| s.name()).collect();
        assert_eq!(doc_states, code_states, "{kind} states");
    }
}

#[test]
fn every_documented_client_field_is_accepted_and_nothing_more() {
    let samples = [
        json!({"type": "hello", "p": 1, "token": "t", "name": "n"}),
        json!({"type": "ready"}),
        json!({"type": "set_level", "level": "x"}),
        json!({"type": "start"}),
        json!({"type": "input", "seq": 1, "move": {"x": 0, "y": 0}, "act": false, "face": null}),
        json!({"type": "emote", "id": "wave"}),
        json!({"type": "to_lobby"}),
        json!({"type": "next_level"}),
        json!({"type": "ping", "t": 1}),
    ];
    for (sample, (kind, _, fields, _)) in samples.iter().zip(CLIENT_MESSAGES) {
        assert_eq!(sample["type"], kind);
        let mut doc_fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        doc_fields.insert(0, "type".into());
        assert_eq!(keys(sample), doc_fields);
        assert!(parse_client(&sample.to_string()).is_ok(), "{sample}");
        let mut extra = sample.clone();
        extra["extra"] = json!(1);
        assert_eq!(
            parse_client(&extra.to_string()).unwrap_err().code,
            code::BAD_FIELD
        );
    }
}

#[test]
fn the_server_message_tables_match_what_the_server_sends() {
    let t = tables(&doc());
    let you = YouWire {
        token: "t".into(),
        seat: Some(0),
        host: true,
    };
    let samples: Vec<(&str, Value)> = vec![
        (
            "`welcome`",
            serde_json::to_value(ServerMsg::Welcome {
                p: 1,
                you,
                room: "R".into(),
                state: "lobby",
                level: None,
                seats: vec![],
                rejoined: false,
            })
            .unwrap(),
        ),
        (
            "`lobby`",
            serde_json::to_value(ServerMsg::Lobby {
                p: 1,
                code: "R".into(),
                state: "lobby",
                level: None,
                host_seat: None,
                can_start: false,
                seats: vec![],
                spectators: vec![],
                unlocked: None,
                round_no: 0,
                start_refusal: None,
            })
            .unwrap(),
        ),
        (
            "`countdown`",
            serde_json::to_value(ServerMsg::Countdown { p: 1, n: 3 }).unwrap(),
        ),
        (
            "`snap`",
            serde_json::from_str(
                undercooked::wire::encode_full(
                    &undercooked::wire::FrameView {
                        t: 0,
                        s: 0,
                        tgt: 0,
                        tl: 0,
                        p: vec![],
                        st: vec![],
                        o: vec![],
                        hz: vec![],
                    },
                    &[],
                    &[],
                )
                .text(),
            )
            .unwrap(),
        ),
        (
            "`round`",
            serde_json::to_value(ServerMsg::Round {
                p: 1,
                result: None,
                score: 0,
                target: 0,
                stars: 0,
                time_left: 0.0,
                counters: undercooked::wire::messages::CountersWire {
                    served: 0,
                    missed: 0,
                    wasted: 0,
                    lost_items: 0,
                },
                longest_streak: 0,
                players: vec![],
                level_id: String::new(),
                seed: 0,
                ticks: 0,
                unlocked: None,
            })
            .unwrap(),
        ),
        ("`ev`", serde_json::from_str(&ev_frame(&[])).unwrap()),
        (
            "`err`",
            serde_json::to_value(ServerMsg::Err {
                p: 1,
                code: "x",
                msg: String::new(),
                seq: None,
            })
            .unwrap(),
        ),
        (
            "`pong`",
            serde_json::to_value(ServerMsg::Pong {
                p: 1,
                t: 0,
                now: 0.0,
            })
            .unwrap(),
        ),
        (
            "`resumed`",
            serde_json::to_value(ServerMsg::Resumed {
                p: 1,
                tick: 0,
                away_s: 0,
                waiting_for: vec![],
                wait_ms: 0,
            })
            .unwrap(),
        ),
    ];
    for (heading, value) in samples {
        let rows = t
            .get(heading)
            .unwrap_or_else(|| panic!("no table for {heading}"));
        assert_eq!(first_column(rows), keys(&value), "{heading}");
    }
}

#[test]
fn the_wire_object_tables_match_the_structs() {
    let t = tables(&doc());
    let samples = [
        (
            "YouWire",
            serde_json::to_value(YouWire {
                token: String::new(),
                seat: None,
                host: false,
            })
            .unwrap(),
        ),
        (
            "SeatWire",
            serde_json::to_value(SeatWire {
                index: 0,
                name: String::new(),
                color: String::new(),
                ready: false,
                host: false,
                connected: false,
                bot: false,
            })
            .unwrap(),
        ),
        (
            "SpectatorWire",
            serde_json::to_value(SpectatorWire {
                name: String::new(),
                color: String::new(),
            })
            .unwrap(),
        ),
        (
            "PlayerScoreWire",
            serde_json::to_value(PlayerScoreWire {
                id: String::new(),
                name: String::new(),
                score: 0,
                dishes_served: 0,
                missed_contrib: 0,
            })
            .unwrap(),
        ),
    ];
    for (heading, value) in samples {
        assert_eq!(first_column(&t[heading]), keys(&value), "{heading}");
    }
}

#[test]
fn the_error_and_close_code_tables_match_the_constants() {
    let t = tables(&doc());
    assert_eq!(
        first_column(&t["Error codes"]),
        code::ALL.iter().map(|c| c.to_string()).collect::<Vec<_>>()
    );
    let doc_close: Vec<(u16, String)> = t["Close codes"]
        .iter()
        .map(|r| (ticked(&r[0])[0].parse().unwrap(), r[1].clone()))
        .collect();
    let code_close: Vec<(u16, String)> = close::ALL
        .iter()
        .map(|(c, n)| (*c, n.to_string()))
        .collect();
    assert_eq!(doc_close, code_close);
}

#[test]
fn the_limits_table_matches_the_defaults_and_the_accepted_ranges() {
    let t = tables(&doc());
    let d = ServerConfig::default();
    let defaults: BTreeMap<&str, u64> = [
        ("max_message_bytes", d.max_message_bytes as u64),
        ("max_inputs_per_s", d.max_inputs_per_s as u64),
        ("tick_hz", d.tick_hz as u64),
        ("snapshot_hz", d.snapshot_hz as u64),
        ("sim_latency_ms", d.sim_latency_ms),
        ("socket_send_buffer", d.socket_send_buffer as u64),
        ("max_players", d.max_players as u64),
        ("max_rooms", d.max_rooms as u64),
        ("max_spectators", d.max_spectators as u64),
        ("guest_idle_timeout_s", d.guest_idle_timeout_s),
        ("empty_room_grace_s", d.empty_room_grace_s),
        ("max_connections_per_ip", d.connections.per_ip as u64),
        ("connection_reserve", d.connections.reserve as u64),
        ("max_pending_sockets", d.connections.pending_sockets as u64),
        (
            "max_pending_sockets_per_ip",
            d.connections.pending_per_ip as u64,
        ),
        ("requests_per_s", d.requests.0 as u64),
        ("request_burst", d.requests.1 as u64),
        ("upgrades_per_s", d.upgrades.0 as u64),
        ("upgrade_burst", d.upgrades.1 as u64),
        ("rooms_per_session", d.rooms_per_session as u64),
        ("rooms_per_ip", d.rooms_per_ip as u64),
        ("unclaimed_seat_s", d.unclaimed_seat_s),
        ("header_timeout_s", d.connections.header_timeout.as_secs()),
        ("session_ttl_s", d.session_ttl_s),
        ("new_sessions_per_min", d.new_sessions_per_min as u64),
        ("handoff", d.handoff as u64),
        ("resume_within_s", d.resume_within_s),
        ("resume_wait_s", d.resume_wait_s),
        // Derived from the descriptor limit: the row says how, not a number.
        ("max_connections", 0),
    ]
    .into_iter()
    .collect();
    let mut seen = 0;
    for row in &t["Limits"] {
        let Some(var) = ticked(&row[2]).into_iter().next() else {
            continue;
        };
        let name = ticked(&row[0]).into_iter().next().unwrap();
        if name == "max_connections" {
            assert!(row[1].contains("descriptor limit"), "{row:?}");
        } else {
            assert_eq!(
                row[1].parse::<u64>().unwrap(),
                defaults[name.as_str()],
                "{name} default"
            );
        }
        let range = row[3].split(',').next().unwrap_or_default();
        if let Some((lo, hi)) = range.split_once('–') {
            let (lo, hi): (u64, u64) = (lo.parse().unwrap(), hi.parse().unwrap());
            let at = |v: u64| {
                let var = var.clone();
                let v = v.to_string();
                // The reserve must be under the cap: a cap that leaves room for any reserve.
                let mut settings = vec![(var.as_str(), v.as_str())];
                if var != "UNDERCOOKED_MAX_CONNECTIONS" {
                    settings.push(("UNDERCOOKED_MAX_CONNECTIONS", "1000000"));
                }
                ServerConfig::from_settings(&settings)
            };
            assert!(
                at(lo).is_ok() && at(hi).is_ok(),
                "{var} accepts {lo} and {hi}"
            );
            let err = at(hi + 1).unwrap_err().0;
            assert!(
                err.contains(&var) && err.contains(&format!("{lo}-{hi}")),
                "{err}"
            );
        }
        seen += 1;
    }
    assert_eq!(seen, defaults.len());
    let fixed = &t["Limits"];
    let fixed_value = |name: &str| {
        fixed
            .iter()
            .find(|r| r[0] == name)
            .map(|r| r[1].clone())
            .unwrap()
    };
    assert_eq!(fixed_value("name length"), limits::NAME_MAX.to_string());
    assert_eq!(fixed_value("token length"), limits::TOKEN_MAX.to_string());
    assert_eq!(
        fixed_value("handshake window"),
        format!("{} s", limits::HANDSHAKE_S)
    );
    assert_eq!(
        fixed_value("heartbeat dead window"),
        format!("{} s", limits::HEARTBEAT_DEAD_S)
    );
    assert_eq!(
        fixed_value("emote throttle"),
        format!("{} / s", limits::EMOTES_PER_S)
    );
}
