// The tutorial's prompts follow the viewer's cook one step at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tutorialPrompt } from '../js/tutorial.js';

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

test('each step of a soup says the next thing to do, from what the viewer holds', () => {
  assert.match(tutorialPrompt(view(null), 'c0'), /tomato shelf \(t\).*take a tomato/);
  assert.match(tutorialPrompt(view('tomato_raw'), 'c0'), /chop board \(C\).*press again to chop/);
  const board = { k: 'chop_board', g: 'tomato_raw', s: 'idle', p: 40, x: 4, y: 1 };
  assert.match(tutorialPrompt(view(null, [board]), 'c0'), /press Space\/E to chop/);
  // A teammate's board across the kitchen is theirs: the viewer is told to fetch a tomato.
  const far = { ...board, x: 9, y: 1 };
  assert.match(tutorialPrompt(view(null, [far]), 'c0'), /tomato shelf \(t\).*take a tomato/);
  const pot = { k: 'stove', g: 'tomato_chopped', s: 'idle', p: 67 };
  assert.match(tutorialPrompt(view('tomato_chopped', [pot]), 'c0'), /pot \(K\).*\(2 of 3 in\)/);
  const cooking = { k: 'stove', g: 'tomato_soup', s: 'working', p: 30 };
  assert.match(tutorialPrompt(view(null, [cooking]), 'c0'), /cooking: fetch a clean plate/);
  assert.match(tutorialPrompt(view('plate', [cooking]), 'c0'), /Wait by the pot/);
  const ready = { ...cooking, s: 'ready', p: 100 };
  assert.match(tutorialPrompt(view('plate', [ready]), 'c0'), /take the soup onto the plate/);
  assert.match(tutorialPrompt(view('dish_tomato_soup'), 'c0'), /serve window \(S\)/);
  assert.match(tutorialPrompt(view('plate_dirty'), 'c0'), /sink \(W\).*wash/);
});

test('after a serve it counts the serves still needed, and says nothing once won', () => {
  const served = view(null, [], { s: 70 });
  assert.match(tutorialPrompt(served, 'c0'), /^Keep going: serve 3 more to win/);
  assert.equal(tutorialPrompt(view(null, [], { s: 150 }), 'c0'), '');
});

test('a viewer without a cook (watching) gets no prompt', () => {
  assert.equal(tutorialPrompt(view(null), null), '');
  assert.equal(tutorialPrompt(view(null), 'c3'), '');
});
