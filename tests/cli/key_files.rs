//! `undercooked serve` with a session key file it must not trust, or cannot read as a key:
//! it exits 2 before serving, naming the file and what fixes it (never "cannot open the
//! database").

use super::{bin, tmp};
use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

/// Runs `serve` on `data` until it exits (at most 20 s, then it is killed: a server that
/// accepted the key serves on): (exit code, stderr).
fn serve(data: &std::path::Path) -> (Option<i32>, String) {
    let mut child = bin()
        .args(["serve", "--bind", "127.0.0.1:0", "--data-dir"])
        .arg(data)
        .env_remove("UNDERCOOKED_DB")
        .env_remove("UNDERCOOKED_SESSION_KEY_FILE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (code, stderr)
}

#[test]
fn serve_refuses_a_key_file_others_could_write_or_of_the_wrong_form_naming_it() {
    let key = "ab".repeat(32);
    let root = rustix::process::geteuid().is_root();
    let cases = [
        (
            "writable",
            key.as_bytes(),
            0o666,
            None,
            "is writable by its group or by others",
        ),
        ("group", key.as_bytes(), 0o620, None, "`chmod 600 "),
        (
            "owner",
            key.as_bytes(),
            0o600,
            Some(65534),
            "belongs to uid 65534",
        ),
        (
            "not-text",
            &b"\xff\xfe"[..],
            0o600,
            None,
            "is not a session key file: it must hold 64 hex digits, as `undercooked serve` writes it",
        ),
        ("short", b"abc123", 0o600, None, "is not a session key file"),
    ];
    for (name, text, mode, owner, says) in cases {
        if owner.is_some() && !root {
            eprintln!("skipped {name}: only root can give a file to another user");
            continue;
        }
        let data = tmp(&format!("key-{name}"));
        let _ = std::fs::remove_dir_all(&data);
        std::fs::create_dir_all(&data).unwrap();
        let file = data.join("session.key");
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        if let Some(uid) = owner {
            std::os::unix::fs::chown(&file, Some(uid), None).unwrap();
        }
        let (code, stderr) = serve(&data);
        assert_eq!(
            code,
            Some(2),
            "{name}: served on, or ended otherwise: {stderr}"
        );
        assert!(
            stderr.contains(&file.display().to_string()),
            "{name}: {stderr}"
        );
        assert!(
            stderr.contains(says),
            "{name}: {says:?} missing from {stderr}"
        );
        assert!(
            !stderr.contains("cannot open the database"),
            "{name}: {stderr}"
        );
    }
}
