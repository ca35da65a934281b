// What the events of a frame look like: a served dish pops its points, a denied press
// shakes with its reason (your own shakes the screen), burnt / slipped / bumped / fire out
// float up where they happened, emotes are bubbles over the cook, a missed order and a rush
// are banners. Events arrive in frames (`e` entries, short keys) and `ev` batches
// (`{kind, x, y, payload}`); both become the same effects.

export const REASONS = {
  no_station: 'nothing there',
  hands_full: 'hands full',
  wrong_item: 'wrong item',
  no_order: 'no order wants that',
  blocked: 'on fire!',
  busy: 'busy',
  stunned: 'stunned!',
};

export const EMOTES = {
  wave: 'Hi!',
  cheer: 'Yay!',
  thumbs_up: 'Yes!',
  thumbs_down: 'No!',
  angry: 'Grr!',
  star: 'Star!',
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
    this.toasts = []; // {text, born}
  }

  /**
   * Adds the effects of one event. `cooks` maps a player id to its current position;
   * `me` is the viewer's player id.
   */
  add(e, now, me, cooks) {
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
        pop(REASONS[e.r] || e.r || 'no', '#ff6b6b', cookAt());
        if (e.i === me) this.shakeUntil = now + 250;
        break;
      case 'burnt':
        pop('burnt!', '#e8590c', at());
        break;
      case 'cooked':
        pop('ready', '#2fbf71', at(), 800);
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
      case 'quest':
        this.toasts.push({ text: `Quest complete: ${e.quest} (${e.progress}/${e.target})`, born: now });
        break;
      default:
        break;
    }
  }

  /** The effects still alive at `now` (older ones are dropped). */
  live(now) {
    this.list = this.list.filter((f) => now - f.born < f.life);
    this.banners = this.banners.filter((b) => now - b.born < b.life);
    this.toasts = this.toasts.filter((t) => now - t.born < 4000);
    return this.list;
  }

  /** The screen's shake at `now`, in tiles. */
  shake(now) {
    if (now >= this.shakeUntil) return 0;
    return Math.sin(now / 18) * 0.08;
  }
}
