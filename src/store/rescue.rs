//! The rescue folder: what a shutdown could not write where it belongs, kept for the next
//! start.
//!
//! Two things can still be in memory when the server stops: replay bytes a refusing disk
//! did not take (`ReplayFile` holds them; at the round's end they come here and are tried
//! once a second), and round results neither the database nor the outbox took (the chain
//! keeps them). Shutdown waits its grace for both; what is left is written to the rescue
//! folder, a place of its own (`UNDERCOOKED_RESCUE_DIR`, by default under the system's
//! temporary folder, so it is not on a full data disk): a replay tail as
//! `replays/<file name>.at-<offset>`, a result as an outbox file under `outbox/`. Each
//! round written there is logged at WARN with where it went; one that cannot be written
//! anywhere is logged at ERROR with its round and bytes. The next start (`recover`) appends
//! each tail to its replay file when the file ends exactly where the tail begins, and moves
//! the results into the outbox, which queues them for the database.

use super::replay_file::ReplayFile;
use crate::lock::lock;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Replay files whose end the disk has not taken yet, and the folder for what is left.
pub struct Rescue {
    dir: PathBuf,
    files: Mutex<Vec<ReplayFile>>,
}

/// What a rescue or a recovery did, for the log and the tests.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub done: usize,
    pub failed: usize,
}

