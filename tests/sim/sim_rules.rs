//! The rules of docs/GAME.md, one behaviour per test, as given / when / then.

use crate::kitchen;

use kitchen::{GRID, Kitchen, denied_reason, kinds};
use undercooked::sim::items::{Held, Ingredient, Item, Recipe};
use undercooked::sim::state::{Content, Pot};
use undercooked::sim::{EventKind, RoundResult, SeatChange};

const RECIPES: &str = "\"tomato_soup\", \"salad\"";

fn kitchen() -> Kitchen {
    Kitchen::new(GRID, RECIPES, "", 4)
}

fn give(k: &mut Kitchen, seat: u8, item: Item) {
    k.state
        .cooks
        .iter_mut()
        .find(|c| c.seat == seat)
        .unwrap()
        .held = Some(Held::fresh(item));
}

#[test]
fn a_shelf_gives_its_raw_ingredient_and_takes_it_back() {
    let mut k = kitchen();
    k.place(0, 1, 2, 0);
    k.press(0);
    assert_eq!(k.held(0), Some("tomato_raw"));
    k.press(0);
    assert_eq!(k.held(0), None);
}

#[test]
fn chopping_takes_chop_s_and_moving_pauses_it_with_progress_kept() {
    let mut k = kitchen();
    k.place(1, 3, 2, 0);
    give(&mut k, 1, Item::Raw(Ingredient::Tomato));
    k.press(1); // set down
    k.press(1); // start chopping (1 tick of work)
    k.idle(10);
    // when the cook walks away, the work stops but the board keeps its progress
    let walk = k.input(1, (1000, 0), false, None);
    k.tick_with(vec![walk], vec![]);
    let Content::Board { chop, .. } = *k.station(3, 1) else {
        panic!()
    };
    assert!((10..30).contains(&chop), "progress kept: {chop}");
    assert!(k.state.cook(1).unwrap().work.is_none());
    // back, facing the board again: the next press resumes from where it stopped
    k.place(1, 3, 2, 0);
    let stop = k.input(1, (0, 0), false, Some(0));
    k.tick_with(vec![stop], vec![]);
    let events = k.press(1);
    let more = k.idle(30 - chop);
    let all: Vec<_> = events.into_iter().chain(more).collect();
    assert!(kinds(&all).contains(&EventKind::Chopped), "{all:?}");
    assert_eq!(
        *k.station(3, 1),
        Content::Board {
            item: Some(Held::fresh(Item::Chopped(Ingredient::Tomato))),
            chop: 0
        }
    );
}

#[test]
fn pressing_with_the_wrong_item_is_denied_and_changes_nothing() {
    let mut k = kitchen();
    k.place(2, 5, 2, 0);
    give(&mut k, 2, Item::Raw(Ingredient::Tomato));
    let events = k.press(2);
    assert_eq!(denied_reason(&events), Some("wrong_item"));
    assert_eq!(k.held(2), Some("tomato_raw"));
    assert_eq!(*k.station(5, 1), Content::Stove(Pot::Empty));
}

#[test]
fn a_press_facing_no_station_is_denied_at_the_cook() {
    let mut k = kitchen();
    k.place(0, 2, 2, 1); // facing (3, 2): floor
    let events = k.press(0);
    assert_eq!(denied_reason(&events), Some("no_station"));
}

#[test]
fn two_cooks_pressing_one_station_in_one_tick_the_lower_seq_wins() {
    let mut k = kitchen();
    k.place(0, 2, 1, 1); // left of the board, facing right
    k.place(1, 3, 2, 0); // below the board, facing up
    give(&mut k, 0, Item::Raw(Ingredient::Tomato));
    give(&mut k, 1, Item::Raw(Ingredient::Onion));
    let late = k.input(1, (0, 0), true, None);
    let early = k.input(0, (0, 0), true, None);
    let early = undercooked::sim::CookInput { seq: 1, ..early };
    let late = undercooked::sim::CookInput { seq: 2, ..late };
    let events = k.tick_with(vec![late, early], vec![]);
    assert_eq!(
        k.held(0),
        None,
        "seat 0's press (seq 1) set its tomato down"
    );
    assert_eq!(k.held(1), Some("onion_raw"));
    assert_eq!(denied_reason(&events), Some("busy"));
}

