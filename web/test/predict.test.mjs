// Prediction: the movement rule as the sim has it, and reconciliation without a visible
// snap at 100 ms of round trip. With the fixture the Rust test writes (UC_MOVES_FIXTURE),
// scripted inputs replayed through `Mover` land on every position the real sim gave.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Mover, Predictor, obstacles, quantize } from '../js/predict.js';

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

// The sim's own positions for scripted inputs (tests/client.rs, `moves_fixture`): walls and
// corners, sliding, diagonals, stations, cooks blocking cooks, overlapping cooks, a ghost,
// 30 ticks a second, fast cooks, a spill, a cart. Each tick is replayed as the client
// takes it: the held move quantized (`quantize`, as the input it sends), the cooks moved in
// seat order (the sim's order) with `Mover.step`, each against the others `obstacles`
// gives from a frame's `p` (a ghost blocks nobody); every position must equal the sim's.
//
// What predict.js does not model, and how the replay stands in for it:
// - a stun (a slip on a spill, a bump by a cart): predict.js cannot tell when a cook will
//   slip; the spill lies where frames show it, but whether this cook already tripped on it
//   and for how long a slip stuns are not on the wire. The client learns of a stun from a
//   frame (`s: 'stunned'`) and holds its cook still (game.js); the replay takes the same
//   word from the sim's record (`s`) and holds the cook still. The positions are compared
//   exactly all the same; what is not checked is the moment of the trip.
// - a cart's push: a cart moves a cook it touches to a free tile centre, outside the
//   movement rule; the client snaps to the frame's position (the cook is stunned by then).
//   The replay takes the sim's position for those cook ticks (`pushed`), and counts them:
//   nowhere else is the sim's answer copied.
const MOVES = process.env.UC_MOVES_FIXTURE;

test('the sim quantizes a held move as the client does, and takes back what it sends', {
  skip: MOVES ? false : 'UC_MOVES_FIXTURE is not set (`cargo test --test client` writes the fixture)',
}, () => {
  const { quantize: table } = JSON.parse(readFileSync(MOVES, 'utf8'));
  assert.ok(table.length > 1000, `${table.length} held moves`);
  for (const { held, move, q } of table) {
    const mine = quantize(held[0], held[1]);
    assert.deepEqual(mine, { x: q[0], y: q[1] }, `quantize(${held})`);
    assert.deepEqual([mine.x / 1000, mine.y / 1000], move, `the move sent for ${held}`);
  }
});

test('every scripted move lands where the sim put the cook, tick by tick', {
  skip: MOVES ? false : 'UC_MOVES_FIXTURE is not set (`cargo test --test client` writes the fixture)',
}, () => {
  const { scenarios } = JSON.parse(readFileSync(MOVES, 'utf8'));
  let ticks = 0;
  let compared = 0;
  for (const sc of scenarios) {
    const mover = new Mover(sc.rows, sc.maxSpeed, sc.tickHz);
    assert.equal(mover.speed, sc.speed, `${sc.name}: units a tick`);
    const pos = sc.start.map(([x, y]) => ({ x, y }));
    const intent = pos.map(() => ({ x: 0, y: 0 }));
    let copied = 0;
    sc.ticks.forEach((t, n) => {
      const at = `${sc.name}, tick ${n + 1}`;
      const players = t.s.map((s, i) => ({ i: `c${i}`, s }));
      t.s.forEach((s, i) => {
        if (s === 'disconnected') intent[i] = { x: 0, y: 0 }; // a ghost holds nothing
      });
      for (const inp of t.in) {
        const q = quantize(inp.held[0], inp.held[1]);
        assert.deepEqual(q, { x: inp.q[0], y: inp.q[1] }, `${at}: quantize(${inp.held})`);
        assert.deepEqual([q.x / 1000, q.y / 1000], inp.move, `${at}: the move sent`);
        if (t.s[inp.seat] !== 'disconnected') intent[inp.seat] = q;
      }
      for (let i = 0; i < pos.length; i++) {
        if (t.s[i] !== 'idle') continue; // a ghost does not move; a stunned cook is held still
        const drawn = new Map(pos.map((p, j) => [`c${j}`, { x: p.x / 1000, y: p.y / 1000 }]));
        pos[i] = mover.step(pos[i], intent[i], obstacles(players, drawn, `c${i}`));
      }
      for (const i of t.pushed) {
        pos[i] = { x: t.pos[i][0], y: t.pos[i][1] };
        copied += 1;
      }
      assert.deepEqual(pos.map((p) => [p.x, p.y]), t.pos, at);
      ticks += 1;
      compared += pos.length - t.pushed.length;
    });
    assert.equal(copied, sc.pushes, `${sc.name}: only a cart's pushes are taken from the sim`);
  }
  assert.ok(ticks > 800, `${ticks} ticks`);
  assert.ok(compared > 1500, `${compared} cook positions compared`);
});
