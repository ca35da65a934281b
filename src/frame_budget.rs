//! The full-frame budget: how big a whole `snap` of a level is before anyone moves, and a
//! design warning when that leaves too little room under docs/PERFORMANCE.md's goal.
//!
//! A full frame carries every station and cook, so its size grows with the kitchen, and a
//! client that joins, resyncs or falls behind gets one. The opening frame of a 4-cook round
//! (the initial state, projected and encoded as the server does) is the part a level author
//! controls; orders, hazards and held items add to it as the round runs (about 500 bytes at
//! the busiest moments measured). `BUDGET` keeps a full frame under the 4 KB goal with room
//! to spare for that; the shipped levels open at 1.0–1.8 KB.
//!
//! The worst frame is the other bound, a hard one: the largest frame a round of the level
//! could ever record, built at every maximum and written by the same encoder. A level whose
//! worst frame, or a round's worth of them, is past what the replay readers take
//! (`log::unframe`'s caps) is refused (`refusal`), because the server would record rounds
//! that `verify` and `reindex` cannot read back.

use crate::log::records::player_id;
use crate::sim::items::{Ingredient, Item, Recipe};
use crate::sim::{Event, EventKind, KitchenState, Level, LevelError, Payload, Rules, SEATS};
use crate::wire::encode_full;
use crate::wire::view::{FrameView, HazardView, OrderView, project};

/// The most bytes a level's opening full frame (4 cooks) may take without a warning.
pub const BUDGET: usize = 3072;

/// The bytes of the full frame a 4-cook round on `level` starts with.
pub fn opening_frame_bytes(level: &Level) -> usize {
    let rules = Rules::new(level.clone(), 20);
    let seats: Vec<(u8, bool)> = (0..SEATS as u8).map(|s| (s, true)).collect();
    let state = KitchenState::new(&rules, &seats, 1);
    let ids: Vec<String> = (0..SEATS as u8).map(player_id).collect();
    encode_full(&project(&state, &rules), &[], &ids).raw().len()
}

