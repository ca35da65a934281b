//! `cargo bench --bench history`: the write chain and reindex, for docs/PERFORMANCE.md.
//!
//! - throughput: 100 rooms push real event batches (from bot rounds) back to back, each
//!   keeping under its 20-pending bound, into a fresh SQLite database: events per second;
//! - 500 rooms feeding batches at the pace of a bot-played round (20 ticks a second) for
//!   10 s: how many batches are dropped;
//! - `reindex` of the golden replays into a fresh database: rounds per second.
//!
//! Into SQLite by default; with `UNDERCOOKED_BENCH_PG` set to a PostgreSQL server's URL (any
//! database on it, e.g. `postgres://postgres@127.0.0.1:5433/postgres`), into a fresh
//! PostgreSQL database per part instead.
//!
//! Several nodes into one database: `UNDERCOOKED_BENCH_SHARED=NAME` writes into the existing
//! database NAME on that server (rounds keyed by the process, so several bench processes
//! share it as nodes do), and `UNDERCOOKED_BENCH_PARTS=throughput` runs that part alone; the
//! throughput line gives its window in Unix seconds, to add the processes up.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};
use undercooked::log::{Applied, Record, RoundFold, read_replay};
use undercooked::store::Store;
use undercooked::store::chain::{Batch, Chain, Must};
use undercooked::store::rows::{EventRow, RoundMeta, SeatRow, event_rows};

/// Each tick's event rows of a golden replay (ticks without events included, empty).
fn ticks_of(path: &std::path::Path) -> Vec<Vec<EventRow>> {
    let read = read_replay(&std::fs::read(path).unwrap()).unwrap();
    let Record::Started(h) = &read.records[0] else {
        panic!()
    };
    let mut fold = RoundFold::new(h.clone()).unwrap();
    let mut out = Vec::new();
    let mut ev = Vec::new();
    for r in &read.records[1..] {
        let tick = fold.state.tick;
        if let Ok(Applied::Stepped { .. }) = fold.apply(r, &mut ev) {
            out.push(event_rows(&ev, tick, &fold.ids));
            ev.clear();
        }
    }
    out
}

fn meta(key: &str) -> Arc<RoundMeta> {
    Arc::new(RoundMeta {
        round_key: key.to_string(),
        room_code: key.to_string(),
        round_no: 1,
        level_id: "01_first_kitchen".into(),
        seed: 1,
        replay_path: String::new(),
        started_at: 0,
        target: 150,
        tick_hz: 20,
        identity: None,
        seats: (0..4)
            .map(|s| SeatRow {
                seat: s,
                session_id: format!("bench-{s}"),
                name: format!("Bot {s}"),
                color: "#fff".into(),
            })
            .collect(),
    })
}

/// A fresh database for one part: SQLite in `dir`, or a new PostgreSQL database.
async fn fresh_database(name: &str, dir: &std::path::Path) -> String {
    let Ok(server) = std::env::var("UNDERCOOKED_BENCH_PG") else {
        return format!("sqlite://{}", dir.join("h.db").display());
    };
    let (base, _) = server.rsplit_once('/').unwrap();
    if let Ok(shared) = std::env::var("UNDERCOOKED_BENCH_SHARED") {
        return format!("{base}/{shared}");
    }
    let admin = sqlx::PgPool::connect(&server).await.unwrap();
    let db = format!("hbench_{name}_{}", std::process::id());
    sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {db}")))
        .execute(&admin)
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
        .execute(&admin)
        .await
        .unwrap();
    format!("{base}/{db}")
}