#[test]
fn a_pot_cooks_three_chopped_then_a_plate_takes_the_soup_and_it_is_served() {
    let mut k = kitchen();
    k.place(2, 5, 2, 0);
    for _ in 0..3 {
        give(&mut k, 2, Item::Chopped(Ingredient::Tomato));
        k.press(2);
    }
    assert!(matches!(
        *k.station(5, 1),
        Content::Stove(Pot::Cooking { .. })
    ));
    let events = k.idle(160);
    assert!(kinds(&events).contains(&EventKind::Cooked));
    give(&mut k, 2, Item::Plate(0));
    k.press(2);
    assert_eq!(k.held(2), Some("dish_tomato_soup"));
    // an order is open by now (first_order_s = 2 s)
    assert_eq!(k.state.orders.len(), 1);
    k.place(3, 7, 2, 0);
    k.state.cooks[3].held = k.state.cooks[2].held.take();
    let events = k.press(3);
    let served = events
        .iter()
        .find(|e| e.kind == EventKind::Served)
        .expect("served");
    assert_eq!(served.payload.pts, Some(30));
    assert!(k.state.score >= 30);
    assert_eq!(k.state.counters.served, 1);
    assert_eq!(k.state.cook(3).unwrap().dishes_served, 1);
}

#[test]
fn serving_a_dish_nobody_ordered_is_denied_and_the_cook_keeps_it() {
    let mut k = kitchen();
    k.place(3, 7, 2, 0);
    give(&mut k, 3, Item::Dish(Recipe::TomatoSoup));
    let events = k.press(3);
    assert_eq!(denied_reason(&events), Some("no_order"));
    assert_eq!(k.held(3), Some("dish_tomato_soup"));
}

#[test]
fn a_forgotten_soup_burns_catches_fire_and_extinguishing_clears_it() {
    let mut k = kitchen();
    k.state.stations[2].content = Content::Stove(Pot::Ready {
        ing: Ingredient::Tomato,
        t: 0,
    });
    let events = k.idle(120 + 80);
    assert!(kinds(&events).contains(&EventKind::Burnt));
    assert_eq!(k.state.fires.len(), 1);
    // a blocked stove refuses everything but extinguishing, whatever the cook holds
    k.place(2, 5, 2, 0);
    give(&mut k, 2, Item::Plate(0));
    k.press(2);
    let events = k.idle(40);
    assert!(
        kinds(&events).contains(&EventKind::Extinguished),
        "{events:?}"
    );
    assert!(k.state.fires.is_empty());
    // the burnt pot is cleared with empty hands, counted as wasted
    k.state.cooks[2].held = None;
    let events = k.press(2);
    assert!(kinds(&events).contains(&EventKind::Wasted));
    assert_eq!(k.state.counters.wasted, 1);
}

#[test]
fn a_fire_spreads_to_a_neighbouring_stove_and_freezes_its_soup() {
    let grid = "
########
#t.CKK.S#
#1.2.3.4#
#o.P.W.l#
#########";
    let grid = grid
        .replace("#t.CKK.S#", "#t.CKKS.#")
        .replace("########\n", "#########\n");
    let mut k = Kitchen::new(&grid, RECIPES, "", 4);
    // stove (4,1) burnt and on fire; stove (5,1) holds cooking soup
    let (a, b) = (
        k.rules.level.grid.station_index_at(4, 1).unwrap(),
        k.rules.level.grid.station_index_at(5, 1).unwrap(),
    );
    k.state.stations[a].content = Content::Stove(Pot::Burning {
        ing: Ingredient::Tomato,
        t: 79,
    });
    k.state.stations[b].content = Content::Stove(Pot::Cooking {
        ing: Ingredient::Tomato,
        t: 10,
    });
    k.idle(1);
    assert_eq!(k.state.fires.len(), 1);
    k.idle(100); // fire_spread_s = 5 s
    assert_eq!(k.state.fires.len(), 2, "spread to the right-hand stove");
    let frozen = k.station(5, 1).clone();
    k.idle(100);
    assert_eq!(*k.station(5, 1), frozen, "a pot under a fire is frozen");
}

