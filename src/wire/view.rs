//! The projection: a `KitchenState` seen as the wire sees it.
//!
//! `FrameView` is the `snap` body before it is written: every value already quantized to
//! what the frame carries (hundredths for positions, shares, qualities and seconds), every
//! name a wire short string. Two views are equal exactly when their frames are, which makes
//! the delta diff a plain `==` per entity. Bots read this same view.

use crate::sim::items::{Item, quality_centi};
use crate::sim::orders::rush_active;
use crate::sim::press::burning_quality;
use crate::sim::rules::Rules;
use crate::sim::state::{Content, Cook, KitchenState, Pot, WorkKind};

/// Units (1/1000 tile) to hundredths of a tile, half up.
pub fn units_to_centi(u: i32) -> i32 {
    (u + 5).div_euclid(10)
}

/// `num / den` as hundredths, half up (shares and progress, 0..=100).
pub fn share_centi(num: u32, den: u32) -> u16 {
    if den == 0 {
        return 0;
    }
    ((200 * num.min(den) as u64 + den as u64) / (2 * den as u64)) as u16
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerView {
    pub seat: u8,
    pub x: i32,
    pub y: i32,
    pub f: u8,
    pub h: Option<&'static str>,
    pub s: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StationView {
    pub k: &'static str,
    pub x: u16,
    pub y: u16,
    pub g: Option<&'static str>,
    pub q: u16,
    pub p: u16,
    pub s: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderView {
    pub id: u32,
    pub r: &'static str,
    pub l: u16,
    pub pts: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HazardView {
    pub t: &'static str,
    /// Hundredths of a tile.
    pub x: i32,
    pub y: i32,
    /// Seconds of life left, in hundredths (0 = until removed).
    pub l: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameView {
    pub t: u32,
    pub s: u32,
    pub tgt: u32,
    /// Time left, hundredths of a second.
    pub tl: i64,
    pub p: Vec<PlayerView>,
    pub st: Vec<StationView>,
    pub o: Vec<OrderView>,
    pub hz: Vec<HazardView>,
}

/// Projects one state. Pure: the same state always gives the same view.
pub fn project(state: &KitchenState, rules: &Rules) -> FrameView {
    FrameView {
        t: state.tick,
        s: state.score,
        tgt: rules.level.target_score,
        tl: rules.ticks_to_centis(state.ticks_left(rules)),
        p: state
            .cooks
            .iter()
            .map(|c| cook_view(c, state.tick))
            .collect(),
        st: (0..state.stations.len().min(rules.level.grid.stations().len()))
            .map(|si| station_view(state, rules, si))
            .collect(),
        o: state
            .orders
            .iter()
            .map(|o| OrderView {
                id: o.id,
                r: o.recipe.id(),
                l: share_centi(o.ticks_left, rules.deadline),
                pts: o.pts,
            })
            .collect(),
        hz: hazard_views(state, rules),
    }
}

fn cook_view(c: &Cook, tick: u32) -> PlayerView {
    PlayerView {
        seat: c.seat,
        x: units_to_centi(c.x),
        y: units_to_centi(c.y),
        f: c.facing,
        h: c.held.map(|h| h.item.short()),
        s: if !c.connected {
            "disconnected"
        } else if c.stunned(tick) {
            "stunned"
        } else if c.work.is_some() {
            "working"
        } else if c.moved {
            "moving"
        } else {
            "idle"
        },
    }
}

/// Station `si`: what it shows (`g`), the quality of it, its progress and its state. A
/// fire on a station blocks it, whatever it holds.
fn station_view(state: &KitchenState, rules: &Rules, si: usize) -> StationView {
    let site = rules.level.grid.stations()[si];
    let worked = state.cooks.iter().any(|c| {
        c.work
            .is_some_and(|w| w.station as usize == si && w.kind != WorkKind::Extinguish)
    });
    let working = if worked { "working" } else { "idle" };
    let (g, q, p, s): (Option<&'static str>, u16, u16, &'static str) =
        match &state.stations[si].content {
            Content::Shelf(ing) => (Some(ing.raw_form()), 1000, 0, "idle"),
            Content::Board { item, chop } => {
                let p = match item {
                    Some(h) if matches!(h.item, Item::Raw(_)) => share_centi(*chop, rules.chop),
                    _ => 0,
                };
                (
                    item.map(|h| h.item.short()),
                    item.map_or(1000, |h| h.quality),
                    p,
                    working,
                )
            }
            Content::Stove(pot) => pot_view(*pot, rules),
            Content::Prep(item) => (
                item.map(|h| h.item.short()),
                item.map_or(1000, |h| h.quality),
                0,
                "idle",
            ),
            Content::Serve | Content::Bin => (None, 1000, 0, "idle"),
            Content::Sink { clean, dirty, wash } => {
                let g = if *clean > 0 {
                    Some("plate")
                } else if *dirty > 0 {
                    Some("plate_dirty")
                } else {
                    None
                };
                let s = if worked {
                    "working"
                } else if *dirty > 0 && *clean == 0 {
                    "dirty"
                } else {
                    "idle"
                };
                (g, 1000, share_centi(*wash, rules.wash), s)
            }
        };
    StationView {
        k: site.kind.name(),
        x: site.x,
        y: site.y,
        g,
        q: quality_centi(q),
        p,
        s: if state.fire_on(si).is_some() {
            "blocked"
        } else {
            s
        },
    }
}

/// A stove by its pot: contents, quality (thousandths), progress (hundredths), state.
fn pot_view(pot: Pot, rules: &Rules) -> (Option<&'static str>, u16, u16, &'static str) {
    match pot {
        Pot::Empty => (None, 1000, 0, "idle"),
        Pot::Filling { ing, n } => (
            Some(ing.chopped_form()),
            1000,
            share_centi(n as u32, 3),
            "idle",
        ),
        Pot::Cooking { ing, t } => (
            Some(ing.chopped_form()),
            1000,
            share_centi(t, rules.cook),
            "working",
        ),
        Pot::Ready { ing, .. } => (Some(soup_form(ing)), 1000, 100, "ready"),
        Pot::Burning { ing, t } => (
            Some(soup_form(ing)),
            burning_quality(t, rules.burn),
            share_centi(t, rules.burn),
            "burning",
        ),
        Pot::Burnt => (Some("soup_burnt"), 0, 0, "idle"),
    }
}

/// Fires, spills, carts, then the rush (while one is on).
fn hazard_views(state: &KitchenState, rules: &Rules) -> Vec<HazardView> {
    let tick = state.tick;
    let stations = rules.level.grid.stations();
    let mut hz = Vec::with_capacity(state.fires.len() + state.spills.len() + state.carts.len() + 1);
    for fire in &state.fires {
        let site = stations[fire.station as usize];
        hz.push(HazardView {
            t: "fire",
            x: site.x as i32 * 100,
            y: site.y as i32 * 100,
            l: 0,
        });
    }
    for spill in &state.spills {
        let left = spill.expires_at.saturating_sub(tick);
        hz.push(HazardView {
            t: "spill",
            x: spill.x as i32 * 100,
            y: spill.y as i32 * 100,
            l: rules.ticks_to_centis(left),
        });
    }
    for cart in &state.carts {
        hz.push(HazardView {
            t: "moving_obstacle",
            x: units_to_centi(cart.x),
            y: units_to_centi(cart.y),
            l: 0,
        });
    }
    if rush_active(rules, tick) {
        let end = rules
            .rushes
            .iter()
            .find(|&&(a, b)| a <= tick && tick < b)
            .map_or(tick, |r| r.1);
        hz.push(HazardView {
            t: "rush",
            x: 0,
            y: 0,
            l: rules.ticks_to_centis(end - tick),
        });
    }
    hz
}

fn soup_form(ing: crate::sim::items::Ingredient) -> &'static str {
    ing.soup().map_or("soup_burnt", |r| r.soup_form())
}

/// Every short string a frame can carry, so a decoded view can hold `&'static str`s.
const NAMES: &[&str] = &[
    "spawn_shelf",
    "chop_board",
    "stove",
    "prep",
    "serve",
    "sink",
    "bin",
    "idle",
    "moving",
    "working",
    "stunned",
    "disconnected",
    "ready",
    "burning",
    "dirty",
    "blocked",
    "tomato_raw",
    "onion_raw",
    "lettuce_raw",
    "mushroom_raw",
    "tomato_chopped",
    "onion_chopped",
    "lettuce_chopped",
    "mushroom_chopped",
    "plate",
    "plate_dirty",
    "plate_lettuce",
    "plate_onion",
    "plate_tomato",
    "plate_lettuce+onion",
    "plate_onion+tomato",
    "dish_tomato_soup",
    "dish_onion_soup",
    "dish_mushroom_soup",
    "dish_salad",
    "dish_garden_salad",
    "soup_tomato",
    "soup_onion",
    "soup_mushroom",
    "soup_burnt",
    "tomato_soup",
    "onion_soup",
    "mushroom_soup",
    "salad",
    "garden_salad",
    "fire",
    "spill",
    "moving_obstacle",
    "rush",
];

fn name(v: &serde_json::Value, what: &str) -> Result<&'static str, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("{what} is not a string"))?;
    NAMES
        .iter()
        .find(|n| **n == s)
        .copied()
        .ok_or_else(|| format!("{what} {s:?} is not a known name"))
}

fn opt_name(v: &serde_json::Value, what: &str) -> Result<Option<&'static str>, String> {
    if v.is_null() {
        Ok(None)
    } else {
        name(v, what).map(Some)
    }
}

fn centi(v: &serde_json::Value, what: &str) -> Result<i64, String> {
    v.as_f64()
        .map(|f| (f * 100.0).round() as i64)
        .ok_or_else(|| format!("{what} is not a number"))
}

fn int(v: &serde_json::Value, what: &str) -> Result<i64, String> {
    v.as_i64()
        .ok_or_else(|| format!("{what} is not an integer"))
}

impl FrameView {
    /// Reads a merged full frame back into a view (what a socket client's bots play from).
    /// Player ids must be `c<seat>`; `pi` gives the seat.
    pub fn from_json(f: &serde_json::Value) -> Result<FrameView, String> {
        let list = |k: &str| {
            f.get(k)
                .and_then(|v| v.as_array())
                .ok_or_else(|| format!("`{k}` is not a list"))
        };
        let mut view = FrameView {
            t: int(&f["t"], "t")? as u32,
            s: int(&f["s"], "s")? as u32,
            tgt: int(&f["tgt"], "tgt")? as u32,
            tl: centi(&f["tl"], "tl")?,
            p: Vec::new(),
            st: Vec::new(),
            o: Vec::new(),
            hz: Vec::new(),
        };
        for p in list("p")? {
            view.p.push(PlayerView {
                seat: int(&p["pi"], "p.pi")? as u8,
                x: centi(&p["x"], "p.x")? as i32,
                y: centi(&p["y"], "p.y")? as i32,
                f: int(&p["f"], "p.f")? as u8,
                h: opt_name(&p["h"], "p.h")?,
                s: name(&p["s"], "p.s")?,
            });
        }
        view.p.sort_by_key(|p| p.seat);
        for s in list("st")? {
            view.st.push(StationView {
                k: name(&s["k"], "st.k")?,
                x: centi(&s["x"], "st.x")? as u16 / 100,
                y: centi(&s["y"], "st.y")? as u16 / 100,
                g: opt_name(&s["g"], "st.g")?,
                q: centi(&s["q"], "st.q")? as u16,
                p: centi(&s["p"], "st.p")? as u16,
                s: name(&s["s"], "st.s")?,
            });
        }
        view.st.sort_by_key(|s| (s.y, s.x));
        for o in list("o")? {
            view.o.push(OrderView {
                id: int(&o["id"], "o.id")? as u32,
                r: name(&o["r"], "o.r")?,
                l: centi(&o["l"], "o.l")? as u16,
                pts: int(&o["pts"], "o.pts")? as u32,
            });
        }
        view.o.sort_by_key(|o| o.id);
        for h in list("hz")? {
            view.hz.push(HazardView {
                t: name(&h["t"], "hz.t")?,
                x: centi(&h["x"], "hz.x")? as i32,
                y: centi(&h["y"], "hz.y")? as i32,
                l: centi(&h["l"], "hz.l")?,
            });
        }
        Ok(view)
    }
}
