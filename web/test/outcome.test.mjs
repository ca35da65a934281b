// The results' clock and where "Next level" goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mss, replayEnd, roundClock, whereNext } from '../js/outcome.js';

test('the time left is floored and the time used is the rest of the limit', () => {
  // 1:21.5 left of 2:30 reads 1:21 left, 1:09 used (never "1:09 of 2:30 · 1:22 left").
  assert.deepEqual(roundClock(150, 81.5), { left: 81, used: 69 });
  assert.deepEqual(roundClock(150, 74.95), { left: 74, used: 76 });
  assert.deepEqual(roundClock(150, 0), { left: 0, used: 150 });
  assert.deepEqual(roundClock(60, 60), { left: 60, used: 0 });
  assert.equal(mss(75), '1:15');
});

const LEVELS = [
  { id: 'a', order: 1, name: 'First' },
  { id: 'b', order: 2, name: 'Second' },
  { id: 'c', order: 3, name: 'Last' },
];

test('Next names the level it goes to', () => {
  assert.deepEqual(whereNext(LEVELS, 'a', true, 'b'), { label: 'Next level', note: 'Next: Level 2: Second.', go: 'b' });
});

test('after the last level, Next says so and plays it again', () => {
  const w = whereNext(LEVELS, 'c', true, 'c');
  assert.equal(w.label, 'Play again');
  assert.match(w.note, /^That was the last level/);
});

test('a win without the unlock says the next level is locked and what opens it', () => {
  const w = whereNext(LEVELS, 'a', true, 'a');
  assert.equal(w.label, 'Retry');
  assert.match(w.note, /Level 2: Second is still locked for you: .*piece of work/);
});

test('a loss retries the same level', () => {
  assert.deepEqual(whereNext(LEVELS, 'b', false, 'b'), { label: 'Retry', note: 'Retry plays Level 2: Second again.', go: 'b' });
});

test('a replay says how its round ended, or that it stops before the end', () => {
  const view = { s: 40, tgt: 90 };
  assert.equal(replayEnd({ res: 'won', sc: 95, tgt: 90, stars: 2 }, view, true), 'Round won \u00b7 score 95 / 90 \u00b7 \u2605\u2605\u2606 (2 stars)');
  assert.equal(replayEnd(null, view, false), 'The recording stops before the round\u2019s end (it may still be playing): score 40 / 90 so far.'.replace('\u2019', "'"));
  assert.equal(replayEnd(null, view, true), 'The recording ends here: score 40 / 90.');
});