#[test]
fn a_spill_never_appears_under_a_standing_cook_and_trips_each_cook_once() {
    let grid = "
#######
#1234.#
#tCKSW#
#######";
    let mut k = Kitchen::new(
        grid,
        "\"tomato_soup\"",
        "[hazards]\nspill_every_s = 1\n[tuning]\nspill_life_s = 30",
        4,
    );
    k.idle(21);
    assert_eq!(k.state.spills.len(), 1);
    assert_eq!(
        (k.state.spills[0].x, k.state.spills[0].y),
        (5, 1),
        "the only free floor tile"
    );
    // the cook on (4,1) walks onto it: stunned once, with a slipped event
    let walk = k.input(3, (1000, 0), false, None);
    let mut events = k.tick_with(vec![walk], vec![]);
    events.extend(k.idle(10));
    assert_eq!(
        kinds(&events)
            .iter()
            .filter(|k| **k == EventKind::Slipped)
            .count(),
        1
    );
    assert!(k.state.cook(3).unwrap().stunned(k.state.tick));
    events = k.idle(40);
    assert!(
        !kinds(&events).contains(&EventKind::Slipped),
        "each spill trips each cook once"
    );
}

#[test]
fn a_cart_pinning_a_cook_against_a_wall_stuns_it_and_waits() {
    let grid = "
########
#......#
#.######
#1234tC#
#KSW...#
########";
    let mut k = Kitchen::new(
        grid,
        "\"tomato_soup\"",
        "[hazards]\ncarts = [[[1, 1], [6, 1]]]",
        4,
    );
    // the cook stands in the dead end at (6, 1): the cart comes, bumps, and cannot push it
    k.place(0, 6, 1, 3);
    let mut events = Vec::new();
    for _ in 0..140 {
        events.extend(k.idle(1));
    }
    assert!(
        kinds(&events).contains(&EventKind::Bumped),
        "{:?}",
        kinds(&events)
    );
    let cart = &k.state.carts[0];
    let cook = k.state.cook(0).unwrap();
    assert!(
        cart.x < cook.x - 600,
        "the cart waits short of the cook: cart {} cook {}",
        cart.x,
        cook.x
    );
}

#[test]
fn a_cook_that_disconnects_holding_an_item_beside_a_full_counter_loses_it_after_the_park() {
    let mut k = kitchen();
    k.place(1, 3, 2, 2); // facing the prep below
    let idx = k.rules.level.grid.station_index_at(3, 3).unwrap();
    k.state.stations[idx].content = Content::Prep(Some(Held::fresh(Item::Raw(Ingredient::Onion))));
    give(&mut k, 1, Item::Dish(Recipe::TomatoSoup));
    let events = k.tick_with(vec![], vec![SeatChange::Disconnected(1)]);
    assert_eq!(kinds(&events), vec![EventKind::GhostOn]);
    let events = k.idle(60);
    let park = events
        .iter()
        .find(|e| e.kind == EventKind::GhostPark)
        .expect("ghost_park");
    assert_eq!(park.payload.it, Some("dish_tomato_soup"));
    assert_eq!(k.state.counters.lost_items, 1);
    assert_eq!(k.held(1), None);
    // the plate under the lost dish comes back dirty to the sink
    k.idle(110);
    let sink = k.rules.level.grid.station_index_at(5, 3).unwrap();
    assert!(matches!(
        k.state.stations[sink].content,
        Content::Sink { dirty: 1, .. }
    ));
}

#[test]
fn a_parked_item_is_set_down_on_an_empty_counter_and_a_rejoin_brings_the_cook_back_empty_handed() {
    let mut k = kitchen();
    k.place(1, 3, 2, 2);
    give(&mut k, 1, Item::Chopped(Ingredient::Tomato));
    k.tick_with(vec![], vec![SeatChange::Disconnected(1)]);
    let events = k.idle(60);
    assert!(kinds(&events).contains(&EventKind::Dropped));
    assert_eq!(
        *k.station(3, 3),
        Content::Prep(Some(Held::fresh(Item::Chopped(Ingredient::Tomato))))
    );
    let events = k.tick_with(vec![], vec![SeatChange::Connected(1)]);
    assert_eq!(kinds(&events), vec![EventKind::GhostOff]);
    assert!(k.state.cook(1).unwrap().connected);
    assert_eq!(k.held(1), None);
}

