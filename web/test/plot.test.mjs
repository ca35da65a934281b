// The history page's plot: where each score lands, the target line, and its sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { geometry, niceTop, summary } from '../js/plot.js';

test('the scale tops out at a tidy number at or over the best score and the target', () => {
  assert.equal(niceTop(0), 10);
  assert.equal(niceTop(87), 100);
  assert.equal(niceTop(210), 250);
  assert.equal(niceTop(226), 250);
  assert.equal(niceTop(400), 500);
});

test('rounds run left to right, a higher score higher up, the target at its height', () => {
  const rounds = [
    { score: 50, result: 'lost' },
    { score: 200, result: 'won' },
    { score: 100, result: 'lost' },
  ];
  const g = geometry(rounds, 100, 480, 180);
  assert.equal(g.top, 200);
  assert.deepEqual(g.points.map((p) => p.x), [40, 254, 468]);
  // 0 sits on the axis (y0 = 152), the top on y1 = 12.
  assert.equal(g.points[1].y, 12);
  assert.equal(g.points[0].y, 117);
  assert.equal(g.targetY, g.points[2].y, 'a score at the target sits on its line');
  assert.deepEqual(g.points.map((p) => p.won), [false, true, false]);
  assert.deepEqual(g.ticks.map((t) => t.value), [0, 100, 200]);
});

test('one round sits in the middle; the sentence names first, best and latest', () => {
  const g = geometry([{ score: 30, result: 'won' }], 60, 480, 180);
  assert.equal(g.points[0].x, 254);
  assert.equal(
    summary([{ score: 30, result: 'lost' }, { score: 90, result: 'won' }, { score: 70, result: 'won' }], 60, 'Open Kitchen'),
    'Your score on Open Kitchen over your last 3 rounds: first 30, best 90, latest 70; target 60; 2 won.',
  );
  assert.equal(summary([], 60, 'Open Kitchen'), 'No rounds of Open Kitchen yet.');
});
