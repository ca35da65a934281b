// Recorded rounds: the list (newest first, a page at a time) and the viewer, which plays a
// round's recorded frames through the live renderer: play, pause, seek, 0.25x to 8x.

import { api } from '../api.js';
import { seatColors } from '../art.js';
import { Effects } from '../effects.js';
import { applyFrame } from '../merge.js';
import { Renderer } from '../render.js';
import { replayEnd } from '../outcome.js';
import { clock, go, h, say, show, starsImg } from '../ui.js';

export async function replayList(page = 0) {
  show('replays', h('section', { class: 'panel' }, h('h1', {}, 'Replays'), h('p', {}, 'Loading\u2026')));
  let data;
  let names = new Map();
  try {
    const [list, levels] = await Promise.all([api.replays(page), api.levels().catch(() => ({ levels: [] }))]);
    data = list;
    names = new Map(levels.levels.map((lv) => [lv.id, `${lv.order}. ${lv.name}`]));
  } catch (e) {
    say(e.message, 'error');
    return;
  }
  const rows = data.replays.map((r) =>
    h('tr', {},
      h('td', { 'data-level': r.level_id }, names.get(r.level_id) || r.level_id),
      h('td', {}, when(r.started_at)),
      h('td', {}, r.players.map((p) => p.name).join(', ')),
      h('td', {}, r.result || 'unfinished'),
      h('td', {}, starsImg(r.stars)),
      h('td', {}, `${r.score} / ${r.target}`),
      h('td', {}, h('a', { href: `/replays/${encodeURIComponent(r.id)}`, 'aria-label': `Watch replay of ${names.get(r.level_id) || r.level_id}, ${when(r.started_at)}`, onclick: (e) => { e.preventDefault(); go(`/replays/${encodeURIComponent(r.id)}`); } }, 'Watch replay'))));
  show('replays',
    h('section', { class: 'panel wide' },
      h('h1', {}, 'Replays'),
      rows.length ? h('table', { class: 'list' },
        h('thead', {}, h('tr', {}, ['Level', 'Played', 'Cooks', 'Result', 'Stars', 'Score', 'Replay'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, rows)) : h('p', {}, 'No rounds have been played here yet.'),
      h('div', { class: 'row' },
        page > 0 ? h('button', { onclick: () => replayList(page - 1) }, 'Newer') : null,
        data.more ? h('button', { onclick: () => replayList(page + 1) }, 'Older') : null,
        h('button', { onclick: () => go('/') }, 'Home'))));
}

/** When a round was played, in the reader's words ('unknown' for a round with no date). */
function when(unix) {
  return unix > 0 ? new Date(unix * 1000).toLocaleString() : 'unknown';
}

const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];

export class Viewer {
  constructor(id) {
    this.id = id;
    this.stopped = false;
  }

  async start() {
    show('viewer', h('section', { class: 'panel' }, h('h1', {}, 'Replay'), h('p', {}, 'Loading\u2026')));
    let meta;
    let frames;
    try {
      meta = await api.replay(this.id);
      frames = (await api.frames(this.id)).frames;
    } catch (e) {
      const why = e.status === 410 ? 'The replay file of this round is gone: it can no longer be watched.' : e.message;
      show('viewer', h('section', { class: 'panel' }, h('h1', {}, 'Replay'), h('p', { class: 'why' }, why), h('button', { onclick: () => go('/replays') }, 'Replays')));
      return;
    }
    if (this.stopped || !frames.length) return;
    this.meta = meta;
    this.tickHz = meta.tick_hz;
    // Every frame merged once: seeking is then a lookup, not a re-merge from the start.
    this.views = [];
    let view = null;
    for (const f of frames) {
      view = applyFrame(view, f);
      this.views.push(view);
    }
    this.endTick = this.views[this.views.length - 1].t;
    // The verdict, from the frame that carries the round's `round_end` event.
    this.outcome = null;
    for (const f of frames) for (const e of f.e || []) if (e.k === 'round_end') this.outcome = e;
    this.resultLine = h('p', { id: 'replay-result', class: 'replay-result', role: 'status', hidden: true }, '');
    this.tick = 0;
    this.speed = 1;
    this.playing = true;
    this.effects = new Effects();
    this.shownUpTo = -1;
    this.names = new Map(meta.seats.map((s) => [s.seat, s.name]));
    seatColors(meta.seats);
    const canvas = h('canvas', { id: 'kitchen', 'aria-label': 'The kitchen' });
    this.seek = h('input', { id: 'seek', type: 'range', min: 0, max: this.endTick, step: 1, value: 0, 'aria-label': 'Seek',
      oninput: (e) => this.jump(Number(e.target.value)) });
    this.playBtn = h('button', { id: 'play', onclick: () => this.toggle() }, 'Pause');
    const speed = h('select', { id: 'speed', 'aria-label': 'Speed', onchange: (e) => (this.speed = Number(e.target.value)) },
      SPEEDS.map((s) => h('option', { value: s, selected: s === 1 }, `${s}\u00d7`)));
    show('viewer',
      h('div', { class: 'game' },
        h('div', { class: 'hud' },
          h('span', { id: 'score' }, ''), h('span', { id: 'clock' }, ''),
          h('span', { class: 'who' }, `${meta.layout.name} \u00b7 room ${meta.room_code} round ${meta.round_no}`)),
        h('h1', { class: 'sr-only' }, `Replay: ${meta.layout.name}`),
        h('div', { class: 'stage' }, canvas),
        this.resultLine,
        h('div', { class: 'controls row' }, this.playBtn, this.seek, speed,
          h('a', { class: 'button', href: `/api/replays/${encodeURIComponent(this.id)}/file`, download: `${this.id}.ucr` }, 'Download .ucr'),
          h('button', { onclick: () => go('/replays') }, 'Replays'))));
    this.renderer = new Renderer(canvas);
    this.renderer.setLayout(meta.layout);
    this.last = performance.now();
    const loop = () => {
      if (this.stopped) return;
      this.frame(performance.now());
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  toggle() {
    if (!this.playing && this.tick >= this.endTick) this.jump(0);
    this.playing = !this.playing;
    this.playBtn.textContent = this.playing ? 'Pause' : 'Play';
  }

  jump(tick) {
    this.tick = Math.max(0, Math.min(this.endTick, tick));
    this.shownUpTo = this.indexAt(this.tick);
    this.effects = new Effects();
  }

  /** The last view at or before `tick`. */
  indexAt(tick) {
    let lo = 0;
    let hi = this.views.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.views[mid].t <= tick) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  frame(now) {
    const dt = now - this.last;
    this.last = now;
    if (this.playing) {
      this.tick = Math.min(this.endTick, this.tick + (dt / 1000) * this.tickHz * this.speed);
      if (this.tick >= this.endTick) {
        this.playing = false;
        this.playBtn.textContent = 'Play';
      }
      this.seek.value = String(Math.floor(this.tick));
    }
    const i = this.indexAt(this.tick);
    const view = this.views[i];
    const next = this.views[Math.min(i + 1, this.views.length - 1)];
    const w = next.t > view.t ? (this.tick - view.t) / (next.t - view.t) : 0;
    const cooks = new Map();
    for (const p of view.p) {
      const q = next.p.find((c) => c.i === p.i) || p;
      const far = Math.hypot(q.x - p.x, q.y - p.y) > 2;
      cooks.set(p.i, far ? p : { x: p.x + (q.x - p.x) * w, y: p.y + (q.y - p.y) * w, f: p.f });
    }
    for (let k = this.shownUpTo + 1; k <= i; k++) {
      for (const e of this.views[k].e || []) this.effects.add(e, now, null, cooks);
    }
    this.shownUpTo = i;
    const atEnd = this.tick >= this.endTick;
    if (atEnd === this.resultLine.hidden) {
      this.resultLine.textContent = atEnd ? replayEnd(this.outcome, view, this.meta.ended !== false) : '';
      this.resultLine.hidden = !atEnd;
    }
    document.getElementById('score').textContent = `Score ${view.s} / ${view.tgt}`;
    document.getElementById('clock').textContent = clock(view.tl);
    this.renderer.draw({ view, cooks, me: null, nameOf: (p) => this.names.get(p.pi) || p.i, effects: this.effects, now });
  }

  stop() {
    this.stopped = true;
  }
}


