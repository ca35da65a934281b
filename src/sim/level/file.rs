//! The TOML shape of a level file, as serde reads it: every key with its span (so a refusal
//! can name its line and column) and the defaults docs/LEVELS.md lists. `Level::parse`
//! validates what this reads.

use super::Tuning;
use serde::Deserialize;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LevelFile {
    pub(super) id: Spanned<String>,
    pub(super) order: u32,
    pub(super) name: Spanned<String>,
    #[serde(default = "default_time_limit")]
    pub(super) time_limit_s: Spanned<f64>,
    pub(super) target_score: Spanned<u32>,
    #[serde(default = "default_plates")]
    pub(super) plates: Spanned<u32>,
    pub(super) recipes: Spanned<Vec<Spanned<String>>>,
    pub(super) grid: Spanned<String>,
    /// A tutorial level: the client shows step-by-step prompts.
    #[serde(default = "not_tutorial")]
    pub(super) tutorial: Spanned<bool>,
    #[serde(default)]
    pub(super) orders: OrdersFile,
    #[serde(default)]
    pub(super) hazards: HazardsFile,
    #[serde(default)]
    pub(super) tuning: Tuning,
    /// Points per recipe id, overriding the defaults.
    #[serde(default)]
    pub(super) points: std::collections::BTreeMap<String, Spanned<u32>>,
}

fn default_time_limit() -> Spanned<f64> {
    Spanned::new(0..0, 150.0)
}
fn not_tutorial() -> Spanned<bool> {
    Spanned::new(0..0, false)
}
fn default_plates() -> Spanned<u32> {
    Spanned::new(0..0, 3)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OrdersFile {
    #[serde(default = "d2")]
    pub(super) first_order_s: Spanned<f64>,
    #[serde(default = "d_interval")]
    pub(super) interval_s: Spanned<[f64; 2]>,
    #[serde(default = "d4")]
    pub(super) max_orders: Spanned<u32>,
    #[serde(default = "d60")]
    pub(super) deadline_s: Spanned<f64>,
    #[serde(default = "d10")]
    pub(super) miss_penalty: Spanned<u32>,
}

impl Default for OrdersFile {
    fn default() -> Self {
        OrdersFile {
            first_order_s: d2(),
            interval_s: d_interval(),
            max_orders: d4(),
            deadline_s: d60(),
            miss_penalty: d10(),
        }
    }
}

fn d2() -> Spanned<f64> {
    Spanned::new(0..0, 2.0)
}
fn d_interval() -> Spanned<[f64; 2]> {
    Spanned::new(0..0, [15.0, 25.0])
}
fn d4() -> Spanned<u32> {
    Spanned::new(0..0, 4)
}
fn d60() -> Spanned<f64> {
    Spanned::new(0..0, 60.0)
}
fn d10() -> Spanned<u32> {
    Spanned::new(0..0, 10)
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct HazardsFile {
    #[serde(default)]
    pub(super) spill_every_s: Option<Spanned<f64>>,
    #[serde(default)]
    pub(super) rush_at_s: Vec<Spanned<f64>>,
    #[serde(default)]
    pub(super) rush_len_s: Option<Spanned<f64>>,
    #[serde(default)]
    pub(super) carts: Vec<Spanned<Vec<Spanned<[i64; 2]>>>>,
}
