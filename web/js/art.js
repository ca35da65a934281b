// Everything the kitchen is drawn with, in code: items by their wire short names (the same
// names frames carry in `g` and `h`), stations by kind, cooks, hazards. Sizes are in tiles;
// `ctx` is already scaled so that one tile is one unit. Every dish and soup carries its
// recipe's glyph letter (recipes.js), so dishes differ by more than colour.

import { glyphOf } from './kitchen.js';

/** A shape per seat, so cooks are told apart by more than colour. */
export const SEATS = [
  { shape: 'circle' },
  { shape: 'triangle' },
  { shape: 'square' },
  { shape: 'diamond' },
];

/** Each seat's colour as the server sends it (the `color` of the lobby's seats, or of a
 * replay's header): the client keeps no palette of its own, so the two cannot drift. A seat
 * not heard of yet is drawn grey. */
const COLORS = new Map();
export const NO_COLOR = '#8c8c8c';

/** Takes the colours of `seats` (`{index|seat, color}` each: every seat, as the wire lists
 * them), in place of the last ones. */
export function seatColors(seats) {
  COLORS.clear();
  for (const s of seats || []) {
    const seat = s.index ?? s.seat;
    if (Number.isInteger(seat) && typeof s.color === 'string' && /^#[0-9a-f]{6}$/i.test(s.color)) COLORS.set(seat, s.color);
  }
}

/** A seat's colour, from the wire. */
export function seatColor(seat) {
  return COLORS.get(seat) || NO_COLOR;
}

/** The floor's two tiles (a checkerboard), and the backing every pop-up is drawn on: the
 * pop-up's colour is read against the backing, the backing against the floor
 * (`web/test/effects.test.mjs` measures both contrast ratios). */
export const FLOOR = ['#e6dbc9', '#efe6d8'];
export const POP_BACKING = 'rgba(29,25,21,0.88)';

const ING = {
  tomato: '#d7301f',
  onion: '#9e6bb5',
  lettuce: '#4daf4a',
  mushroom: '#c49a6c',
};

const SOUP = {
  tomato: '#c0392b',
  onion: '#c9a227',
  mushroom: '#a07850',
};

function circle(ctx, x, y, r, fill, stroke) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  if (fill) {
    ctx.fillStyle = fill;
    ctx.fill();
  }
  if (stroke) {
    ctx.strokeStyle = stroke;
    ctx.lineWidth = 0.03;
    ctx.stroke();
  }
}

function rect(ctx, x, y, w, h, fill) {
  ctx.fillStyle = fill;
  ctx.fillRect(x, y, w, h);
}

function raw(ctx, ing, x, y, s) {
  const c = ING[ing] || '#888';
  if (ing === 'lettuce') {
    for (let k = 0; k < 3; k++) circle(ctx, x + (k - 1) * 0.09 * s, y + (k % 2) * 0.05 * s, 0.13 * s, c, '#2d6b2b');
  } else if (ing === 'mushroom') {
    ctx.fillStyle = '#efe2c8';
    ctx.fillRect(x - 0.05 * s, y, 0.1 * s, 0.16 * s);
    ctx.beginPath();
    ctx.ellipse(x, y, 0.18 * s, 0.12 * s, 0, Math.PI, 0);
    ctx.fillStyle = c;
    ctx.fill();
  } else {
    circle(ctx, x, y, 0.17 * s, c, 'rgba(0,0,0,0.35)');
    if (ing === 'tomato') circle(ctx, x, y - 0.15 * s, 0.04 * s, '#2d7d2d');
    if (ing === 'onion') {
      ctx.strokeStyle = 'rgba(255,255,255,0.6)';
      ctx.lineWidth = 0.02 * s;
      ctx.beginPath();
      ctx.moveTo(x, y - 0.14 * s);
      ctx.lineTo(x, y + 0.14 * s);
      ctx.stroke();
    }
  }
}

