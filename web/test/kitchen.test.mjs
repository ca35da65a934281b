// The press target, denied reasons in words, glyphs, and the live region's sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Announcer } from '../js/announce.js';
import { deniedWords, facedTile, glyphOf, stationAt } from '../js/kitchen.js';

test('the faced tile is the cook tile (floor of the position) plus the facing step', () => {
  assert.deepEqual(facedTile(1.5, 4.65, 2), { x: 1, y: 5 });
  assert.deepEqual(facedTile(4999, 4650, 1, 1000), { x: 5, y: 4 });
  assert.deepEqual(facedTile(5000, 4650, 3, 1000), { x: 4, y: 4 });
  assert.deepEqual(facedTile(2.5, 3.01, 0), { x: 2, y: 2 });
});

test('a station is found by its tile, and nothing on a floor tile', () => {
  const st = [{ k: 'stove', x: 4, y: 5 }, { k: 'serve', x: 9, y: 1 }];
  assert.equal(stationAt(st, 4, 5).k, 'stove');
  assert.equal(stationAt(st, 5, 5), null);
});

test('denied reasons read as words that fit the station and what was held', () => {
  const pot = (g, s = 'idle') => ({ k: 'stove', x: 0, y: 0, g, s });
  assert.equal(deniedWords('hands_full'), 'hands full');
  assert.equal(deniedWords('no_station'), 'nothing here');
  assert.equal(deniedWords('busy'), 'someone is using it');
  assert.equal(deniedWords('stunned'), 'you are stunned');
  assert.equal(deniedWords('blocked'), 'on fire');
  assert.equal(deniedWords('no_order'), 'no order wants this');
  assert.equal(deniedWords('wrong_item', pot('tomato_chopped'), 'onion_chopped'), 'wrong ingredient');
  assert.equal(deniedWords('wrong_item', pot('tomato_chopped', 'working'), 'tomato_chopped'), 'pot is full');
  assert.equal(deniedWords('wrong_item', pot('soup_tomato', 'ready'), 'tomato_chopped'), 'pot is full');
  assert.equal(deniedWords('wrong_item', pot(null), 'tomato_raw'), 'chop it first');
  assert.equal(deniedWords('wrong_item', { k: 'bin', x: 0, y: 0 }, null), 'nothing to throw away');
});

test('every dish and soup has its recipe glyph; other items none', () => {
  assert.equal(glyphOf('dish_tomato_soup'), 'T');
  assert.equal(glyphOf('dish_garden_salad'), 'G');
  assert.equal(glyphOf('soup_mushroom'), 'M');
  assert.equal(glyphOf('soup_burnt'), null);
  assert.equal(glyphOf('tomato_chopped'), null);
});

test('the live region says new orders, serves, misses and fires, together and not twice', () => {
  let now = 0;
  const a = new Announcer(null, { gapMs: 1000, clock: () => now });
  const layout = { deadline_s: 60, recipes: [{ id: 'tomato_soup', points: 30 }], stations: [{ k: 'stove', x: 4, y: 5 }] };
  const view = (o, hz = []) => ({ s: 0, tgt: 100, o, hz });
  a.frame(view([{ id: 1, r: 'tomato_soup', pts: 30, l: 1 }]), [], layout);
  assert.deepEqual(a.said, ['New order: Tomato soup, 60 s']);
  now = 500;
  a.frame(view([{ id: 1, r: 'tomato_soup', pts: 30, l: 1 }, { id: 2, r: 'tomato_soup', pts: 45, l: 1 }], [{ t: 'fire', x: 4, y: 5, l: 0 }]), [], layout);
  assert.equal(a.said.length, 1, 'within the gap: held back');
  now = 1200;
  a.flush();
  assert.deepEqual(a.said[1], 'New order: Tomato soup, 60 s, rush bonus. Fire on a stove!');
  now = 1300;
  a.frame(view([{ id: 2, r: 'tomato_soup', pts: 45, l: 1 }], [{ t: 'fire', x: 4, y: 5, l: 0 }]), [{ k: 'served', oi: 1, sd: 33 }], layout);
  a.frame(view([], [{ t: 'fire', x: 4, y: 5, l: 0 }]), [{ k: 'missed', oi: 2, sd: -10 }], layout);
  now = 3000;
  a.flush();
  assert.equal(a.said[2], 'Served Tomato soup, +33 points. Missed Tomato soup');
  a.destroy();
});
