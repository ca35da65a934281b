//! `/metrics` as a Prometheus server reads it: after a played round, the scrape parses
//! (with `prometheus-parse`, and line by line against the exposition grammar), every sample
//! belongs to a declared family, and the tick health is there with real values.

use crate::server;

/// A metric or label name as the exposition format allows it.
fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == ':')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_round_the_scrape_parses_and_holds_the_tick_health() {
    let mut server = server::start(&[]).await;
    server::played_round(&server).await;
    let (status, body) = server::http(server.addr, "GET", "/metrics", None, &[]).await;
    assert_eq!(status, 200);
    let text = body.as_str().unwrap().to_string();
    // Strictly, line by line: comments are HELP/TYPE/EOF; a sample is `name{labels} value`.
    let mut families: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert!(is_name(name), "{line}");
            assert!(["counter", "gauge", "histogram"].contains(&kind), "{line}");
            families.push(name.to_string());
        } else if line.starts_with("# HELP ") || line == "# EOF" {
        } else {
            let (series, value) = line.rsplit_once(' ').unwrap();
            let name = series.split('{').next().unwrap();
            assert!(is_name(name), "{line}");
            assert!(value.parse::<f64>().is_ok(), "{line}");
            assert!(
                families.iter().any(|f| name == f
                    || ["_total", "_bucket", "_sum", "_count"]
                        .iter()
                        .any(|s| name.strip_suffix(s) == Some(f.as_str()))),
                "a sample outside any declared family: {line}"
            );
        }
    }
    assert_eq!(text.lines().last(), Some("# EOF"));
    // And as a Prometheus client library reads it.
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();
    let value = |name: &str| {
        scrape
            .samples
            .iter()
            .find(|s| s.metric == name)
            .map(|s| s.value.clone())
    };
    match value("undercooked_tick_duration_seconds") {
        Some(prometheus_parse::Value::Histogram(buckets)) => {
            let last = buckets.last().unwrap();
            assert!(
                last.count >= 20.0,
                "a second of the round's ticks at least: {buckets:?}"
            );
        }
        other => panic!("no tick duration histogram: {other:?}"),
    }
    assert!(matches!(
        value("undercooked_tick_lateness_seconds"),
        Some(prometheus_parse::Value::Histogram(_))
    ));
    // OpenMetrics names a counter's family without `_total` and its sample with it; this
    // parser (written for the older text format) then reads the sample as untyped.
    let number = |name: &str| match value(name) {
        Some(prometheus_parse::Value::Counter(v))
        | Some(prometheus_parse::Value::Untyped(v))
        | Some(prometheus_parse::Value::Gauge(v)) => v,
        other => panic!("{name}: {other:?}"),
    };
    assert!(number("undercooked_ticks_late_total") >= 0.0);
    assert!(number("process_cpu_seconds_total") > 0.0);
    assert!(number("process_resident_memory_bytes") > 1e6);
    assert_eq!(number("undercooked_rounds_completed_total"), 1.0);
    server.stop().await;
}

/// One gauge sample's value, by its name and one label.
fn labelled(text: &str, name: &str, label: &str) -> Option<f64> {
    let series = format!("{name}{{{label}}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&series))
        .and_then(|v| v.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_counted_by_state_and_rooms_by_their_send_queue_mark() {
    // Given a room with one seated socket and one socket that has not said hello.
    let mut server = server::start(&[]).await;
    let (code, token) = server::create_room(server.addr, "Ada").await;
    let _seated = server::Client::hello(server.addr, &code, &token).await;
    let _silent = server::Client::connect(server.addr, &code).await;
    // When /metrics is scraped (after the silent socket's upgrade is served).
    let mut text = String::new();
    for _ in 0..50 {
        let (_, body) = server::http(server.addr, "GET", "/metrics", None, &[]).await;
        text = body.as_str().unwrap().to_string();
        if labelled(&text, "undercooked_sockets_by_state", "state=\"handshake\"") == Some(1.0) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Then each is counted in its state, and the one room in one band of send-queue marks.
    let state = |s: &str| {
        labelled(
            &text,
            "undercooked_sockets_by_state",
            &format!("state=\"{s}\""),
        )
    };
    assert_eq!(state("handshake"), Some(1.0), "{text}");
    assert_eq!(state("joined"), Some(1.0), "{text}");
    assert_eq!(state("closing"), Some(0.0), "{text}");
    let bands: f64 = ["0-1", "2", "3-4", "5-16", "17-63", "64"]
        .iter()
        .map(|b| {
            labelled(
                &text,
                "undercooked_rooms_by_send_queue_high_water",
                &format!("high_water=\"{b}\""),
            )
            .unwrap_or_else(|| panic!("band {b} missing: {text}"))
        })
        .sum();
    assert_eq!(bands, 1.0, "{text}");
    // And /api/stats says the same, with the room's own mark by its code.
    let (_, stats) = server::http(server.addr, "GET", "/api/stats", None, &[]).await;
    assert_eq!(stats["sockets_by_state"]["joined"], 1, "{stats}");
    assert!(
        stats["send_queue_high_by_room"][&code].as_u64() >= Some(1),
        "{stats}"
    );
    server.stop().await;
}

/// A sample's value in a scrape, by name.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| l.split(['{', ' ']).next() == Some(name))
        .and_then(|l| l.rsplit_once(' '))
        .and_then(|(_, v)| v.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_room_thread_shows_in_metrics_and_healthz_while_it_lasts() {
    // Given two rooms on the server's one room thread
    let env = [
        ("UNDERCOOKED_TEST_MODE", "1"),
        ("UNDERCOOKED_WORKER_THREADS", "1"),
    ];
    let mut server = server::start(&env).await;
    let (held, _) = server::create_room(server.addr, "Ann").await;
    server::create_room(server.addr, "Bob").await;
    let scrape = |server: &server::TestServer| {
        let addr = server.addr;
        async move { server::http(addr, "GET", "/metrics", None, &[]).await.1 }
    };
    let text = scrape(&server).await;
    assert_eq!(
        sample(text.as_str().unwrap(), "undercooked_rooms_stalled"),
        Some(0.0)
    );
    // When something holds the thread for 3.5 s
    let path = format!("/api/test/hold_thread/{held}/3500");
    let (status, _) = server::http(server.addr, "POST", &path, None, &[]).await;
    assert_eq!(status, 200);
    // Then while it lasts, /metrics shows both rooms stalled, and past 2 s /healthz fails
    tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
    let text = scrape(&server).await;
    let text = text.as_str().unwrap();
    assert_eq!(
        sample(text, "undercooked_rooms_stalled"),
        Some(2.0),
        "{text}"
    );
    let gap = sample(text, "undercooked_room_tick_gap_max_seconds").unwrap();
    assert!((0.5..3.5).contains(&gap), "a gap of {gap} s");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let (status, health) = server::http(server.addr, "GET", "/healthz", None, &[]).await;
    assert_eq!(status, 503, "{health}");
    assert_eq!(health["ok"], false);
    assert_eq!(health["rooms_stalled"], 2);
    // and once the thread is free again, both are well
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let (status, health) = server::http(server.addr, "GET", "/healthz", None, &[]).await;
    assert_eq!(
        (status, health["rooms_stalled"].as_u64()),
        (200, Some(0)),
        "{health}"
    );
    server.stop().await;
}
