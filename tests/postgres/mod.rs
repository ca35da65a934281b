//! The PostgreSQL harness: a throwaway cluster (Debian's `initdb` and `postgres`) on
//! 127.0.0.1 and a free port, started lazily once per test binary, and a fresh database per
//! test, so the PostgreSQL store and the cluster tests run against the real engine.
//!
//! Include it with `#[path = "../postgres/mod.rs"] mod postgres;`. A test starts with
//! `if !postgres::available() { return; }` and takes its database with `postgres::database()`.
//! Without PostgreSQL's binaries the tests are skipped with a line saying so, unless `CI` is
//! set: then a missing PostgreSQL is a failure (`.ci/run` installs it).
//!
//! The server must not outlive the test process, even one that panics or is killed: each
//! `postgres` runs under a small `sh` watcher whose stdin is a pipe only this process holds.
//! When the process exits the pipe closes, the watcher stops PostgreSQL (a fast shutdown)
//! and removes the cluster's folder (`target/pg/<pid>-<n>`); a normal exit also waits for
//! that (`atexit`). Folders left by a process killed while its cluster was stopped or being
//! created are removed by the next run.
//!
//! A test that stops PostgreSQL (`stop()`/`start()`) takes a cluster of its own
//! (`Cluster::start_new()`): stopping the shared one would fail every test running beside it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The folder holding `initdb`, `postgres`, `pg_isready` and `psql`: the one `initdb` on
/// PATH resolves to (Debian's wrappers and symlinks point into `/usr/lib/postgresql/NN/bin`),
/// else the highest-numbered `/usr/lib/postgresql/NN/bin` (Debian's `postgresql` package
/// does not put them on PATH).
fn bin_dir() -> Option<&'static Path> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let on_path = std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path).find_map(|dir| {
                let initdb = std::fs::canonicalize(dir.join("initdb")).ok()?;
                let dir = initdb.parent()?.to_path_buf();
                dir.join("postgres").is_file().then_some(dir)
            })
        });
        on_path.or_else(|| {
            let versions = std::fs::read_dir("/usr/lib/postgresql").ok()?;
            versions
                .filter_map(|entry| {
                    let entry = entry.ok()?;
                    let version: u32 = entry.file_name().to_str()?.parse().ok()?;
                    let bin = entry.path().join("bin");
                    (bin.join("initdb").is_file() && bin.join("postgres").is_file())
                        .then_some((version, bin))
                })
                .max_by_key(|(version, _)| *version)
                .map(|(_, bin)| bin)
        })
    })
    .as_deref()
}

/// Whether the PostgreSQL tests can run here; `false` (with a line on stderr) means skip.
/// Panics when `CI` is set and PostgreSQL is missing.
pub fn available() -> bool {
    let present = bin_dir().is_some();
    if !present {
        if std::env::var_os("CI").is_some() {
            panic!(
                "CI is set but PostgreSQL's initdb and postgres are neither on PATH nor in /usr/lib/postgresql/*/bin: .ci/run installs them (apt-get install postgresql)"
            );
        }
        eprintln!(
            "skipped: no PostgreSQL (initdb and postgres neither on PATH nor in /usr/lib/postgresql/*/bin; apt-get install postgresql)"
        );
    }
    present
}

static SHARED: OnceLock<Cluster> = OnceLock::new();

/// The cluster every test of this binary shares, started on first use.
pub fn shared() -> &'static Cluster {
    // Statics are never dropped: when the binary exits (or is killed) the watcher sees its
    // stdin close and stops the server and removes its folder, a moment later.
    SHARED.get_or_init(Cluster::start_new)
}

/// A fresh, empty database on the shared cluster: `postgres://postgres@127.0.0.1:PORT/NAME`.
pub fn database() -> String {
    shared().database()
}

/// Numbers this process's clusters (`target/pg/<pid>-<n>`).
static NEXT_CLUSTER: AtomicU32 = AtomicU32::new(0);

/// One throwaway PostgreSQL cluster: its folder, its port, and the watcher running it.
pub struct Cluster {
    bin: PathBuf,
    /// `target/pg/<pid>-<n>`: the data directory `data/` and the server's log `postgres.log`.
    root: PathBuf,
    port: u16,
    /// Root runs `initdb` and `postgres` as the `postgres` user: both refuse to run as root.
    as_postgres: bool,
    next_db: AtomicU32,
    /// The running watcher and the write end of its stdin; `None` while stopped.
    running: Mutex<Option<(Child, ChildStdin)>>,
}

