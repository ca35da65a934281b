// The recipe key in play: R (or ?) or the HUD's "Recipes (R)" button shows a card of the
// level's recipes, each with its glyph, ingredients and steps (recipes.js); the same key,
// Escape or the card's Close hides it. The card is plain DOM over the kitchen, so it reads
// well at any size and a screen reader reads it as a list.

import { describe, method, recipe } from './recipes.js';

export class RecipeKey {
  /**
   * @param {HTMLElement|null} root the game screen (the card and the HUD button go in it)
   * @param {{recipes?: {id: string}[]}} layout
   */
  constructor(root, layout) {
    this.root = root;
    this.card = null;
    this.button = null;
    if (!root) return;
    const ids = (layout.recipes || []).map((r) => r.id);
    const card = document.createElement('section');
    card.className = 'recipe-key';
    card.id = 'recipe-key';
    card.hidden = true;
    card.setAttribute('aria-label', 'Recipes of this level');
    const title = document.createElement('h2');
    title.textContent = 'Recipes (R to close)';
    card.appendChild(title);
    const list = document.createElement('ul');
    for (const id of ids) {
      const r = recipe(id);
      const li = document.createElement('li');
      const head = document.createElement('p');
      head.className = 'recipe-name';
      const glyph = document.createElement('span');
      glyph.className = 'glyph';
      glyph.setAttribute('aria-hidden', 'true');
      glyph.textContent = r.glyph;
      head.append(glyph, describe(id));
      const steps = document.createElement('ol');
      for (const step of method(id)) {
        const s = document.createElement('li');
        s.textContent = step;
        steps.appendChild(s);
      }
      li.append(head, steps);
      list.appendChild(li);
    }
    card.appendChild(list);
    const close = document.createElement('button');
    close.className = 'small';
    close.textContent = 'Close';
    close.addEventListener('click', () => this.toggle(false));
    card.appendChild(close);
    root.appendChild(card);
    this.card = card;
    const hud = root.querySelector('.hud');
    if (hud) {
      this.button = document.createElement('button');
      this.button.className = 'small recipes-button';
      // The key's letter only where there is a keyboard to press it (a phone has none).
      this.button.append('Recipes');
      const key = document.createElement('span');
      key.className = 'key-hint';
      key.textContent = ' (R)';
      this.button.append(key);
      this.button.setAttribute('aria-expanded', 'false');
      this.button.setAttribute('aria-controls', 'recipe-key');
      this.button.addEventListener('click', () => (this.toggle(), this.button.blur()));
      hud.insertBefore(this.button, hud.querySelector('.who'));
    }
    this.onKey = (e) => {
      if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT')) return;
      if (e.repeat) return;
      if (e.code === 'KeyR' || e.key === '?') this.toggle();
      else if (e.key === 'Escape' && this.open()) this.toggle(false);
    };
    window.addEventListener('keydown', this.onKey);
  }

  open() {
    return !!this.card && !this.card.hidden;
  }

  /** Shows (`true`), hides (`false`) or flips the card. */
  toggle(show = !this.open()) {
    if (!this.card) return;
    this.card.hidden = !show;
    if (this.button) this.button.setAttribute('aria-expanded', String(show));
  }

  destroy() {
    if (this.onKey) window.removeEventListener('keydown', this.onKey);
    if (this.card) this.card.remove();
    if (this.button) this.button.remove();
  }
}
