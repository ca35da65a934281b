//! The levels folder: which files are levels, reading and checking them, the campaign.
//!
//! Only files named `NN_*.toml` are levels; the rest of the folder is ignored. Each file
//! must parse (`sim::Level::check`), carry the id its name says, and, in the campaign
//! (non-zero `order`), take an `order` no other file takes. `scan_dir` keeps the good levels
//! and names the broken ones with every reason (what `serve` and `levels check` use);
//! `load_dir` refuses the folder at its first broken file (what the tests and `simulate`
//! want). `lint` holds the design checks a level can pass and still be a poor level.

pub mod alone;
pub mod lint;

use crate::sim::{Level, LevelError};
use std::path::{Path, PathBuf};

/// A level and the text it came from (a replay embeds the text).
#[derive(Clone, Debug)]
pub struct LevelSource {
    pub file_name: String,
    pub text: String,
    pub level: Level,
}

#[derive(Debug, thiserror::Error)]
pub enum LevelsError {
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}")]
    Invalid(LevelError),
    /// A level file with every reason it is not a level.
    #[error("{}", .0.errors.join("\n"))]
    Broken(Broken),
    #[error("no level {id:?} in {} (levels there: {})", dir.display(), known.join(", "))]
    NotFound {
        id: String,
        dir: PathBuf,
        known: Vec<String>,
    },
}

/// A level file that is not a level, and every reason (each `file:line:column: why`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Broken {
    /// The path as given (what an editor opens).
    pub file: String,
    /// The file's name alone (what `/api/levels` shows).
    pub name: String,
    pub errors: Vec<String>,
}

impl Broken {
    /// The errors with the file's name in place of its path (for the public API).
    pub fn errors_by_name(&self) -> Vec<String> {
        self.errors
            .iter()
            .map(|e| e.replacen(&self.file, &self.name, 1))
            .collect()
    }
}

/// What a levels folder holds: the good levels (campaign order first) and the broken files.
#[derive(Clone, Debug, Default)]
pub struct Scanned {
    pub levels: Vec<LevelSource>,
    pub broken: Vec<Broken>,
}

/// The levels a server offers: the campaign (non-zero `order`, in order) and test levels,
/// and the files it left out.
#[derive(Clone, Debug, Default)]
pub struct Levels {
    levels: Vec<LevelSource>,
    pub broken: Vec<Broken>,
}

impl Levels {
    pub fn new(levels: Vec<LevelSource>) -> Levels {
        Levels {
            levels,
            broken: Vec::new(),
        }
    }

    pub fn scanned(scan: Scanned) -> Levels {
        Levels {
            levels: scan.levels,
            broken: scan.broken,
        }
    }

    pub fn all(&self) -> &[LevelSource] {
        &self.levels
    }

    /// The campaign levels, in campaign order.
    pub fn campaign(&self) -> impl Iterator<Item = &LevelSource> {
        self.levels.iter().filter(|l| l.level.order > 0)
    }

    pub fn get(&self, id: &str) -> Option<&LevelSource> {
        self.levels.iter().find(|l| l.level.id == id)
    }

    /// The campaign level after `order`, or the last one when there is none.
    pub fn after(&self, order: u32) -> Option<&LevelSource> {
        self.campaign()
            .find(|l| l.level.order > order)
            .or_else(|| self.campaign().last())
    }

    pub fn with_order(&self, order: u32) -> Option<&LevelSource> {
        self.campaign().find(|l| l.level.order == order)
    }
}

/// Whether a file name is a level's: `NN_<name>.toml` with two digits.
pub fn is_level_file(name: &str) -> bool {
    let b = name.as_bytes();
    name.ends_with(".toml")
        && b.len() > 8
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && b[2] == b'_'
}