impl Cluster {
    /// Creates and starts a cluster of its own (`initdb`, then `postgres`); panics naming
    /// what failed. Most tests want `database()` on the shared cluster instead.
    pub fn start_new() -> Cluster {
        let bin = bin_dir()
            .expect("PostgreSQL's binaries (apt-get install postgresql); call available() first")
            .to_path_buf();
        let as_postgres = rustix::process::geteuid().is_root();
        let base = base_dir(as_postgres);
        remove_stale(&base);
        let root = base.join(format!(
            "{}-{}",
            std::process::id(),
            NEXT_CLUSTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", root.display()));
        if as_postgres {
            let chown = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&root)
                .output()
                .expect("chown runs");
            assert!(
                chown.status.success(),
                "chown postgres:postgres {} failed (is there a `postgres` user? apt-get install postgresql creates it): {}",
                root.display(),
                String::from_utf8_lossy(&chown.stderr)
            );
        }
        let data = root.join("data");
        let mut initdb = command(&bin, "initdb", as_postgres);
        initdb
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
            ])
            .arg("--no-sync")
            .current_dir(&root);
        let out = initdb.output().expect("initdb runs");
        assert!(
            out.status.success(),
            "initdb -D {} failed: {}{}",
            data.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port on 127.0.0.1");
        let cluster = Cluster {
            bin,
            root,
            port,
            as_postgres,
            next_db: AtomicU32::new(0),
            running: Mutex::new(None),
        };
        cluster.start();
        cluster
    }

    /// The port PostgreSQL listens on (127.0.0.1 only); the same across `stop`/`start`.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The cluster's folder (`target/pg/<pid>-<n>`), removed when the cluster goes.
    pub fn dir(&self) -> &Path {
        &self.root
    }

