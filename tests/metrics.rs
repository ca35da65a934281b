//! `/metrics` as a Prometheus server reads it: after a played round, the scrape parses
//! (with `prometheus-parse`, and line by line against the exposition grammar), every sample
//! belongs to a declared family, and the tick health is there with real values.

mod server;

use server::{play, two_player_round};

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
    let (_, _, _, a, b) = two_player_round(&server, "01_quick_soup").await;
    let level = server.level("01_quick_soup");
    let (ta, tb) = (
        tokio::spawn(play(a, 0, level.clone())),
        tokio::spawn(play(b, 1, level)),
    );
    ta.await.unwrap();
    tb.await.unwrap();
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