/// A warning when the level's opening frame is over `BUDGET`, placed at the file's `grid`
/// key (what makes a frame big is the kitchen: its stations above all). `text` is the
/// level file's, to find that line.
pub fn lint(file: &str, text: &str, level: &Level) -> Option<LevelError> {
    let bytes = opening_frame_bytes(level);
    if bytes <= BUDGET {
        return None;
    }
    let line = text
        .lines()
        .position(|l| {
            l.trim_start()
                .strip_prefix("grid")
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(1, |i| i + 1);
    Some(LevelError {
        file: file.to_string(),
        line,
        column: 1,
        message: format!(
            "a 4-cook round opens with a {bytes}-byte full frame, over the {BUDGET}-byte budget ({} stations; orders and hazards add more as the round runs): fewer stations make it smaller",
            level.grid.stations().len(),
        ),
    })
}

/// The most passes (recorded frames) a second a server makes: `UNDERCOOKED_TICK_HZ` and
/// `UNDERCOOKED_SNAPSHOT_HZ` go up to 60. A level is judged at that rate because the level
/// does not know the rate a server will run it at.
pub const MAX_PASSES_PER_S: u32 = 60;

/// The largest `snap` body a round of a level could record, and what it is made of: every
/// seat taken and holding the longest item, every station full, shown at its longest and
/// blocked, every order open, as many fires, spills and carts as the level allows, a rush,
/// and a frame's worth of the longest events; the larger of that as a full frame and as a
/// delta from another such kitchen whose hazards and orders are all different (their
/// tombstones ride along). Each size is the real encoder's output on a view built to
/// those maxima, not an estimate, so a change to the encoder moves it too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorstFrame {
    pub bytes: usize,
    /// The carts' share of `bytes` (inserts and tombstones), and how many.
    pub carts: (usize, usize),
    /// The spills' share, and how many can lie at once.
    pub spills: (usize, usize),
    /// The stations' and fires' share, and how many stations.
    pub stations: (usize, usize),
    /// The orders' share, and how many.
    pub orders: (usize, usize),
    /// The most frames a round of the level records (tick 0, every tick of its time limit
    /// at `MAX_PASSES_PER_S`, and the second the round settles for).
    pub passes: usize,
}

impl WorstFrame {
    /// What all the round's frames could decompress to, at most.
    pub fn round_bytes(&self) -> usize {
        self.bytes.saturating_mul(self.passes)
    }
}

/// The body of the worst frame of `level`: the larger of the maximal kitchen written
/// full and written as a delta from another maximal kitchen (see `WorstFrame`).
pub fn worst_frame_text(level: &Level) -> String {
    let [a, b] = [0, 1].map(|shift| maximal_view(level, shift));
    largest_frame(&a, &b)
}

/// The larger of `b` written full and written as a delta from `a`, with a frame's worth of
/// the longest events.
fn largest_frame(a: &FrameView, b: &FrameView) -> String {
    let ids: Vec<String> = (0..SEATS as u8).map(player_id).collect();
    let events = vec![longest_event(); crate::wire::events::MAX_EVENTS_PER_FRAME];
    let full = encode_full(b, &events, &ids);
    let delta = crate::wire::snapshot::encode_delta(a, b, &events, &ids);
    match full.raw().len() >= delta.raw().len() {
        true => full.raw().to_string(),
        false => delta.raw().to_string(),
    }
}

/// The worst frame of `level` (see `WorstFrame`).
pub fn worst_frame(level: &Level) -> WorstFrame {
    let [a, b] = [0, 1].map(|shift| maximal_view(level, shift));
    // Each part's share: the worst frame with that part emptied on both sides, subtracted.
    let without = |strip: &dyn Fn(&mut FrameView)| {
        let (mut a, mut b) = (a.clone(), b.clone());
        strip(&mut a);
        strip(&mut b);
        largest_frame(&a, &b).len()
    };
    let bytes = largest_frame(&a, &b).len();
    let hazard = |t: &'static str| move |v: &mut FrameView| v.hz.retain(|h| h.t != t);
    let count = |t: &str| b.hz.iter().filter(|h| h.t == t).count();
    let time_limit_ticks = crate::sim::rules::secs_to_ticks(level.time_limit_s, MAX_PASSES_PER_S);
    WorstFrame {
        bytes,
        carts: (bytes - without(&hazard(CART)), count(CART)),
        spills: (bytes - without(&hazard(SPILL)), count(SPILL)),
        stations: (
            bytes
                - without(&|v: &mut FrameView| {
                    v.st.clear();
                    v.hz.retain(|h| h.t != FIRE);
                }),
            b.st.len(),
        ),
        orders: (bytes - without(&|v: &mut FrameView| v.o.clear()), b.o.len()),
        passes: 1 + time_limit_ticks as usize + MAX_PASSES_PER_S as usize,
    }
}

/// The hazards' wire names (`t`).
const CART: &str = "moving_obstacle";
const SPILL: &str = "spill";
const FIRE: &str = "fire";

/// A view of `level` at its maxima (see `WorstFrame`). `shift` moves every moving hazard
/// by a hundredth, renumbers every order, moves the fires and changes every cook, station
/// and the rush, so that a delta between two views rewrites everything a tick can change.
fn maximal_view(level: &Level, shift: i32) -> FrameView {
    let rules = Rules::new(level.clone(), MAX_PASSES_PER_S);
    let seats: Vec<(u8, bool)> = (0..SEATS as u8).map(|s| (s, true)).collect();
    let state = KitchenState::new(&rules, &seats, 1);
    let mut view = project(&state, &rules);
    let long = longest_item();
    // Numbers at their most digits: a u32 for counters, 9.99 for a share.
    let (big, share) = (u32::MAX, 999);
    (view.t, view.s, view.tgt, view.tl) = (big, big, big, i64::from(big));
    for p in &mut view.p {
        (p.h, p.s) = (Some(long), "disconnected");
        (p.x, p.y) = (9_999 - shift, 9_999);
    }
    for st in &mut view.st {
        // (Progress differs between the two views, so a delta rewrites every station.)
        (st.g, st.q, st.p, st.s) = (Some(long), share, share - shift as u16, "blocked");
    }
    let top_points = Recipe::ALL
        .iter()
        .map(|r| level.points_of(*r) * 3 / 2)
        .max()
        .unwrap_or(0);
    let longest_recipe = Recipe::ALL
        .iter()
        .map(|r| r.id())
        .max_by_key(|id| id.len())
        .unwrap_or("");
    view.o = (0..level.max_orders)
        .map(|i| OrderView {
            id: big - 2 * i - shift as u32,
            r: longest_recipe,
            l: share,
            pts: top_points,
        })
        .collect();
    // Positions far from the origin in hundredths, with both decimals.
    let at = |x: u16, y: u16| (i32::from(x) * 100 + 99 - shift, i32::from(y) * 100 + 99);
    let mut hz = Vec::new();
    for cart in &level.carts {
        let (x, y) = at(cart[0].0, cart[0].1);
        hz.push(HazardView {
            t: CART,
            x,
            y,
            l: 0,
        });
    }
    // Fires on the last stations in one view and the first in the other: where there are
    // fewer fires than stations, a delta puts some out and lights others.
    let stations = level.grid.stations();
    let fires = stations.len().min(level.tuning.max_fires as usize);
    let burning = match shift {
        0 => &stations[stations.len() - fires..],
        _ => &stations[..fires],
    };
    for site in burning {
        let (x, y) = (i32::from(site.x) * 100, i32::from(site.y) * 100);
        hz.push(HazardView {
            t: FIRE,
            x,
            y,
            l: 0,
        });
    }
    let spill_life = (level.tuning.spill_life_s * 100.0) as i64;
    for (x, y) in level.grid.floor_tiles().take(most_spills(level)) {
        let (x, y) = at(x, y);
        hz.push(HazardView {
            t: SPILL,
            x,
            y,
            l: spill_life,
        });
    }
    hz.push(HazardView {
        t: "rush",
        x: 0,
        y: 0,
        l: (level.rush_len_s * 100.0) as i64 - i64::from(shift),
    });
    view.hz = hz;
    view
}

/// The most spills that can lie at once: one appears a tick at most, every
/// `spill_every_s`, each lasts `spill_life_s`, one a floor tile; at the tick rate (5–60)
/// that gives the most.
pub fn most_spills(level: &Level) -> usize {
    if level.spill_every_s <= 0.0 {
        return 0;
    }
    let floor = level.grid.floor_tiles().count();
    let at = |hz: u32| {
        let ticks = |s: f64| crate::sim::rules::secs_to_ticks(s, hz);
        let (every, life) = (
            ticks(level.spill_every_s).max(1),
            ticks(level.tuning.spill_life_s),
        );
        life.div_ceil(every) as usize
    };
    (5..=MAX_PASSES_PER_S).map(at).max().unwrap_or(0).min(floor)
}

/// The longest short form an item (or a pot's soup) shows.
fn longest_item() -> &'static str {
    let mut forms = vec!["soup_burnt", Item::PlateDirty.short()];
    for ing in Ingredient::ALL {
        forms.extend([Item::Raw(ing).short(), Item::Chopped(ing).short()]);
    }
    forms.extend((0..8).map(|m| Item::Plate(m).short()));
    for r in Recipe::ALL {
        forms.extend([Item::Dish(r).short(), r.soup_form()]);
    }
    forms.into_iter().max_by_key(|f| f.len()).unwrap_or("")
}