#[test]
fn a_missed_order_costs_the_penalty_but_never_takes_the_score_below_zero() {
    let mut k = Kitchen::new(GRID, RECIPES, "[orders]\ndeadline_s = 3", 2);
    let events = k.idle(40 + 60 + 1);
    let missed = events
        .iter()
        .find(|e| e.kind == EventKind::Missed)
        .expect("missed");
    assert_eq!(missed.payload.sd, Some(0), "score was 0: nothing to take");
    assert_eq!(k.state.counters.missed, 1);
    assert_eq!(k.state.score, 0);
    // Nobody had the order's work in hand: nobody is charged.
    assert_eq!(k.state.cook(0).unwrap().missed_contrib, 0);
    assert_eq!(k.state.cook(1).unwrap().missed_contrib, 0);
}

#[test]
fn a_miss_is_charged_only_to_the_cooks_holding_the_orders_work() {
    // Given three cooks when the first order (a tomato soup or a salad: both take a
    // tomato) runs out: one empty-handed, one with a chopped tomato, one with a mushroom,
    let mut k = Kitchen::new(GRID, RECIPES, "[orders]\ndeadline_s = 3", 3);
    give(&mut k, 1, Item::Chopped(Ingredient::Tomato));
    give(&mut k, 2, Item::Raw(Ingredient::Mushroom));
    let events = k.idle(40 + 60 + 1);
    assert!(kinds(&events).contains(&EventKind::Missed));
    // then only the cook with the tomato is charged.
    let charged: Vec<u32> = (0..3)
        .map(|s| k.state.cook(s).unwrap().missed_contrib)
        .collect();
    assert_eq!(charged, [0, 1, 0]);
}

#[test]
fn a_salad_is_plated_on_the_prep_counter_in_name_order() {
    let mut k = kitchen();
    k.place(1, 3, 2, 2);
    give(&mut k, 1, Item::Plate(0));
    k.press(1); // lay the plate
    give(&mut k, 1, Item::Chopped(Ingredient::Tomato));
    k.press(1);
    give(&mut k, 1, Item::Chopped(Ingredient::Lettuce));
    k.press(1);
    assert_eq!(
        *k.station(3, 3),
        Content::Prep(Some(Held::fresh(Item::Dish(Recipe::Salad))))
    );
    give(&mut k, 1, Item::Chopped(Ingredient::Mushroom));
    assert_eq!(denied_reason(&k.press(1)), Some("wrong_item"));
}

#[test]
fn washing_turns_dirty_plates_clean_one_after_another() {
    let mut k = kitchen();
    let sink = k.rules.level.grid.station_index_at(5, 3).unwrap();
    k.state.stations[sink].content = Content::Sink {
        clean: 0,
        dirty: 2,
        wash: 0,
    };
    k.place(2, 5, 2, 2);
    k.press(2);
    let events = k.idle(70);
    assert_eq!(
        kinds(&events)
            .iter()
            .filter(|k| **k == EventKind::Washed)
            .count(),
        2
    );
    assert_eq!(
        k.state.stations[sink].content,
        Content::Sink {
            clean: 2,
            dirty: 0,
            wash: 0
        }
    );
}

#[test]
fn reaching_the_target_wins_with_stars_from_the_clock_left() {
    let mut k = kitchen();
    k.state.score = k.rules.level.target_score;
    let events = k.idle(1);
    let end = events
        .iter()
        .find(|e| e.kind == EventKind::RoundEnd)
        .expect("round_end");
    assert_eq!(end.payload.res, Some("won"));
    let v = k.state.verdict.unwrap();
    assert_eq!((v.result, v.stars), (RoundResult::Won, 3));
    // a decided round no longer moves
    let before = k.state.clone();
    k.idle(5);
    assert_eq!(k.state, before);
}

#[test]
fn the_clock_running_out_loses_and_every_seat_abandoned_aborts() {
    let mut k = Kitchen::new(GRID, RECIPES, "", 2);
    k.idle(3000);
    assert_eq!(k.state.verdict.unwrap().result, RoundResult::Lost);
    let mut k = Kitchen::new(GRID, RECIPES, "", 2);
    k.tick_with(
        vec![],
        vec![SeatChange::Abandoned(0), SeatChange::Abandoned(1)],
    );
    assert_eq!(k.state.verdict.unwrap().result, RoundResult::Aborted);
}

