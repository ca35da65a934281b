// The tutorial's prompts follow the viewer's cook one step at a time, name stations as they
// are drawn, count what is really there and teach the fire. The recipes and the tip come
// from the server's own data (the fixture tests/client.rs writes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setRecipes } from '../js/recipes.js';
import { servesLeft, tutorialPrompt } from '../js/tutorial.js';

const FIXTURE = process.env.UC_GAME_DATA_FIXTURE;
const data = FIXTURE ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : null;
if (data) setRecipes(data.recipes, data.tip_max);
const skip = !data && 'no UC_GAME_DATA_FIXTURE (cargo test --test client gives it)';

function view(held, stations = [], extra = {}) {
  return {
    s: 0,
    tgt: 150,
    o: [{ id: 1, r: 'tomato_soup', l: 50, pts: 30 }],
    p: [
      { i: 'c0', h: held, s: 'idle', x: 4.5, y: 2.5 },
      { i: 'c1', h: 'dish_tomato_soup', s: 'idle' },
    ],
    st: stations,
    ...extra,
  };
}

test('each step of a soup says the next thing to do, from what the viewer holds', { skip }, () => {
  assert.match(tutorialPrompt(view(null), 'c0'), /shelf of tomatoes.*take a tomato/);
  assert.match(tutorialPrompt(view('tomato_raw'), 'c0'), /chopping board.*press again to chop/);
  const board = { k: 'chop_board', g: 'tomato_raw', s: 'idle', p: 0.4, x: 4, y: 1 };
  assert.match(tutorialPrompt(view(null, [board]), 'c0'), /press Space\/E to chop/);
  // A teammate's board across the kitchen is theirs: the viewer is told to fetch a tomato.
  const far = { ...board, x: 9, y: 1 };
  assert.match(tutorialPrompt(view(null, [far]), 'c0'), /shelf of tomatoes.*take a tomato/);
  const cooking = { k: 'stove', g: 'tomato_soup', s: 'working', p: 0.3 };
  assert.match(tutorialPrompt(view(null, [cooking]), 'c0'), /cooking: fetch a clean plate/);
  assert.match(tutorialPrompt(view('plate', [cooking]), 'c0'), /Wait by the pot/);
  const ready = { ...cooking, s: 'ready', p: 1 };
  assert.match(tutorialPrompt(view('plate', [ready]), 'c0'), /take the soup onto the plate/);
  assert.match(tutorialPrompt(view('dish_tomato_soup'), 'c0'), /serving window/);
  assert.match(tutorialPrompt(view('plate_dirty'), 'c0'), /sink.*wash/);
});

test('the pot counts the tomatoes really in it (its `p` is the share, 0 to 1)', { skip }, () => {
  const filling = (p) => ({ k: 'stove', g: 'tomato_chopped', s: 'idle', p });
  assert.match(tutorialPrompt(view('tomato_chopped', [filling(1 / 3)]), 'c0'), /3 chopped tomatoes make a soup \(1 of 3 in\)/);
  assert.match(tutorialPrompt(view('tomato_chopped', [filling(0.67)]), 'c0'), /\(2 of 3 in\)/);
  assert.match(tutorialPrompt(view('tomato_chopped'), 'c0'), /\(0 of 3 in\)/);
});

test('no letter of the level file is named: the kitchen draws none', { skip }, () => {
  const all = [null, 'tomato_raw', 'tomato_chopped', 'plate', 'plate_dirty', 'dish_tomato_soup', 'onion_raw']
    .map((h) => tutorialPrompt(view(h), 'c0'));
  for (const said of all) assert.doesNotMatch(said, /\([tKWCSPB]\)/, said);
});

test('a fire, and a burning soup, come first', { skip }, () => {
  const fire = view('tomato_raw', [], { hz: [{ t: 'fire', x: 3, y: 1, l: 0 }] });
  assert.match(tutorialPrompt(fire, 'c0'), /^Fire! .*press Space\/E/);
  const burning = { k: 'stove', g: 'tomato_soup', s: 'burning', p: 0.5 };
  assert.match(tutorialPrompt(view(null, [burning]), 'c0'), /burning! Take a clean plate/);
});

test('the serves still needed count the tip of a dish served halfway', { skip }, () => {
  // 80 points to go at 30 a soup and a tip of 10 (half of 20): 2 soups, not 3.
  assert.equal(servesLeft(view(null, [], { s: 70 })), 2);
  assert.match(tutorialPrompt(view(null, [], { s: 70 }), 'c0'), /^Keep going: serve 2 more to win/);
  assert.equal(tutorialPrompt(view(null, [], { s: 150 }), 'c0'), '');
});

test('a viewer without a cook (watching) gets no prompt', () => {
  assert.equal(tutorialPrompt(view(null), null), '');
  assert.equal(tutorialPrompt(view(null), 'c3'), '');
});
