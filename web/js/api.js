// The HTTP side of the server, and what the browser remembers (the token and the name,
// in localStorage: the token is the player's session, so one token serves every room).
// Every `/api/levels` answer also hands the game's recipes to `recipes.js`.

import { setRecipes } from './recipes.js';

const KEY = { token: 'uc.token', name: 'uc.name', room: 'uc.room' };

export const me = {
  get token() {
    return localStorage.getItem(KEY.token);
  },
  set token(t) {
    if (t) localStorage.setItem(KEY.token, t);
  },
  get name() {
    return localStorage.getItem(KEY.name) || '';
  },
  set name(n) {
    localStorage.setItem(KEY.name, n);
  },
  /** The room this browser holds a seat in (a reload there rejoins it). */
  get room() {
    return localStorage.getItem(KEY.room);
  },
  set room(code) {
    if (code) localStorage.setItem(KEY.room, code);
    else localStorage.removeItem(KEY.room);
  },
};

export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    super((body && body.msg) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.code;
    /** Seconds the server asked to wait before trying again (`Retry-After`), if it did. */
    this.retryAfter = retryAfter;
  }
}

async function call(method, path, body, auth) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (auth && me.token) headers.Authorization = `Bearer ${me.token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, data, Number(res.headers.get('retry-after')) || undefined);
  return data;
}

function seatBody() {
  const body = {};
  if (me.token) body.token = me.token;
  if (me.name) body.name = me.name;
  return body;
}

/** A room reservation (create, join, quick, solo): remembers the token it gave, and, in
 *  a cluster, the address of the room's own node for its socket (`ws_url`). */
async function reserve(path) {
  let r;
  for (let attempt = 1; ; attempt += 1) {
    try {
      r = await call('POST', path, seatBody());
      break;
    } catch (e) {
      // A 503 that says when to ask again (quick play busy for a moment, the database
      // back in a second or two) is asked again, twice, before the player is told.
      const wait = e instanceof ApiError && e.status === 503 ? e.retryAfter : undefined;
      if (!wait || wait > 2 || attempt >= 3) throw e;
      await new Promise((done) => setTimeout(done, wait * 1000));
    }
  }
  me.token = r.you.token;
  rememberSocket(r.room_code, r.ws_url);
  return r;
}

const SOCKET_KEY = (code) => `uc.ws.${code}`;

function rememberSocket(code, url) {
  if (code && typeof url === 'string' && /^wss?:\/\//.test(url)) sessionStorage.setItem(SOCKET_KEY(code), url);
}

/** Where room `code`'s socket is: the node that holds it, as the server said (a cluster of
 *  several nodes), else this page's own server. Asks the server when this tab was never
 *  told (a reload elsewhere, or watching by code). */
/** Forgets where a room's socket was: after a drop the room may have moved (a resumed or
 * adopted round), so the next connect asks its status again. */
export function forgetSocket(code) {
  sessionStorage.removeItem(SOCKET_KEY(code));
}

/** Where room `code`'s socket is; `null` while the room is moving to another node (its
 * server stopped and another is taking its round over: ask again in a moment). */
export async function socketUrl(code) {
  let url = sessionStorage.getItem(SOCKET_KEY(code));
  if (!url) {
    try {
      rememberSocket(code, (await call('GET', `/api/rooms/${encodeURIComponent(code)}`)).ws_url);
    } catch (e) {
      if (e instanceof ApiError && e.status === 503) return null;
      // No such room, or no answer: the socket's own refusal will say so.
    }
    url = sessionStorage.getItem(SOCKET_KEY(code));
  }
  if (url) return url;
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${proto}://${location.host}/ws/${encodeURIComponent(code)}`;
}

export const api = {
  create: () => reserve('/api/rooms'),
  quick: () => reserve('/api/rooms/quick'),
  solo: () => reserve('/api/rooms/solo'),
  join: (code) => reserve(`/api/rooms/${encodeURIComponent(code)}/join`),
  room: (code) => call('GET', `/api/rooms/${encodeURIComponent(code)}`),
  levels: () => call('GET', '/api/levels', undefined, true).then((r) => {
    if (r) setRecipes(r.recipes, r.tip_max);
    return r;
  }),
  session: () => call('GET', '/api/session', undefined, true),
  level: (id) => call('GET', `/api/levels/${encodeURIComponent(id)}`),
  addBot: (code, seat) => call('POST', `/api/rooms/${encodeURIComponent(code)}/bots`, seat === undefined ? {} : { seat }, true),
  removeBot: (code, seat) => call('DELETE', `/api/rooms/${encodeURIComponent(code)}/bots/${seat}`, undefined, true),
  replays: (page) => call('GET', `/api/replays?page=${page}`),
  replay: (id) => call('GET', `/api/replays/${encodeURIComponent(id)}`),
  frames: (id) => call('GET', `/api/replays/${encodeURIComponent(id)}/frames`),
  board: (level, by, page) => call('GET', `/api/history/levels/${encodeURIComponent(level)}?by=${by}&page=${page}`),
  myRounds: (page) => call('GET', `/api/history/me?page=${page}`, undefined, true),
  myLevel: (level) => call('GET', `/api/history/me/levels/${encodeURIComponent(level)}`, undefined, true),
};
