// What each recipe is, in words a player reads: its name and a glyph that tells the dishes
// apart without colour are the client's (pictures and words); what a recipe *is* — its
// kind, its ingredients with their counts and steps, its points — comes from the server's
// `/api/levels` (`recipes`, from the sim's own table: src/server/game_data.rs), given here
// by `setRecipes` when it arrives, so a ticket can never say what the kitchen does not do.
// One table, so the order tickets, the lobby's recipe card and the in-play recipe key always
// say the same thing. The server's recipe ids (`tomato_soup`, …) are the keys.

/** Per recipe: `name` and `glyph` (one letter drawn on the dish and the ticket). */
export const LOOKS = {
  tomato_soup: { name: 'Tomato soup', glyph: 'T' },
  onion_soup: { name: 'Onion soup', glyph: 'O' },
  mushroom_soup: { name: 'Mushroom soup', glyph: 'M' },
  salad: { name: 'Salad', glyph: 'S' },
  garden_salad: { name: 'Garden salad', glyph: 'G' },
};

/** The server's recipes by id: `{kind, parts: [{ing, n, steps}], points}`. */
let RULES = new Map();

/** The most a dish's tip can be (served the moment its order opens), from the server. */
let TIP_MAX = 0;

/** Takes the server's recipe list and tip (`/api/levels`' `recipes` and `tip_max`). */
export function setRecipes(list, tipMax) {
  if (Array.isArray(list)) RULES = new Map(list.map((r) => [r.id, r]));
  if (Number.isFinite(tipMax)) TIP_MAX = tipMax;
}

export function tipMax() {
  return TIP_MAX;
}

/** The recipe's entry — `name`, `glyph`, `kind` (`soup` cooks in a pot, `salad` is
 * assembled on a plate), `parts` (each ingredient with its count `n` and `step` in words),
 * `points` — or a stand-in that names an id this client does not know. */
export function recipe(id) {
  const look = LOOKS[id] || { name: id, glyph: '?' };
  const rule = RULES.get(id);
  return {
    ...look,
    kind: rule ? rule.kind : 'dish',
    parts: rule ? rule.parts.map((p) => ({ ing: p.ing, n: p.n, step: p.steps.join(', ') })) : [],
    points: rule ? rule.points : null,
  };
}

/** One line a screen reader or a tooltip can say: "Garden salad: lettuce, onion, tomato, chopped". */
export function describe(id) {
  const r = recipe(id);
  const parts = r.parts.map((p) => `${p.n > 1 ? `${p.n} ` : ''}${p.ing} (${p.step})`);
  return parts.length ? `${r.name}: ${parts.join(', ')}` : r.name;
}

/** How the recipe is made, step by step, for the recipe card. */
export function method(id) {
  const r = recipe(id);
  if (r.kind === 'soup') {
    const { ing, n } = r.parts[0];
    const plural = ing === 'tomato' ? 'tomatoes' : `${ing}s`;
    return [`chop ${n} ${plural} on a board`, `put all ${n} in one pot, let it cook`, 'take it out on a clean plate', 'serve'];
  }
  if (r.kind === 'salad') {
    return [`chop ${r.parts.map((p) => p.ing).join(', ')}`, 'put each on one clean plate', 'serve'];
  }
  return [];
}