async fn fresh_chain(name: &str) -> (Chain, Store, std::path::PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("undercooked-hbench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&fresh_database(name, &dir).await)
        .await
        .unwrap();
    let chain = Chain::start(store.clone(), dir.join("outbox"), Arc::new(|_, _| {}))
        .await
        .unwrap();
    (chain, store, dir)
}

async fn throughput(golden: &std::path::Path) {
    let (chain, _store, _) = fresh_chain("throughput").await;
    // Real event rows (every kind a bot round produces), cycled into batches of 50.
    let pool: Vec<EventRow> = std::fs::read_dir(golden)
        .unwrap()
        .flat_map(|e| ticks_of(&e.unwrap().path()).into_iter().flatten())
        .collect();
    let (rooms, batches, per_batch) = (100usize, 100u32, 50usize);
    let mut tasks = Vec::new();
    let start = Instant::now();
    let from = unix_now();
    let node = std::process::id();
    for r in 0..rooms {
        let chain = chain.clone();
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            let m = meta(&format!("N{node}-R{r:03}"));
            chain.must(Must::Begin(m.clone()));
            let pending = Arc::new(AtomicUsize::new(0));
            let mut sent = 0u64;
            for tick in 0..batches {
                // A wait of 2 ms: at 200 µs the hundred waiting rooms woke half a million
                // times a second and took the cores from the writer they measure.
                while pending.load(Relaxed) >= 19 {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                let rows: Vec<EventRow> = (0..per_batch)
                    .map(|n| EventRow {
                        tick,
                        n: n as u32,
                        ..pool[(tick as usize * per_batch + n) % pool.len()].clone()
                    })
                    .collect();
                sent += rows.len() as u64;
                chain.submit(Batch {
                    meta: m.clone(),
                    tick,
                    rows,
                    pending: pending.clone(),
                });
            }
            sent
        }));
    }
    let mut sent = 0;
    for t in tasks {
        sent += t.await.unwrap();
    }
    chain.flushed().await;
    let secs = start.elapsed().as_secs_f64();
    let written = chain.stats.events_written.load(Relaxed);
    println!(
        "write chain, {rooms} rooms x {batches} batches x {per_batch} events back to back: {written} of {sent} events in {secs:.2} s = {:.0} events/s ({} batches written, {} dropped; from {from:.2} to {:.2})",
        written as f64 / secs,
        chain.stats.batches_written.load(Relaxed),
        chain.stats.batches_dropped.load(Relaxed),
        unix_now()
    );
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

async fn rooms_at_game_pace(golden: &std::path::Path, rooms: usize, secs: u64) {
    let (chain, _store, _) = fresh_chain("pace").await;
    let rounds: Vec<Vec<Vec<EventRow>>> = std::fs::read_dir(golden)
        .unwrap()
        .map(|e| ticks_of(&e.unwrap().path()))
        .collect();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for r in 0..rooms {
        let chain = chain.clone();
        let ticks = rounds[r % rounds.len()].clone();
        tasks.push(tokio::spawn(async move {
            let m = meta(&format!("P{r:03}"));
            chain.must(Must::Begin(m.clone()));
            let pending = Arc::new(AtomicUsize::new(0));
            let mut timer = tokio::time::interval(Duration::from_millis(50));
            let mut events = 0u64;
            for t in 0..(secs * 20) as usize {
                timer.tick().await;
                let rows = &ticks[t % ticks.len()];
                if rows.is_empty() {
                    continue;
                }
                let tick = t as u32;
                let rows: Vec<EventRow> = rows
                    .iter()
                    .map(|e| EventRow { tick, ..e.clone() })
                    .collect();
                events += rows.len() as u64;
                chain.submit(Batch {
                    meta: m.clone(),
                    tick,
                    rows,
                    pending: pending.clone(),
                });
            }
            events
        }));
    }
    let mut events = 0;
    for t in tasks {
        events += t.await.unwrap();
    }
    chain.flushed().await;
    println!(
        "{rooms} rooms at the pace of a bot round for {secs} s: {events} events ({:.0}/s offered), {} batches written, {} dropped, {:.1} s to drain",
        events as f64 / secs as f64,
        chain.stats.batches_written.load(Relaxed),
        chain.stats.batches_dropped.load(Relaxed),
        start.elapsed().as_secs_f64() - secs as f64
    );
}

async fn reindex_speed(golden: &std::path::Path) {
    let (_, store, _) = fresh_chain("reindex").await;
    let start = Instant::now();
    let report = undercooked::store::reindex::reindex(
        &store,
        golden,
        undercooked::verify::refusal,
        |_, _| {},
    )
    .await
    .unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "reindex of {} golden replays: {:.2} s = {:.1} rounds/s ({} events)",
        report.rounds,
        secs,
        report.rounds as f64 / secs,
        report.events_new
    );
}

fn main() {
    let golden = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/replays"));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        println!("undercooked history bench");
        let parts = std::env::var("UNDERCOOKED_BENCH_PARTS")
            .unwrap_or_else(|_| "throughput,pace,reindex".into());
        let parts: Vec<&str> = parts.split(',').collect();
        if parts.contains(&"throughput") {
            throughput(&golden).await;
        }
        if parts.contains(&"pace") {
            rooms_at_game_pace(&golden, 500, 10).await;
        }
        if parts.contains(&"reindex") {
            reindex_speed(&golden).await;
        }
    });
}