#[test]
fn a_rush_announces_itself_and_makes_the_orders_opened_in_it_worth_half_as_much_again() {
    let mut k = Kitchen::new(
        GRID,
        RECIPES,
        "[orders]\nfirst_order_s = 1\ninterval_s = [2, 2]\nmax_orders = 8\n[hazards]\nrush_at_s = [0]\nrush_len_s = 5",
        2,
    );
    let events = k.idle(1);
    assert!(kinds(&events).contains(&EventKind::RushStart));
    let events = k.idle(140);
    assert!(kinds(&events).contains(&EventKind::RushEnd));
    let pts: Vec<u32> = k.state.orders.iter().map(|o| o.pts).collect();
    // opened at 1, 2, 3 and 4 s (the 2 s interval halved during the 5 s rush), then at 5 s
    // and every 2 s after it, at face value
    assert_eq!(&pts[..5], &[45, 45, 45, 45, 30], "{pts:?}");
    assert_eq!(*pts.last().unwrap(), 30, "{pts:?}");
}

#[test]
fn a_streak_of_three_serves_earns_the_flat_bonus_and_the_tip_follows_the_time_left() {
    let mut k = Kitchen::new(
        GRID,
        RECIPES,
        "[orders]\nfirst_order_s = 0\ninterval_s = [1, 1]\nmax_orders = 3",
        4,
    );
    k.idle(41);
    assert_eq!(k.state.orders.len(), 3);
    k.place(3, 7, 2, 0);
    let mut deltas = Vec::new();
    for _ in 0..3 {
        give(&mut k, 3, Item::Dish(Recipe::TomatoSoup));
        let events = k.press(3);
        if let Some(e) = events.iter().find(|e| e.kind == EventKind::Served) {
            deltas.push((e.payload.sd.unwrap(), e.payload.stk.unwrap()));
        } else {
            give(&mut k, 3, Item::Dish(Recipe::Salad));
            let events = k.press(3);
            let e = events
                .iter()
                .find(|e| e.kind == EventKind::Served)
                .expect("one of the two recipes is ordered");
            deltas.push((e.payload.sd.unwrap(), e.payload.stk.unwrap()));
        }
    }
    let streaks: Vec<u32> = deltas.iter().map(|d| d.1).collect();
    assert_eq!(streaks, [1, 2, 3]);
    // every order still had over 95% of its window: a tip of 19 (of 20); the third adds
    // the bonus
    for (sd, stk) in deltas {
        let base = sd - 19 - if stk >= 3 { 10 } else { 0 };
        assert!(base == 30 || base == 20, "sd {sd} at streak {stk}");
    }
    assert_eq!(k.state.longest_streak, 3);
}

#[test]
fn an_empty_rail_gets_its_next_order_within_a_second_not_at_the_interval() {
    // given a level whose orders come every 100 s, one open
    let mut k = Kitchen::new(
        GRID,
        RECIPES,
        "[orders]\nfirst_order_s = 0\ninterval_s = [100, 100]\nmax_orders = 3",
        4,
    );
    k.idle(2);
    assert_eq!(k.state.orders.len(), 1);
    // when a cook serves it at once
    k.place(3, 7, 2, 0);
    let recipe = k.state.orders[0].recipe;
    give(&mut k, 3, Item::Dish(recipe));
    let events = k.press(3);
    let served = events
        .iter()
        .find(|e| e.kind == EventKind::Served)
        .expect("served");
    // then the tip is nearly all of it, and the empty rail refills within a second
    assert_eq!(
        served
            .payload
            .sd
            .map(|sd| sd as u32 - served.payload.pts.unwrap()),
        Some(19)
    );
    assert!(k.state.orders.is_empty());
    let mut waited = 0;
    while k.state.orders.is_empty() && waited < 100 {
        k.idle(1);
        waited += 1;
    }
    assert_eq!(k.state.orders.len(), 1);
    assert!(waited <= 20, "the rail stood empty {waited} ticks at 20 Hz");
}

