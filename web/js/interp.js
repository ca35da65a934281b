// Other cooks, drawn between snapshots. Frames arrive at the snapshot rate with network
// jitter; drawing them as they come would stutter. The interpolator keeps the last second
// of cook positions by server tick, estimates the server's tick "now" from the arrivals
// (a late frame only ever looks older, so the earliest-arriving estimate wins), and draws
// every cook where it was `delayMs` ago, between the two frames around that moment.

export class Interpolator {
  /**
   * @param {{tickHz: number, delayMs?: number, keep?: number}} o
   */
  constructor({ tickHz, delayMs = 75, keep = 40 }) {
    this.tickHz = tickHz;
    this.delayMs = delayMs;
    this.keep = keep;
    this.frames = []; // [{tick, cooks: Map id -> {x, y, f}}], oldest first
    this.offsets = []; // tick - arrival time in ticks, one per recent frame
  }

  reset() {
    this.frames = [];
    this.offsets = [];
  }

  /** A frame's cooks (`p` entries), as it arrived at `nowMs`. */
  push(tick, players, nowMs) {
    const last = this.frames[this.frames.length - 1];
    if (last && tick <= last.tick) {
      if (tick < last.tick - this.tickHz) this.reset(); // the round started over
      else return;
    }
    const cooks = new Map();
    for (const p of players) cooks.set(p.i, { x: p.x, y: p.y, f: p.f });
    this.frames.push({ tick, cooks });
    if (this.frames.length > this.keep) this.frames.shift();
    this.offsets.push(tick - (nowMs * this.tickHz) / 1000);
    if (this.offsets.length > this.keep) this.offsets.shift();
  }

  /** The server's tick at `nowMs`, as a fraction (null before any frame). */
  tickAt(nowMs) {
    if (!this.offsets.length) return null;
    return (nowMs * this.tickHz) / 1000 + Math.max(...this.offsets);
  }

  /** The moment drawn at `nowMs`: `delayMs` behind the server, in ticks. */
  renderTick(nowMs) {
    const t = this.tickAt(nowMs);
    return t === null ? null : t - (this.delayMs * this.tickHz) / 1000;
  }

  /** Where each cook is drawn at `nowMs`: Map id -> {x, y, f}. */
  sample(nowMs) {
    const out = new Map();
    const n = this.frames.length;
    if (!n) return out;
    const at = this.renderTick(nowMs);
    let a = this.frames[0];
    let b = this.frames[n - 1];
    if (at >= b.tick) {
      a = b; // past the newest frame: hold it rather than guess
    } else if (at <= a.tick) {
      b = a;
    } else {
      for (let k = n - 1; k > 0; k--) {
        if (this.frames[k - 1].tick <= at) {
          a = this.frames[k - 1];
          b = this.frames[k];
          break;
        }
      }
    }
    const w = b.tick === a.tick ? 1 : (at - a.tick) / (b.tick - a.tick);
    for (const [id, pb] of b.cooks) {
      const pa = a.cooks.get(id);
      if (!pa || Math.hypot(pb.x - pa.x, pb.y - pa.y) > 2) {
        out.set(id, pb); // new, or moved too far to be a walk (a respawn): no sliding
      } else {
        out.set(id, { x: pa.x + (pb.x - pa.x) * w, y: pa.y + (pb.y - pa.y) * w, f: w < 0.5 ? pa.f : pb.f });
      }
    }
    return out;
  }
}
