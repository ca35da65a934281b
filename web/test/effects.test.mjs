// Pop-ups are legible on the floor they cross: each is drawn on a dark backing, its colour
// read against that backing (WCAG contrast ≥ 4.5) and the backing against either floor tile
// (≥ 3); the pot's "ready" is its badge's alone (no pop-up drifts through it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Effects } from '../js/effects.js';
import { FLOOR, POP_BACKING } from '../js/art.js';

const rgb = (c) => {
  const m = c.match(/^rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*([\d.]+))?\)$/);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])];
  const hex = c.length === 4 ? [...c.slice(1)].map((d) => d + d).join('') : c.slice(1);
  const n = parseInt(hex, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, 1];
};
/** `top` (which may be translucent) laid over the opaque `under`. */
const over = (top, under) => {
  const [r, g, b, a] = rgb(top);
  const [R, G, B] = rgb(under);
  return [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a)];
};
const luminance = ([r, g, b]) => {
  const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
const ratio = (a, b) => {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};

const KINDS = ['served', 'denied', 'burnt', 'chopped', 'washed', 'extinguished', 'slipped', 'bumped', 'wasted', 'dropped'];

test('every pop-up, "slipped!" among them, reads against the floor it crosses', () => {
  const fx = new Effects();
  const cooks = new Map([['c1', { x: 3, y: 3 }]]);
  for (const k of KINDS) fx.add({ k, x: 2, y: 2, i: 'c1', r: 'busy', sd: 30 }, 0, 'c0', cooks);
  const pops = fx.list.filter((f) => f.kind !== 'bubble');
  assert.ok(pops.some((f) => f.text === 'slipped!'), 'slipped! pops');
  for (const tile of FLOOR) {
    const backing = over(POP_BACKING, tile);
    const b = ratio(backing, rgb(tile));
    assert.ok(b >= 3, `the backing on ${tile}: ${b.toFixed(2)}`);
    for (const f of pops) {
      const r = ratio(rgb(f.color), backing);
      assert.ok(r >= 4.5, `"${f.text}" (${f.color}) on the backing over ${tile}: ${r.toFixed(2)}`);
    }
  }
});

test('a soup that is done floats nothing through the pot\u2019s "ready" badge', () => {
  const fx = new Effects();
  fx.add({ k: 'cooked', x: 4, y: 5 }, 0, 'c0', new Map());
  assert.deepEqual(fx.list.filter((f) => /ready/i.test(f.text)), []);
});