function chopped(ctx, ing, x, y, s) {
  const c = ING[ing] || '#888';
  const bits = [[-0.1, -0.05], [0.08, -0.07], [-0.02, 0.08], [0.11, 0.07]];
  for (const [dx, dy] of bits) {
    ctx.fillStyle = c;
    ctx.fillRect(x + dx * s - 0.05 * s, y + dy * s - 0.05 * s, 0.1 * s, 0.1 * s);
  }
}

function plate(ctx, x, y, s, dirty) {
  ctx.beginPath();
  ctx.ellipse(x, y + 0.04 * s, 0.3 * s, 0.2 * s, 0, 0, Math.PI * 2);
  ctx.fillStyle = dirty ? '#cbbfa4' : '#fbfbf8';
  ctx.fill();
  ctx.strokeStyle = '#8a8a8a';
  ctx.lineWidth = 0.02 * s;
  ctx.stroke();
  if (dirty) {
    for (const [dx, dy] of [[-0.1, 0], [0.08, 0.06], [0.02, -0.05]]) circle(ctx, x + dx * s, y + dy * s, 0.04 * s, '#7a5a32');
  }
}

function bowl(ctx, x, y, s, color) {
  ctx.beginPath();
  ctx.ellipse(x, y, 0.2 * s, 0.13 * s, 0, 0, Math.PI * 2);
  ctx.fillStyle = '#e6e6e6';
  ctx.fill();
  ctx.beginPath();
  ctx.ellipse(x, y - 0.02 * s, 0.15 * s, 0.08 * s, 0, 0, Math.PI * 2);
  ctx.fillStyle = color;
  ctx.fill();
}

