// What the events of a frame look like: a served dish pops its points, a denied press
// says its reason in words (your own also shakes the screen, unless reduced motion is asked
// for, and marks the station you aimed at), burnt / slipped / bumped / fire out
// float up where they happened, emotes are bubbles over the cook, a missed order and a rush
// are banners. Events arrive in frames (`e` entries, short keys) and `ev` batches
// (`{kind, x, y, payload}`); both become the same effects.

import { deniedWords } from './kitchen.js';

/** A denied press's reason in plain words (without the station's context). */
export const REASONS = {
  no_station: deniedWords('no_station'),
  hands_full: deniedWords('hands_full'),
  wrong_item: deniedWords('wrong_item'),
  no_order: deniedWords('no_order'),
  blocked: deniedWords('blocked'),
  busy: deniedWords('busy'),
  stunned: deniedWords('stunned'),
};

export const EMOTES = {
  wave: 'Hi!',
  cheer: 'Yay!',
  thumbs_up: 'Yes!',
  thumbs_down: 'No!',
  angry: 'Grr!',
  star: 'Star!',
  let_me_through: 'Let me through!',
};

/** An `ev` batch's event in the frame's short-key shape. */
export function fromEventWire(ev) {
  return { k: ev.kind, x: ev.x, y: ev.y, ...(ev.payload || {}) };
}

export class Effects {
  constructor() {
    this.list = []; // {kind, text, x, y, color, born, life, cook?}
    this.banners = []; // {text, born, life}
    this.shakeUntil = 0;
    this.reduced = false; // prefers-reduced-motion: no shake, no drift
    this.mark = null; // {x, y, until}: the station your own denied press was aimed at
  }

  /**
   * Adds the effects of one event. `cooks` maps a player id to its current position;
   * `me` is the viewer's player id; `why` (optional) the words of your own denied press,
   * with `aim` the station tile it was aimed at.
   */
  add(e, now, me, cooks, why = null, aim = null) {
    const at = (dx = 0.5, dy = 0.3) => ({ x: e.x + dx, y: e.y + dy });
    const cookAt = () => {
      const c = cooks.get(e.i);
      return c ? { x: c.x, y: c.y - 0.6 } : at();
    };
    const pop = (text, color, where, life = 1100) =>
      this.list.push({ text, color, ...where, born: now, life, cook: e.i });
    switch (e.k) {
      case 'served':
        pop(`+${e.sd ?? e.pts ?? 0}`, '#2fbf71', at(), 1400);
        if ((e.stk ?? 0) >= 3) pop(`streak ${e.stk}!`, '#ffd43b', at(0.5, -0.2), 1400);
        break;
      case 'denied':
        if (e.i === me && me) {
          pop(why || REASONS[e.r] || e.r || 'no', '#ff8787', cookAt(), 1800);
          this.list[this.list.length - 1].mine = true;
          if (!this.reduced) this.shakeUntil = now + 250;
          if (aim) this.mark = { x: aim.x, y: aim.y, until: now + 900 };
        } else {
          pop(REASONS[e.r] || e.r || 'no', '#ff6b6b', cookAt());
        }
        break;
      case 'burnt':
        pop('burnt!', '#ff922b', at());
        break;
      case 'cooked':
        // Nothing floats: the pot's own "ready" badge says it, and a pop-up drifting up
        // from the pot crossed that badge.
        break;
      case 'chopped':
        pop('chop!', '#fff', at(), 600);
        break;
      case 'washed':
        pop('clean', '#74c0fc', at(), 700);
        break;
      case 'extinguished':
        pop('fire out', '#74c0fc', at());
        break;
      case 'slipped':
        pop('slipped!', '#74c0fc', cookAt());
        break;
      case 'bumped':
        pop('bumped!', '#ffd43b', cookAt());
        break;
      case 'wasted':
        pop('wasted', '#adb5bd', at());
        break;
      case 'dropped':
        pop('dropped', '#adb5bd', at());
        break;
      case 'emote':
        this.list.push({ kind: 'bubble', text: EMOTES[e.em] || e.em, ...cookAt(), born: now, life: 1800, cook: e.i });
        break;
      case 'missed':
        this.banners.push({ text: `Order missed ${e.sd ?? ''}`, born: now, life: 1800, color: '#ff6b6b' });
        break;
      case 'rush_start':
        this.banners.push({ text: 'Rush! Orders come twice as fast', born: now, life: 2500, color: '#ffd43b' });
        break;
      case 'rush_end':
        this.banners.push({ text: 'The rush is over', born: now, life: 1500, color: '#fff' });
        break;
      default:
        break;
    }
  }

  /** The effects still alive at `now` (older ones are dropped). */
  live(now) {
    this.list = this.list.filter((f) => now - f.born < f.life);
    this.banners = this.banners.filter((b) => now - b.born < b.life);
    return this.list;
  }

  /** The screen's shake at `now`, in tiles. */
  shake(now) {
    if (this.reduced || now >= this.shakeUntil) return 0;
    return Math.sin(now / 18) * 0.08;
  }
}