#[test]
fn holding_a_direction_into_the_board_while_chopping_keeps_chopping() {
    // given a player who walked up to the board and keeps holding "up" into it
    let mut k = kitchen();
    k.place(1, 3, 2, 0);
    give(&mut k, 1, Item::Raw(Ingredient::Tomato));
    let up = |k: &mut Kitchen, act: bool| {
        let i = k.input(1, (0, -1000), act, None);
        k.tick_with(vec![i], vec![])
    };
    for _ in 0..5 {
        up(&mut k, false); // against the board now
    }
    up(&mut k, true); // set the tomato down
    up(&mut k, true); // start chopping
    // when the player keeps holding "up" until the chop is due
    let mut all = Vec::new();
    for _ in 0..40 {
        all.extend(up(&mut k, false));
    }
    // then the cook never moved, and the chopping went on and finished
    assert!(!k.state.cook(1).unwrap().moved);
    assert!(
        kinds(&all).contains(&EventKind::Chopped),
        "{:?}",
        kinds(&all)
    );
}

#[test]
fn a_stunned_cook_s_press_is_denied_with_stunned() {
    let mut k = kitchen();
    k.place(0, 1, 2, 0);
    k.state.cooks[0].stunned_until = k.state.tick + 10;
    let events = k.press(0);
    assert_eq!(denied_reason(&events), Some("stunned"));
    assert_eq!(k.held(0), None, "nothing was taken from the shelf");
}

#[test]
fn a_press_on_a_fire_someone_else_is_putting_out_is_denied_blocked() {
    // given a fire on the stove between seats 2 (below it) and a second cook beside it
    let mut k = Kitchen::new(
        "#######\n#..K..#\n#1.2.3#\n#t.4.S#\n#C..W.#\n#######",
        "\"tomato_soup\"",
        "",
        4,
    );
    let stove = k.rules.level.grid.station_index_at(3, 1).unwrap();
    k.state.fires.push(undercooked::sim::state::Fire {
        station: stove as u16,
        spread_at: u32::MAX,
        progress: 0,
    });
    k.place(1, 3, 2, 0);
    k.place(0, 2, 1, 1);
    k.press(1); // seat 1 starts putting it out
    let events = k.press(0);
    assert_eq!(denied_reason(&events), Some("blocked"));
}

#[test]
fn a_bin_throws_away_an_item_and_a_plate_s_contents_but_never_the_plate() {
    let mut k = Kitchen::new(
        "#######\n#t.B.S#\n#1.2..#\n#C.3.4#\n#K.W..#\n#######",
        "\"tomato_soup\"",
        "",
        2,
    );
    k.place(1, 3, 2, 0); // facing the bin above
    give(&mut k, 1, Item::Chopped(Ingredient::Tomato));
    let events = k.press(1);
    assert_eq!(k.held(1), None);
    assert!(kinds(&events).contains(&EventKind::Wasted));
    assert_eq!(k.state.counters.wasted, 1);
    give(&mut k, 1, Item::Dish(Recipe::TomatoSoup));
    k.press(1);
    assert_eq!(k.held(1), Some("plate"), "the plate stays");
    let events = k.press(1);
    assert_eq!(
        denied_reason(&events),
        Some("wrong_item"),
        "a clean plate is not binned"
    );
    assert_eq!(k.held(1), Some("plate"));
    assert_eq!(k.state.counters.wasted, 2);
}

#[test]
fn an_empty_pot_takes_only_a_soup_the_level_orders() {
    // given a level that orders tomato soup only, and a cook holding a chopped onion
    let mut k = kitchen();
    k.place(2, 5, 2, 0);
    give(&mut k, 2, Item::Chopped(Ingredient::Onion));
    // when it presses the empty stove, then the onion is refused
    let events = k.press(2);
    assert_eq!(denied_reason(&events), Some("no_order"));
    assert_eq!(*k.station(5, 1), Content::Stove(Pot::Empty));
    give(&mut k, 2, Item::Chopped(Ingredient::Tomato));
    k.press(2);
    assert!(matches!(
        *k.station(5, 1),
        Content::Stove(Pot::Filling { n: 1, .. })
    ));
}

#[test]
fn a_level_sets_its_own_recipe_points() {
    let k = Kitchen::new(GRID, RECIPES, "[points]\ntomato_soup = 55", 1);
    assert_eq!(k.rules.points(Recipe::TomatoSoup), 55);
    assert_eq!(
        k.rules.points(Recipe::Salad),
        Recipe::Salad.default_points()
    );
    let bad = undercooked::sim::Level::parse(
        "t.toml",
        &kitchen::level_text(GRID, RECIPES, "[points]\ngarden_salad = 5"),
    )
    .unwrap_err();
    assert!(
        bad.message.contains("not a recipe this level orders"),
        "{bad}"
    );
}
