// The tutorial's on-screen prompts: one instruction at a time, read from the viewer's own
// cook and the kitchen in the latest view (the merged frame: `p` players with `i`, `h`;
// `st` stations with `k`, `g`, `s`, `p`; `s` score; `tgt` target; `o` orders). A level with
// `tutorial: true` in its layout (`/api/levels/{id}`) shows them; the rules are in
// docs/GAME.md and the level in levels/01_first_kitchen.toml.

const KEYS = 'Space/E';
/** What a tomato soup is worth before its tip, when no open order says. */
const SOUP_POINTS = 30;

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

/** How many serves are still needed to reach the target, at the open orders' worth. */
function servesLeft(state) {
  const left = (state.tgt || 0) - (state.s || 0);
  if (left <= 0) return 0;
  const pts = (state.o || []).map((o) => o.pts).filter((n) => n > 0);
  const each = pts.length ? Math.min(...pts) : SOUP_POINTS;
  return Math.ceil(left / each);
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
  const soupReady = st.some((s) => s.k === 'stove' && (s.s === 'ready' || s.s === 'burning'));
  if (held === null) {
    if (soupReady) {
      return `The soup is ready: take a clean plate from the sink (W) with ${KEYS}`;
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
      return `The soup is cooking: fetch a clean plate from the sink (W) while you wait`;
    }
    const start = `Walk to the tomato shelf (t) and press ${KEYS} to take a tomato`;
    const n = servesLeft(state);
    if ((state.s || 0) > 0 && n > 0) {
      return `Keep going: serve ${n} more to win. ${start}`;
    }
    return start;
  }
  if (held.endsWith('_raw')) {
    return `Put it on a chop board (C) with ${KEYS}, then press again to chop`;
  }
  if (held.endsWith('_chopped')) {
    const ing = ingredientOf(held);
    const pot = st.find((s) => s.k === 'stove' && s.g && s.g.startsWith(ing) && s.s === 'idle');
    const inPot = pot ? Math.round(((pot.p || 0) * 3) / 100) : 0;
    return `Put it in a pot (K) with ${KEYS}: three chopped ${plural(ing)} make a soup (${inPot} of 3 in)`;
  }
  if (held === 'plate') {
    if (soupReady) return `Press ${KEYS} at the pot to take the soup onto the plate`;
    return `Wait by the pot until the soup is ready, then press ${KEYS} to take it`;
  }
  if (held === 'plate_dirty') {
    return `Put the dirty plate in the sink (W) and press ${KEYS} to wash it`;
  }
  if (held.startsWith('dish_')) {
    return `Carry the dish to the serve window (S) and press ${KEYS}`;
  }
  return `Set it down on a free counter (P) with ${KEYS}, or throw it in the bin (B)`;
}
