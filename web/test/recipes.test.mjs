// One source of truth for the game's data: what the client says of a recipe comes from the
// server (`/api/levels`' `recipes`, written here by tests/client.rs from the server's own
// code), and the client's files hold no copy of it that could drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LOOKS, describe, method, recipe, setRecipes, tipMax } from '../js/recipes.js';

const FIXTURE = process.env.UC_GAME_DATA_FIXTURE;
const data = FIXTURE ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : null;

test('every recipe the server knows has a name and a glyph here, and no other', { skip: !data }, () => {
  const ids = data.recipes.map((r) => r.id).sort();
  assert.deepEqual(Object.keys(LOOKS).sort(), ids);
  const glyphs = Object.values(LOOKS).map((l) => l.glyph);
  assert.equal(new Set(glyphs).size, glyphs.length, 'each dish its own letter');
});

test('what a recipe takes, its steps and points are the server\u2019s', { skip: !data }, () => {
  setRecipes(data.recipes, data.tip_max);
  assert.equal(tipMax(), data.tip_max);
  for (const r of data.recipes) {
    const mine = recipe(r.id);
    assert.equal(mine.kind, r.kind, r.id);
    assert.equal(mine.points, r.points, r.id);
    assert.deepEqual(mine.parts.map((p) => [p.ing, p.n, p.step]), r.parts.map((p) => [p.ing, p.n, p.steps.join(', ')]), r.id);
    for (const p of r.parts) assert.ok(describe(r.id).includes(p.ing), `${r.id} names ${p.ing}`);
  }
  const soup = data.recipes.find((r) => r.id === 'tomato_soup');
  assert.equal(method('tomato_soup')[0], `chop ${soup.parts[0].n} tomatoes on a board`);
});

test('the client\u2019s files hold no copy of counts, steps, points or tips', () => {
  // The code, without its comments (which may well say what a recipe takes).
  const src = (f) => readFileSync(new URL(`../js/${f}`, import.meta.url), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  assert.doesNotMatch(src('recipes.js'), /parts:\s*\[\s*\{/, 'recipes.js lists no ingredients');
  assert.doesNotMatch(src('recipes.js'), /points:\s*\d/, 'recipes.js sets no points');
  assert.doesNotMatch(src('tutorial.js'), /SOUP_POINTS|=\s*30\b|TIP/, 'tutorial.js has no points or tips of its own');
});
