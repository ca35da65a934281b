// Inputs: seq per connection, sent on change or press, a keep-alive, a rate cap, resync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputSender } from '../js/input.js';

function sender(opts) {
  const sent = [];
  return { s: new InputSender((m) => sent.push(m), opts), sent };
}

test('an input goes out on change, with seq rising from 1, and not again until due', () => {
  const { s, sent } = sender({ keepAliveMs: 200, maxPerSecond: 30 });
  s.update(0, 1, 0);
  s.update(10, 1, 0);
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0], { type: 'input', seq: 1, move: { x: 1, y: 0 }, act: false, face: null });
  s.update(50, 0, 1);
  assert.equal(sent.length, 2);
  assert.equal(sent[1].seq, 2);
  s.update(250, 0, 1); // keep-alive
  assert.equal(sent.length, 3);
  assert.equal(sent[2].seq, 3);
});

test('a press rides the next input once; changes faster than the cap wait', () => {
  const { s, sent } = sender({ keepAliveMs: 200, maxPerSecond: 20 });
  s.update(0, 0, 0);
  s.press();
  s.update(20, 0, 0); // 20 ms < 50 ms gap
  assert.equal(sent.length, 1);
  s.update(60, 0, 0);
  assert.equal(sent[1].act, true);
  s.update(120, 0, 0);
  assert.equal(sent.length, 2, 'no change, no press, keep-alive not due');
});

test('a diagonal is quantized to magnitude 1; a new connection restarts the seq; resync skips ahead', () => {
  const { s, sent } = sender({});
  s.update(0, 1, 1);
  const { x, y } = sent[0].move;
  assert.ok(Math.hypot(x, y) <= 1 + 1e-9);
  assert.equal(x, 0.707);
  s.resync(41);
  s.update(1000, 1, 1);
  assert.equal(sent[1].seq, 42);
  s.reset();
  s.update(2000, 1, 1);
  assert.equal(sent[2].seq, 1);
});
