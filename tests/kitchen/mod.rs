//! Test helpers: a tiny kitchen driven tick by tick, and the campaign's level sources.
#![allow(dead_code)]

pub mod generated;

use undercooked::sim::rules::UNIT;
use undercooked::sim::{
    CookInput, Event, EventKind, KitchenState, Level, Rules, SeatChange, TickInputs, step,
};

/// Row 1: tomato shelf, board, stove, serve. Row 2: the four spawns. Row 3: onion shelf,
/// prep, sink, lettuce shelf. Seat 1 stands between board (up) and prep (down); seat 2
/// between stove (up) and sink (down).
pub const GRID: &str = "
#########
#t.C.K.S#
#1.2.3.4#
#o.P.W.l#
#########";

pub struct Kitchen {
    pub rules: Rules,
    pub state: KitchenState,
    pub events: Vec<Event>,
    seq: u64,
}

/// A level with this grid (it must hold spawns 1-4), `recipes`, and extra TOML appended.
pub fn level_text(grid: &str, recipes: &str, extra: &str) -> String {
    format!(
        "id = \"test\"\norder = 0\nname = \"Test\"\ntarget_score = 500\nrecipes = [{recipes}]\ngrid = \"\"\"\n{}\n\"\"\"\n{extra}\n",
        grid.trim()
    )
}

impl Kitchen {
    pub fn new(grid: &str, recipes: &str, extra: &str, seats: u8) -> Kitchen {
        let level = Level::parse("test.toml", &level_text(grid, recipes, extra))
            .expect("test level parses");
        let rules = Rules::new(level, 20);
        let seats: Vec<(u8, bool)> = (0..seats).map(|s| (s, true)).collect();
        let state = KitchenState::new(&rules, &seats, 7);
        Kitchen {
            rules,
            state,
            events: Vec::new(),
            seq: 0,
        }
    }

    /// Puts a cook at the centre of a tile, facing `face` (0 up, 1 right, 2 down, 3 left).
    pub fn place(&mut self, seat: u8, x: i32, y: i32, face: u8) {
        let c = self
            .state
            .cooks
            .iter_mut()
            .find(|c| c.seat == seat)
            .unwrap();
        c.x = x * UNIT + UNIT / 2;
        c.y = y * UNIT + UNIT / 2;
        c.facing = face;
    }

    pub fn tick_with(&mut self, inputs: Vec<CookInput>, changes: Vec<SeatChange>) -> Vec<Event> {
        let mut events = Vec::new();
        step(
            &mut self.state,
            &self.rules,
            &TickInputs {
                seat_changes: changes,
                inputs,
            },
            &mut events,
        );
        self.events.extend(events.iter().cloned());
        events
    }

    pub fn idle(&mut self, ticks: u32) -> Vec<Event> {
        let mut all = Vec::new();
        for _ in 0..ticks {
            all.extend(self.tick_with(vec![], vec![]));
        }
        all
    }

    pub fn input(&mut self, seat: u8, mv: (i16, i16), act: bool, face: Option<u8>) -> CookInput {
        self.seq += 1;
        CookInput {
            seat,
            seq: self.seq,
            mv,
            act,
            face,
        }
    }

    /// One press by `seat` (standing still, facing as it is).
    pub fn press(&mut self, seat: u8) -> Vec<Event> {
        let i = self.input(seat, (0, 0), true, None);
        self.tick_with(vec![i], vec![])
    }

    pub fn held(&self, seat: u8) -> Option<&'static str> {
        self.state.cook(seat).unwrap().held.map(|h| h.item.short())
    }

    pub fn station(&self, x: u16, y: u16) -> &undercooked::sim::state::Content {
        let i = self
            .rules
            .level
            .grid
            .station_index_at(x as i32, y as i32)
            .unwrap();
        &self.state.stations[i].content
    }
}

pub fn kinds(events: &[Event]) -> Vec<EventKind> {
    events.iter().map(|e| e.kind).collect()
}

pub fn denied_reason(events: &[Event]) -> Option<&'static str> {
    events
        .iter()
        .find(|e| e.kind == EventKind::Denied)
        .and_then(|e| e.payload.r)
}

/// The campaign as shipped in `levels/`.
pub fn campaign() -> Vec<undercooked::levels::LevelSource> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("levels");
    undercooked::levels::load_dir(&dir).expect("the shipped levels load")
}

/// Reindexes every replay in `dir` as `undercooked reindex` does (diverged files left out).
pub async fn reindex(
    store: &undercooked::store::Store,
    dir: &std::path::Path,
) -> undercooked::store::reindex::Report {
    undercooked::store::reindex::reindex(store, dir, undercooked::verify::refusal, |_, _| {})
        .await
        .unwrap()
}
