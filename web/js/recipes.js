// What each recipe is, in words a player reads: its name, a glyph that tells the dishes apart
// without colour, and the ingredients with the step each one needs. One table, so the order
// tickets, the lobby's recipe card and the in-play recipe key always say the same thing.
// The server's recipe ids (`tomato_soup`, …) are the keys; the sim's rules are in docs/GAME.md.

/** Per recipe: `name`, `glyph` (one letter drawn on the dish and the ticket), `kind`
 * (`soup` cooks in a pot, `salad` is assembled on a plate), and `parts`: each ingredient with
 * its count and step (`chopped`, or `cooked` for what goes through a pot). */
export const RECIPES = {
  tomato_soup: {
    name: 'Tomato soup',
    glyph: 'T',
    kind: 'soup',
    parts: [{ ing: 'tomato', n: 3, step: 'chopped, cooked' }],
  },
  onion_soup: {
    name: 'Onion soup',
    glyph: 'O',
    kind: 'soup',
    parts: [{ ing: 'onion', n: 3, step: 'chopped, cooked' }],
  },
  mushroom_soup: {
    name: 'Mushroom soup',
    glyph: 'M',
    kind: 'soup',
    parts: [{ ing: 'mushroom', n: 3, step: 'chopped, cooked' }],
  },
  salad: {
    name: 'Salad',
    glyph: 'S',
    kind: 'salad',
    parts: [
      { ing: 'lettuce', n: 1, step: 'chopped' },
      { ing: 'tomato', n: 1, step: 'chopped' },
    ],
  },
  garden_salad: {
    name: 'Garden salad',
    glyph: 'G',
    kind: 'salad',
    parts: [
      { ing: 'lettuce', n: 1, step: 'chopped' },
      { ing: 'onion', n: 1, step: 'chopped' },
      { ing: 'tomato', n: 1, step: 'chopped' },
    ],
  },
};

/** The recipe's entry, or a stand-in that names an id this client does not know. */
export function recipe(id) {
  return RECIPES[id] || { name: id, glyph: '?', kind: 'dish', parts: [] };
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
    const ing = r.parts[0]?.ing ?? 'ingredient';
    const plural = ing === 'tomato' ? 'tomatoes' : `${ing}s`;
    return [`chop 3 ${plural} on a board`, 'put all 3 in one pot, let it cook', 'take it out on a clean plate', 'serve'];
  }
  if (r.kind === 'salad') {
    return [`chop ${r.parts.map((p) => p.ing).join(', ')}`, 'put each on one clean plate', 'serve'];
  }
  return [];
}