/// An event at least as long as any the rules raise: the longest of the payload shapes the
/// sim and the room build (`served`, `round_end`, `dropped` and `ghost_park`, `missed`,
/// `denied`, `resync`, `slipped` and `bumped`, `emote`, the rest's `i` and `it`), each
/// under the longest kind name, with every number at its most digits. A shape with more
/// keys added to the rules must be added here (`a_played_round_never_records_a_frame_past_
/// its_levels_worst_frame` in `tests/sim/level_bounds.rs` checks a real round against it).
fn longest_event() -> Event {
    let (big, item) = (u32::MAX, longest_item());
    let shapes = [
        Payload {
            i: Some(0),
            oi: Some(big),
            pts: Some(big),
            sd: Some(-i64::from(big)),
            q: Some(999),
            stk: Some(big),
            ..Payload::default()
        },
        Payload {
            res: Some("aborted"),
            sc: Some(big),
            tgt: Some(big),
            stars: Some(3),
            ..Payload::default()
        },
        Payload {
            i: Some(0),
            it: Some(item),
            fm: Some("chopped"),
            ..Payload::default()
        },
        Payload {
            oi: Some(big),
            sd: Some(-i64::from(big)),
            ..Payload::default()
        },
        Payload {
            i: Some(0),
            r: Some("hands_full"),
            ..Payload::default()
        },
        Payload {
            i: Some(0),
            seq: Some(u64::MAX),
            ..Payload::default()
        },
        Payload {
            i: Some(0),
            stn: Some(i64::from(big)),
            ..Payload::default()
        },
        Payload {
            i: Some(0),
            em: Some("thumbs_down"),
            ..Payload::default()
        },
    ];
    let longest_kind = ALL_KINDS
        .iter()
        .copied()
        .max_by_key(|k| k.name().len())
        .unwrap_or(EventKind::Extinguished);
    let ids: Vec<String> = (0..SEATS as u8).map(player_id).collect();
    shapes
        .into_iter()
        .map(|payload| Event {
            kind: longest_kind,
            x: 99_999,
            y: 99_999,
            payload,
        })
        .max_by_key(|e| {
            let mut out = String::new();
            crate::wire::events::event_wire(&mut out, e, &ids);
            out.len()
        })
        .unwrap_or_else(|| Event::hud(longest_kind, Payload::default()))
}

