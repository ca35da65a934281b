//! `key_file`'s refusals, each naming the file and its fix (mode, owner, form), and the
//! creation of a missing file: once, owner-only, nothing left beside it.

use super::*;
use std::os::unix::fs::PermissionsExt;

const WORD: Form<String> = Form {
    what: "test key file",
    must: "it must hold one lowercase word",
    parse: |t| {
        let t = t.trim();
        (!t.is_empty() && t.chars().all(|c| c.is_ascii_lowercase())).then(|| t.to_string())
    },
};

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("uc-keyfile-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn file(dir: &Path, bytes: &[u8], mode: u32) -> PathBuf {
    let path = dir.join("secret");
    std::fs::write(&path, bytes).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

#[test]
fn a_file_others_could_write_is_refused_naming_the_chmod() {
    let dir = folder("modes");
    for mode in [0o666, 0o620, 0o602, 0o660] {
        let path = file(&dir, b"word", mode);
        let e = read(&path, &WORD).expect_err("refused").to_string();
        let chmod = format!("`chmod 600 {}` fixes it", path.display());
        assert!(
            e.contains("writable by its group or by others") && e.contains(&chmod),
            "{e}"
        );
    }
    // Readable by others is used (with a warning), and owner-only is used quietly.
    for mode in [0o644, 0o600, 0o400] {
        assert_eq!(
            read(&file(&dir, b"word\n", mode), &WORD).ok().as_deref(),
            Some("word")
        );
    }
}

#[test]
fn a_file_of_another_user_is_refused_naming_the_chown() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: only root can give a file to another user");
        return;
    }
    let path = file(&folder("owner"), b"word", 0o600);
    std::os::unix::fs::chown(&path, Some(65534), None).unwrap();
    let e = read(&path, &WORD).expect_err("refused").to_string();
    assert!(
        e.contains("belongs to uid 65534") && e.contains("`chown 0 "),
        "{e}"
    );
}

#[test]
fn a_file_of_the_wrong_form_is_named_as_the_key_file_with_its_form() {
    let dir = folder("form");
    let big = vec![b'a'; MAX_BYTES as usize + 1];
    for bytes in [&b"\xff\xfe not text"[..], b"", b"two words", &big] {
        let path = file(&dir, bytes, 0o600);
        let e = read(&path, &WORD).expect_err("refused").to_string();
        let want = format!(
            "{} is not a test key file: it must hold one lowercase word",
            path.display()
        );
        assert_eq!(e, want);
    }
    let e = read(&dir, &WORD).expect_err("a folder").to_string();
    assert!(e.contains("is not a regular file"), "{e}");
    assert!(
        read(&dir.join("none"), &WORD)
            .expect_err("missing")
            .is_missing()
    );
}

#[test]
fn a_missing_file_is_made_once_owner_only_and_then_read() {
    let path = folder("create").join("deeper").join("secret");
    let made = read_or_create(&path, &WORD, || "first".into()).unwrap();
    let again = read_or_create(&path, &WORD, || "second".into()).unwrap();
    assert_eq!((made.as_str(), again.as_str()), ("first", "first"));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "owner-only");
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
    assert_eq!(left.len(), 1, "no partial file left beside it");
    // Text that is not of the form is not written over: it is refused.
    let bad = file(&folder("keep"), b"BAD", 0o600);
    assert!(read_or_create(&bad, &WORD, || "fresh".into()).is_err());
    assert_eq!(std::fs::read(&bad).unwrap(), b"BAD");
}
