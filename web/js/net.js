// One room's WebSocket: `hello` on every (re)connect, pings for the latency readout, and
// the close codes as the protocol gives them. 1000, 1001, 1006 and 1012 (a drop, a server
// restart, a broken network, a handoff) reconnect with back-off and rejoin the same seat
// with the stored token, asking the room's status first: a round resumed or adopted after
// its server stopped may be on another node now; 4400-4404 are final, with a sentence
// saying why.

import { forgetSocket, socketUrl } from './api.js';

export const FINAL = {
  4400: 'This server speaks another version of the game (or the page took too long to say hello).',
  4401: 'This room is gone: it closed, or it never existed.',
  4402: 'This room is full.',
  4403: 'You opened this seat somewhere else (another tab or window took it).',
  4404: 'The server closed the connection: too many messages, too fast.',
};

const BACKOFF_MS = [300, 600, 1200, 2500, 5000, 8000];
/** How often a page asks again while its room moves: an adoption ends within seconds, and
 * the seat is kept only `UNDERCOOKED_RESUME_WAIT_S` (20 s) for the cooks to come back. */
const MOVING_MS = 1000;

/** What the page says while its round moves to a restarted or another server. */
const MOVED = 'The kitchen moved \u2014 reconnecting\u2026';

export class Connection {
  /**
   * @param {{code: string, hello: () => object, onMessage: (m: object) => void,
   *          onStatus: (status: string, why?: string) => void}} o
   */
  constructor({ code, hello, onMessage, onStatus }) {
    this.code = code;
    this.hello = hello;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.tries = 0;
    this.stopped = false;
    this.rtt = null;
    this.pingTimer = null;
    this.retryTimer = null;
  }

  async open() {
    this.stopped = false;
    // A retry keeps the line that says why (a drop, a move) until the socket is back.
    if (!this.tries) this.onStatus('connecting');
    const url = await socketUrl(this.code);
    if (this.stopped) return;
    if (url === null) {
      // The room is moving: no socket yet, ask again after the back-off.
      this.retry(MOVED, MOVING_MS);
      return;
    }
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify(this.hello()));
      this.ping();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.ping(), 2000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === 'welcome') {
        this.tries = 0;
        this.onStatus('open');
      }
      if (msg.type === 'pong') {
        const rtt = performance.now() - msg.t;
        this.rtt = this.rtt === null ? rtt : this.rtt * 0.8 + rtt * 0.2;
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws || this.stopped) return;
      if (FINAL[ev.code]) {
        this.stopped = true;
        this.onStatus('closed', FINAL[ev.code]);
        return;
      }
      forgetSocket(this.code);
      // 1012: the server handed its rounds over and comes back (a handoff).
      this.retry(ev.code === 1012 ? MOVED : `Connection lost (${ev.code}); trying again…`);
    };
  }

  /** Opens again after the back-off (or after `wait` ms, for a room that is moving). */
  retry(why, wait) {
    if (wait === undefined) wait = BACKOFF_MS[Math.min(this.tries, BACKOFF_MS.length - 1)];
    this.tries += 1;
    this.onStatus('reconnecting', why);
    this.retryTimer = setTimeout(() => this.open(), wait);
  }

  ping() {
    this.send({ type: 'ping', t: Math.floor(performance.now()) });
  }

  send(obj) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** Leaves for good (no reconnect). */
  close() {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close(1000);
  }
}