    /// The URL of database `name` on this cluster (user `postgres`, trust auth).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates a fresh, empty database with a name unique in this cluster and returns its URL.
    pub fn database(&self) -> String {
        let name = format!("test_{}", self.next_db.fetch_add(1, Ordering::Relaxed));
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// Runs `sql` in database `name` with `psql` and returns its unaligned, tuples-only
    /// output (`|` between columns, a line per row); panics with psql's error.
    pub fn psql(&self, name: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"])
            .args(["-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(self.port.to_string())
            .args(["-d", name, "-c", sql])
            .stdin(Stdio::null())
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "psql on {name} failed for `{sql}`: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim_end().to_string()
    }

    /// Starts PostgreSQL on this cluster's data directory and port and waits until it accepts
    /// connections; does nothing when it runs already. Panics (with the log's tail) when it
    /// does not come up within 30 s.
    pub fn start(&self) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if running.is_some() {
            return;
        }
        let data = self.root.join("data");
        // Settings for a throwaway: loopback only, its socket inside its own folder (a
        // system-wide /var/run/postgresql may be missing or belong to another server), and
        // durability off (nothing here must survive a crash of the machine).
        let socket_dir = if data.as_os_str().len() < 80 {
            data.to_string_lossy().into_owned()
        } else {
            // A Unix socket's path is limited to 107 bytes: no socket then (tests use TCP).
            String::new()
        };
        let settings = [
            "listen_addresses=127.0.0.1".to_string(),
            format!("port={}", self.port),
            format!("unix_socket_directories={socket_dir}"),
            "fsync=off".to_string(),
            "synchronous_commit=off".to_string(),
            "full_page_writes=off".to_string(),
            "max_connections=200".to_string(),
        ];
        // The watcher: starts postgres in the background, then blocks reading its stdin.
        // A line ("stop") means `stop()`: a fast shutdown (SIGINT), keeping the folder. End
        // of file means this process is gone (exit, panic, kill -9) or the cluster dropped:
        // a fast shutdown, then the folder is removed. `setpriv` execs postgres in place (no
        // process between), so `$pid` is the postmaster itself; `su`/`runuser` would stand
        // between and turn the signal into SIGTERM, a smart shutdown that waits for clients.
        let script = r#"root=$1; shift
"$@" >>"$root/postgres.log" 2>&1 </dev/null &
pid=$!
if read cmd; then keep=1; else keep=0; fi
kill -INT "$pid" 2>/dev/null
wait "$pid"
[ "$keep" = 1 ] || rm -rf "$root""#;
        let mut watcher = Command::new("sh");
        watcher.args(["-c", script, "pg-watcher"]).arg(&self.root);
        if self.as_postgres {
            watcher.args(SETPRIV);
        }
        watcher.arg(self.bin.join("postgres")).arg("-D").arg(&data);
        for setting in &settings {
            watcher.arg("-c").arg(setting);
        }
        // Its own process group: a Ctrl-C in the terminal stops the tests, and the watcher
        // then sees its stdin close and cleans up, instead of dying with them half-way.
        std::os::unix::process::CommandExt::process_group(&mut watcher, 0);
        let mut child = watcher
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sh starts the PostgreSQL watcher");
        let stdin = child.stdin.take().expect("the watcher's stdin is a pipe");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-t", "1", "-p"])
                .arg(self.port.to_string())
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                break;
            }
            let exited = child.try_wait().ok().flatten().is_some();
            if exited || Instant::now() > deadline {
                drop(stdin);
                let _ = child.wait();
                panic!(
                    "PostgreSQL did not start on 127.0.0.1:{} (data {}): {}",
                    self.port,
                    data.display(),
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        *running = Some((child, stdin));
    }

    /// Stops PostgreSQL (a fast shutdown: open connections are cut) and waits until it has
    /// exited; the data directory and port stay for `start()`. Does nothing when stopped.
    pub fn stop(&self) {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((mut child, mut stdin)) = running.take() {
            // A line, not end of file: the watcher keeps the folder.
            let _ = stdin.write_all(b"stop\n");
            let _ = stdin.flush();
            drop(stdin);
            let _ = child.wait();
        }
    }

    /// The last lines of the server's log, for a failure message.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.root.join("postgres.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Cluster {
    /// Stops the server for good and removes the folder: end of file on the watcher's stdin
    /// when running, a plain removal when stopped. `try_lock`: at exit, never wait on a lock.
    fn shut_down(&self) {
        let mut running = match self.running.try_lock() {
            Ok(running) => running,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return,
        };
        match running.take() {
            Some((mut child, stdin)) => {
                drop(stdin);
                let _ = child.wait();
            }
            None => {
                let _ = std::fs::remove_dir_all(&self.root);
            }
        }
    }
}

impl Drop for Cluster {
    /// A dropped cluster stops its server and removes its folder (the shared one is never
    /// dropped: `shut_down_shared` does both at exit).
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Root runs the server binaries as `postgres` through `setpriv`, which execs in place.
const SETPRIV: [&str; 4] = [
    "setpriv",
    "--reuid=postgres",
    "--regid=postgres",
    "--init-groups",
];

/// A command for PostgreSQL's binary `name`, as the `postgres` user when we are root.
fn command(bin: &Path, name: &str, as_postgres: bool) -> Command {
    if as_postgres {
        let mut c = Command::new(SETPRIV[0]);
        c.args(&SETPRIV[1..]).arg(bin.join(name));
        c
    } else {
        Command::new(bin.join(name))
    }
}

/// Where clusters live: `target/pg/`, unless we are root and the `postgres` user cannot
/// reach it (a checkout under a home folder closed to others): then the temp folder.
fn base_dir(as_postgres: bool) -> PathBuf {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/pg");
    if as_postgres {
        use std::os::unix::fs::PermissionsExt;
        let reachable = base.ancestors().skip(1).all(|dir| {
            std::fs::metadata(dir).map_or(true, |m| m.permissions().mode() & 0o001 != 0)
        });
        if !reachable {
            return std::env::temp_dir().join("undercooked-pg");
        }
    }
    base
}

/// Removes the clusters of processes that are gone (`<pid>-<n>` with no `/proc/<pid>`): a
/// process killed while its cluster was stopped left its folder behind.
fn remove_stale(base: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((pid, _)) = name.to_str().and_then(|n| n.split_once('-')) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Serialises `reader`'s role creation: roles belong to the whole cluster, and two tests
/// creating one at once would collide.
static READER: Mutex<()> = Mutex::new(());

/// The URL of the database `url` names (on the shared cluster, as `postgres`), as the role
/// `undercooked sql` runs as: one that can only read, `undercooked_reader`, made as
/// docs/HISTORY.md makes it (`LOGIN NOSUPERUSER`, `GRANT pg_read_all_data`) the first time.
/// `sql` refuses the superuser `postgres`.
pub fn reader(url: &str) -> String {
    let _one = READER.lock().unwrap_or_else(|e| e.into_inner());
    shared().psql(
        "postgres",
        "DO $$ BEGIN
           IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'undercooked_reader') THEN
             CREATE ROLE undercooked_reader LOGIN NOSUPERUSER;
             GRANT pg_read_all_data TO undercooked_reader;
           END IF;
         END $$",
    );
    let reader = url.replacen("postgres://postgres@", "postgres://undercooked_reader@", 1);
    assert_ne!(
        reader, url,
        "{url} is a URL of the shared cluster, as postgres"
    );
    reader
}
