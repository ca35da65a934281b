// A few DOM helpers for the screens: build elements, say things, format numbers.

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

/** Replaces the page's main content. */
export function show(screen, ...children) {
  const main = document.getElementById('app');
  main.dataset.screen = screen;
  main.replaceChildren(...children);
  return main;
}

/** A line at the top of the page (errors, reconnecting). */
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

export function go(path) {
  history.pushState({}, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}
