// A kitchen being watched or played: frames merged into a view, other cooks interpolated,
// your own cook predicted, inputs sent, events turned into effects, and a draw per display
// frame. Live play and watching use it with a connection; the replay viewer uses the same
// renderer with recorded frames. It also keeps the highlight of the station your cook will
// act on (from the predicted position and facing, by the sim's rule), the polite live region
// that says what happens in words, and the recipe key (R or ?).

import { Announcer } from './announce.js';
import { Controls } from './controls.js';
import { Effects, fromEventWire } from './effects.js';
import { InputSender } from './input.js';
import { Interpolator } from './interp.js';
import { deniedWords, facedTile, stationAt } from './kitchen.js';
import { applyFrame } from './merge.js';
import { Mover, Predictor, obstacles, quantize } from './predict.js';
import { RecipeKey } from './recipekey.js';
import { Renderer } from './render.js';
import { tutorialPrompt } from './tutorial.js';

export class Game {
  /**
   * @param {{canvas: HTMLCanvasElement, layout: object, tickHz: number, seat: number|null,
   *          names: () => Map<number, string>, send: (m: object) => boolean,
   *          onView?: (view: object) => void, touchRoot: HTMLElement}} o
   */
  constructor({ canvas, layout, tickHz, seat, names, send, onView, touchRoot }) {
    this.renderer = new Renderer(canvas);
    this.renderer.setLayout(layout);
    this.layout = layout;
    this.names = names;
    this.me = seat === null || seat === undefined ? null : `c${seat}`;
    this.view = null;
    this.countdown = null;
    this.effects = new Effects();
    this.interp = new Interpolator({ tickHz, delayMs: 75 });
    this.mover = new Mover(layout.rows, layout.max_speed || 4, tickHz);
    this.predictor = new Predictor(this.mover, { tickHz });
    this.rtt = () => 0;
    this.onView = onView || (() => {});
    this.sender = null;
    this.controls = null;
    if (this.me) {
      this.sender = new InputSender(send);
      this.controls = new Controls(touchRoot, {
        onPress: () => this.sender.press(),
        onEmote: (id) => send({ type: 'emote', id }),
      });
    }
    this.running = false;
    this.over = false;
    this.drawnMine = null; // where your cook was last drawn (tile units)
    this.face = null; // your cook's facing, predicted (0-3)
    this.highlight = null; // {x, y, k}: the station your cook will act on
    this.canvas = canvas;
    this.announcer = new Announcer(touchRoot);
    this.recipeKey = new RecipeKey(touchRoot, layout);
    // A tutorial level prompts the next step in words, above the kitchen (a status line,
    // so a screen reader says each new step once).
    this.prompt = null;
    if (layout.tutorial && this.me && touchRoot) {
      this.prompt = document.createElement('p');
      this.prompt.id = 'tutorial';
      this.prompt.className = 'tutorial-prompt';
      this.prompt.setAttribute('role', 'status');
      this.prompt.hidden = true;
      const stage = touchRoot.querySelector('.stage');
      touchRoot.insertBefore(this.prompt, stage);
    }
    window.__game = this; // a handle for the browser tests and for looking around in the console
    window.__uc = window.__uc || {};
    window.__uc.highlight = null;
  }

  /** A new connection: the input `seq` starts over and the next frame is a full one. */
  reconnected() {
    if (this.sender) this.sender.reset();
    this.view = null;
    // A resumed round may start again a little before the last frame drawn.
    this.interp.reset();
  }