impl Rescue {
    pub fn new(dir: PathBuf) -> Rescue {
        Rescue {
            dir,
            files: Mutex::new(Vec::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A finished round's file: written out now (true), or held while its disk refuses the
    /// rest (false).
    pub fn close(&self, mut file: ReplayFile) -> bool {
        if file.drain() {
            return true;
        }
        lock(&self.files).push(file);
        false
    }

    /// Tries every held file again; the number still held.
    pub fn retry(&self) -> usize {
        let mut files = lock(&self.files);
        files.retain_mut(|f| !f.drain());
        files.len()
    }

    /// Writes every held tail to the rescue folder (after the grace, at shutdown).
    pub fn write_out(&self) -> Tally {
        let mut tally = Tally::default();
        for mut file in std::mem::take(&mut *lock(&self.files)) {
            if file.drain() {
                continue;
            }
            let (path, at, bytes) = file.tail();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = name.unwrap_or_else(|| "replay.ucr".into());
            let to = self.dir.join("replays").join(format!("{name}.at-{at}"));
            match write_durably(&to, bytes) {
                Ok(()) => {
                    tally.done += 1;
                    tracing::warn!(round = %name, bytes = bytes.len(), to = %to.display(), "the replay file's end went to the rescue folder; the next start puts it back");
                }
                Err(e) => {
                    tally.failed += 1;
                    tracing::error!(round = %name, bytes = bytes.len(), to = %to.display(), error = %e, "round dropped: its replay file's end could not be written anywhere");
                }
            }
            file.forget();
        }
        tally
    }
}

/// Writes `bytes` to `to` (its folder made), synced: a rescued tail must outlive the process.
pub fn write_durably(to: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::File::create(to)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// At start: puts back what an earlier shutdown rescued into `rescue_dir` (tails appended to
/// `data_dir/replays/`, results moved into `data_dir/outbox/`), before the chain reads the
/// outbox. What cannot be put back stays where it is, with an ERROR line saying why.
pub fn recover(rescue_dir: &Path, data_dir: &Path) -> Tally {
    let mut tally = Tally::default();
    for (path, name) in files_in(&rescue_dir.join("replays")) {
        match put_back_tail(&path, &name, &data_dir.join("replays")) {
            Ok(()) => {
                tally.done += 1;
                let _ = std::fs::remove_file(&path);
                tracing::warn!(tail = %path.display(), "a rescued replay file's end was put back");
            }
            Err(why) => {
                tally.failed += 1;
                tracing::error!(tail = %path.display(), why = %why, "a rescued replay file's end could not be put back; it stays in the rescue folder");
            }
        }
    }
    let outbox = data_dir.join("outbox");
    for (path, name) in files_in(&rescue_dir.join("outbox")) {
        let moved = std::fs::create_dir_all(&outbox)
            .and_then(|_| std::fs::read(&path))
            .and_then(|bytes| write_durably(&outbox.join(&name), &bytes));
        match moved {
            Ok(()) => {
                tally.done += 1;
                let _ = std::fs::remove_file(&path);
                tracing::warn!(result = %name, "a rescued round result was moved into the outbox");
            }
            Err(e) => {
                tally.failed += 1;
                tracing::error!(result = %path.display(), error = %e, "a rescued round result could not be moved into the outbox; it stays in the rescue folder");
            }
        }
    }
    tally
}

/// The files (not folders) in `dir`, sorted, with their names; none when it does not exist.
fn files_in(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found: Vec<(PathBuf, String)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            Some((p, name))
        })
        .collect();
    found.sort();
    found
}

/// Appends the tail `<file>.at-<offset>` to `replays/<file>` when that file is exactly
/// `offset` bytes long (or is missing and the offset is 0): anything else means bytes
/// between them are gone, and appending would make a corrupt file out of a torn one.
fn put_back_tail(tail: &Path, name: &str, replays: &Path) -> Result<(), String> {
    let (file, at) = name
        .rsplit_once(".at-")
        .ok_or("its name is not <replay file>.at-<offset>")?;
    let at: u64 = at
        .parse()
        .map_err(|_| format!("{at:?} in its name is not a byte offset"))?;
    if file.contains('/') || !file.ends_with(".ucr") {
        return Err(format!("{file:?} is not a replay file's name"));
    }
    let bytes = std::fs::read(tail).map_err(|e| e.to_string())?;
    let target = replays.join(file);
    let len = std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
    if len != at {
        return Err(format!(
            "{} is {len} bytes long, the rescued end starts at byte {at}",
            target.display()
        ));
    }
    std::fs::create_dir_all(replays).map_err(|e| e.to_string())?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&target)
        .map_err(|e| e.to_string())?;
    f.write_all(&bytes)
        .and_then(|_| f.sync_all())
        .map_err(|e| format!("appending to {}: {e}", target.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(name: &str) -> (PathBuf, PathBuf) {
        let root = std::env::temp_dir().join(format!("uc-rescue-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        (root.join("rescue"), root.join("data"))
    }

    #[test]
    fn a_tail_goes_back_where_its_file_ends_and_nowhere_else() {
        // Given a replay file of 5 bytes, a tail that starts at byte 5, one at byte 9 (bytes
        // between them lost), one for a file that was never written, and a stray file.
        let (rescue, data) = dirs("tails");
        std::fs::create_dir_all(data.join("replays")).unwrap();
        std::fs::write(data.join("replays/a.ucr"), b"12345").unwrap();
        std::fs::write(data.join("replays/b.ucr"), b"12345").unwrap();
        write_durably(&rescue.join("replays/a.ucr.at-5"), b"678").unwrap();
        write_durably(&rescue.join("replays/b.ucr.at-9"), b"xyz").unwrap();
        write_durably(&rescue.join("replays/c.ucr.at-0"), b"whole").unwrap();
        write_durably(&rescue.join("replays/notes.txt"), b"?").unwrap();
        // When the server starts.
        let tally = recover(&rescue, &data);
        // Then the two that fit are put back and removed; the others stay, untouched.
        assert_eq!(tally, Tally { done: 2, failed: 2 });
        assert_eq!(
            std::fs::read(data.join("replays/a.ucr")).unwrap(),
            b"12345678"
        );
        assert_eq!(std::fs::read(data.join("replays/b.ucr")).unwrap(), b"12345");
        assert_eq!(std::fs::read(data.join("replays/c.ucr")).unwrap(), b"whole");
        assert!(!rescue.join("replays/a.ucr.at-5").exists());
        assert!(rescue.join("replays/b.ucr.at-9").exists());
        assert!(rescue.join("replays/notes.txt").exists());
        // And a second start changes nothing more.
        assert_eq!(recover(&rescue, &data), Tally { done: 0, failed: 2 });
        assert_eq!(
            std::fs::read(data.join("replays/a.ucr")).unwrap(),
            b"12345678"
        );
    }

    #[test]
    fn rescued_results_move_into_the_outbox() {
        let (rescue, data) = dirs("results");
        write_durably(&rescue.join("outbox/r-1-2.json"), b"{}").unwrap();
        assert_eq!(recover(&rescue, &data), Tally { done: 1, failed: 0 });
        assert_eq!(
            std::fs::read(data.join("outbox/r-1-2.json")).unwrap(),
            b"{}"
        );
        assert!(!rescue.join("outbox/r-1-2.json").exists());
    }
}