/// Every kind of event, for the longest name.
const ALL_KINDS: [EventKind; 20] = [
    EventKind::Chopped,
    EventKind::Cooked,
    EventKind::Burnt,
    EventKind::Served,
    EventKind::Missed,
    EventKind::Denied,
    EventKind::Washed,
    EventKind::Extinguished,
    EventKind::Slipped,
    EventKind::Bumped,
    EventKind::Dropped,
    EventKind::GhostOn,
    EventKind::GhostOff,
    EventKind::GhostPark,
    EventKind::Wasted,
    EventKind::RushStart,
    EventKind::RushEnd,
    EventKind::Emote,
    EventKind::Resync,
    EventKind::RoundEnd,
];

/// The refusal of a level whose worst frame (`worst_frame`) the replay readers could not
/// read back: one frame past `MAX_FRAME_BYTES`, or a round's frames past
/// `MAX_FRAMES_INFLATED`. Without it the server would record rounds that `verify`,
/// `replay` and `reindex` refuse. Placed at the key of the part that weighs most (`carts`,
/// `spill_every_s`, `max_orders` or `grid`); `text` is the level file's, to find it.
pub fn refusal(file: &str, text: &str, level: &Level) -> Option<LevelError> {
    use crate::log::unframe::{MAX_FRAME_BYTES, MAX_FRAMES_INFLATED};
    let worst = worst_frame(level);
    let over_frame = worst.bytes > MAX_FRAME_BYTES;
    if !over_frame && worst.round_bytes() <= MAX_FRAMES_INFLATED {
        return None;
    }
    let parts = [
        ("carts", "carts", worst.carts),
        ("spill_every_s", "spills at once", worst.spills),
        ("max_orders", "orders", worst.orders),
        ("grid", "stations", worst.stations),
    ];
    let (key, _, _) = parts
        .iter()
        .max_by_key(|(_, _, (bytes, _))| *bytes)
        .copied()
        .unwrap_or(parts[3]);
    // A frame that a round of the default 150 s could record in full is not too big: the
    // clock is too long for it.
    let default_round = 1 + (150 + 1) * MAX_PASSES_PER_S as usize;
    let clock_is_why = !over_frame && worst.bytes * default_round <= MAX_FRAMES_INFLATED;
    let key = if clock_is_why { "time_limit_s" } else { key };
    let (line, column) = key_at(text, key);
    let made_of = parts
        .iter()
        .filter(|(_, _, (_, n))| *n > 0)
        .map(|(_, what, (bytes, n))| format!("{n} {what}: {bytes} B"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = match over_frame {
        true => format!(
            "a round here could record a {}-byte frame ({made_of}), past the replay readers' {} KiB a frame: fewer of the largest part",
            worst.bytes,
            MAX_FRAME_BYTES >> 10,
        ),
        false => format!(
            "a round here could record {} frames of up to {} bytes ({made_of}; a {} s time limit at {MAX_PASSES_PER_S} frames a second), {} MiB in all, past the replay readers' {} MiB: fewer of the largest part, or a shorter time_limit_s",
            worst.passes,
            worst.bytes,
            level.time_limit_s,
            worst.round_bytes() >> 20,
            MAX_FRAMES_INFLATED >> 20,
        ),
    };
    Some(LevelError {
        file: file.to_string(),
        line,
        column,
        message,
    })
}

/// The line and column of the first `key =` in a level file's text (1, 1 when absent).
fn key_at(text: &str, key: &str) -> (usize, usize) {
    text.lines()
        .enumerate()
        .find_map(|(i, l)| {
            let rest = l.trim_start();
            let after = rest.strip_prefix(key)?;
            after
                .trim_start()
                .starts_with('=')
                .then(|| (i + 1, l.len() - rest.len() + 1))
        })
        .unwrap_or((1, 1))
}
