// A small line plot of a player's scores on one level, round after round, drawn as SVG with
// no library: `geometry` is the arithmetic (pure, tested in web/test/plot.test.mjs),
// `plotScores` the picture. Won rounds are filled circles, lost ones hollow squares, so
// the two differ without colour; the target is a dashed line; the picture has its words
// for a screen reader (a `role="img"` label saying the first, best and last score).

const W = 480;
const H = 180;
const PAD = { left: 40, right: 12, top: 12, bottom: 28 };

/** The scale's top: the highest score or the target, rounded up to a tidy step. */
export function niceTop(max) {
  if (max <= 0) return 10;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) {
    if (m * step >= max) return m * step;
  }
  return 10 * step;
}

/** Where each round's point goes, the target's line, and the scale's ticks. */
export function geometry(rounds, target, w = W, h = H) {
  const top = niceTop(Math.max(target, ...rounds.map((r) => r.score)));
  const x0 = PAD.left;
  const x1 = w - PAD.right;
  const y0 = h - PAD.bottom;
  const y1 = PAD.top;
  const y = (v) => y0 - (v / top) * (y0 - y1);
  const n = rounds.length;
  const x = (i) => (n <= 1 ? (x0 + x1) / 2 : x0 + (i * (x1 - x0)) / (n - 1));
  const points = rounds.map((r, i) => ({ x: Math.round(x(i) * 10) / 10, y: Math.round(y(r.score) * 10) / 10, won: r.result === 'won', score: r.score }));
  const ticks = [0, top / 2, top].map((v) => ({ value: v, y: Math.round(y(v) * 10) / 10 }));
  return { w, h, x0, x1, y0, y1, top, points, ticks, targetY: Math.round(y(target) * 10) / 10 };
}

/** The plot's sentence: how many rounds, the first, best and latest score. */
export function summary(rounds, target, level) {
  if (!rounds.length) return `No rounds of ${level} yet.`;
  const scores = rounds.map((r) => r.score);
  const won = rounds.filter((r) => r.result === 'won').length;
  return `Your score on ${level} over your last ${rounds.length} round${rounds.length === 1 ? '' : 's'}: first ${scores[0]}, best ${Math.max(...scores)}, latest ${scores[scores.length - 1]}; target ${target}; ${won} won.`;
}

const NS = 'http://www.w3.org/2000/svg';

function el(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The plot as an `<svg>` (in a `<figure>` with the legend). */
export function plotScores(rounds, target, level) {
  const g = geometry(rounds, target);
  const svg = el('svg', { viewBox: `0 0 ${g.w} ${g.h}`, class: 'plot', role: 'img', 'aria-label': summary(rounds, target, level) });
  for (const t of g.ticks) {
    svg.append(el('line', { x1: g.x0, x2: g.x1, y1: t.y, y2: t.y, stroke: '#d8ccbb', 'stroke-width': 1 }));
    svg.append(el('text', { x: g.x0 - 6, y: t.y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#4a423b' }, String(t.value)));
  }
  svg.append(el('line', { x1: g.x0, x2: g.x1, y1: g.targetY, y2: g.targetY, stroke: '#a33a0b', 'stroke-width': 1.5, 'stroke-dasharray': '6 4' }));
  svg.append(el('text', { x: g.x1, y: g.targetY - 4, 'text-anchor': 'end', 'font-size': 11, fill: '#a33a0b' }, `target ${target}`));
  if (g.points.length > 1) {
    svg.append(el('polyline', { points: g.points.map((p) => `${p.x},${p.y}`).join(' '), fill: 'none', stroke: '#1f5f8b', 'stroke-width': 2 }));
  }
  for (const p of g.points) {
    svg.append(p.won
      ? el('circle', { cx: p.x, cy: p.y, r: 4.5, fill: '#1f5f8b', 'data-score': p.score })
      : el('rect', { x: p.x - 4, y: p.y - 4, width: 8, height: 8, fill: '#fff', stroke: '#1f5f8b', 'stroke-width': 2, 'data-score': p.score }));
  }
  svg.append(el('text', { x: (g.x0 + g.x1) / 2, y: g.h - 6, 'text-anchor': 'middle', 'font-size': 11, fill: '#4a423b' }, 'your rounds, oldest to latest'));
  const figure = document.createElement('figure');
  figure.className = 'plot';
  const caption = document.createElement('figcaption');
  caption.textContent = '\u25cf won \u00b7 \u25a1 lost \u00b7 dashed: the target';
  figure.append(svg, caption);
  return figure;
}
