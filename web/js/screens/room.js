// A room, live: the connection, then the lobby, the game and the results as the room's
// state goes. Watching (`/watch/{code}`) is the same session without a seat: it waits for a
// round to be on, then says hello as a spectator.

import { api, me } from '../api.js';
import { EMOTES } from '../effects.js';
import { Game } from '../game.js';
import { Connection } from '../net.js';
import { seatColor } from '../render.js';
import { clock, go, h, say, show, stars } from '../ui.js';

const LEVEL_LAYOUTS = new Map();

async function layoutOf(id) {
  if (!LEVEL_LAYOUTS.has(id)) LEVEL_LAYOUTS.set(id, await api.level(id));
  return LEVEL_LAYOUTS.get(id);
}

export class RoomSession {
  constructor(code, { watch = false } = {}) {
    this.code = code;
    this.watch = watch;
    this.seat = null;
    this.host = false;
    this.lobby = null;
    this.state = null;
    this.game = null;
    this.gameLevel = null;
    this.levels = null;
    this.maxPlayers = 4;
    this.stopped = false;
    this.conn = null;
  }

  async start() {
    if (this.watch) {
      show('watch', h('section', { class: 'panel' }, h('h1', {}, `Watching ${this.code}`), h('p', { id: 'wait' }, 'Looking for the room\u2026')));
      while (!this.stopped) {
        try {
          const room = await api.room(this.code);
          this.maxPlayers = room.max_players;
          if (room.state !== 'lobby') break;
          document.getElementById('wait').textContent = 'The cooks are still in the lobby: the view opens when their round starts.';
        } catch (e) {
          document.getElementById('wait').textContent = e.message;
          return;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      if (this.stopped) return;
    } else {
      api.room(this.code).then((r) => (this.maxPlayers = r.max_players)).catch(() => {});
    }
    this.conn = new Connection({
      code: this.code,
      hello: () => ({ type: 'hello', p: 1, token: me.token, name: me.name || null }),
      onMessage: (m) => this.message(m),
      onStatus: (status, why) => this.status(status, why),
    });
    this.conn.open();
  }

  stop() {
    this.stopped = true;
    if (this.conn) this.conn.close();
    this.endGame();
  }

  /** The round's game screen is over: the next round (same level or not) makes a new one. */
  endGame() {
    if (this.game) this.game.stop();
    this.game = null;
    this.gameLevel = null;
    this.pendingGame = null;
    this.pendingLevel = null;
    this.gameMade = (this.gameMade || 0) + 1;
  }

  status(status, why) {
    if (status === 'open') say('');
    else if (status === 'reconnecting') say(why || 'Connecting\u2026');
    else if (status === 'closed') {
      say(why, 'error');
      this.endGame();
      if (why && why.includes('gone')) me.room = null;
      show('closed', h('section', { class: 'panel' }, h('h1', {}, 'Disconnected'), h('p', { class: 'why' }, why), h('button', { onclick: () => go('/') }, 'Home')));
    }
  }

  message(m) {
    switch (m.type) {
      case 'welcome':
        this.seat = m.you.seat;
        this.host = m.you.host;
        me.token = m.you.token;
        if (this.seat !== null) me.room = this.code;
        this.state = m.state;
        if (this.game) this.game.reconnected();
        break;
      case 'lobby':
        this.lobby = m;
        this.state = m.state;
        this.host = m.host_seat !== null && m.host_seat === this.seat;
        if (m.state === 'lobby') this.showLobby();
        break;
      case 'countdown':
        this.state = 'countdown';
        this.ensureGame().then((g) => g && (g.countdown = m.n));
        break;
      case 'snap':
        // A frame that trails the round's end must not make a game screen over the results.
        if (this.state === 'round_end') break;
        this.state = 'playing';
        if (this.game && this.gameLevel === this.currentLevel()) this.game.frame(m.raw);
        else this.ensureGame().then((g) => g && g.frame(m.raw));
        break;
      case 'round':
        this.state = 'round_end';
        this.showResults(m);
        break;
      case 'ev':
        if (this.game) this.game.events(m.events);
        else this.lobbyEvents(m.events);
        break;
      case 'err':
        if (this.game) this.game.refused(m);
        if (m.code !== 'rate_limited' && !(m.code === 'bad_field' && m.seq !== null)) say(m.msg, 'error');
        break;
      default:
        break;
    }
  }

  currentLevel() {
    return (this.lobby && this.lobby.level) || null;
  }

  /** The game screen for the room's level (made once per round). */
  async ensureGame() {
    const level = this.currentLevel();
    if (this.game && this.gameLevel === level) return this.game;
    if (this.pendingGame && this.pendingLevel === level) return this.pendingGame;
    this.pendingLevel = level;
    const made = this.gameMade;
    this.pendingGame = (async () => {
      const layout = await layoutOf(level);
      // Stopped, or the round ended while its layout loaded: this game is not wanted.
      if (this.stopped || made !== this.gameMade) return null;
      if (this.game) this.game.stop();
      const canvas = h('canvas', { id: 'kitchen', 'aria-label': 'The kitchen' });
      const hud = h('div', { class: 'hud' },
        h('span', { id: 'score' }, ''), h('span', { id: 'clock' }, ''), h('span', { id: 'ping' }, ''),
        h('span', { class: 'who' }, this.seat === null ? 'Watching' : `You are seat ${this.seat + 1}`));
      const emotes = this.seat === null ? null : h('div', { class: 'emotes' },
        Object.entries(EMOTES).map(([id, text]) => h('button', { class: 'small', onclick: () => this.conn.send({ type: 'emote', id }) }, text)));
      const wrap = h('div', { class: 'game' }, hud, h('div', { class: 'stage' }, canvas), emotes);
      show('game', wrap);
      const names = () => new Map((this.lobby ? this.lobby.seats : []).map((s) => [s.index, s.name]));
      const game = new Game({
        canvas,
        layout,
        tickHz: layout.tick_hz,
        seat: this.seat,
        names,
        send: (msg) => this.conn.send(msg),
        touchRoot: wrap,
        onView: (v) => {
          document.getElementById('score').textContent = `Score ${v.s} / ${v.tgt}`;
          document.getElementById('clock').textContent = clock(v.tl);
          const rtt = this.conn.rtt;
          document.getElementById('ping').textContent = rtt === null ? '' : `${Math.round(rtt)} ms`;
        },
      });
      game.rtt = () => this.conn.rtt || 0;
      game.start();
      this.game = game;
      this.gameLevel = level;
      this.pendingGame = null;
      return game;
    })();
    return this.pendingGame;
  }

  async loadLevels() {
    try {
      this.levels = (await api.levels()).levels;
    } catch {
      this.levels = [];
    }
    if (this.state === 'lobby') this.showLobby();
  }

  showLobby() {
    this.endGame();
    if (!this.levels) {
      this.levels = [];
      this.loadLevels();
    }
    const l = this.lobby;
    const link = `${location.origin}/r/${this.code}`;
    const bySeat = new Map(l.seats.map((s) => [s.index, s]));
    // Every other seat a bot (Play solo): nobody can join, so no link, no ready flags.
    const alone = this.seat !== null && l.seats.length >= this.maxPlayers && l.seats.every((s) => s.index === this.seat || s.bot);
    const why = this.seat === null ? '' : startWhy(l, this.host);
    const seats = [];
    for (let i = 0; i < this.maxPlayers; i++) {
      const s = bySeat.get(i);
      if (!s) {
        seats.push(h('li', { class: 'seat empty' }, h('span', { class: 'swatch', style: `background:${seatColor(i)}` }), h('span', { class: 'name' }, 'Empty seat'),
          this.host ? h('button', { class: 'small', onclick: () => this.bot(() => api.addBot(this.code, i)) }, 'Add bot') : null));
        continue;
      }
      seats.push(h('li', { class: 'seat', 'data-seat': i },
        h('span', { class: 'swatch', style: `background:${seatColor(i)}` }),
        h('span', { class: 'name' }, s.name),
        s.host ? h('span', { class: 'tag', title: 'host' }, '\u265B host') : null,
        s.bot ? h('span', { class: 'tag' }, 'bot') : null,
        alone ? null : s.ready ? h('span', { class: 'tag ok' }, 'ready') : h('span', { class: 'tag' }, 'not ready'),
        s.connected ? null : h('span', { class: 'tag warn' }, 'away'),
        i === this.seat ? h('span', { class: 'tag me' }, 'you') : null,
        this.host && s.bot ? h('button', { class: 'small', onclick: () => this.bot(() => api.removeBot(this.code, i)) }, 'Remove bot') : null));
    }
    const picker = h('select', { id: 'level', disabled: !this.host, onchange: (e) => this.conn.send({ type: 'set_level', level: e.target.value }) },
      h('option', { value: '', disabled: true, selected: !l.level }, 'Pick a level'),
      (this.levels || []).map((lv) => h('option', { value: lv.id, disabled: lv.unlocked === false, selected: lv.id === l.level },
        `${lv.order}. ${lv.name}${lv.unlocked === false ? ' (locked)' : ''}`)));
    if (l.level && !(this.levels || []).some((lv) => lv.id === l.level)) picker.append(h('option', { value: l.level, selected: true }, l.level));
    const me_ = this.seat === null ? null : bySeat.get(this.seat);
    show('lobby',
      h('section', { class: 'panel' },
        h('h1', {}, `Room ${this.code}`),
        alone ? null : h('div', { class: 'field' }, h('label', { for: 'link' }, 'Room link'),
          h('div', { class: 'row' }, h('input', { id: 'link', readonly: true, value: link }),
            h('button', { class: 'small', onclick: () => copy(link) }, 'Copy'))),
        h('ul', { class: 'seats' }, seats),
        l.spectators.length ? h('p', { class: 'spectators' }, `Watching: ${l.spectators.map((s) => s.name).join(', ')}`) : null,
        h('div', { class: 'field' }, h('label', { for: 'level' }, 'Level'), picker),
        this.seat === null ? h('p', {}, 'You are watching: you get a seat when one frees up after a round.') : h('div', { class: 'row' },
          alone ? null : h('button', { onclick: () => this.conn.send({ type: 'ready' }), 'aria-pressed': me_ && me_.ready ? 'true' : 'false' }, 'Ready'),
          h('button', { class: 'primary', disabled: !(this.host && l.can_start), 'aria-describedby': why ? 'start-why' : null, onclick: () => this.conn.send({ type: 'start' }) }, 'Start'),
          h('button', { onclick: () => this.leave() }, 'Leave')),
        why ? h('p', { id: 'start-why', class: 'start-why' }, why) : null,
        this.seat === null ? null : h('div', { class: 'row emotes' },
          Object.entries(EMOTES).map(([id, text]) => h('button', { class: 'small', onclick: () => this.conn.send({ type: 'emote', id }) }, text)))));
  }

  lobbyEvents(events) {
    for (const ev of events) {
      if (ev.kind !== 'emote' && ev.kind !== 'quest') continue;
      if (ev.kind === 'quest') {
        say(`Quest complete: ${ev.payload.quest} (${ev.payload.progress}/${ev.payload.target})`);
        continue;
      }
      const seat = Number(String(ev.payload.i || '').slice(1));
      const li = document.querySelector(`li.seat[data-seat="${seat}"]`);
      if (!li) continue;
      const bubble = h('span', { class: 'bubble' }, EMOTES[ev.payload.em] || ev.payload.em);
      li.append(bubble);
      setTimeout(() => bubble.remove(), 1800);
    }
  }

  async bot(call) {
    try {
      await call();
    } catch (e) {
      say(e.message, 'error');
    }
  }

  showResults(r) {
    this.endGame();
    this.state = 'round_end';
    const word = r.result || 'aborted';
    const seated = this.seat !== null;
    const names = new Map((this.lobby ? this.lobby.seats : []).map((s) => [`c${s.index}`, s]));
    show('results',
      h('section', { class: 'panel results' },
        h('h1', { id: 'verdict', 'data-result': word }, `Round ${word}`),
        h('p', { class: 'stars', 'aria-label': `${r.stars} stars` }, stars(r.stars)),
        h('p', { id: 'final-score' }, `Score ${r.score} / ${r.target}`),
        h('table', {},
          h('thead', {}, h('tr', {}, h('th', {}, 'Cook'), h('th', {}, 'Points'), h('th', {}, 'Dishes'), h('th', {}, 'Missed'))),
          h('tbody', {}, r.players.map((p) => h('tr', {},
            h('td', {}, h('span', { class: 'swatch', style: `background:${seatColor(Number(p.id.slice(1)))}` }), p.name, names.get(p.id)?.bot ? ' (bot)' : ''),
            h('td', {}, p.score), h('td', {}, p.dishes_served), h('td', {}, p.missed_contrib))))),
        h('p', { class: 'counters' }, `Served ${r.counters.served} \u00b7 missed ${r.counters.missed} \u00b7 wasted ${r.counters.wasted} \u00b7 dropped ${r.counters.lost_items} \u00b7 longest streak ${r.longest_streak}`),
        h('div', { class: 'row' },
          seated ? h('button', { class: 'primary', onclick: () => this.conn.send({ type: 'next_level' }) }, word === 'won' ? 'Next level' : 'Retry') : null,
          seated ? h('button', { onclick: () => this.conn.send({ type: 'to_lobby' }) }, 'Lobby') : null,
          h('button', { onclick: () => this.leave() }, 'Home'))));
  }

  leave() {
    me.room = null;
    this.stop();
    go('/');
  }
}

function copy(text) {
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text);
  else {
    const input = document.getElementById('link');
    input.select();
    document.execCommand('copy');
  }
  say('Room link copied.');
}

/**
 * Why Start is disabled, in words ('' when it is not): the server's two reasons (no level
 * picked; nobody but the host ready, unless the host is alone), or not being the host.
 */
function startWhy(l, host) {
  if (!host) return 'The host starts the round.';
  if (l.can_start) return '';
  if (!l.level) return 'Pick a level to start.';
  return 'Start waits for another player to press Ready.';
}
