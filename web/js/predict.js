// Your own cook, moved at once from your own inputs and reconciled with the server.
//
// `Mover` is the sim's movement rule (src/sim/movement.rs) ported as it is: positions in
// units of 1/1000 tile, a cook a circle of radius 350, moves cut into sub-steps of at most a
// quarter tile, x then y, a blocked axis sliding as far as it can, other cooks but ghosts
// blocking. tests/client.rs checks it, and `quantize`, against the sim's own positions for
// scripted inputs. A stun (a slip, a cart's bump) is not predicted: game.js takes it from
// the frames. `Predictor` steps your cook with it at the tick rate from the input you are
// giving now, keeps what it predicted, and when a frame arrives compares the server's
// position with what it predicted one round trip ago (the frame reflects the inputs the
// server had by then). The difference moves the prediction at once, but what is drawn
// follows through a correction that fades over about a tenth of a second: no visible snap
// for the small errors of latency, a plain jump only when the two disagree by more than two
// tiles (a stun, a respawn).

export const UNIT = 1000;
export const RADIUS = 350;
export const MAX_SUBSTEP = 250;
const TOUCH2 = 2 * RADIUS * (2 * RADIUS);

/**
 * The move a client sends, as the sim keeps it: thousandths, magnitude ≤ 1000. The server's
 * `quantize_move` and the sim's `clamp_intent` exactly (src/wire/messages/client.rs,
 * src/sim/movement.rs): each axis clamped to -1..1 and rounded half away from zero, then a
 * move over magnitude 1 scaled by the floored root, and the longer axis shortened until it
 * is within it. Sent over 1000 and quantized again by the server, it comes back unchanged;
 * a move over magnitude 1 would be refused.
 */
export function quantize(mx, my) {
  const q = (v) => {
    if (Number.isNaN(v)) return 0;
    const t = Math.max(-1, Math.min(1, v)) * 1000;
    return Math.sign(t) * Math.round(Math.abs(t)) + 0; // + 0: never -0
  };
  let x = q(mx);
  let y = q(my);
  const m2 = x * x + y * y;
  if (m2 > 1_000_000) {
    const m = Math.floor(Math.sqrt(m2)); // exact: m2 ≤ 2e6
    x = Math.trunc((x * 1000) / m);
    y = Math.trunc((y * 1000) / m);
    while (x * x + y * y > 1_000_000) {
      if (Math.abs(x) >= Math.abs(y)) x -= Math.sign(x);
      else y -= Math.sign(y);
    }
  }
  return { x: x + 0, y: y + 0 };
}

/**
 * The cooks your own cook collides with, in units, as the sim has them: every other cook
 * but a ghost (a disconnected cook blocks nobody in the sim). `players` are a frame's `p`
 * (`i`, `s`), `drawn` where each is drawn now (tiles, by `i`), `me` your cook's `i`.
 */
export function obstacles(players, drawn, me) {
  const out = [];
  for (const p of players) {
    if (p.i === me || p.s === 'disconnected') continue;
    const c = drawn.get(p.i) || p;
    out.push({ x: Math.round(c.x * UNIT), y: Math.round(c.y * UNIT) });
  }
  return out;
}

export class Mover {
  /**
   * @param {string[]} rows the level layout's rows (`#` and station letters are solid)
   * @param {number} maxSpeed tiles a second
   * @param {number} tickHz
   */
  constructor(rows, maxSpeed, tickHz) {
    this.rows = rows;
    this.height = rows.length;
    this.width = rows.length ? rows[0].length : 0;
    this.speed = Math.max(1, Math.floor((maxSpeed * UNIT) / tickHz + 0.5)); // the sim's `Rules::speed`
  }

  floor(tx, ty) {
    if (tx < 0 || ty < 0 || tx >= this.width || ty >= this.height) return false;
    const c = this.rows[ty][tx];
    return c === '.' || (c >= '1' && c <= '4');
  }

  hitsSolid(x, y) {
    const x0 = Math.floor((x - RADIUS) / UNIT);
    const x1 = Math.floor((x + RADIUS) / UNIT);
    const y0 = Math.floor((y - RADIUS) / UNIT);
    const y1 = Math.floor((y + RADIUS) / UNIT);
    for (let ty = y0; ty <= y1; ty++) {
      for (let tx = x0; tx <= x1; tx++) {
        if (this.floor(tx, ty)) continue;
        const cx = Math.max(tx * UNIT, Math.min(x, tx * UNIT + UNIT));
        const cy = Math.max(ty * UNIT, Math.min(y, ty * UNIT + UNIT));
        const dx = x - cx;
        const dy = y - cy;
        if (dx * dx + dy * dy < RADIUS * RADIUS) return true;
      }
    }
    return false;
  }

  mayStand(from, x, y, others) {
    if (this.hitsSolid(x, y)) return false;
    for (const o of others) {
      const dNew = (x - o.x) ** 2 + (y - o.y) ** 2;
      if (dNew < TOUCH2 && dNew < (from.x - o.x) ** 2 + (from.y - o.y) ** 2) return false;
    }
    return true;
  }

