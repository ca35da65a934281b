// The game in words, for a screen reader: a visually hidden polite live region that says new
// orders ("New order: Tomato soup, 60 s"), served and missed orders, your own denied presses
// with their reason, fires, and the end of the round. Frames do not carry "an order opened"
// or "a fire started": both are found by comparing each view with the one before. To stay
// quiet enough to follow, what happens within `gapMs` is said together, at most `keep`
// sentences at once (the oldest are dropped), and a sentence said in the last `gapMs` is
// not repeated.

import { recipe } from './recipes.js';

export class Announcer {
  /**
   * @param {HTMLElement|null} root where the live region goes (none: sentences are only kept)
   * @param {{gapMs?: number, keep?: number, clock?: () => number}} o
   */
  constructor(root, { gapMs = 1500, keep = 3, clock = () => performance.now() } = {}) {
    this.clock = clock;
    this.gapMs = gapMs;
    this.keep = keep;
    this.queue = [];
    this.saidAt = -Infinity;
    this.last = '';
    this.timer = null;
    this.orders = null; // Map id -> recipe id, from the view before
    this.fires = null; // Set of "x,y"
    this.said = []; // every sentence said, newest last (the tests read it), at most 50
    this.el = null;
    if (root) {
      this.el = document.createElement('div');
      this.el.className = 'sr-only';
      this.el.id = 'announce';
      this.el.setAttribute('role', 'status');
      this.el.setAttribute('aria-live', 'polite');
      root.appendChild(this.el);
    }
  }

  /** Queues a sentence; it is said with the others of its moment. */
  say(text, now = this.clock()) {
    if (!text || this.queue.includes(text)) return;
    this.queue.push(text);
    while (this.queue.length > this.keep) this.queue.shift();
    this.flush(now);
  }

  flush(now = this.clock()) {
    if (!this.queue.length) return;
    const wait = this.saidAt + this.gapMs - now;
    if (wait > 0) {
      if (!this.timer) this.timer = setTimeout(() => ((this.timer = null), this.flush()), wait);
      return;
    }
    const text = this.queue.join('. ');
    this.queue = [];
    if (text === this.last && now - this.saidAt < this.gapMs * 2) return;
    this.last = text;
    this.saidAt = now;
    this.said.push(text);
    if (this.said.length > 50) this.said.shift();
    if (this.el) this.el.textContent = text;
  }

  /** Your own press was denied, in words. */
  denied(why) {
    this.say(`Can\u2019t: ${why}`);
  }

  /** A merged view and the events of its frame. */
  frame(view, events, layout) {
    const deadline = layout && layout.deadline_s ? Math.round(layout.deadline_s) : 0;
    const stations = (layout && layout.stations) || [];
    const names = { stove: 'a stove', chop_board: 'a chopping board', prep: 'a counter', serve: 'the pass', sink: 'the sink', bin: 'the bin', spawn_shelf: 'a shelf' };
    if (this.orders) {
      for (const e of events) {
        const was = this.orders.get(e.oi);
        const what = was ? recipe(was).name : 'an order';
        if (e.k === 'served') this.say(`Served ${what}, ${e.sd >= 0 ? '+' : ''}${e.sd ?? 0} points`);
        else if (e.k === 'missed') this.say(`Missed ${what}`);
        else if (e.k === 'round_end') {
          const res = e.res === 'won' ? `Round won, ${e.stars ?? 0} of 3 stars` : e.res === 'lost' ? 'Round lost' : 'Round over';
          this.say(`${res}: ${e.sc ?? view.s} of ${e.tgt ?? view.tgt} points`);
        }
      }
    }
    {
      const known = this.orders || new Map();
      const burning = this.fires || new Set();
      for (const o of view.o) {
        if (known.has(o.id)) continue;
        const r = layout && layout.recipes && layout.recipes.find((x) => x.id === o.r);
        const rush = r && o.pts > r.points ? ', rush bonus' : '';
        this.say(`New order: ${recipe(o.r).name}${deadline ? `, ${deadline} s` : ''}${rush}`);
      }
      for (const hz of view.hz) {
        if (hz.t !== 'fire' || burning.has(`${hz.x},${hz.y}`)) continue;
        const st = stations.find((s) => s.x === hz.x && s.y === hz.y);
        this.say(`Fire on ${st ? names[st.k] || st.k : 'a station'}!`);
      }
    }
    this.orders = new Map(view.o.map((o) => [o.id, o.r]));
    this.fires = new Set(view.hz.filter((z) => z.t === 'fire').map((z) => `${z.x},${z.y}`));
  }

  destroy() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.el) this.el.remove();
  }
}