/// Checks one level file's text: every refusal, including an id that does not match the
/// file name and a worst-case frame the replay readers could not read back
/// (`frame_budget::refusal`).
pub fn check_level_file(file_name: &str, text: &str) -> Result<Level, Vec<LevelError>> {
    let level = Level::check(file_name, text)?;
    let stem = file_name.strip_suffix(".toml").unwrap_or(file_name);
    if level.id != stem {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("id"))
            .map_or(1, |i| i + 1);
        return Err(vec![LevelError {
            file: file_name.to_string(),
            line,
            column: 1,
            message: format!(
                "id {:?} does not match the file name (expected {stem:?})",
                level.id
            ),
        }]);
    }
    // A level whose rounds could record frames the replay readers refuse is no level: a
    // server would record rounds that `verify` and `reindex` cannot read.
    if let Some(error) = crate::frame_budget::refusal(file_name, text, &level) {
        return Err(vec![error]);
    }
    Ok(level)
}

/// Parses one level file's text, checking that its id matches its file name.
pub fn parse_level_file(file_name: &str, text: &str) -> Result<Level, LevelError> {
    check_level_file(file_name, text).map_err(|mut e| e.remove(0))
}

fn sort_campaign_first(levels: &mut [LevelSource]) {
    levels.sort_by(|a, b| {
        (a.level.order == 0, a.level.order, &a.level.id).cmp(&(
            b.level.order == 0,
            b.level.order,
            &b.level.id,
        ))
    });
}

/// Checks the given files (paths): the good levels and the broken files. A campaign `order`
/// taken twice breaks the second file (by name).
pub fn scan_files(paths: &[PathBuf]) -> Scanned {
    let mut scan = Scanned::default();
    for path in paths {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().to_string());
        let shown = path.display().to_string();
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                scan.broken.push(Broken {
                    file: shown,
                    name,
                    errors: vec![format!("{}: {e}", path.display())],
                });
                continue;
            }
        };
        match check_level_file(&name, &text) {
            Ok(level) => {
                let clash = scan
                    .levels
                    .iter()
                    .find(|l| level.order > 0 && l.level.order == level.order);
                if let Some(other) = clash {
                    let line = text
                        .lines()
                        .position(|l| l.trim_start().starts_with("order"))
                        .map_or(1, |i| i + 1);
                    scan.broken.push(Broken {
                        file: shown.clone(),
                        name,
                        errors: vec![format!(
                            "{shown}:{line}:1: order {} is already {}'s (each campaign level takes its own order)",
                            level.order, other.file_name
                        )],
                    });
                    continue;
                }
                scan.levels.push(LevelSource {
                    file_name: name,
                    text,
                    level,
                });
            }
            Err(errors) => scan.broken.push(Broken {
                file: shown.clone(),
                name,
                errors: errors
                    .into_iter()
                    .map(|mut e| {
                        e.file = shown.clone();
                        e.to_string()
                    })
                    .collect(),
            }),
        }
    }
    sort_campaign_first(&mut scan.levels);
    scan
}

/// The level files of `dir` (`NN_*.toml`), sorted by name.
pub fn level_files(dir: &Path) -> Result<Vec<PathBuf>, LevelsError> {
    let entries = std::fs::read_dir(dir).map_err(|error| LevelsError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| is_level_file(n))
        .collect();
    names.sort();
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// Every level file in `dir`, checked: the good ones and the broken ones.
pub fn scan_dir(dir: &Path) -> Result<Scanned, LevelsError> {
    Ok(scan_files(&level_files(dir)?))
}

/// Every level in `dir`, campaign order first (by `order`), then test levels by id; the
/// first broken file refuses the folder.
pub fn load_dir(dir: &Path) -> Result<Vec<LevelSource>, LevelsError> {
    let scan = scan_dir(dir)?;
    match scan.broken.into_iter().next() {
        Some(broken) => Err(LevelsError::Broken(broken)),
        None => Ok(scan.levels),
    }
}

/// The level with this id.
pub fn find(dir: &Path, id: &str) -> Result<LevelSource, LevelsError> {
    let all = load_dir(dir)?;
    let known = all.iter().map(|l| l.level.id.clone()).collect();
    all.into_iter()
        .find(|l| l.level.id == id)
        .ok_or(LevelsError::NotFound {
            id: id.to_string(),
            dir: dir.to_path_buf(),
            known,
        })
}
