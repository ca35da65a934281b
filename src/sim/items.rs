//! Ingredients, recipes and the items a cook can carry, with their wire short forms.
//!
//! Every form an item can take is a closed enum, so its short form (`tomato_chopped`,
//! `plate_lettuce+onion`, `dish_salad`) is a `&'static str` from one table: the encoder
//! never allocates to name an item, and no unknown form can reach a frame.

use serde::{Deserialize, Serialize};

/// The four ingredients, in name order (the order salad plates list their contents in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ingredient {
    Lettuce,
    Mushroom,
    Onion,
    Tomato,
}

impl Ingredient {
    pub const ALL: [Ingredient; 4] = [
        Ingredient::Lettuce,
        Ingredient::Mushroom,
        Ingredient::Onion,
        Ingredient::Tomato,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ingredient::Lettuce => "lettuce",
            Ingredient::Mushroom => "mushroom",
            Ingredient::Onion => "onion",
            Ingredient::Tomato => "tomato",
        }
    }

    /// The shelf letter of the level grid.
    pub fn from_shelf_letter(c: char) -> Option<Ingredient> {
        match c {
            't' => Some(Ingredient::Tomato),
            'o' => Some(Ingredient::Onion),
            'l' => Some(Ingredient::Lettuce),
            'm' => Some(Ingredient::Mushroom),
            _ => None,
        }
    }

    pub fn raw_form(self) -> &'static str {
        match self {
            Ingredient::Lettuce => "lettuce_raw",
            Ingredient::Mushroom => "mushroom_raw",
            Ingredient::Onion => "onion_raw",
            Ingredient::Tomato => "tomato_raw",
        }
    }

    pub fn chopped_form(self) -> &'static str {
        match self {
            Ingredient::Lettuce => "lettuce_chopped",
            Ingredient::Mushroom => "mushroom_chopped",
            Ingredient::Onion => "onion_chopped",
            Ingredient::Tomato => "tomato_chopped",
        }
    }

    /// The bit this ingredient takes on a salad plate; mushroom never goes on a plate.
    pub fn salad_bit(self) -> Option<u8> {
        match self {
            Ingredient::Lettuce => Some(1),
            Ingredient::Onion => Some(2),
            Ingredient::Tomato => Some(4),
            Ingredient::Mushroom => None,
        }
    }

    /// The soup a pot of three of this ingredient becomes (lettuce makes no soup).
    pub fn soup(self) -> Option<Recipe> {
        match self {
            Ingredient::Tomato => Some(Recipe::TomatoSoup),
            Ingredient::Onion => Some(Recipe::OnionSoup),
            Ingredient::Mushroom => Some(Recipe::MushroomSoup),
            Ingredient::Lettuce => None,
        }
    }
}

/// The five dishes an order can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Recipe {
    TomatoSoup,
    OnionSoup,
    MushroomSoup,
    Salad,
    GardenSalad,
}

/// The chopped ingredients a pot takes before it cooks: a soup is three of one kind.
pub const POT_PORTIONS: u8 = 3;

pub const SALAD_MASK: u8 = 1 | 4; // lettuce + tomato
pub const GARDEN_SALAD_MASK: u8 = 1 | 2 | 4; // lettuce + onion + tomato

