// The tutorial's on-screen prompts: one instruction at a time, read from the viewer's own
// cook and the kitchen in the latest view (the merged frame: `p` players with `i`, `h`;
// `st` stations with `k`, `g`, `s`, `p`; `s` score; `tgt` target; `o` orders). A level with
// `tutorial: true` in its layout (`/api/levels/{id}`) shows them; the rules are in
// docs/GAME.md and the level in levels/01_first_kitchen.toml. Stations are named as they
// are drawn (the shelf of tomatoes, the stove, the sink), never by the level file's letters,
// which the kitchen does not show; counts and points come from the server (`recipes.js`).

import { recipe, tipMax } from './recipes.js';

const KEYS = 'Space/E';

function ingredientOf(item) {
  return item.replace(/_(raw|chopped)$/, '');
}

function plural(ing) {
  return ing === 'tomato' ? 'tomatoes' : `${ing}s`;
}

/** Whether station `s` is on a tile beside the cook's (where a press could reach it), so a
 * teammate's board across the kitchen does not change what the viewer is told. */
function beside(cook, s) {
  const dx = Math.abs(Math.floor(cook.x) - s.x);
  const dy = Math.abs(Math.floor(cook.y) - s.y);
  return dx + dy === 1;
}

/** How many serves are still needed to reach the target: each open order's points plus
 * the tip of a dish served halfway through its window (half the tip a dish served at once
 * gets), the cheapest order first, so the count is never more than a steady cook needs. */
export function servesLeft(state) {
  const left = (state.tgt || 0) - (state.s || 0);
  if (left <= 0) return 0;
  const pts = (state.o || []).map((o) => o.pts).filter((n) => n > 0);
  const base = pts.length ? Math.min(...pts) : recipe('tomato_soup').points || 0;
  const each = base + Math.floor(tipMax() / 2);
  return each > 0 ? Math.ceil(left / each) : 0;
}

/** The next thing the viewer (`me`, a player id like `c0`) should do, as one sentence; an
 * empty string when there is nothing to say (watching, or the target is reached). */
export function tutorialPrompt(state, me) {
  if (!state || !me) return '';
  const cook = (state.p || []).find((p) => p.i === me);
  if (!cook) return '';
  if ((state.tgt || 0) > 0 && (state.s || 0) >= state.tgt) return '';
  const st = state.st || [];
  const held = cook.h || null;
  // A fire comes first: it blocks its station and spreads (docs/GAME.md, "Hazards").
  if ((state.hz || []).some((z) => z.t === 'fire')) {
    return `Fire! Walk to the flames, face them and press ${KEYS}; stand still until it is out (you may hold anything)`;
  }
  const soupReady = st.some((s) => s.k === 'stove' && (s.s === 'ready' || s.s === 'burning'));
  const burning = st.some((s) => s.k === 'stove' && s.s === 'burning');
  if (burning && held !== 'plate') {
    return `The soup is burning! Take a clean plate from the sink and lift it out before it catches fire`;
  }
  if (held === null) {
    if (soupReady) {
      return `The soup is ready: take a clean plate from the sink with ${KEYS}`;
    }
    const board = st.find((s) => s.k === 'chop_board' && s.g && s.g.endsWith('_raw') && beside(cook, s));
    if (board) {
      return `Face the chop board and press ${KEYS} to chop; stand still until it is done`;
    }
    const chopped = st.find((s) => s.k === 'chop_board' && s.g && s.g.endsWith('_chopped') && beside(cook, s));
    if (chopped) {
      return `Take the chopped ${ingredientOf(chopped.g)} from the board with ${KEYS}`;
    }
    if (st.some((s) => s.k === 'stove' && s.s === 'working')) {
      return `The soup is cooking: fetch a clean plate from the sink while you wait`;
    }
    const start = `Walk to the shelf of tomatoes and press ${KEYS} to take a tomato`;
    const n = servesLeft(state);
    if ((state.s || 0) > 0 && n > 0) {
      return `Keep going: serve ${n} more to win. ${start}`;
    }
    return start;
  }
  if (held.endsWith('_raw')) {
    return `Put it on a chopping board with ${KEYS}, then press again to chop`;
  }
  if (held.endsWith('_chopped')) {
    const ing = ingredientOf(held);
    const pot = st.find((s) => s.k === 'stove' && s.g && s.g.startsWith(ing) && s.s === 'idle');
    // A filling pot's `p` is the share of its portions in (n/3, 0–1: PROTOCOL.md).
    const full = (recipe(`${ing}_soup`).parts[0] || { n: 3 }).n;
    const inPot = pot ? Math.round((pot.p || 0) * full) : 0;
    return `Put it in the pot on the stove with ${KEYS}: ${full} chopped ${plural(ing)} make a soup (${inPot} of ${full} in)`;
  }
  if (held === 'plate') {
    if (soupReady) return `Press ${KEYS} at the pot to take the soup onto the plate`;
    return `Wait by the pot until the soup is ready, then press ${KEYS} to take it`;
  }
  if (held === 'plate_dirty') {
    return `Put the dirty plate in the sink and press ${KEYS} to wash it`;
  }
  if (held.startsWith('dish_')) {
    return `Carry the dish to the serving window and press ${KEYS}`;
  }
  return `Set it down on a free counter with ${KEYS}, or throw it in the bin`;
}
