//! The levels folder: which files are levels, reading them, finding one by id.
//!
//! Only files named `NN_*.toml` are levels; the rest of the folder is ignored. Each file
//! must parse (`sim::Level::parse`) and carry the id its name says. The campaign is the
//! levels with a non-zero `order`, in that order.

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
    #[error("no level {id:?} in {} (levels there: {})", dir.display(), known.join(", "))]
    NotFound {
        id: String,
        dir: PathBuf,
        known: Vec<String>,
    },
}

/// The levels a server offers: the campaign (non-zero `order`, in order) and test levels.
#[derive(Clone, Debug, Default)]
pub struct Levels(Vec<LevelSource>);

impl Levels {
    pub fn new(levels: Vec<LevelSource>) -> Levels {
        Levels(levels)
    }

    pub fn all(&self) -> &[LevelSource] {
        &self.0
    }

    /// The campaign levels, in campaign order.
    pub fn campaign(&self) -> impl Iterator<Item = &LevelSource> {
        self.0.iter().filter(|l| l.level.order > 0)
    }

    pub fn get(&self, id: &str) -> Option<&LevelSource> {
        self.0.iter().find(|l| l.level.id == id)
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

/// Parses one level file's text, checking that its id matches its file name.
pub fn parse_level_file(file_name: &str, text: &str) -> Result<Level, LevelError> {
    let level = Level::parse(file_name, text)?;
    let stem = file_name.strip_suffix(".toml").unwrap_or(file_name);
    if level.id != stem {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("id"))
            .map_or(1, |i| i + 1);
        return Err(LevelError {
            file: file_name.to_string(),
            line,
            column: 1,
            message: format!(
                "id {:?} does not match the file name (expected {stem:?})",
                level.id
            ),
        });
    }
    Ok(level)
}

/// Every level in `dir`, campaign order first (by `order`), then test levels by id.
pub fn load_dir(dir: &Path) -> Result<Vec<LevelSource>, LevelsError> {
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
    let mut out = Vec::new();
    for name in names {
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).map_err(|error| LevelsError::Io {
            path: path.clone(),
            error,
        })?;
        let level = parse_level_file(&name, &text).map_err(|mut e| {
            e.file = path.display().to_string();
            LevelsError::Invalid(e)
        })?;
        out.push(LevelSource {
            file_name: name,
            text,
            level,
        });
    }
    out.sort_by(|a, b| {
        (a.level.order == 0, a.level.order, &a.level.id).cmp(&(
            b.level.order == 0,
            b.level.order,
            &b.level.id,
        ))
    });
    Ok(out)
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