impl Recipe {
    pub const ALL: [Recipe; 5] = [
        Recipe::TomatoSoup,
        Recipe::OnionSoup,
        Recipe::MushroomSoup,
        Recipe::Salad,
        Recipe::GardenSalad,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Recipe::TomatoSoup => "tomato_soup",
            Recipe::OnionSoup => "onion_soup",
            Recipe::MushroomSoup => "mushroom_soup",
            Recipe::Salad => "salad",
            Recipe::GardenSalad => "garden_salad",
        }
    }

    pub fn parse(id: &str) -> Option<Recipe> {
        Recipe::ALL.into_iter().find(|r| r.id() == id)
    }

    pub fn default_points(self) -> u32 {
        match self {
            Recipe::TomatoSoup | Recipe::OnionSoup => 30,
            Recipe::MushroomSoup => 35,
            Recipe::Salad => 20,
            Recipe::GardenSalad => 30,
        }
    }

    /// The ingredient a soup is made of, three times over; `None` for salads.
    pub fn soup_ingredient(self) -> Option<Ingredient> {
        match self {
            Recipe::TomatoSoup => Some(Ingredient::Tomato),
            Recipe::OnionSoup => Some(Ingredient::Onion),
            Recipe::MushroomSoup => Some(Ingredient::Mushroom),
            Recipe::Salad | Recipe::GardenSalad => None,
        }
    }

    /// The ingredients a recipe needs, for level validation and the bots.
    pub fn ingredients(self) -> &'static [Ingredient] {
        match self {
            Recipe::TomatoSoup => &[Ingredient::Tomato],
            Recipe::OnionSoup => &[Ingredient::Onion],
            Recipe::MushroomSoup => &[Ingredient::Mushroom],
            Recipe::Salad => &[Ingredient::Lettuce, Ingredient::Tomato],
            Recipe::GardenSalad => &[Ingredient::Lettuce, Ingredient::Onion, Ingredient::Tomato],
        }
    }

    pub fn dish_form(self) -> &'static str {
        match self {
            Recipe::TomatoSoup => "dish_tomato_soup",
            Recipe::OnionSoup => "dish_onion_soup",
            Recipe::MushroomSoup => "dish_mushroom_soup",
            Recipe::Salad => "dish_salad",
            Recipe::GardenSalad => "dish_garden_salad",
        }
    }

    pub fn soup_form(self) -> &'static str {
        match self {
            Recipe::TomatoSoup => "soup_tomato",
            Recipe::OnionSoup => "soup_onion",
            Recipe::MushroomSoup => "soup_mushroom",
            Recipe::Salad | Recipe::GardenSalad => "soup_burnt",
        }
    }
}

/// What a cook can hold or a counter can carry. Soups never appear here: they live in a pot
/// until a plate takes them out as a `Dish`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Item {
    Raw(Ingredient),
    Chopped(Ingredient),
    /// A clean plate with salad ingredients on it (bit mask; 0 = empty). A mask equal to a
    /// recipe is always stored as `Dish` instead, so every form has exactly one value.
    Plate(u8),
    PlateDirty,
    Dish(Recipe),
}

