// Interpolating other cooks: between the two frames around the drawn moment, holding the
// newest past it, no slide for a jump, and the server's tick estimated from arrivals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Interpolator } from '../js/interp.js';

const cook = (x, y) => [{ i: 'c1', x, y, f: 1 }];

test('a cook is drawn between the frames around the moment 75 ms ago', () => {
  const it = new Interpolator({ tickHz: 20, delayMs: 75 });
  it.push(10, cook(1, 1), 500); // tick 10 arrives at 500 ms
  it.push(11, cook(2, 1), 550);
  it.push(12, cook(3, 1), 600);
  // at 600 ms the server is at tick 12; 75 ms = 1.5 ticks ago is tick 10.5
  const p = it.sample(600).get('c1');
  assert.ok(Math.abs(p.x - 1.5) < 1e-9, `x ${p.x}`);
  assert.ok(Math.abs(it.tickAt(600) - 12) < 1e-9);
});

test('late frames do not pull the clock back, and past the newest frame the cook holds', () => {
  const it = new Interpolator({ tickHz: 20, delayMs: 75 });
  it.push(10, cook(1, 1), 500);
  it.push(11, cook(2, 1), 590); // 40 ms late
  assert.ok(Math.abs(it.tickAt(590) - 11.8) < 1e-9, 'the early arrival sets the clock');
  const p = it.sample(2000).get('c1');
  assert.equal(p.x, 2);
});

test('a cook that moved more than two tiles between frames is not slid across the floor', () => {
  const it = new Interpolator({ tickHz: 20, delayMs: 50 });
  it.push(1, cook(1, 1), 50);
  it.push(2, cook(8, 1), 100);
  const p = it.sample(125).get('c1'); // tick 1.5
  assert.equal(p.x, 8);
});

test('a frame of an earlier tick is dropped, a much earlier one starts over', () => {
  const it = new Interpolator({ tickHz: 20 });
  it.push(100, cook(1, 1), 0);
  it.push(99, cook(5, 5), 10);
  assert.equal(it.frames.length, 1);
  it.push(3, cook(2, 2), 20);
  assert.equal(it.frames.length, 1);
  assert.equal(it.frames[0].tick, 3);
});
