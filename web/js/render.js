// The kitchen on a canvas: the floor plan (drawn once per size into an offscreen canvas),
// stations with their contents and progress, hazards, cooks, effects, the orders strip and
// the countdown. One renderer serves live play, watching and the replay viewer: it draws
// whatever merged view and cook positions it is given. Each draw's time is kept in
// `window.__drawStats` (the client benchmark reads it).

import { drawCook, drawHazard, drawItem, drawRecipe, drawStation, SEATS } from './art.js';

const ORDERS_PX = 64;
/** Below this a tile is too small to read: the view then follows a focus instead. */
const MIN_TILE_PX = 28;

export class Renderer {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.layout = null;
    this.floor = null; // offscreen floor plan
    this.floorKey = '';
    this.stats = (window.__drawStats = window.__drawStats || { n: 0, total: 0, max: 0, last: 0 });
  }

  setLayout(layout) {
    this.layout = layout;
    this.floorKey = '';
  }

  /**
   * Sizes the canvas to its box (and the device's pixel ratio) and places the kitchen: the
   * whole of it when it fits at a readable tile size, else a camera on `focus` (tile units).
   */
  fit(focus) {
    const dpr = window.devicePixelRatio || 1;
    const box = this.canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(box.width * dpr));
    const h = Math.max(1, Math.round(box.height * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    const L = this.layout;
    const ordersPx = ORDERS_PX * dpr;
    const fits = Math.floor(Math.min(w / L.width, (h - ordersPx) / L.height));
    const tile = Math.max(fits, Math.round(MIN_TILE_PX * dpr));
    const place = (room, size, at, start) => {
      if (size <= room) return start + Math.floor((room - size) / 2);
      const want = start + room / 2 - at * tile;
      return Math.round(Math.max(start + room - size, Math.min(start, want)));
    };
    const f = focus || { x: L.width / 2, y: L.height / 2 };
    const ox = place(w, tile * L.width, f.x, 0);
    const oy = place(h - ordersPx, tile * L.height, f.y, ordersPx);
    return { w, h, tile, ox, oy, dpr };
  }

  drawFloor(tile) {
    const L = this.layout;
    const key = `${tile}:${L.id}`;
    if (this.floorKey === key) return;
    const c = document.createElement('canvas');
    c.width = tile * L.width;
    c.height = tile * L.height;
    const g = c.getContext('2d');
    for (let y = 0; y < L.height; y++) {
      for (let x = 0; x < L.width; x++) {
        const ch = L.rows[y][x];
        if (ch === '#') {
          g.fillStyle = '#4a4036';
          g.fillRect(x * tile, y * tile, tile, tile);
          g.fillStyle = '#5a4f44';
          g.fillRect(x * tile, y * tile, tile, Math.max(1, tile * 0.12));
        } else {
          g.fillStyle = (x + y) % 2 ? '#efe6d8' : '#e6dbc9';
          g.fillRect(x * tile, y * tile, tile, tile);
        }
      }
    }
    this.floor = c;
    this.floorKey = key;
  }

  /**
   * @param {object} o
   * @param {object|null} o.view the merged `snap` view (null: the bare kitchen)
   * @param {Map<string, {x:number,y:number,f:number}>} o.cooks positions to draw each cook at
   * @param {string|null} o.me the viewer's player id
   * @param {(cook: object) => string} o.nameOf
   * @param {import('./effects.js').Effects} o.effects
   * @param {number|null} o.countdown
   * @param {{x:number,y:number}|null} o.focus where a camera looks when the kitchen is too big
   *   to show whole (your cook; else the middle of all the cooks)
   */
  draw({ view, cooks, me, nameOf, effects, countdown = null, focus = null, now = performance.now() }) {
    if (!this.layout) return;
    const t0 = performance.now();
    const { w, h, tile, ox, oy, dpr } = this.fit(focus || centre(cooks, me));
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#2b2520';
    ctx.fillRect(0, 0, w, h);
    this.drawFloor(tile);
    const shake = effects ? effects.shake(now) * tile : 0;
    ctx.drawImage(this.floor, ox + shake, oy);
    ctx.setTransform(tile, 0, 0, tile, ox + shake, oy);
    const stations = view ? view.st : this.layout.stations.map((s) => ({ ...s, q: 1, p: 0, s: 'idle' }));
    for (const st of stations) drawStation(ctx, st, now);
    for (const hz of view ? view.hz : []) drawHazard(ctx, hz, now);
    if (view) {
      const order = [...view.p].sort((a, b) => (a.i === me) - (b.i === me));
      for (const p of order) {
        const at = cooks.get(p.i) || p;
        drawCook(ctx, { ...p, x: at.x, y: at.y, f: at.f ?? p.f }, { name: nameOf(p), me: p.i === me, now });
      }
    }
    if (effects) this.drawEffects(ctx, effects, now);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    if (view) this.drawOrders(ctx, view, w, dpr);
    const rush = view && view.hz.find((z) => z.t === 'rush');
    if (rush) this.banner(ctx, `RUSH ${Math.ceil(rush.l)} s`, w / 2, ORDERS_PX * dpr + 28 * dpr, '#ffd43b', dpr);
    if (effects) {
      effects.banners.forEach((b, k) => this.banner(ctx, b.text, w / 2, h / 2 - 60 * dpr + k * 40 * dpr, b.color, dpr));
      effects.toasts.forEach((t, k) => this.banner(ctx, t.text, w / 2, h - 40 * dpr - k * 36 * dpr, '#ffd43b', dpr));
    }
    if (countdown !== null) {
      ctx.fillStyle = 'rgba(0,0,0,0.45)';
      ctx.fillRect(0, 0, w, h);
      ctx.font = `bold ${Math.round(h / 3)}px sans-serif`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#fff';
      ctx.fillText(String(countdown), w / 2, h / 2);
      ctx.textBaseline = 'alphabetic';
    }
    const took = performance.now() - t0;
    this.stats.n += 1;
    this.stats.total += took;
    this.stats.max = Math.max(this.stats.max, took);
    this.stats.last = took;
  }

  drawEffects(ctx, effects, now) {
    ctx.textAlign = 'center';
    for (const f of effects.live(now)) {
      const age = (now - f.born) / f.life;
      if (f.kind === 'bubble') {
        ctx.fillStyle = 'rgba(255,255,255,0.95)';
        ctx.strokeStyle = '#333';
        ctx.lineWidth = 0.03;
        ctx.beginPath();
        ctx.ellipse(f.x, f.y - 0.35, 0.5, 0.25, 0, 0, Math.PI * 2);
        ctx.fill();
        ctx.stroke();
        ctx.fillStyle = '#222';
        ctx.font = 'bold 0.26px sans-serif';
        ctx.fillText(f.text, f.x, f.y - 0.26);
        continue;
      }
      ctx.globalAlpha = Math.max(0, 1 - age);
      ctx.font = 'bold 0.34px sans-serif';
      ctx.lineWidth = 0.07;
      ctx.strokeStyle = 'rgba(0,0,0,0.8)';
      const y = f.y - age * 0.6;
      ctx.strokeText(f.text, f.x, y);
      ctx.fillStyle = f.color;
      ctx.fillText(f.text, f.x, y);
      ctx.globalAlpha = 1;
    }
  }

  drawOrders(ctx, view, w, dpr) {
    const card = 86 * dpr;
    const gap = 8 * dpr;
    const top = 6 * dpr;
    ctx.fillStyle = 'rgba(0,0,0,0.35)';
    ctx.fillRect(0, 0, w, ORDERS_PX * dpr);
    view.o.forEach((o, k) => {
      const x = gap + k * (card + gap);
      ctx.fillStyle = '#fffaf0';
      ctx.fillRect(x, top, card, (ORDERS_PX - 12) * dpr);
      ctx.save();
      const s = 34 * dpr;
      ctx.setTransform(s, 0, 0, s, x + 24 * dpr, top + 22 * dpr);
      drawRecipe(ctx, o.r, 0, 0, 1);
      ctx.restore();
      ctx.fillStyle = '#222';
      ctx.font = `bold ${14 * dpr}px sans-serif`;
      ctx.textAlign = 'left';
      ctx.fillText(`${o.pts}`, x + 50 * dpr, top + 27 * dpr);
      const l = Math.max(0, Math.min(1, o.l));
      ctx.fillStyle = '#ddd';
      ctx.fillRect(x + 4 * dpr, top + 40 * dpr, card - 8 * dpr, 7 * dpr);
      ctx.fillStyle = l > 0.5 ? '#2fbf71' : l > 0.25 ? '#f08c00' : '#e03131';
      ctx.fillRect(x + 4 * dpr, top + 40 * dpr, (card - 8 * dpr) * l, 7 * dpr);
    });
  }

  banner(ctx, text, x, y, color, dpr) {
    ctx.font = `bold ${22 * dpr}px sans-serif`;
    ctx.textAlign = 'center';
    ctx.lineWidth = 5 * dpr;
    ctx.strokeStyle = 'rgba(0,0,0,0.75)';
    ctx.strokeText(text, x, y);
    ctx.fillStyle = color;
    ctx.fillText(text, x, y);
  }
}

/** Your cook, else the middle of all cooks (null when there are none). */
function centre(cooks, me) {
  if (!cooks || !cooks.size) return null;
  if (me && cooks.has(me)) return cooks.get(me);
  let x = 0;
  let y = 0;
  for (const c of cooks.values()) {
    x += c.x;
    y += c.y;
  }
  return { x: x / cooks.size, y: y / cooks.size };
}

/** A seat's colour (for the DOM: lobby, results). */
export function seatColor(seat) {
  return SEATS[seat % 4].color;
}

export { drawItem };