impl Item {
    pub fn short(self) -> &'static str {
        match self {
            Item::Raw(i) => i.raw_form(),
            Item::Chopped(i) => i.chopped_form(),
            Item::Plate(mask) => match mask {
                0 => "plate",
                1 => "plate_lettuce",
                2 => "plate_onion",
                3 => "plate_lettuce+onion",
                4 => "plate_tomato",
                6 => "plate_onion+tomato",
                // 5 and 7 are dishes; `with_salad_ingredient` never builds them as plates.
                _ => "plate",
            },
            Item::PlateDirty => "plate_dirty",
            Item::Dish(r) => r.dish_form(),
        }
    }

    /// The form word of `dropped` / `ghost_park` events.
    pub fn form_word(self) -> &'static str {
        match self {
            Item::Raw(_) => "raw",
            Item::Chopped(_) => "chopped",
            Item::Plate(0) => "plate",
            Item::Plate(_) => "plated",
            Item::PlateDirty => "dirty",
            Item::Dish(_) => "dish",
        }
    }

    /// Whether this item stands on a plate (so the plate comes back when it is lost or served).
    pub fn is_on_plate(self) -> bool {
        matches!(self, Item::Plate(_) | Item::PlateDirty | Item::Dish(_))
    }

    /// Whether this item is work towards `recipe`, for charging a miss (docs/GAME.md): one
    /// of its ingredients, raw or chopped; a plate holding only its salad ingredients; its
    /// dish (a plain salad is on its way to a garden salad too). A dirty plate or an empty
    /// one is work towards nothing yet.
    pub fn is_work_for(self, recipe: Recipe) -> bool {
        let mask = match recipe {
            Recipe::Salad => SALAD_MASK,
            Recipe::GardenSalad => GARDEN_SALAD_MASK,
            _ => 0,
        };
        match self {
            Item::Raw(i) | Item::Chopped(i) => recipe.ingredients().contains(&i),
            Item::Plate(m) => m != 0 && m & !mask == 0,
            Item::Dish(r) => r == recipe || (r == Recipe::Salad && recipe == Recipe::GardenSalad),
            Item::PlateDirty => false,
        }
    }

    /// The salad mask of a plate that can still take ingredients.
    fn salad_mask(self) -> Option<u8> {
        match self {
            Item::Plate(m) => Some(m),
            Item::Dish(Recipe::Salad) => Some(SALAD_MASK),
            _ => None,
        }
    }

    /// This plate with one more chopped salad ingredient, per "Plating salads"; `None` when
    /// the combination is not allowed (not a plate, not a salad ingredient, already there).
    pub fn with_salad_ingredient(self, ingredient: Item) -> Option<Item> {
        let mask = self.salad_mask()?;
        let Item::Chopped(ing) = ingredient else {
            return None;
        };
        let bit = ing.salad_bit()?;
        if mask & bit != 0 {
            return None;
        }
        Some(match mask | bit {
            SALAD_MASK => Item::Dish(Recipe::Salad),
            GARDEN_SALAD_MASK => Item::Dish(Recipe::GardenSalad),
            m => Item::Plate(m),
        })
    }
}

/// An item with its quality in thousandths (1000 = fresh; only burning soup lowers it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    pub item: Item,
    pub quality: u16,
}

impl Held {
    pub fn fresh(item: Item) -> Held {
        Held {
            item,
            quality: 1000,
        }
    }
}

/// A quality in thousandths as hundredths, half up (how frames and the history write it).
pub fn quality_centi(q: u16) -> u16 {
    ((q as u32 + 5) / 10).min(100) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plating_builds_canonical_forms_in_name_order() {
        let plate = Item::Plate(0);
        let with_tomato = plate
            .with_salad_ingredient(Item::Chopped(Ingredient::Tomato))
            .unwrap();
        assert_eq!(with_tomato.short(), "plate_tomato");
        let with_onion = with_tomato
            .with_salad_ingredient(Item::Chopped(Ingredient::Onion))
            .unwrap();
        assert_eq!(with_onion.short(), "plate_onion+tomato");
        let salad = with_tomato
            .with_salad_ingredient(Item::Chopped(Ingredient::Lettuce))
            .unwrap();
        assert_eq!(salad, Item::Dish(Recipe::Salad));
        let garden = salad
            .with_salad_ingredient(Item::Chopped(Ingredient::Onion))
            .unwrap();
        assert_eq!(garden, Item::Dish(Recipe::GardenSalad));
    }

    #[test]
    fn plates_refuse_mushrooms_raw_items_and_doubles() {
        let plate = Item::Plate(0);
        assert_eq!(
            plate.with_salad_ingredient(Item::Chopped(Ingredient::Mushroom)),
            None
        );
        assert_eq!(
            plate.with_salad_ingredient(Item::Raw(Ingredient::Tomato)),
            None
        );
        let t = plate
            .with_salad_ingredient(Item::Chopped(Ingredient::Tomato))
            .unwrap();
        assert_eq!(
            t.with_salad_ingredient(Item::Chopped(Ingredient::Tomato)),
            None
        );
        let garden = Item::Dish(Recipe::GardenSalad);
        assert_eq!(
            garden.with_salad_ingredient(Item::Chopped(Ingredient::Onion)),
            None
        );
        assert_eq!(
            Item::Dish(Recipe::TomatoSoup).with_salad_ingredient(Item::Chopped(Ingredient::Onion)),
            None
        );
    }
}