  /** A `snap` body arrived. */
  frame(raw, now = performance.now()) {
    this.view = applyFrame(this.view, raw);
    this.countdown = null;
    this.lastTick = raw.t;
    this.interp.push(raw.t, this.view.p, now);
    const mine = this.me && this.view.p.find((p) => p.i === this.me);
    if (mine) {
      const x = Math.round(mine.x * 1000);
      const y = Math.round(mine.y * 1000);
      if (mine.s === 'stunned' || mine.s === 'disconnected' || raw.full && !this.predictor.pos) {
        this.predictor.reset(x, y, now);
        this.face = mine.f;
      } else {
        this.predictor.reconcile(x, y, now, this.rtt());
      }
    }
    if (this.face === null && mine) this.face = mine.f;
    const cooks = this.interp.sample(now);
    for (const e of raw.e || []) {
      if (e.k === 'resync' && e.i === this.me && this.sender) this.sender.resync(e.seq);
      if (e.k === 'round_end') this.over = true; // no more inputs: the round is decided
      if (e.k === 'denied' && e.i === this.me && mine) {
        // Words that fit the station aimed at and what the cook held.
        const aim = facedTile(mine.x, mine.y, mine.f);
        const st = stationAt(this.view.st, aim.x, aim.y);
        const why = deniedWords(e.r, st, mine.h);
        this.effects.add(e, now, this.me, cooks, why, st ? aim : null);
        this.announcer.denied(why);
        window.__uc.denied = why;
      } else {
        this.effects.add(e, now, this.me, cooks);
      }
    }
    this.announcer.frame(this.view, raw.e || [], this.layout);
    if (this.prompt) {
      const text = this.over ? '' : tutorialPrompt(this.view, this.me);
      if (text !== this.prompt.textContent) this.prompt.textContent = text;
      this.prompt.hidden = text === '';
    }
    this.onView(this.view);
  }

  /** An `ev` batch (lobby emotes, quest completions). */
  events(list, now = performance.now()) {
    const cooks = this.interp.sample(now);
    for (const ev of list) this.effects.add(fromEventWire(ev), now, this.me, cooks);
  }

  /** An `err` with a `seq`: a stale input; continue after it. */
  refused(err) {
    if (err.seq !== null && err.seq !== undefined && this.sender) this.sender.resync(err.seq);
  }

  start() {
    if (this.running) return;
    this.running = true;
    const loop = () => {
      if (!this.running) return;
      this.tick(performance.now());
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  stop() {
    this.running = false;
    if (this.controls) this.controls.destroy();
    this.recipeKey.destroy();
    this.announcer.destroy();
  }

  /** One display frame: inputs out, prediction forward, everything drawn. */
  tick(now) {
    const cooks = this.interp.sample(now);
    const mine = this.view && this.me && this.view.p.find((p) => p.i === this.me);
    if (this.sender && this.view && this.countdown === null && mine && !this.over) {
      const held = this.controls.read();
      this.sender.update(now, held.x, held.y);
      const others = obstacles(this.view.p, cooks, this.me); // a ghost blocks nobody
      const intent = mine.s === 'stunned' ? { x: 0, y: 0 } : quantize(held.x, held.y);
      this.predictor.advance(now, intent, others);
      if (intent.x || intent.y) this.face = facing(intent);
      const f = this.face ?? mine.f;
      const drawn = this.predictor.drawn(now);
      if (drawn) {
        this.drawnMine = { x: drawn.x / 1000, y: drawn.y / 1000, f };
        cooks.set(this.me, this.drawnMine);
      }
      // The press target, as the sim finds it: from the predicted position's tile.
      const pos = this.predictor.pos;
      const aim = pos ? facedTile(pos.x, pos.y, f, 1000) : null;
      const st = aim && stationAt(this.layout.stations, aim.x, aim.y);
      this.highlight = st ? { x: st.x, y: st.y, k: st.k } : null;
    } else if (this.over || !mine) {
      this.highlight = null;
    }
    window.__uc.highlight = this.highlight;
    this.canvas.dataset.highlight = this.highlight ? `${this.highlight.x},${this.highlight.y}` : '';
    const names = this.names();
    this.renderer.draw({
      view: this.view,
      cooks,
      me: this.me,
      nameOf: (p) => names.get(p.pi) || p.i,
      effects: this.effects,
      countdown: this.countdown,
      highlight: this.highlight,
      now,
    });
  }
}

/** The facing a move implies, as the sim decides it. */
function facing(intent) {
  if (Math.abs(intent.x) >= Math.abs(intent.y)) return intent.x > 0 ? 1 : 3;
  return intent.y > 0 ? 2 : 0;
}
