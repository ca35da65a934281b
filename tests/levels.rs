//! The shipped campaign: seven levels in order, each introducing something, all valid.

mod kitchen;

use undercooked::sim::items::Recipe;

#[test]
fn the_campaign_is_seven_levels_in_order_each_introducing_something() {
    let levels = kitchen::campaign();
    let ids: Vec<&str> = levels.iter().map(|l| l.level.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "01_first_kitchen",
            "02_chop_and_salad",
            "03_dish_duty",
            "04_kitchen_fire",
            "05_slippery_rush",
            "06_cart_crossing",
            "07_grand_hall"
        ]
    );
    let orders: Vec<u32> = levels.iter().map(|l| l.level.order).collect();
    assert_eq!(orders, [1, 2, 3, 4, 5, 6, 7]);
    let l = |i: usize| &levels[i].level;
    assert_eq!(
        l(0).recipes,
        [Recipe::TomatoSoup],
        "level 1 is tomato soup only"
    );
    assert!(l(1).recipes.contains(&Recipe::Salad));
    assert_eq!(l(2).plates, 1, "dish duty: one plate, so washing matters");
    assert!(l(3).tuning.burn_grace_s < 6.0, "fire: soups burn sooner");
    assert!(l(4).spill_every_s > 0.0 && !l(4).rush_at_s.is_empty());
    assert!(!l(5).carts.is_empty());
    let hall = l(6);
    assert_eq!((hall.grid.width(), hall.grid.height()), (64, 64));
    assert_eq!(hall.recipes.len(), 5);
    assert!(hall.spill_every_s > 0.0 && !hall.rush_at_s.is_empty() && !hall.carts.is_empty());
}

#[test]
fn only_nn_name_toml_files_are_levels() {
    assert!(undercooked::levels::is_level_file("01_first_kitchen.toml"));
    assert!(!undercooked::levels::is_level_file("first_kitchen.toml"));
    assert!(!undercooked::levels::is_level_file(
        "01_first_kitchen.toml.bak"
    ));
    assert!(!undercooked::levels::is_level_file("1_x.toml"));
}

#[test]
fn a_level_whose_id_differs_from_its_file_name_is_refused() {
    let text = &kitchen::campaign()[0].text;
    let err = undercooked::levels::parse_level_file("02_other.toml", text).unwrap_err();
    assert!(
        err.message.contains("does not match the file name"),
        "{err}"
    );
    assert_eq!(err.line, 2);
}
