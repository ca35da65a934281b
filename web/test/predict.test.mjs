// Prediction: the movement rule as the sim has it, and reconciliation without a visible
// snap at 100 ms of round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mover, Predictor, quantize } from '../js/predict.js';

const ROWS = ['#######', '#.....#', '#..K..#', '#.....#', '#######'];

test('moving right for a second covers max_speed tiles until the wall stops the cook', () => {
  const m = new Mover(ROWS, 4, 20);
  let p = { x: 1500, y: 1500 };
  for (let i = 0; i < 5; i++) p = m.step(p, { x: 1000, y: 0 });
  assert.equal(p.x, 2500); // 4 tiles/s = 200 units a tick
  for (let i = 0; i < 40; i++) p = m.step(p, { x: 1000, y: 0 });
  assert.equal(p.x, 5650, 'radius 350 from the wall at x = 6000');
  assert.equal(p.y, 1500);
});

test('a station is solid, and a cook slides along it', () => {
  const m = new Mover(ROWS, 4, 20);
  let p = { x: 3500, y: 1500 };
  for (let i = 0; i < 10; i++) p = m.step(p, { x: 0, y: 1000 });
  assert.equal(p.y, 1650, 'the stove at (3, 2) stops the cook 350 above it');
  p = m.step(p, quantize(0.6, 0.8));
  assert.ok(p.x > 3500, 'it slides sideways');
});

test('another cook blocks the way, but two overlapping cooks can move apart', () => {
  const m = new Mover(ROWS, 4, 20);
  const other = [{ x: 3000, y: 1500 }];
  let p = { x: 2000, y: 1500 };
  for (let i = 0; i < 10; i++) p = m.step(p, { x: 1000, y: 0 }, other);
  assert.equal(p.x, 2300);
  const q = m.step({ x: 2900, y: 1500 }, { x: -1000, y: 0 }, other);
  assert.equal(q.x, 2700);
});

/** A server that applies the inputs it got `lagMs` after they were sent (half the round trip). */
function run({ rttMs, jitter = 0 }) {
  const tickMs = 50;
  const mover = new Mover(['##########', '#........#', '#........#', '##########'], 4, 20);
  const pred = new Predictor(mover, { tickHz: 20 });
  let server = { x: 1500, y: 1500 };
  const sentAt = []; // [{at, intent}]
  pred.reset(server.x, server.y, 0);
  let maxJump = 0;
  let drawnBefore = pred.drawn(0);
  const frames = []; // [{arrive, x, y}]
  for (let now = 0; now <= 4000; now += 1000 / 60) {
    // the player walks right for 1.5 s, stops, walks left from 2.5 s to 3 s
    const intent = now < 1500 ? { x: 1000, y: 0 } : now >= 2500 && now < 3000 ? { x: -1000, y: 0 } : { x: 0, y: 0 };
    sentAt.push({ at: now, intent });
    pred.advance(now, intent);
    // the server's ticks
    while ((frames.length + 1) * tickMs <= now) {
      const tick = frames.length + 1;
      const serverNow = tick * tickMs;
      const last = [...sentAt].reverse().find((s) => s.at + rttMs / 2 <= serverNow);
      server = mover.step(server, last ? last.intent : { x: 0, y: 0 });
      frames.push({ arrive: serverNow + rttMs / 2 + (tick % 3) * jitter, x: server.x, y: server.y });
    }
    for (const f of frames) {
      if (!f.seen && f.arrive <= now) {
        f.seen = true;
        pred.reconcile(Math.round(f.x / 10) * 10, Math.round(f.y / 10) * 10, now, rttMs);
      }
    }
    const drawn = pred.drawn(now);
    maxJump = Math.max(maxJump, Math.hypot(drawn.x - drawnBefore.x, drawn.y - drawnBefore.y));
    drawnBefore = drawn;
  }
  return { maxJump, final: pred.drawn(4000), server };
}

test('at 100 ms round trip the drawn cook never jumps and ends where the server has it', () => {
  const { maxJump, final, server } = run({ rttMs: 100, jitter: 8 });
  // walking is 200 units a tick = 67 units a 60 Hz frame; a snap would be a tile or more
  assert.ok(maxJump < 120, `largest step between two drawn frames: ${maxJump.toFixed(1)} units`);
  assert.ok(Math.hypot(final.x - server.x, final.y - server.y) < 30, `ends at ${final.x}, server ${server.x}`);
});

test('a prediction far from the server (a stun, a respawn) jumps to it', () => {
  const mover = new Mover(ROWS, 4, 20);
  const pred = new Predictor(mover, { tickHz: 20 });
  pred.reset(1500, 1500, 0);
  const err = pred.reconcile(5500, 3500, 100, 100);
  assert.ok(err > 2000);
  assert.deepEqual(pred.drawn(100), { x: 5500, y: 3500 });
});