  slide(pos, d, horizontal, others) {
    if (d === 0) return pos;
    const at = (k) => (horizontal ? { x: pos.x + k, y: pos.y } : { x: pos.x, y: pos.y + k });
    const full = at(d);
    if (this.mayStand(pos, full.x, full.y, others)) return full;
    let lo = 0;
    let hi = Math.abs(d);
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const p = at(mid * Math.sign(d));
      if (this.mayStand(pos, p.x, p.y, others)) lo = mid;
      else hi = mid;
    }
    return at(lo * Math.sign(d));
  }

  /** One tick of movement from `pos` (units) with `intent` (thousandths). */
  step(pos, intent, others = []) {
    if (intent.x === 0 && intent.y === 0) return pos;
    const dx = Math.trunc((intent.x * this.speed) / 1000);
    const dy = Math.trunc((intent.y * this.speed) / 1000);
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(dx), Math.abs(dy)) / MAX_SUBSTEP));
    let p = pos;
    for (let s = 0; s < steps; s++) {
      const sx = Math.trunc((dx * (s + 1)) / steps) - Math.trunc((dx * s) / steps);
      const sy = Math.trunc((dy * (s + 1)) / steps) - Math.trunc((dy * s) / steps);
      p = this.slide(p, sx, true, others);
      p = this.slide(p, sy, false, others);
    }
    return p;
  }
}

export class Predictor {
  /**
   * @param {Mover} mover
   * @param {{tickHz: number, fadeMs?: number, snapTiles?: number}} o
   */
  constructor(mover, { tickHz, fadeMs = 150, snapTiles = 2, lookBackMs = 0 }) {
    this.mover = mover;
    this.tickMs = 1000 / tickHz;
    this.lookBackMs = lookBackMs;
    this.fadeMs = fadeMs;
    this.snap = snapTiles * UNIT;
    this.pos = null; // the prediction, units
    this.prev = null; // the prediction one step before
    this.stepAt = 0; // when the last step was taken
    this.history = []; // [{at, x, y}] after each step
    this.offset = { x: 0, y: 0 }; // drawn - predicted, fading to 0
    this.offsetAt = 0;
  }

  /** Starts over at a server position (units). */
  reset(x, y, nowMs) {
    this.pos = { x, y };
    this.prev = this.pos;
    this.stepAt = nowMs;
    this.history = [{ at: nowMs - this.tickMs, x, y }];
    this.offset = { x: 0, y: 0 };
  }

  /**
   * Steps the prediction forward to `nowMs` with `intent`, one tick at a time. A tick's step
   * is taken as the tick begins, with the input held then (as the server applies an input
   * in the tick it arrives in), and drawn across the tick.
   */
  advance(nowMs, intent, others = []) {
    if (!this.pos) return;
    if (nowMs - this.stepAt > 1000) this.stepAt = nowMs; // a hidden tab: no catching up
    while (nowMs >= this.stepAt) {
      this.prev = this.pos;
      this.pos = this.mover.step(this.pos, intent, others);
      this.history.push({ at: this.stepAt, x: this.pos.x, y: this.pos.y });
      this.stepAt += this.tickMs;
    }
    const keepFrom = nowMs - 2000;
    while (this.history.length > 2 && this.history[1].at < keepFrom) this.history.shift();
  }

  /** What was predicted at `atMs` (the last step taken by then). */
  predictedAt(atMs) {
    let best = this.history[0];
    for (const h of this.history) {
      if (h.at <= atMs) best = h;
      else break;
    }
    return best;
  }

  /**
   * A frame says the cook is at (x, y) (units). Compares it with the prediction one round
   * trip (`rttMs`) before `nowMs`, and moves the prediction by the difference. Returns the
   * correction applied, in units.
   */
  reconcile(x, y, nowMs, rttMs) {
    if (!this.pos) {
      this.reset(x, y, nowMs);
      return 0;
    }
    const then = this.predictedAt(nowMs - rttMs - this.lookBackMs);
    const ex = x - then.x;
    const ey = y - then.y;
    const err = Math.hypot(ex, ey);
    if (err > this.snap) {
      this.reset(x, y, nowMs);
      return err;
    }
    if (err < 15) return 0; // the frame's rounding to hundredths of a tile
    const drawn = this.drawn(nowMs);
    this.pos = { x: this.pos.x + ex, y: this.pos.y + ey };
    this.prev = { x: this.prev.x + ex, y: this.prev.y + ey };
    for (const h of this.history) {
      h.x += ex;
      h.y += ey;
    }
    // What is drawn does not move now: the correction fades in.
    const now = this.drawn(nowMs, { x: 0, y: 0 });
    this.offset = { x: drawn.x - now.x, y: drawn.y - now.y };
    this.offsetAt = nowMs;
    return err;
  }

  /** Where the cook is drawn at `nowMs` (units): between the last two steps, plus the fading correction. */
  drawn(nowMs, offset = this.offset) {
    if (!this.pos) return null;
    const w = Math.max(0, Math.min(1, 1 - (this.stepAt - nowMs) / this.tickMs));
    const fade = Math.exp(-(nowMs - this.offsetAt) / (this.fadeMs / 3));
    return {
      x: this.prev.x + (this.pos.x - this.prev.x) * w + offset.x * fade,
      y: this.prev.y + (this.pos.y - this.prev.y) * w + offset.y * fade,
    };
  }
}