/** A recipe's glyph letter in a white disc with a dark ring, centred at (x, y). */
export function drawGlyph(ctx, letter, x, y, r) {
  circle(ctx, x, y, r, '#fff');
  ctx.strokeStyle = '#222';
  ctx.lineWidth = r * 0.22;
  ctx.stroke();
  ctx.fillStyle = '#111';
  ctx.font = `bold ${r * 1.45}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(letter, x, y + r * 0.08);
  ctx.textBaseline = 'alphabetic';
}

/** Draws the item with this short name centred at (x, y), `s` tiles across. */
export function drawItem(ctx, name, x, y, s = 1) {
  if (!name) return;
  if (name.endsWith('_raw')) return raw(ctx, name.slice(0, -4), x, y, s);
  if (name.endsWith('_chopped')) return chopped(ctx, name.slice(0, -8), x, y, s);
  if (name === 'plate') return plate(ctx, x, y, s, false);
  if (name === 'plate_dirty') return plate(ctx, x, y, s, true);
  if (name.startsWith('plate_')) {
    plate(ctx, x, y, s, false);
    const parts = name.slice(6).split('+');
    parts.forEach((p, k) => chopped(ctx, p, x + (k - (parts.length - 1) / 2) * 0.14 * s, y, 0.6 * s));
    return;
  }
  if (name.startsWith('dish_')) {
    plate(ctx, x, y, s, false);
    const recipe = name.slice(5);
    if (recipe.endsWith('_soup')) bowl(ctx, x, y, s, SOUP[recipe.slice(0, -5)] || '#c0392b');
    else {
      const parts = recipe === 'garden_salad' ? ['lettuce', 'onion', 'tomato'] : ['lettuce', 'tomato'];
      parts.forEach((p, k) => chopped(ctx, p, x + (k - (parts.length - 1) / 2) * 0.13 * s, y, 0.6 * s));
    }
    const g = glyphOf(name);
    if (g) drawGlyph(ctx, g, x + 0.2 * s, y + 0.12 * s, 0.11 * s);
    return;
  }
  if (name.startsWith('soup_')) {
    const what = name.slice(5);
    bowl(ctx, x, y, s, what === 'burnt' ? '#1b1b1b' : SOUP[what] || '#c0392b');
    const g = glyphOf(name);
    if (g) drawGlyph(ctx, g, x + 0.18 * s, y + 0.1 * s, 0.1 * s);
    return;
  }
  circle(ctx, x, y, 0.15 * s, '#999');
}

/** The picture of a recipe (its `dish_…` item). */
export function drawRecipe(ctx, recipe, x, y, s = 1) {
  drawItem(ctx, `dish_${recipe}`, x, y, s);
}

function bar(ctx, x, y, w, share, color) {
  rect(ctx, x - 0.02, y - 0.02, w + 0.04, 0.16, '#111');
  rect(ctx, x, y, w, 0.12, '#eee');
  rect(ctx, x, y, w * Math.max(0, Math.min(1, share)), 0.12, color);
}

const POT_OF = (g) => {
  if (!g) return null;
  if (g.endsWith('_chopped')) return SOUP[g.slice(0, -8)] || '#888';
  if (g.startsWith('soup_')) return g === 'soup_burnt' ? '#1b1b1b' : SOUP[g.slice(5)] || '#888';
  return '#888';
};

/** Draws station `st` (a frame's `st` entry, or a layout station when there is no frame);
 * its bar and badge come later, from `drawStationTop`, above the cooks. */
export function drawStation(ctx, st, now, reduced = false) {
  const { x, y } = st;
  const cx = x + 0.5;
  const cy = y + 0.5;
  rect(ctx, x + 0.03, y + 0.03, 0.94, 0.94, '#a08a72');
  rect(ctx, x + 0.06, y + 0.06, 0.88, 0.88, '#c2ab8f');
  switch (st.k) {
    case 'spawn_shelf':
      rect(ctx, x + 0.12, y + 0.2, 0.76, 0.62, '#8a5a2b');
      rect(ctx, x + 0.12, y + 0.2, 0.76, 0.08, '#6d4520');
      drawItem(ctx, st.g, cx, cy + 0.05, 1);
      break;
    case 'chop_board':
      rect(ctx, x + 0.14, y + 0.22, 0.72, 0.56, '#e0b97a');
      rect(ctx, x + 0.66, y + 0.26, 0.06, 0.3, '#9aa4ad');
      drawItem(ctx, st.g, cx - 0.05, cy, 0.9);
      break;
    case 'stove': {
      rect(ctx, x + 0.1, y + 0.1, 0.8, 0.8, '#3b3b3b');
      const burning = st.s === 'burning';
      circle(ctx, cx, cy, 0.3, burning && (reduced || Math.floor(now / 200) % 2) ? '#e8590c' : '#555');
      circle(ctx, cx, cy, 0.25, '#888');
      const fill = POT_OF(st.g);
      if (fill) circle(ctx, cx, cy, 0.2, fill);
      const g = glyphOf(st.g);
      if (g) drawGlyph(ctx, g, cx, cy, 0.12);
      break;
    }
    case 'prep':
      rect(ctx, x + 0.1, y + 0.1, 0.8, 0.8, '#d9d4cc');
      drawItem(ctx, st.g, cx, cy, 1);
      break;
    case 'serve':
      rect(ctx, x + 0.1, y + 0.1, 0.8, 0.8, '#2b6cb0');
      ctx.fillStyle = '#fff';
      ctx.beginPath();
      ctx.moveTo(cx - 0.2, cy - 0.15);
      ctx.lineTo(cx + 0.2, cy);
      ctx.lineTo(cx - 0.2, cy + 0.15);
      ctx.fill();
      break;
    case 'sink':
      rect(ctx, x + 0.1, y + 0.1, 0.8, 0.8, '#8fb8d8');
      rect(ctx, x + 0.18, y + 0.18, 0.64, 0.64, '#4f8fc0');
      if (st.g) drawItem(ctx, st.g, cx, cy, 0.9);
      if (st.s === 'dirty') {
        ctx.fillStyle = '#7a5a32';
        ctx.font = 'bold 0.22px sans-serif';
        ctx.textAlign = 'center';
        ctx.fillText('dirty', cx, y + 0.95);
      }
      break;
    case 'bin': {
      // A dark bin with a lid line and a cross: a press throws away what you hold.
      rect(ctx, x + 0.22, y + 0.2, 0.56, 0.64, '#4a4a4a');
      rect(ctx, x + 0.16, y + 0.14, 0.68, 0.1, '#2e2e2e');
      ctx.strokeStyle = '#bdbdbd';
      ctx.lineWidth = 0.05;
      ctx.beginPath();
      ctx.moveTo(cx - 0.12, cy - 0.06);
      ctx.lineTo(cx + 0.12, cy + 0.2);
      ctx.moveTo(cx + 0.12, cy - 0.06);
      ctx.lineTo(cx - 0.12, cy + 0.2);
      ctx.stroke();
      break;
    }
    default:
      break;
  }
}

/** A word on a rounded badge: light text on a dark-ringed coloured plate, readable on any floor. */
export function drawBadge(ctx, text, x, y, fill, size = 0.24) {
  ctx.font = `bold ${size}px sans-serif`;
  const w = ctx.measureText(text).width + size * 0.8;
  const h = size * 1.35;
  ctx.beginPath();
  if (ctx.roundRect) ctx.roundRect(x - w / 2, y - h / 2, w, h, h / 2);
  else ctx.rect(x - w / 2, y - h / 2, w, h);
  ctx.fillStyle = fill;
  ctx.fill();
  ctx.lineWidth = size * 0.18;
  ctx.strokeStyle = '#111';
  ctx.stroke();
  ctx.fillStyle = '#fff';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.fillText(text, x, y + size * 0.05);
  ctx.textBaseline = 'alphabetic';
}

/** What sits on top of a station, drawn after the cooks so no cook covers it: its progress
 * bar (chopping, washing, filling and cooking a pot, burning) along the top of the tile,
 * and the pot's `ready` / `burning` badge above it. */
export function drawStationTop(ctx, st) {
  const { x, y } = st;
  const top = y + 0.04;
  if (st.k === 'sink' && st.p > 0) {
    bar(ctx, x + 0.1, top, 0.8, st.p, '#4dabf7');
  } else if (st.p > 0 && st.p < 1 && st.k !== 'spawn_shelf') {
    bar(ctx, x + 0.1, top, 0.8, st.p, st.s === 'burning' ? '#e8590c' : '#2fbf71');
  }
  if (st.k === 'stove' && st.s === 'ready') drawBadge(ctx, 'ready', x + 0.5, y - 0.12, '#1e7d46');
  if (st.k === 'stove' && st.s === 'burning') drawBadge(ctx, 'burning!', x + 0.5, y - 0.12, '#c92a2a');
}

export function drawSeatMark(ctx, seat, x, y, r) {
  const { shape } = SEATS[seat % 4];
  ctx.fillStyle = '#fff';
  ctx.beginPath();
  if (shape === 'circle') ctx.arc(x, y, r, 0, Math.PI * 2);
  else if (shape === 'triangle') {
    ctx.moveTo(x, y - r);
    ctx.lineTo(x + r, y + r * 0.8);
    ctx.lineTo(x - r, y + r * 0.8);
  } else if (shape === 'square') ctx.rect(x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
  else {
    ctx.moveTo(x, y - r);
    ctx.lineTo(x + r, y);
    ctx.lineTo(x, y + r);
    ctx.lineTo(x - r, y);
  }
  ctx.closePath();
  ctx.fill();
}

const FACE = [[0, -1], [1, 0], [0, 1], [-1, 0]];

/** A cook at (x, y) (tile units): body in its seat colour with the seat's mark, facing
 * hand, what it carries, its name; a ghost while its player is away. */
export function drawCook(ctx, cook, { me, now, reduced = false }) {
  const seat = cook.pi ?? 0;
  const color = seatColor(seat);
  const ghost = cook.s === 'disconnected';
  ctx.save();
  if (ghost) ctx.globalAlpha = 0.4;
  const [fx, fy] = FACE[cook.f & 3];
  circle(ctx, cook.x + 0.04, cook.y + 0.06, 0.34, 'rgba(0,0,0,0.25)');
  circle(ctx, cook.x, cook.y, 0.34, color, me ? '#000' : '#333');
  if (me) {
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 0.05;
    ctx.beginPath();
    ctx.arc(cook.x, cook.y, 0.39, 0, Math.PI * 2);
    ctx.stroke();
  }
  circle(ctx, cook.x + fx * 0.3, cook.y + fy * 0.3, 0.09, '#f2d3b1', '#333');
  drawSeatMark(ctx, seat, cook.x, cook.y, 0.12);
  if (cook.h) drawItem(ctx, cook.h, cook.x + fx * 0.42, cook.y + fy * 0.42 - 0.05, 0.7);
  if (cook.s === 'stunned') {
    ctx.fillStyle = '#ffd43b';
    for (let k = 0; k < 3; k++) {
      const a = (reduced ? 0 : now / 150) + (k * Math.PI * 2) / 3;
      circle(ctx, cook.x + Math.cos(a) * 0.3, cook.y - 0.4 + Math.sin(a) * 0.08, 0.06, '#ffd43b');
    }
  }
  ctx.restore();
}

/** A cook's name above it: white on a round-joined dark outline (no miter spikes), `size`
 * tiles high (the renderer keeps it at a readable number of pixels). */
export function drawCookLabel(ctx, cook, name, size = 0.26) {
  const label = cook.s === 'disconnected' ? `${name} (away)` : name;
  ctx.font = `bold ${size}px sans-serif`;
  ctx.textAlign = 'center';
  ctx.lineJoin = 'round';
  ctx.lineWidth = size * 0.28;
  ctx.strokeStyle = 'rgba(0,0,0,0.85)';
  const y = cook.y - 0.44;
  ctx.strokeText(label, cook.x, y);
  ctx.fillStyle = '#fff';
  ctx.fillText(label, cook.x, y);
  ctx.lineJoin = 'miter';
}

/** A hazard (a frame's `hz` entry). */
export function drawHazard(ctx, hz, now, reduced = false) {
  if (hz.t === 'fire') {
    const flick = reduced ? 0 : Math.sin(now / 90 + hz.x * 3) * 0.06;
    for (const [dx, h, c] of [[-0.2, 0.5, '#e8590c'], [0.15, 0.6, '#f08c00'], [0, 0.75 + flick, '#ffd43b']]) {
      ctx.fillStyle = c;
      ctx.beginPath();
      ctx.moveTo(hz.x + 0.5 + dx - 0.18, hz.y + 0.85);
      ctx.quadraticCurveTo(hz.x + 0.5 + dx, hz.y + 0.85 - h * 1.3, hz.x + 0.5 + dx + 0.18, hz.y + 0.85);
      ctx.fill();
    }
  } else if (hz.t === 'spill') {
    ctx.save();
    ctx.globalAlpha = Math.max(0.3, Math.min(0.8, hz.l / 5));
    ctx.beginPath();
    ctx.ellipse(hz.x + 0.5, hz.y + 0.5, 0.42, 0.3, 0.3, 0, Math.PI * 2);
    ctx.fillStyle = '#74c0fc';
    ctx.fill();
    ctx.restore();
  } else if (hz.t === 'moving_obstacle') {
    rect(ctx, hz.x - 0.38, hz.y - 0.3, 0.76, 0.55, '#6c757d');
    rect(ctx, hz.x - 0.34, hz.y - 0.26, 0.68, 0.12, '#adb5bd');
    circle(ctx, hz.x - 0.25, hz.y + 0.28, 0.09, '#212529');
    circle(ctx, hz.x + 0.25, hz.y + 0.28, 0.09, '#212529');
  }
}
