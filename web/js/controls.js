// The player's hands: WASD or the arrows to move, Space or E to act, 1-4 for emotes; a
// gamepad when one is connected (left stick or d-pad, A to act, X/Y/B/LB for emotes); on a
// touch screen a stick (left) and an act button (right). `read()` gives the move held now;
// presses and emotes are reported as they happen.

export const EMOTE_KEYS = ['wave', 'cheer', 'thumbs_up', 'thumbs_down'];

const MOVE_KEYS = {
  KeyW: [0, -1], ArrowUp: [0, -1],
  KeyS: [0, 1], ArrowDown: [0, 1],
  KeyA: [-1, 0], ArrowLeft: [-1, 0],
  KeyD: [1, 0], ArrowRight: [1, 0],
};

export class Controls {
  /**
   * @param {HTMLElement} root where the touch controls go
   * @param {{onPress: () => void, onEmote: (id: string) => void}} o
   */
  constructor(root, { onPress, onEmote }) {
    this.onPress = onPress;
    this.onEmote = onEmote;
    this.held = new Set();
    this.touch = { x: 0, y: 0 };
    this.padButtons = [];
    this.down = (e) => this.key(e, true);
    this.up = (e) => this.key(e, false);
    this.blur = () => this.held.clear();
    window.addEventListener('keydown', this.down);
    window.addEventListener('keyup', this.up);
    window.addEventListener('blur', this.blur);
    this.touchUi = this.buildTouch(root);
  }

  key(e, down) {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT')) return;
    if (MOVE_KEYS[e.code]) {
      if (down) this.held.add(e.code);
      else this.held.delete(e.code);
      e.preventDefault();
    } else if (down && !e.repeat && (e.code === 'Space' || e.code === 'KeyE')) {
      this.onPress();
      e.preventDefault();
    } else if (down && !e.repeat && /^Digit[1-4]$/.test(e.code)) {
      this.onEmote(EMOTE_KEYS[Number(e.code.slice(5)) - 1]);
    }
  }

  buildTouch(root) {
    const ui = document.createElement('div');
    ui.className = 'touch';
    ui.innerHTML = '<div class="stick"><div class="knob"></div></div><button class="act" aria-label="Act">Act</button>';
    root.appendChild(ui);
    const stick = ui.querySelector('.stick');
    const knob = ui.querySelector('.knob');
    const move = (e) => {
      const r = stick.getBoundingClientRect();
      let x = (e.clientX - (r.left + r.width / 2)) / (r.width / 2);
      let y = (e.clientY - (r.top + r.height / 2)) / (r.height / 2);
      const m = Math.hypot(x, y);
      if (m > 1) {
        x /= m;
        y /= m;
      }
      this.touch = m < 0.2 ? { x: 0, y: 0 } : { x, y };
      knob.style.transform = `translate(${x * 30}px, ${y * 30}px)`;
    };
    stick.addEventListener('pointerdown', (e) => {
      stick.setPointerCapture(e.pointerId);
      move(e);
    });
    stick.addEventListener('pointermove', (e) => {
      if (stick.hasPointerCapture(e.pointerId)) move(e);
    });
    const release = () => {
      this.touch = { x: 0, y: 0 };
      knob.style.transform = '';
    };
    stick.addEventListener('pointerup', release);
    stick.addEventListener('pointercancel', release);
    ui.querySelector('.act').addEventListener('pointerdown', (e) => {
      e.preventDefault();
      this.onPress();
    });
    return ui;
  }

  /** The move held now, each axis -1..1 (keys, else the gamepad, else the touch stick). */
  read() {
    let x = 0;
    let y = 0;
    for (const code of this.held) {
      x += MOVE_KEYS[code][0];
      y += MOVE_KEYS[code][1];
    }
    x = Math.max(-1, Math.min(1, x));
    y = Math.max(-1, Math.min(1, y));
    if (x || y) {
      const m = Math.hypot(x, y);
      return { x: x / m, y: y / m };
    }
    const pad = this.readPad();
    if (pad) return pad;
    return this.touch;
  }

  readPad() {
    const pads = navigator.getGamepads ? navigator.getGamepads() : [];
    const pad = [...pads].find((p) => p && p.connected);
    if (!pad) return null;
    const pressed = (i) => !!(pad.buttons[i] && pad.buttons[i].pressed);
    const was = this.padButtons;
    const edge = (i) => pressed(i) && !was[i];
    if (edge(0)) this.onPress();
    [2, 3, 1, 4].forEach((b, k) => edge(b) && this.onEmote(EMOTE_KEYS[k]));
    this.padButtons = pad.buttons.map((b) => b.pressed);
    let x = pad.axes[0] || 0;
    let y = pad.axes[1] || 0;
    if (pressed(14)) x = -1;
    if (pressed(15)) x = 1;
    if (pressed(12)) y = -1;
    if (pressed(13)) y = 1;
    const m = Math.hypot(x, y);
    if (m < 0.25) return null;
    // Eight directions and two speeds: fewer changes to send than a raw stick.
    const a = Math.round(Math.atan2(y, x) / (Math.PI / 4)) * (Math.PI / 4);
    const s = m > 0.75 ? 1 : 0.5;
    return { x: Math.cos(a) * s, y: Math.sin(a) * s };
  }

  destroy() {
    window.removeEventListener('keydown', this.down);
    window.removeEventListener('keyup', this.up);
    window.removeEventListener('blur', this.blur);
    this.touchUi.remove();
  }
}
