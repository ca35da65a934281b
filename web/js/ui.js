// A few DOM helpers for the screens: build elements, say things, format numbers, keep the
// keyboard focus where the person was.

import { SEATS, seatColor } from './art.js';

/** `h('button', {onclick}, 'Start')`: an element with attributes (or handlers) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** What finds a control again in a screen drawn anew: its id, its `data-key`, or its tag and words. */
function keyOf(el) {
  if (el.id) return `#${CSS.escape(el.id)}`;
  if (el.dataset && el.dataset.key) return `[data-key="${CSS.escape(el.dataset.key)}"]`;
  return { tag: el.tagName, text: el.textContent };
}

function findKey(root, key) {
  if (typeof key === 'string') return root.querySelector(key);
  return [...root.querySelectorAll(key.tag)].find((e) => e.textContent === key.text) || null;
}

/** Where the keyboard goes on a new screen: its `[data-autofocus]` control, else its heading. */
function focusStart(main) {
  const target = main.querySelector('[data-autofocus]') || main.querySelector('h1');
  if (!target) return;
  if (target.tagName === 'H1' && !target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
}

/**
 * Replaces the page's main content. The same screen drawn again (a lobby update) keeps the
 * focus on the control that had it; a new screen moves it to the screen's first control
 * (`data-autofocus`) or its heading, never to the top of the page.
 */
export function show(screen, ...children) {
  const main = document.getElementById('app');
  const same = main.dataset.screen === screen;
  const active = document.activeElement;
  const key = same && active && active !== main && main.contains(active) ? keyOf(active) : null;
  main.dataset.screen = screen;
  main.replaceChildren(...children);
  const again = key && findKey(main, key);
  // A heading that had the focus is drawn anew without the `tabindex` that made it
  // focusable: give it back, or the focus falls to the page's body.
  if (again && again.tagName === 'H1' && !again.hasAttribute('tabindex')) again.setAttribute('tabindex', '-1');
  if (again && !again.disabled) again.focus({ preventScroll: true });
  else if (!same || key) focusStart(main);
  return main;
}

/** A line at the top of the page (errors, reconnecting, a quest done): a polite live region. */
export function say(text, kind = 'info') {
  const bar = document.getElementById('notice');
  bar.textContent = text || '';
  bar.dataset.kind = kind;
  bar.hidden = !text;
}

export function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function stars(n) {
  return '★'.repeat(n) + '☆'.repeat(Math.max(0, 3 - n));
}

/** Stars as a picture with its words for screen readers ("2 stars"). */
export function starsImg(n, cls) {
  return h('span', { role: 'img', class: cls, 'aria-label': `${n} star${n === 1 ? '' : 's'}` }, stars(n));
}

const SHAPES = {
  circle: '<circle cx="8" cy="8" r="6.5"/>',
  triangle: '<path d="M8 1.5 L14.5 14 L1.5 14 Z"/>',
  square: '<rect x="2" y="2" width="12" height="12"/>',
  diamond: '<path d="M8 1 L15 8 L8 15 L1 8 Z"/>',
};

/** A seat's swatch: its colour and its shape (the shape its cook wears in the kitchen). */
export function swatch(seat) {
  const { shape } = SEATS[seat % SEATS.length];
  const color = seatColor(seat);
  const el = h('span', { class: 'swatch', 'data-shape': shape, title: `seat ${seat + 1}, ${shape}` });
  el.innerHTML = `<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><g fill="${color}" stroke="#222" stroke-width="1.2">${SHAPES[shape] || SHAPES.circle}</g></svg>`;
  return el;
}

export function go(path) {
  history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}
