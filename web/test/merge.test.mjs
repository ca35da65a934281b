// The delta merge: upserts by identity, tombstones, full frames reset, and (with the
// fixture the Rust test writes) a whole recorded round decodes to the server's full frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { applyFrame, keyed } from '../js/merge.js';

const full = {
  t: 0, s: 0, tgt: 30, tl: 60, full: true,
  p: [{ i: 'c0', x: 1.5, y: 2.5, f: 2, h: null, s: 'idle', pi: 0 }],
  st: [{ k: 'stove', x: 3, y: 1, g: null, q: 1, p: 0, s: 'idle' }],
  o: [{ id: 1, r: 'tomato_soup', l: 1, pts: 30 }],
  hz: [],
  e: [],
};

test('a delta upserts by identity and copies the scalars', () => {
  const d = { t: 1, s: 5, tgt: 30, tl: 59.95, full: false, e: [{ k: 'chopped' }],
    d: { p: [{ i: 'c0', x: 1.75, y: 2.5, f: 1, h: null, s: 'moving', pi: 0 }],
         o: [{ id: 2, r: 'salad', l: 1, pts: 20 }] } };
  const m = applyFrame(full, d);
  assert.equal(m.t, 1);
  assert.equal(m.s, 5);
  assert.deepEqual(m.e, [{ k: 'chopped' }]);
  assert.equal(m.p.length, 1);
  assert.equal(m.p[0].x, 1.75);
  assert.deepEqual(m.o.map((o) => o.id), [1, 2]);
  assert.equal(full.p[0].x, 1.5, 'the view merged onto is left as it was');
});

test('a tombstone removes by its identity keys; an unknown one changes nothing', () => {
  const d = { t: 2, s: 0, tgt: 30, tl: 59.9, full: false, e: [],
    d: { o: [{ id: 1, gone: true }, { id: 9, gone: true }],
         st: [{ k: 'stove', x: 3, y: 1, gone: true }] } };
  const m = applyFrame(full, d);
  assert.deepEqual(m.o, []);
  assert.deepEqual(m.st, []);
});

test('a full frame replaces the view; a delta first, or a broken frame, is refused', () => {
  const other = { ...full, t: 9, p: [] };
  assert.equal(applyFrame({ ...full }, other), other);
  assert.throws(() => applyFrame(null, { full: false, d: {} }), /before any full frame/);
  assert.throws(() => applyFrame(full, { full: false }), /no `d`/);
  assert.throws(() => applyFrame(full, { full: false, d: { zz: [] } }), /unknown/);
  assert.throws(() => applyFrame(full, {}), /boolean `full`/);
});

test('a recorded round decodes to the same views as its full frames', { skip: !process.env.UC_FRAMES_FIXTURE }, () => {
  const { chain, fulls } = JSON.parse(readFileSync(process.env.UC_FRAMES_FIXTURE, 'utf8'));
  assert.equal(chain.length, fulls.length);
  assert.ok(chain.length > 100, 'a whole round');
  let merged = null;
  for (let n = 0; n < chain.length; n++) {
    merged = applyFrame(merged, chain[n]);
    assert.deepEqual(keyed(merged), keyed(fulls[n]), `pass ${n}`);
  }
});
