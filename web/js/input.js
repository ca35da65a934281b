// What the client sends as `input`: the move and facing it holds now, a press when one was
// made, and a `seq` per connection that only goes up (the protocol's input rules).
//
// An input goes out when the move changes or a press is made, and otherwise every
// `keepAliveMs` as a keep-alive; never more than `maxPerSecond` (the server's bucket is
// 40 frames a second, pings included). A new connection starts its `seq` over; a `resync`
// (or an `err` naming a stale seq) moves it past the server's.

import { quantize } from './predict.js';

const FACES = ['up', 'right', 'down', 'left'];

export class InputSender {
  /**
   * @param {(msg: object) => void} send
   * @param {{keepAliveMs?: number, maxPerSecond?: number}} o
   */
  constructor(send, { keepAliveMs = 200, maxPerSecond = 30 } = {}) {
    this.send = send;
    this.keepAliveMs = keepAliveMs;
    this.minGapMs = 1000 / maxPerSecond;
    this.reset();
  }

  /** A new connection: the server's `last_seq` is 0 again. */
  reset() {
    this.seq = 0;
    this.last = null; // the last move sent, quantized
    this.sentAt = -Infinity;
    this.pressPending = false;
  }

  /** A press (Space, E, the act button): it goes out with the next input. */
  press() {
    this.pressPending = true;
  }

  /** The server's counter stands at `seq`: continue after it. */
  resync(seq) {
    if (seq >= this.seq) this.seq = seq;
  }

  /**
   * Called every frame with the move held now (each axis -1..1) and, optionally, the facing
   * asked for (0-3). Sends an input when due and returns it (or null).
   */
  update(nowMs, mx, my, face = null) {
    const mv = quantize(mx, my);
    const changed = !this.last || mv.x !== this.last.x || mv.y !== this.last.y;
    const due = changed || this.pressPending || nowMs - this.sentAt >= this.keepAliveMs;
    if (!due || nowMs - this.sentAt < this.minGapMs) return null;
    this.seq += 1;
    const msg = {
      type: 'input',
      seq: this.seq,
      move: { x: mv.x / 1000, y: mv.y / 1000 },
      act: this.pressPending,
      face: face === null ? null : FACES[face],
    };
    this.pressPending = false;
    this.last = mv;
    this.sentAt = nowMs;
    this.send(msg);
    return msg;
  }

  /** The move last sent, as the sim will apply it (thousandths). */
  intent() {
    return this.last || { x: 0, y: 0 };
  }
}
