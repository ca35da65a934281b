//! The outbox: a round's result on disk until the database has committed it.
//!
//! A result is written before it is queued, atomically (a temporary file, `fsync`, then a
//! rename over the final name, then the folder synced), so a crash or a full disk leaves
//! either the whole file or none — never a 0-byte or half-written one. The write chain
//! deletes the file only after the transaction holding the result committed. At start the
//! files left by an earlier run are queued again; one that does not parse (written by an
//! older build, or damaged outside the server) is moved into `outbox/unreadable/` with one
//! warning, so it is neither lost nor complained about at every start.

use super::rows::{RoundMeta, RoundOutcome};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where unparseable outbox files are moved.
const UNREADABLE: &str = "unreadable";
/// The suffix of a file still being written.
const PARTIAL: &str = "partial";

/// Writes `round_key.json` in `dir` atomically; its path once it is in place.
pub fn write(dir: &Path, meta: &RoundMeta, outcome: &RoundOutcome) -> std::io::Result<PathBuf> {
    let bytes = serde_json::to_vec(&(meta, outcome))?;
    let path = dir.join(format!("{}.json", meta.round_key));
    let partial = path.with_extension(PARTIAL);
    let written = (|| {
        let mut file = std::fs::File::create(&partial)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&partial, &path)?;
        // The rename itself is durable once the folder is synced.
        std::fs::File::open(dir)?.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(e);
    }
    Ok(path)
}

/// The results an earlier run left, oldest name first. Partial files (a write cut short) are
/// removed; files that do not parse are moved aside with a warning.
pub fn read(dir: &Path) -> Vec<(Arc<RoundMeta>, RoundOutcome, PathBuf)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let mut found = Vec::new();
    for path in files {
        if !path.is_file() {
            continue;
        }
        if path.extension().is_some_and(|e| e == PARTIAL) {
            let _ = std::fs::remove_file(&path);
            continue;
        }
        let parsed = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                serde_json::from_slice::<(RoundMeta, RoundOutcome)>(&b).map_err(|e| e.to_string())
            });
        match parsed {
            Ok((meta, outcome)) => found.push((Arc::new(meta), outcome, path)),
            Err(error) => set_aside(dir, &path, &error),
        }
    }
    found
}

fn set_aside(dir: &Path, path: &Path, error: &str) {
    let aside = dir.join(UNREADABLE);
    let moved = std::fs::create_dir_all(&aside).and_then(|()| {
        let name = path.file_name().unwrap_or_default();
        std::fs::rename(path, aside.join(name))
    });
    match moved {
        Ok(()) => tracing::warn!(
            file = %path.display(),
            error,
            moved_to = %aside.display(),
            "an outbox file does not parse; moved aside (its round is still in its replay file: reindex)"
        ),
        Err(e) => tracing::warn!(
            file = %path.display(),
            error,
            move_error = %e,
            "an outbox file does not parse and could not be moved aside"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("uc-outbox-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_written_result_reads_back_and_leaves_no_partial_file() {
        let dir = scratch("roundtrip");
        let meta = RoundMeta {
            round_key: "R1-1".into(),
            room_code: "R1".into(),
            round_no: 1,
            level_id: "01_first_kitchen".into(),
            seed: 7,
            replay_path: "replays/R1-1.ucr".into(),
            started_at: 1_700_000_000,
            target: 60,
            tick_hz: 20,
            identity: None,
            seats: Vec::new(),
        };
        let outcome = RoundOutcome {
            round_key: "R1-1".into(),
            level_id: "01_first_kitchen".into(),
            level_order: 1,
            ended_at: 1_700_000_150,
            result: "won".into(),
            score: 80,
            stars: 2,
            ticks: 3000,
            served: 4,
            missed: 0,
            wasted: 0,
            lost_items: 0,
            longest_streak: 4,
            players: vec![(0, 80, 4, 0)],
            unlock: Some(2),
        };
        let path = write(&dir, &meta, &outcome).unwrap();
        assert_eq!(path, dir.join("R1-1.json"));
        let back = read(&dir);
        assert_eq!(back.len(), 1);
        assert_eq!(*back[0].0, meta);
        assert_eq!(back[0].1, outcome);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn empty_and_damaged_files_are_moved_aside_once_and_partial_ones_removed() {
        let dir = scratch("damaged");
        std::fs::write(dir.join("A.json"), b"").unwrap();
        std::fs::write(dir.join("B.json"), b"{\"not\": \"a result\"}").unwrap();
        std::fs::write(dir.join("C.partial"), b"{\"half").unwrap();
        assert!(read(&dir).is_empty());
        let aside: Vec<_> = std::fs::read_dir(dir.join(UNREADABLE))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(aside.len(), 2, "{aside:?}");
        assert!(!dir.join("C.partial").exists());
        // The next start finds nothing left to complain about.
        assert!(read(&dir).is_empty());
        assert_eq!(std::fs::read_dir(dir.join(UNREADABLE)).unwrap().count(), 2);
    }
}
