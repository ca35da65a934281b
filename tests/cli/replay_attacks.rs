//! Issue 23's crafted replay files through every command: `verify`, `replay` and `reindex`
//! each exit 2 with an `unreadable` message naming what is wrong, and each stays under
//! `PEAK_MB` of memory (the child's own peak, measured by the kernel). Before the readers
//! were bounded, the 2^50-byte level text aborted all three (`memory allocation of
//! 1125899906842624 bytes failed`) and the newline block took about 3 GB.

use super::{bin, tmp};
use std::io::Read;
use std::process::{Command, Stdio};

#[path = "../crafted/mod.rs"]
mod crafted;

/// The most a command may take on a crafted file. Reading a golden round takes about
/// 15 MB here; the cap leaves room for the 1 MiB frame, the 64 KiB chunk and the fold.
const PEAK_MB: u64 = 100;

/// Runs `cmd` to its end: (exit code, stdout and stderr together, peak RSS in MB). The
/// peak is the kernel's account of that one child (`wait4`'s `ru_maxrss`), so a spike
/// between two samples cannot be missed; a child killed by a signal gets minus its number.
#[allow(clippy::zombie_processes)] // wait4 below reaps it, which clippy cannot see
fn run_measured(cmd: &mut Command) -> (i32, String, u64) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain integers, for which all zeroes is a valid value; `wait4`
    // writes into the two locals it is given and reaps the child `std` spawned (which
    // never waits for it itself: `child` is not used again).
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut usage), pid);
        usage
    };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -libc::WTERMSIG(status)
    };
    let text = format!("{}{}", out.join().unwrap(), err.join().unwrap());
    (code, text, usage.ru_maxrss as u64 / 1024)
}

/// The three commands that read `file`: `verify` and `replay` on it, `reindex` on `data`.
fn readers(file: &std::path::Path, data: &std::path::Path) -> [(&'static str, Command); 3] {
    let mut verify = bin();
    verify.arg("verify").arg(file);
    let mut replay = bin();
    replay.arg("replay").arg(file);
    let mut reindex = bin();
    reindex.arg("reindex").env("UNDERCOOKED_DATA_DIR", data);
    [("verify", verify), ("replay", replay), ("reindex", reindex)]
}

#[test]
fn every_crafted_file_is_unreadable_through_verify_replay_and_reindex_in_bounded_memory() {
    for c in crafted::all() {
        // Given the committed crafted file, alone in a data dir's `replays/`.
        let data = tmp(&format!("attack-{}", c.name));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(data.join("replays")).unwrap();
        let file = data.join("replays").join(format!("{}.ucr", c.name));
        std::fs::copy(crafted::path(c.name), &file).unwrap();
        let words = ["UNREADABLE: ", "unreadable: ", "UNREADABLE: "];
        for ((what, mut cmd), word) in readers(&file, &data).into_iter().zip(words) {
            // When the command reads it, it exits 2, says why, and stays small.
            let (code, text, peak_mb) = run_measured(&mut cmd);
            eprintln!("{} via {what}: exit {code}, peak {peak_mb} MB", c.name);
            assert_eq!(code, 2, "{} via {what}: {text}", c.name);
            assert!(
                text.contains(word) && text.contains(c.says),
                "{} via {what} names what is wrong ({:?}): {text}",
                c.name,
                c.says
            );
            assert!(
                peak_mb < PEAK_MB,
                "{} via {what} peaked at {peak_mb} MB",
                c.name
            );
        }
    }
}

#[test]
fn a_file_past_256_mib_is_refused_before_it_is_read() {
    // Given a 300 MiB replay file (sparse: it costs the disk nothing).
    let data = tmp("attack-too-big");
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(data.join("replays")).unwrap();
    let file = data.join("replays").join("big.ucr");
    let f = std::fs::File::create(&file).unwrap();
    f.set_len(300 << 20).unwrap();
    for (what, mut cmd) in readers(&file, &data) {
        // When a command reads it, it exits 2 naming the cap, without reading the file.
        let (code, text, peak_mb) = run_measured(&mut cmd);
        assert_eq!(code, 2, "{what}: {text}");
        assert!(
            text.contains("a replay file is at most 256 MiB"),
            "{what}: {text}"
        );
        assert!(peak_mb < 64, "{what} peaked at {peak_mb} MB");
    }
}
