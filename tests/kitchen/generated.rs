//! Kitchens generated from a number, for the bots' teamwork tests: cramped corridors (two
//! tiles wide, or one wide with pockets), two rooms joined by a one-tile door, and wide halls
//! with the stations far apart. Each passes the level checks; the same number gives the same
//! kitchen on every run.

use undercooked::levels::LevelSource;

/// A small deterministic generator (xorshift), so each generated kitchen is the same on
/// every run.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Kitchen `n`: shape `n % 3` (0 a cramped corridor, 1 two rooms joined by a one-tile door,
/// 2 a wide hall with the stations far apart), the rest drawn from `n`. Every one passes
/// the level checks (stations reachable, recipes makeable).
pub fn generated(n: u64) -> LevelSource {
    let mut dice = Dice(n.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let salad = dice.roll(2) == 0;
    let recipes = if salad {
        "\"tomato_soup\", \"salad\""
    } else {
        "\"tomato_soup\""
    };
    let mut kit: Vec<char> = "tCCKKSWPB".chars().collect();
    if salad {
        kit.extend(['l', 'P']);
    }
    let rows: Vec<String> = match n % 3 {
        0 => corridor(&mut dice, &kit),
        1 => two_rooms(&mut dice, &kit),
        _ => far_hall(&mut dice, &kit),
    };
    let id = format!("{:02}_generated", n);
    let text = format!(
        "id = \"{id}\"\norder = 0\nname = \"Generated {n}\"\ntime_limit_s = 150\ntarget_score = 400\nplates = 3\nrecipes = [{recipes}]\ngrid = \"\"\"\n{}\n\"\"\"\n[orders]\ninterval_s = [12, 18]\n",
        rows.join("\n")
    );
    let file_name = format!("{id}.toml");
    let level = undercooked::levels::parse_level_file(&file_name, &text)
        .unwrap_or_else(|e| panic!("generated kitchen {n} is not a level: {e}\n{text}"));
    LevelSource {
        file_name,
        text,
        level,
    }
}

/// Shuffles the kit into `slots` wall places (the rest stay wall).
fn scatter(dice: &mut Dice, kit: &[char], slots: usize) -> Vec<char> {
    let mut places = vec!['#'; slots];
    for &k in kit {
        loop {
            let i = dice.roll(slots);
            if places[i] == '#' {
                places[i] = k;
                break;
            }
        }
    }
    places
}

/// A corridor two tiles wide, or one wide with a pocket every third tile where a cook can
/// step aside, with the stations on both walls.
fn corridor(dice: &mut Dice, kit: &[char]) -> Vec<String> {
    let len = kit.len() + 2 + dice.roll(4);
    let one_wide = dice.roll(2) == 0;
    let pocket = |x: usize| one_wide && x % 3 == 1;
    let bottom_slots = (0..len).filter(|&x| !pocket(x)).count();
    let wall = scatter(dice, kit, len + bottom_slots);
    let mut rest = wall[len..].iter();
    let bottom: String = (0..len)
        .map(|x| {
            if pocket(x) {
                '.'
            } else {
                *rest.next().unwrap_or(&'#')
            }
        })
        .collect();
    let line = |cells: String| format!("#{cells}#");
    let mut rows = vec!["#".repeat(len + 2), line(wall[..len].iter().collect())];
    if one_wide {
        rows.push(line(format!("1.2.{}3.4", ".".repeat(len - 7))));
    } else {
        rows.push(line(format!("1.2{}", ".".repeat(len - 3))));
        rows.push(line(format!("{}3.4", ".".repeat(len - 3))));
    }
    rows.push(line(bottom));
    rows.push("#".repeat(len + 2));
    rows
}

/// Two rooms and one doorway: the shelves and boards on the left, the rest on the right.
fn two_rooms(dice: &mut Dice, kit: &[char]) -> Vec<String> {
    let (w, h) = (8 + dice.roll(3), 4 + dice.roll(2));
    let door = 1 + dice.roll(h);
    let (left, right): (Vec<char>, Vec<char>) =
        kit.iter().partition(|k| matches!(k, 't' | 'l' | 'C'));
    let lwall = scatter(dice, &left, w);
    let rwall = scatter(dice, &right, w);
    let mut rows = vec!["#".repeat(2 * w + 3)];
    rows.push(format!(
        "#{}#{}#",
        lwall.iter().collect::<String>(),
        rwall.iter().collect::<String>()
    ));
    for y in 1..=h {
        let mid = if y == door { '.' } else { '#' };
        let spawn = |a: char, b: char| format!("{a}{}{b}", ".".repeat(w - 2));
        let (l, r) = match y {
            1 => (spawn('1', '.'), spawn('.', '2')),
            _ if y == h => (spawn('3', '.'), spawn('.', '4')),
            _ => (".".repeat(w), ".".repeat(w)),
        };
        rows.push(format!("#{l}{mid}{r}#"));
    }
    rows.push("#".repeat(2 * w + 3));
    rows
}

/// A wide hall with the shelves on the left wall and the pass on the right: long walks.
fn far_hall(dice: &mut Dice, kit: &[char]) -> Vec<String> {
    let (w, h) = (20 + dice.roll(8), 8 + dice.roll(3));
    let mut grid = vec![vec!['.'; w]; h];
    let (mut left, mut right) = (dice.roll(2), dice.roll(2));
    for (i, &k) in kit.iter().enumerate() {
        match k {
            't' | 'l' => {
                grid[1 + left][0] = k;
                left += 2;
            }
            'S' | 'W' | 'B' => {
                grid[1 + right][w - 1] = k;
                right += 2;
            }
            _ => grid[h / 2 - 1 + i % 2 * 2][w / 2 - 3 + i] = k,
        }
    }
    grid[1][2] = '1';
    grid[1][w - 3] = '2';
    grid[h - 2][2] = '3';
    grid[h - 2][w - 3] = '4';
    let mut rows = vec!["#".repeat(w + 2)];
    rows.extend(
        grid.iter()
            .map(|r| format!("#{}#", r.iter().collect::<String>())),
    );
    rows.push("#".repeat(w + 2));
    rows
}
