// The kitchen on a canvas: the floor plan and cart routes (drawn once per size into an
// offscreen canvas), stations with their contents, hazards, cooks, then above the cooks the
// stations' bars and badges, the names, the highlight of the station your cook will act on,
// effects, the minimap of a kitchen too big to show whole, the order tickets and the
// countdown. One renderer serves live play, watching and the replay viewer: it draws
// whatever merged view and cook positions it is given. Each draw's time is kept in
// `window.__drawStats` (the client benchmark reads it); the camera in `window.__uc.camera`.

import { drawBadge, drawCook, drawCookLabel, drawHazard, drawItem, drawRecipe, drawSeatMark, drawStation, drawStationTop, FLOOR, POP_BACKING, seatColor } from './art.js';
import { recipe } from './recipes.js';

const ORDERS_PX = 76;
/** Below this a tile is too small to read: the view then follows a focus instead. */
const MIN_TILE_PX = 40;
/** On a phone's width (under 480 CSS px) a tile may be this small, so a small kitchen
 * (level 1's 11 tiles across a 390 px screen) still fits whole. */
const MIN_TILE_PX_NARROW = 32;
/** Names and pop-ups are never drawn smaller than this many CSS pixels. */
const LABEL_PX = 13;

/** Whether the person asked for less motion (read each frame: a change applies at once). */
export function prefersReducedMotion() {
  return !!(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
}

export class Renderer {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.layout = null;
    this.floor = null; // offscreen floor plan
    this.floorKey = '';
    this.mini = null; // offscreen minimap
    this.cam = null; // where the camera looks (tiles), following its focus smoothly
    this.camAt = 0;
    this.stats = (window.__drawStats = window.__drawStats || { n: 0, total: 0, max: 0, last: 0 });
    window.__uc = window.__uc || {};
  }

  setLayout(layout) {
    this.layout = layout;
    this.floorKey = '';
    this.mini = null;
    this.cam = null;
  }

  /**
   * Sizes the canvas to its box (and the device's pixel ratio) and places the kitchen: the
   * whole of it when it fits at a readable tile size, else a camera that follows `focus`
   * (tile units) smoothly, clamped to the kitchen.
   */
  fit(focus, now = performance.now()) {
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
    const least = box.width < 480 ? MIN_TILE_PX_NARROW : MIN_TILE_PX;
    const tile = Math.max(1, fits, Math.round(least * dpr));
    const whole = tile * L.width <= w && tile * L.height <= h - ordersPx;
    const f = focus || { x: L.width / 2, y: L.height / 2 };
    if (!this.cam || whole || Math.hypot(f.x - this.cam.x, f.y - this.cam.y) > 8) {
      this.cam = { x: f.x, y: f.y };
    } else {
      const k = 1 - Math.exp(-Math.max(0, Math.min(100, now - this.camAt)) / 120);
      this.cam = { x: this.cam.x + (f.x - this.cam.x) * k, y: this.cam.y + (f.y - this.cam.y) * k };
    }
    this.camAt = now;
    const place = (room, size, at, start) => {
      if (size <= room) return start + Math.floor((room - size) / 2);
      const want = start + room / 2 - at * tile;
      return Math.round(Math.max(start + room - size, Math.min(start, want)));
    };
    const ox = place(w, tile * L.width, this.cam.x, 0);
    // A phone held upright is much taller than its kitchen: the kitchen sits right under the
    // orders (not centred, which left a tall empty band above it), the room to spare below.
    const top = whole && box.width < 480;
    const oy = top ? ordersPx : place(h - ordersPx, tile * L.height, this.cam.y, ordersPx);
    window.__uc.kitchenBox = { top: oy / dpr, bottom: (oy + tile * L.height) / dpr, ordersBottom: ORDERS_PX };
    return { w, h, tile, ox, oy, dpr, whole };
  }

  /** Paints tiles x0..x1, y0..y1 of the floor plan (walls and floor) at pixel offset (ox, oy). */
  paintFloor(g, tile, ox, oy, x0, y0, x1, y1) {
    const L = this.layout;
    for (let y = Math.max(0, y0); y <= Math.min(L.height - 1, y1); y++) {
      for (let x = Math.max(0, x0); x <= Math.min(L.width - 1, x1); x++) {
        const px = ox + x * tile;
        const py = oy + y * tile;
        if (L.rows[y][x] === '#') {
          g.fillStyle = '#4a4036';
          g.fillRect(px, py, tile, tile);
          g.fillStyle = '#5a4f44';
          g.fillRect(px, py, tile, Math.max(1, tile * 0.12));
        } else {
          g.fillStyle = FLOOR[(x + y) % 2];
          g.fillRect(px, py, tile, tile);
        }
      }
    }
  }

  /** Each cart's loop: a faint dashed line through its waypoints' centres (tile units). */
  paintRoutes(g) {
    g.lineJoin = 'round';
    for (const path of this.layout.carts || []) {
      if (path.length < 2) continue;
      g.beginPath();
      path.forEach(([x, y], k) => (k ? g.lineTo(x + 0.5, y + 0.5) : g.moveTo(x + 0.5, y + 0.5)));
      g.closePath();
      g.setLineDash([]);
      g.lineWidth = 0.5;
      g.strokeStyle = 'rgba(108,117,125,0.13)';
      g.stroke();
      g.setLineDash([0.3, 0.22]);
      g.lineWidth = 0.07;
      g.strokeStyle = 'rgba(73,80,87,0.55)';
      g.stroke();
    }
    g.setLineDash([]);
  }

  /**
   * The floor plan and cart routes, drawn once per tile size into an offscreen canvas; none
   * (null) when it would be over 16 million pixels (the hall at a phone's pixel ratio, over
   * what some browsers allow a canvas): then the tiles on screen are painted each frame.
   */
  drawFloor(tile) {
    const L = this.layout;
    const key = `${tile}:${L.id}`;
    if (this.floorKey === key) return;
    this.floorKey = key;
    this.floor = null;
    if (tile * L.width * tile * L.height > 16e6) return;
    const c = document.createElement('canvas');
    c.width = tile * L.width;
    c.height = tile * L.height;
    const g = c.getContext('2d');
    this.paintFloor(g, tile, 0, 0, 0, 0, L.width - 1, L.height - 1);
    g.setTransform(tile, 0, 0, tile, 0, 0);
    this.paintRoutes(g);
    this.floor = c;
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
   * @param {{x:number,y:number}|null} o.highlight the station tile your cook will act on
   */
  draw({ view, cooks, me, nameOf, effects, countdown = null, focus = null, highlight = null, now = performance.now() }) {
    if (!this.layout) return;
    const t0 = performance.now();
    const reduced = prefersReducedMotion();
    if (effects) effects.reduced = reduced;
    const { w, h, tile, ox, oy, dpr, whole } = this.fit(focus || centre(cooks, me), now);
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#2b2520';
    ctx.fillRect(0, 0, w, h);
    this.drawFloor(tile);
    const shake = effects ? effects.shake(now) * tile : 0;
    window.__uc.shakePx = shake;
    // Only the part of the floor on screen is copied (the hall's floor is 2560 px square).
    const sx = Math.max(0, -ox);
    const sy = Math.max(0, ORDERS_PX * dpr - oy);
    const sw = Math.min(tile * this.layout.width - sx, w - Math.max(0, ox));
    const sh = Math.min(tile * this.layout.height - sy, h - Math.max(ORDERS_PX * dpr, oy));
    if (this.floor && sw > 0 && sh > 0) ctx.drawImage(this.floor, sx, sy, sw, sh, ox + sx + shake, oy + sy, sw, sh);
    // The tiles on screen (a margin of one for what overhangs its tile).
    const vx0 = sx / tile - 1;
    const vy0 = sy / tile - 1;
    const vx1 = (sx + sw) / tile + 1;
    const vy1 = (sy + sh) / tile + 1;
    const seen = (x, y) => x >= vx0 && x <= vx1 && y >= vy0 && y <= vy1;
    const rect = { x0: sx / tile, y0: sy / tile, x1: (sx + sw) / tile, y1: (sy + sh) / tile };
    window.__uc.camera = { follows: !whole, tile: tile / dpr, view: rect, minimap: !whole };
    if (!this.floor) {
      this.paintFloor(ctx, tile, ox + shake, oy, Math.floor(vx0), Math.floor(vy0), Math.ceil(vx1), Math.ceil(vy1));
    }
    ctx.setTransform(tile, 0, 0, tile, ox + shake, oy);
    if (!this.floor) this.paintRoutes(ctx);
    const stations = view ? view.st : this.layout.stations.map((s) => ({ ...s, q: 1, p: 0, s: 'idle' }));
    for (const st of stations) if (seen(st.x, st.y)) drawStation(ctx, st, now, reduced);
    for (const hz of view ? view.hz : []) if (seen(hz.x, hz.y)) drawHazard(ctx, hz, now, reduced);
    const label = Math.max(0.26, (LABEL_PX * dpr) / tile);
    let placed = [];
    if (view) {
      const order = [...view.p].sort((a, b) => (a.i === me) - (b.i === me));
      placed = order.map((p) => {
        const at = cooks.get(p.i) || p;
        return { ...p, x: at.x, y: at.y, f: at.f ?? p.f };
      });
      for (const c of placed) if (seen(c.x, c.y)) drawCook(ctx, c, { me: c.i === me, now, reduced });
    }
    // The highlight under the names: your cook's name, above it, sits on the tile it faces
    // when that is the station above, and the outline clipped it.
    if (highlight) this.drawHighlight(ctx, highlight, effects && effects.mark, now);
    for (const c of placed) if (seen(c.x, c.y)) drawCookLabel(ctx, c, nameOf(c), label);
    // Bars and badges above the cooks and their names: never covered.
    for (const st of stations) if (seen(st.x, st.y)) drawStationTop(ctx, st);
    if (effects) this.drawEffects(ctx, effects, now, label, reduced);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    // The minimap's left edge: the rush banner keeps to the left of it.
    const room = whole ? w : this.drawMinimap(ctx, view, cooks, me, rect, w, dpr) - 8 * dpr;
    if (view) this.drawOrders(ctx, view, w, dpr);
    const rush = view && view.hz.find((z) => z.t === 'rush');
    if (rush) this.banner(ctx, `RUSH ${Math.ceil(rush.l)} s: orders pay +50%`, room / 2, ORDERS_PX * dpr + 28 * dpr, '#ffd43b', dpr, room - 8 * dpr);
    if (effects) {
      effects.banners.forEach((b, k) => this.banner(ctx, b.text, w / 2, h / 2 - 60 * dpr + k * 40 * dpr, b.color, dpr));
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

  /** A thick two-tone outline (dark outside, bright inside) on the tile your cook will act
   * on: visible on every floor and station colour. Red for a moment after a denied press. */
  drawHighlight(ctx, hl, mark, now) {
    const denied = mark && now < mark.until && mark.x === hl.x && mark.y === hl.y;
    ctx.lineJoin = 'round';
    ctx.setLineDash([]);
    ctx.lineWidth = 0.17;
    ctx.strokeStyle = '#111';
    ctx.strokeRect(hl.x + 0.03, hl.y + 0.03, 0.94, 0.94);
    ctx.lineWidth = 0.08;
    ctx.strokeStyle = denied ? '#ff6b6b' : '#ffe066';
    ctx.strokeRect(hl.x + 0.03, hl.y + 0.03, 0.94, 0.94);
    ctx.lineJoin = 'miter';
  }

  drawEffects(ctx, effects, now, label, reduced) {
    ctx.textAlign = 'center';
    ctx.lineJoin = 'round';
    for (const f of effects.live(now)) {
      const age = (now - f.born) / f.life;
      if (f.kind === 'bubble') {
        // The bubble is as wide as its words ("Let me through!" ran out of a fixed one).
        ctx.font = 'bold 0.26px sans-serif';
        const rx = Math.max(0.5, ctx.measureText(f.text).width / 2 + 0.18);
        ctx.fillStyle = 'rgba(255,255,255,0.95)';
        ctx.strokeStyle = '#333';
        ctx.lineWidth = 0.03;
        ctx.beginPath();
        ctx.ellipse(f.x, f.y - 0.35, rx, 0.25, 0, 0, Math.PI * 2);
        ctx.fill();
        ctx.stroke();
        ctx.fillStyle = '#222';
        ctx.fillText(f.text, f.x, f.y - 0.26);
        continue;
      }
      if (f.mine) {
        // Your own denied press: its reason on a badge that stays put until it fades.
        ctx.globalAlpha = Math.max(0, Math.min(1, 3 * (1 - age)));
        drawBadge(ctx, f.text, f.x, f.y - 0.5, '#a61e1e', label * 1.1);
        ctx.globalAlpha = 1;
        continue;
      }
      // A pop-up on a dark backing of its own, so its colour is read against that and not
      // against whatever floor or station it crosses (pale blue on the cream floor was not).
      ctx.globalAlpha = Math.max(0, 1 - age);
      const size = label * 1.25;
      ctx.font = `bold ${size}px sans-serif`;
      const y = reduced ? f.y : f.y - age * 0.6;
      const tw = ctx.measureText(f.text).width + size * 0.6;
      const th = size * 1.3;
      ctx.beginPath();
      if (ctx.roundRect) ctx.roundRect(f.x - tw / 2, y - th * 0.78, tw, th, th / 2);
      else ctx.rect(f.x - tw / 2, y - th * 0.78, tw, th);
      ctx.fillStyle = POP_BACKING;
      ctx.fill();
      ctx.fillStyle = f.color;
      ctx.fillText(f.text, f.x, y);
      ctx.globalAlpha = 1;
    }
    ctx.lineJoin = 'miter';
  }

  /** The whole kitchen small in the top-right corner: cooks by seat colour and shape (yours
   * ringed), fires, carts, and the rectangle the screen shows. Returns its left edge. */
  drawMinimap(ctx, view, cooks, me, rect, w, dpr) {
    const L = this.layout;
    const size = Math.round(Math.min(170 * dpr, w * 0.3));
    const s = size / Math.max(L.width, L.height);
    const mw = Math.round(L.width * s);
    const mh = Math.round(L.height * s);
    const mx = w - mw - 10 * dpr;
    const my = ORDERS_PX * dpr + 10 * dpr;
    if (!this.mini || this.mini.width !== mw) {
      const c = document.createElement('canvas');
      c.width = mw;
      c.height = mh;
      const g = c.getContext('2d');
      g.setTransform(s, 0, 0, s, 0, 0);
      g.fillStyle = '#e6dbc9';
      g.fillRect(0, 0, L.width, L.height);
      for (let y = 0; y < L.height; y++) {
        for (let x = 0; x < L.width; x++) {
          const ch = L.rows[y][x];
          if (ch === '#') g.fillStyle = '#4a4036';
          else if (ch === 'S') g.fillStyle = '#2b6cb0';
          else if (ch === '.' || (ch >= '1' && ch <= '4')) continue;
          else g.fillStyle = '#8a735b';
          g.fillRect(x, y, 1, 1);
        }
      }
      this.mini = c;
    }
    ctx.fillStyle = 'rgba(0,0,0,0.6)';
    ctx.fillRect(mx - 3 * dpr, my - 3 * dpr, mw + 6 * dpr, mh + 6 * dpr);
    ctx.drawImage(this.mini, mx, my);
    ctx.save();
    ctx.setTransform(s, 0, 0, s, mx, my);
    for (const hz of view ? view.hz : []) {
      if (hz.t === 'fire') {
        ctx.fillStyle = '#ff4d00';
        ctx.fillRect(hz.x - 0.5, hz.y - 0.5, 2, 2);
      } else if (hz.t === 'moving_obstacle') {
        ctx.fillStyle = '#343a40';
        ctx.fillRect(hz.x - 0.8, hz.y - 0.8, 1.6, 1.6);
      }
    }
    ctx.lineWidth = 2 * dpr / s;
    ctx.strokeStyle = '#fff';
    ctx.strokeRect(rect.x0, rect.y0, rect.x1 - rect.x0, rect.y1 - rect.y0);
    const r = 5 * dpr / s;
    for (const p of view ? view.p : []) {
      const at = cooks.get(p.i) || p;
      const seat = p.pi ?? 0;
      ctx.beginPath();
      ctx.arc(at.x, at.y, r * (p.i === me ? 1.35 : 1), 0, Math.PI * 2);
      ctx.fillStyle = seatColor(seat);
      ctx.fill();
      ctx.lineWidth = (p.i === me ? 2.2 : 1.2) * dpr / s;
      ctx.strokeStyle = p.i === me ? '#fff' : '#111';
      ctx.stroke();
      drawSeatMark(ctx, seat, at.x, at.y, r * 0.5);
    }
    ctx.restore();
    return mx - 3 * dpr;
  }

  /** The order tickets: the recipe's name, its dish (with its glyph), each ingredient with
   * its count and step, the points (a rush order's bonus on a badge) and the time left. */
  drawOrders(ctx, view, w, dpr) {
    const u = dpr;
    const gap = 6 * u;
    const top = 5 * u;
    const ch = (ORDERS_PX - 10) * u;
    const cw = Math.min(190 * u, (w - gap) / Math.max(4, view.o.length) - gap);
    ctx.fillStyle = '#241f1b'; // opaque: a kitchen scrolled under the rail does not show through
    ctx.fillRect(0, 0, w, ORDERS_PX * u);
    const base = new Map((this.layout.recipes || []).map((r) => [r.id, r.points]));
    const deadline = this.layout.deadline_s || 0;
    const tickets = []; // what each ticket says, for the browser tests
    if (!view.o.length) {
      ctx.fillStyle = '#d8cbb8';
      ctx.font = `${14 * u}px sans-serif`;
      ctx.textAlign = 'left';
      ctx.fillText('No open orders: the next one comes soon', gap * 2, (ORDERS_PX / 2 + 5) * u);
    }
    view.o.forEach((o, k) => {
      const x = gap + k * (cw + gap);
      const r = recipe(o.r);
      ctx.fillStyle = '#fffaf0';
      ctx.fillRect(x, top, cw, ch);
      // A narrow ticket (a phone, many orders) keeps the name, the icons and the points.
      const compact = cw < 150 * u;
      const left = x + (compact ? 30 : 44) * u;
      ctx.save();
      const s = (compact ? 38 : 54) * u;
      ctx.setTransform(s, 0, 0, s, x + (compact ? 15 : 22) * u, top + 26 * u);
      drawRecipe(ctx, o.r, 0, 0, 1);
      ctx.restore();
      ctx.textAlign = 'right';
      ctx.fillStyle = '#1a1a1a';
      ctx.font = `bold ${14 * u}px sans-serif`;
      ctx.fillText(`${o.pts}`, x + cw - 5 * u, top + 15 * u);
      const ptsW = ctx.measureText(`${o.pts}`).width + 9 * u;
      ctx.textAlign = 'left';
      let size = 13;
      ctx.font = `bold ${size * u}px sans-serif`;
      const room = x + cw - ptsW - left;
      while (size > 9 && ctx.measureText(r.name).width > room) {
        size -= 1;
        ctx.font = `bold ${size * u}px sans-serif`;
      }
      ctx.fillText(r.name, left - 2 * u, top + 15 * u, room);
      const bonus = base.has(o.r) && o.pts > base.get(o.r) ? Math.round((o.pts / base.get(o.r) - 1) * 100) : 0;
      tickets.push(`${r.name} ${o.pts}${bonus > 0 ? ' rush' : ''}`);
      // Ingredients: each one's picture and count, then the steps (recipes.js) in words.
      let ix = left;
      for (const p of r.parts) {
        ctx.save();
        const is = 44 * u;
        ctx.setTransform(is, 0, 0, is, ix + 8 * u, top + 30 * u);
        drawItem(ctx, `${p.ing}_raw`, 0, 0, 1);
        ctx.restore();
        ix += (compact ? 14 : 18) * u;
        if (p.n > 1) {
          ctx.fillStyle = '#1a1a1a';
          ctx.font = `bold ${11 * u}px sans-serif`;
          ctx.fillText(`\u00d7${p.n}`, ix, top + 34 * u);
          ix += 16 * u;
        }
      }
      if (!compact) {
        ctx.fillStyle = '#4a4036';
        ctx.font = `${10.5 * u}px sans-serif`;
        const steps = [...new Set(r.parts.map((p) => p.step))].join('; ');
        ctx.fillText(r.kind === 'salad' ? `${steps}, plated` : steps, left, top + 50 * u, cw - (deadline > 0 ? 70 : 48) * u);
      }
      if (bonus > 0) {
        ctx.save();
        ctx.setTransform(u, 0, 0, u, 0, 0);
        const text = compact ? `+${bonus}%` : `+${bonus}% rush`;
        ctx.font = 'bold 10px sans-serif';
        const bw = ctx.measureText(text).width + 8;
        drawBadge(ctx, text, (x + cw) / u - 5 - bw / 2, (top + (compact ? 46 : 32) * u) / u, '#b35c00', 10);
        ctx.restore();
      }
      const l = Math.max(0, Math.min(1, o.l));
      if (deadline > 0 && !(compact && bonus > 0)) {
        ctx.textAlign = 'right';
        ctx.fillStyle = '#1a1a1a';
        ctx.font = `bold ${10.5 * u}px sans-serif`;
        ctx.fillText(`${Math.ceil(l * deadline)} s`, x + cw - 5 * u, top + 50 * u);
      }
      ctx.fillStyle = '#ccc';
      ctx.fillRect(x + 4 * u, top + 55 * u, cw - 8 * u, 7 * u);
      ctx.fillStyle = l > 0.5 ? '#2f9e44' : l > 0.25 ? '#e8590c' : '#c92a2a';
      ctx.fillRect(x + 4 * u, top + 55 * u, (cw - 8 * u) * l, 7 * u);
    });
    window.__uc.tickets = tickets;
  }

  banner(ctx, text, x, y, color, dpr, maxWidth = undefined) {
    ctx.font = `bold ${22 * dpr}px sans-serif`;
    ctx.textAlign = 'center';
    ctx.lineJoin = 'round';
    ctx.lineWidth = 5 * dpr;
    ctx.strokeStyle = 'rgba(0,0,0,0.75)';
    ctx.strokeText(text, x, y, maxWidth);
    ctx.fillStyle = color;
    ctx.fillText(text, x, y, maxWidth);
    ctx.lineJoin = 'miter';
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


export { drawItem };
