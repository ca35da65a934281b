//! A full disk at shutdown: SIGTERM while the data folder's disk refuses every write, then
//! space freed and a restart. Every round that finished before the SIGTERM is in the
//! database with its result, every live one is recorded aborted, and every replay file is
//! whole (it verifies and ends with `Ended`): what the disk would not take went to the
//! rescue folder and the restart put it back.
//!
//! The data folder is a 4 MiB tmpfs, so the test mounts one: as root (here and in CI). With
//! `CI` set, a refused mount fails the test rather than skipping it.

use crate::server;

use serde_json::json;
use server::Client;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A tmpfs mounted for the test's life.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(at.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: detached now, freed once the last file on it closes (a panicking test may
        // still hold the database open).
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A campaign of one 4 s level (the fixtures' short-clock level, made the first).
fn levels(dir: &Path) -> PathBuf {
    let fixtures = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/levels"
    ));
    std::fs::create_dir_all(dir).unwrap();
    let short = std::fs::read_to_string(fixtures.join("02_slow_soup.toml"))
        .unwrap()
        .replace("id = \"02_slow_soup\"", "id = \"01_short_soup\"")
        .replace("order = 2", "order = 1")
        .replace("time_limit_s = 3", "time_limit_s = 4");
    std::fs::write(dir.join("01_short_soup.toml"), short).unwrap();
    dir.to_path_buf()
}

/// The server as a child process, killed if the test ends before it stops.
struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(port: u16, data: &Path, rescue: &Path, log: &Path) -> Serve {
    let levels = levels(&data.with_file_name("levels"));
    let stderr = Stdio::from(std::fs::File::create(log).unwrap());
    let env = [("UNDERCOOKED_RESCUE_DIR", rescue)];
    Serve(server::serve_child(
        port,
        &levels.to_string_lossy(),
        data,
        &env,
        stderr,
    ))
}

/// A room with its host alone in it, on `level`, started.
async fn round_on(addr: std::net::SocketAddr, level: &str) -> Client {
    let (code, token) = server::create_room(addr, "Ann").await;
    let mut host = Client::hello(addr, &code, &token).await;
    host.send(json!({"type": "set_level", "level": level}))
        .await;
    loop {
        let lobby = host.expect("lobby").await;
        if lobby["level"] == level && lobby["can_start"] == true {
            break;
        }
    }
    host.send(json!({"type": "start"})).await;
    host.expect("snap").await;
    host
}

/// Fills the disk under `dir` until it refuses another byte.
fn fill(dir: &Path) -> PathBuf {
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![0u8; 16 * 1024];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.write_all(&[0u8; 512]);
    let _ = f.sync_all();
    path
}

fn sigterm_and_wait(Serve(server): &mut Serve) -> Duration {
    let asked = Instant::now();
    Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    loop {
        if let Some(status) = server.try_wait().unwrap() {
            assert!(status.success(), "the server exits cleanly: {status}");
            return asked.elapsed();
        }
        assert!(
            asked.elapsed() < Duration::from_secs(30),
            "no exit 30 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_at_shutdown_loses_no_round() {
    // Given a server whose data folder is a full 4 MiB disk.
    let root = std::env::temp_dir().join(format!("undercooked-disk-full-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (data, rescue, log) = (
        root.join("data"),
        root.join("rescue"),
        root.join("serve.log"),
    );
    let Some(_disk) = Tmpfs::mount(&data, "4m") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run this test: mounting a tmpfs was refused (not root?)"
        );
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    };
    let addr = server::free_addr();
    let mut serve = start(addr.port(), &data, &rescue, &log);
    server::wait_up(addr).await;
    let filler = fill(&data);

    // When two rounds finish on the full disk, two more are playing, and the server is
    // asked to stop (0.3 s into the 4 s rounds).
    let mut finished = vec![
        round_on(addr, "01_short_soup").await,
        round_on(addr, "01_short_soup").await,
    ];
    let mut results = Vec::new();
    for host in &mut finished {
        let round = host.expect_any(&["round"]).await;
        results.push(round["result"].as_str().unwrap().to_string());
    }
    let _live = [
        round_on(addr, "01_short_soup").await,
        round_on(addr, "01_short_soup").await,
    ];
    tokio::time::sleep(Duration::from_millis(300)).await;
    let took = sigterm_and_wait(&mut serve);
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(
        took >= Duration::from_secs(5),
        "shutdown waits its 5 s grace for the disk: {took:?}"
    );
    assert!(
        said.contains("went to the rescue folder") && !said.contains("round dropped"),
        "the log says where the rounds went: {said}"
    );

    // Then, with space freed and the server started again, nothing is missing.
    std::fs::remove_file(filler).unwrap();
    let mut serve = start(addr.port(), &data, &rescue, &log);
    server::wait_up(addr).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    sigterm_and_wait(&mut serve);

    let store = undercooked::store::Store::open(&format!(
        "sqlite://{}",
        data.join("undercooked.db").display()
    ))
    .await
    .unwrap();
    let mut rounds: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT level_id, result FROM rounds ORDER BY level_id DESC")
            .fetch_all(&store.sqlite().expect("a SQLite store"))
            .await
            .unwrap();
    rounds.sort();
    let mut expected = vec![
        ("01_short_soup".to_string(), Some("aborted".to_string())),
        ("01_short_soup".to_string(), Some("aborted".to_string())),
    ];
    for r in results {
        expected.push(("01_short_soup".to_string(), Some(r)));
    }
    expected.sort();
    assert_eq!(
        rounds, expected,
        "every round is in the history with its result"
    );

    let files = undercooked::log::replay_files(&data.join("replays")).unwrap();
    assert_eq!(files.len(), 4);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let rerun = undercooked::verify::replay_bytes(&bytes);
        assert!(
            matches!(rerun.verdict, undercooked::verify::Verdict::Identical),
            "{} verifies whole: {:?}",
            f.display(),
            rerun.verdict
        );
        let read = undercooked::log::read_replay(&bytes).unwrap();
        assert!(
            matches!(
                read.records.last(),
                Some(undercooked::log::Record::Ended { .. })
            ),
            "{} ends with its round's end",
            f.display()
        );
    }
    assert_eq!(
        std::fs::read_dir(rescue.join("replays")).unwrap().count(),
        0,
        "the rescue folder is emptied by the restart"
    );
    store.close().await;
    drop(_disk);
    let _ = std::fs::remove_dir_all(&root);
}
