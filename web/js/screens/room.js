// A room, live: the connection, then the lobby, the game and the results as the room's
// state goes. Watching (`/watch/{code}`) is the same session without a seat: it waits for a
// round to be on, then says hello as a spectator.

import { api, me } from '../api.js';
import { seatColors } from '../art.js';
import { EMOTES } from '../effects.js';
import { Game } from '../game.js';
import { Connection } from '../net.js';
import { describe, method, recipe } from '../recipes.js';
import { clock, go, h, say, show, stars, starsImg, swatch } from '../ui.js';
import { mss, roundClock, whereNext } from '../outcome.js';
import { questList, standing } from './quests.js';

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
    // This session's quests and best stars per level (`/api/session`), once loaded.
    this.session = null;
    // The host's level was picked for them once (the highest unlocked); after that, theirs.
    this.picked = false;
    this.questsOpen = false;
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
        seatColors(m.seats);
        this.seat = m.you.seat;
        this.host = m.you.host;
        me.token = m.you.token;
        if (this.seat !== null) me.room = this.code;
        this.state = m.state;
        if (this.game) this.game.reconnected();
        break;
      case 'lobby': {
        const was = this.state;
        seatColors(m.seats);
        this.lobby = m;
        this.state = m.state;
        this.host = m.host_seat !== null && m.host_seat === this.seat;
        if (m.state === 'lobby') {
          const back = was === 'round_end' || was === 'playing';
          this.showLobby();
          if (back) this.refreshSession();
        }
        break;
      }
      case 'countdown':
        // A new round: the last round's quest toast has been read; this round's starts empty.
        this.clearQuests();
        this.state = 'countdown';
        this.ensureGame().then((g) => g && (g.countdown = m.n));
        break;
      case 'snap':
        // A frame that trails the round's end must not make a game screen over the results.
        if (this.state === 'round_end') break;
        this.state = 'playing';
        if (this.resumedNotice && !m.raw.full) {
          // The round ticks again: the wait is over.
          this.resumedNotice = false;
          say('');
        }
        if (this.game && this.gameLevel === this.currentLevel()) this.game.frame(m.raw);
        else this.ensureGame().then((g) => g && g.frame(m.raw));
        break;
      case 'round': {
        this.state = 'round_end';
        // "Back in the kitchen" was news of this round; its results are the news now.
        const bar = document.getElementById('notice');
        if (bar && bar.dataset.kind === 'resumed') say('');
        this.showResults(m);
        break;
      }
      case 'resumed': {
        // The round went on from its log after its server stopped.
        const seen = this.game && this.game.lastTick;
        const hz = (this.game && this.game.interp && this.game.interp.tickHz) || 20;
        const lost = seen && seen > m.tick ? ` (its last ${((seen - m.tick) / hz).toFixed(1)} s are played again)` : '';
        const waiting = m.waiting_for.length
          ? ` Waiting up to ${Math.ceil(m.wait_ms / 1000)} s for ${m.waiting_for.length === 1 ? 'one more cook' : `${m.waiting_for.length} more cooks`}\u2026`
          : '';
        say(`Back in the kitchen: the round goes on${lost}.${waiting}`, 'resumed');
        this.resumedNotice = Boolean(m.waiting_for.length);
        break;
      }
      case 'ev': {
        // A completed quest is said by its title, on whatever screen, in the live region.
        const quests = m.events.filter((e) => e.kind === 'quest');
        const rest = m.events.filter((e) => e.kind !== 'quest');
        if (quests.length) this.questsDone(quests);
        if (!rest.length) break;
        if (this.game) this.game.events(rest);
        else this.lobbyEvents(rest);
        break;
      }
      case 'err': {
        if (this.game) this.game.refused(m);
        // An input that crossed the round's end on the wire is refused as `wrong_state`
        // (so is a key pressed in the countdown): nothing the player did wrong, and no red
        // line over their results. The refusal can come before the `round` frame, which
        // follows the end by about a second, so the screen's state does not tell.
        const late = m.code === 'wrong_state' && /^input /.test(m.msg || '');
        if (m.code !== 'rate_limited' && !(m.code === 'bad_field' && m.seq !== null) && !late) say(m.msg, 'error');
        break;
      }
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
        h('span', { class: 'who' }, this.seat === null ? 'Watching' : [h('span', { class: 'wide-only' }, 'You are '), `seat ${this.seat + 1}`]));
      const emotes = this.seat === null ? null : h('div', { class: 'emotes' },
        Object.entries(EMOTES).map(([id, text]) => h('button', { class: 'small', onclick: () => this.conn.send({ type: 'emote', id }) }, text)));
      const title = this.levelInfo(level)?.name || level;
      const wrap = h('div', { class: 'game' }, h('h1', { class: 'sr-only' }, `Kitchen: ${title}`), hud, h('div', { class: 'stage' }, canvas), emotes);
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
    const [levels, session] = await Promise.all([
      api.levels().then((r) => r.levels).catch(() => []),
      standing(),
    ]);
    this.levels = levels;
    this.session = session;
    if (this.state === 'lobby' && !this.stopped) this.showLobby();
  }

  /** The session's quests and bests again (after a round, when they may have moved). */
  async loadSession() {
    this.session = await standing();
  }

  levelInfo(id) {
    return (this.levels || []).find((lv) => lv.id === id) || null;
  }

  bestStars(id) {
    const b = this.session && this.session.best && this.session.best[id];
    return b ? b.stars : 0;
  }

  /** Quest completions: their titles (looked up in the session; the event carries the id). */
  async questsDone(events) {
    let quests = (this.session && this.session.quests) || [];
    if (events.some((e) => !quests.some((q) => q.id === e.payload.quest))) {
      await this.loadSession();
      quests = (this.session && this.session.quests) || [];
    } else {
      this.loadSession();
    }
    const titles = events.map((e) => {
      const q = quests.find((x) => x.id === e.payload.quest);
      return q ? q.title : String(e.payload.quest).replace(/_/g, ' ');
    });
    // Every quest this round completed is named, however many frames told them.
    this.questTitles = [...(this.questTitles || []), ...titles.filter((t) => !(this.questTitles || []).includes(t))];
    const n = this.questTitles.length;
    say(`${n === 1 ? 'Quest' : `${n} quests`} complete: ${this.questTitles.join(', ')}`, 'quest');
  }

  /** The quest toast goes when the next round starts (it said last round's news). */
  clearQuests() {
    this.questTitles = [];
    const bar = document.getElementById('notice');
    if (bar && bar.dataset.kind === 'quest') say('');
  }

  showLobby() {
    this.endGame();
    if (!this.levels) {
      this.levels = [];
      this.loadLevels();
    }
    const l = this.lobby;
    // Create room and Quick play open with no level: the host's is their highest unlocked.
    if (this.host && !l.level && !this.picked && this.levels.length) {
      const top = highestUnlocked(this.levels, l.unlocked);
      this.picked = true;
      if (top) this.conn.send({ type: 'set_level', level: top.id });
    }
    const link = `${location.origin}/r/${this.code}`;
    const bySeat = new Map(l.seats.map((s) => [s.index, s]));
    // Every other seat a bot (Play solo): nobody can join, so no link, no ready flags.
    const alone = this.seat !== null && l.seats.length >= this.maxPlayers && l.seats.every((s) => s.index === this.seat || s.bot);
    // The host by themself in a room others can join (Quick play or Create room, nobody yet,
    // or everyone else gone away: the crown passed to whoever is here, with the bot offer).
    const others = l.seats.filter((s) => s.index !== this.seat);
    const gone = others.filter((s) => !s.bot && !s.connected);
    const waiting = this.host && this.maxPlayers > 1 && others.length === gone.length && l.seats.length < this.maxPlayers;
    const why = this.seat === null ? '' : startWhy(l, this.host);
    const seats = [];
    for (let i = 0; i < this.maxPlayers; i++) {
      const s = bySeat.get(i);
      if (!s) {
        seats.push(h('li', { class: 'seat empty' }, swatch(i), h('span', { class: 'name' }, 'Empty seat'),
          this.host ? h('button', { class: 'small', 'data-key': `add-bot-${i}`, 'aria-label': `Add bot to seat ${i + 1}`, onclick: () => this.bot(() => api.addBot(this.code, i)) }, 'Add bot') : null));
        continue;
      }
      seats.push(h('li', { class: 'seat', 'data-seat': i },
        swatch(i),
        h('span', { class: 'name' }, s.name),
        s.host ? h('span', { class: 'tag', title: 'host' }, '\u265B host') : null,
        s.bot ? h('span', { class: 'tag' }, 'bot') : null,
        alone ? null : s.ready ? h('span', { class: 'tag ok' }, 'ready') : h('span', { class: 'tag' }, 'not ready'),
        s.connected ? null : h('span', { class: 'tag warn' }, 'away'),
        i === this.seat ? h('span', { class: 'tag me' }, 'you') : null,
        this.host && s.bot ? h('button', { class: 'small', 'data-key': `remove-bot-${i}`, 'aria-label': `Remove bot from seat ${i + 1}`, onclick: () => this.bot(() => api.removeBot(this.code, i)) }, 'Remove bot') : null));
    }
    const picker = h('select', { id: 'level', disabled: !this.host, onchange: (e) => this.conn.send({ type: 'set_level', level: e.target.value }) },
      h('option', { value: '', disabled: true, selected: !l.level }, 'Pick a level'),
      (this.levels || []).map((lv) => {
        const best = this.bestStars(lv.id);
        return h('option', { value: lv.id, disabled: lv.unlocked === false, selected: lv.id === l.level },
          `${lv.order}. ${lv.name}${lv.unlocked === false ? ' (locked)' : ''}${lv.needs_team ? ' \u2014 needs a team or bots' : ''}${best ? ` \u2014 best ${stars(best)}` : ''}`);
      }));
    if (l.level && !(this.levels || []).some((lv) => lv.id === l.level)) picker.append(h('option', { value: l.level, selected: true }, l.level));
    const me_ = this.seat === null ? null : bySeat.get(this.seat);
    const empty = [];
    for (let i = 0; i < this.maxPlayers; i++) if (!bySeat.has(i)) empty.push(i);
    show('lobby',
      h('section', { class: 'panel', 'aria-labelledby': 'room-title' },
        h('h1', { id: 'room-title' }, `Room ${this.code}`),
        alone ? null : h('div', { class: 'field' }, h('label', { for: 'link' }, 'Room link'),
          h('div', { class: 'row' }, h('input', { id: 'link', readonly: true, value: link }),
            h('button', { class: 'small', id: 'copy-link', onclick: () => copy(link) }, 'Copy'))),
        waiting ? h('div', { class: 'waiting', id: 'waiting' },
          h('p', {}, gone.length
            ? `The other ${gone.length === 1 ? 'cook has' : 'cooks have'} gone away: the room is yours. Start when you like (nobody gone is waited for), wait for others with the link, or cook now with bots.`
            : 'You are the only cook here. Waiting for others: anyone with the link can join, and Quick play sends new players to this room. Or cook now with bots.'),
          h('button', { id: 'add-bots', onclick: () => this.addBots(empty) }, empty.length === 1 ? 'Add a bot' : `Add bots (${empty.length})`)) : null,
        h('ul', { class: 'seats', 'aria-label': 'Seats' }, seats),
        l.spectators.length ? h('p', { class: 'spectators' }, `Watching: ${l.spectators.map((s) => s.name).join(', ')}`) : null,
        h('div', { class: 'field' }, h('label', { for: 'level' }, 'Level'), picker),
        this.seat === null ? h('p', {}, 'You are watching: you get a seat when one frees up after a round.') : h('div', { class: 'row' },
          alone ? null : h('button', { id: 'ready', onclick: () => this.conn.send({ type: 'ready' }), 'aria-pressed': me_ && me_.ready ? 'true' : 'false' }, 'Ready'),
          h('button', { id: 'start', class: 'primary', disabled: !(this.host && l.can_start), 'aria-describedby': why ? 'start-why' : null, onclick: () => this.conn.send({ type: 'start' }) }, 'Start'),
          h('button', { id: 'leave', onclick: () => this.leave() }, 'Leave')),
        why ? h('p', { id: 'start-why', class: 'start-why' }, why) : null,
        // Emotes are for people: a room of bots (Play solo) has nobody to read them.
        this.seat === null || alone ? null : h('div', { class: 'row emotes', role: 'group', 'aria-label': 'Emotes' },
          Object.entries(EMOTES).map(([id, text]) => h('button', { class: 'small', 'data-key': `emote-${id}`, onclick: () => this.conn.send({ type: 'emote', id }) }, text))),
        this.questsPanel()),
      this.briefing(l.level));
  }

  /** The lobby's quests, folded away until asked for (and kept open across updates). */
  questsPanel() {
    const details = h('details', { class: 'quests-panel', id: 'quests-panel', open: this.questsOpen,
      ontoggle: (e) => (this.questsOpen = e.target.open) },
    h('summary', { id: 'quests-summary' }, 'Quests'),
    this.session ? questList(this.session.quests) : h('p', { class: 'quiet' }, 'Your quests show here once this browser has played a round.'));
    return details;
  }

  /** What the picked level asks: name, time, target, stars as clock times, recipes, hazards. */
  briefing(id) {
    const lv = id && this.levelInfo(id);
    if (!lv) {
      return h('section', { class: 'panel briefing', id: 'briefing', 'aria-labelledby': 'briefing-title' },
        h('h2', { id: 'briefing-title' }, 'The level'),
        h('p', { class: 'quiet' }, id ? 'Loading the level\u2026' : 'No level picked yet: the host picks one.'));
    }
    const limit = lv.time_limit_s;
    const thresholds = (lv.stars || [{ stars: 3, time_left_s: limit / 2 }, { stars: 2, time_left_s: limit / 4 }, { stars: 1, time_left_s: 0 }]);
    const weights = lv.recipe_weights || (lv.recipes || []).map((r) => ({ id: r, weight: 1 }));
    const total = weights.reduce((n, w) => n + w.weight, 0);
    const weighted = weights.some((w) => w.weight > 1);
    const best = this.bestStars(lv.id);
    return h('section', { class: 'panel briefing', id: 'briefing', 'aria-labelledby': 'briefing-title' },
      h('h2', { id: 'briefing-title' }, `Level ${lv.order}: ${lv.name}`),
      // Measured, not guessed (`/api/levels`' `alone`): a level one good player never wins alone.
      lv.needs_team ? h('p', { class: 'team-note', id: 'needs-team' },
        `Needs a team or bots: a good player alone won ${lv.alone.won} of ${lv.alone.of} test rounds here. Cook with friends, or add bots.`) : null,
      h('dl', { class: 'facts' },
        h('dt', {}, 'Time'), h('dd', { id: 'brief-time' }, clock(limit)),
        h('dt', {}, 'Target'), h('dd', { id: 'brief-target' }, `${lv.target} points`),
        h('dt', {}, 'Stars'), h('dd', { id: 'brief-stars' },
          h('ul', { class: 'thresholds' }, thresholds.map((t) => h('li', {},
            starsImg(t.stars, 'stars-small'), ' ',
            t.time_left_s > 0 ? `by ${clock(t.time_left_s)} left` : 'in time')))),
        best ? h('dt', {}, 'Your best') : null, best ? h('dd', {}, starsImg(best, 'stars-small')) : null),
      h('h3', {}, 'Recipes'),
      h('ul', { class: 'recipes', id: 'brief-recipes' }, weights.map((w) => {
        const r = recipe(w.id);
        return h('li', { class: 'recipe', 'data-recipe': w.id },
          h('div', { class: 'recipe-head' },
            h('span', { class: 'glyph', 'aria-hidden': 'true' }, r.glyph),
            h('strong', {}, r.name),
            weighted ? h('span', { class: 'tag' }, `${w.weight} in ${total} orders`) : null),
          h('p', { class: 'parts' }, describe(w.id).replace(`${r.name}: `, '')),
          h('ol', { class: 'steps' }, method(w.id).map((st) => h('li', {}, st))));
      })),
      h('h3', {}, 'Hazards'),
      h('ul', { class: 'hazards', id: 'brief-hazards' },
        (lv.hazards || []).length ? lv.hazards.map((z) => h('li', { 'data-hazard': z.kind }, hazardWords(z))) : h('li', {}, 'None: just cook.')));
  }

  /** Quick play alone: fill every empty seat with a bot. */
  async addBots(seats) {
    for (const i of seats) {
      try {
        await api.addBot(this.code, i);
      } catch (e) {
        say(e.message, 'error');
        return;
      }
    }
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
    const lv = this.levelInfo(r.level_id);
    const limit = lv ? lv.time_limit_s : null;
    const thresholds = lv && lv.stars ? lv.stars : limit ? [{ stars: 3, time_left_s: limit / 2 }, { stars: 2, time_left_s: limit / 4 }, { stars: 1, time_left_s: 0 }] : [];
    const reached = r.score >= r.target;
    // A level the viewer could not pick before this round (the lobby said how far they were).
    const before = this.lobby && this.lobby.unlocked;
    const opened = r.unlocked && this.levelInfo(r.unlocked);
    const fresh = opened && (before === null || before === undefined || opened.order > before) ? opened : null;
    const verdict = h('h1', { id: 'verdict', 'data-result': word }, `Round ${word}`);
    // One clock rule (outcome.js): the time left floored, the time used the rest.
    const time = limit ? roundClock(limit, reached ? r.time_left : 0) : null;
    const next = whereNext(this.levels || [], r.level_id, word === 'won', r.unlocked);
    show('results',
      h('section', { class: 'panel results' },
        verdict,
        lv ? h('p', { class: 'lead' }, `Level ${lv.order}: ${lv.name}`) : null,
        h('p', { class: 'stars' }, starsImg(r.stars)),
        fresh ? h('p', { class: 'unlocked', id: 'unlocked', role: 'status' }, `Level ${fresh.order} unlocked: ${fresh.name}`) : null,
        h('p', { id: 'final-score' }, `Score ${r.score} / ${r.target}`),
        time ? h('p', { id: 'round-time' }, `Time ${mss(time.used)} of ${mss(Math.floor(limit))}${reached ? ` \u00b7 ${mss(time.left)} left at the target` : ''}`) : null,
        thresholds.length ? h('table', { class: 'thresholds-table', id: 'thresholds' },
          h('caption', {}, 'Stars'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Stars'), h('th', { scope: 'col' }, 'Needs'), h('th', { scope: 'col' }, 'This round'))),
          h('tbody', {}, thresholds.map((t) => {
            const got = reached && time && time.left >= t.time_left_s;
            return h('tr', { class: got ? 'got' : '' },
              h('td', {}, starsImg(t.stars, 'stars-small')),
              h('td', {}, `${r.target} points${t.time_left_s > 0 ? ` with ${clock(t.time_left_s)} left` : ' in time'}`),
              h('td', {}, got ? '\u2713 yes' : reached ? `no (${mss(time ? time.left : 0)} left)` : `no (${r.score} points)`));
          }))) : null,
        h('table', {},
          h('caption', {}, 'Cooks'),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Cook'), h('th', { scope: 'col' }, 'Points'), h('th', { scope: 'col' }, 'Dishes'), h('th', { scope: 'col' }, 'Missed'))),
          h('tbody', {}, r.players.map((p) => h('tr', {},
            h('td', {}, swatch(Number(p.id.slice(1))), p.name, names.get(p.id)?.bot ? ' (bot)' : ''),
            h('td', {}, p.score), h('td', {}, p.dishes_served), h('td', {}, p.missed_contrib))))),
        h('p', { class: 'counters' }, `Served ${r.counters.served} \u00b7 missed ${r.counters.missed} \u00b7 wasted ${r.counters.wasted} \u00b7 dropped ${r.counters.lost_items} \u00b7 longest streak ${r.longest_streak}`),
        seated && next.note ? h('p', { id: 'next-why' }, next.note) : null,
        h('div', { class: 'row' },
          seated ? h('button', { class: 'primary', 'data-autofocus': true, 'aria-describedby': next.note ? 'next-why' : null, onclick: () => this.conn.send({ type: 'next_level' }) }, next.label) : null,
          seated ? h('button', { onclick: () => this.conn.send({ type: 'to_lobby' }) }, 'Lobby') : null,
          h('button', { onclick: () => this.leave() }, 'Home'))));
    // Best stars and quests may have moved with this round: the next lobby shows them.
    this.refreshSession();
  }

  /** Loads the session again (the round's result is written a moment after its end) and
   * redraws the lobby if that is where the room is. */
  async refreshSession() {
    await this.loadSession();
    if (this.state === 'lobby' && !this.stopped) this.showLobby();
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

/** Why Start is disabled, in words ('' when it is not). */
const REFUSALS = {
  no_level: 'Pick a level to start.',
  no_ready_players: 'Start waits for another player to press Ready.',
  wrong_state: 'The round is on its way.',
};

/**
 * Why Start is disabled, in words ('' when it is not): not being the host, or the reason the
 * lobby frame carries (`start_refusal`, the server's own rule; PROTOCOL.md).
 */
function startWhy(l, host) {
  if (!host) return 'The host starts the round.';
  if (l.can_start || !l.start_refusal) return '';
  return REFUSALS[l.start_refusal] || `Start is refused: ${l.start_refusal}.`;
}

/** The highest campaign level the viewer has unlocked (`unlocked` is its order). */
function highestUnlocked(levels, unlocked) {
  const open = levels.filter((lv) => lv.unlocked !== false && (unlocked === null || unlocked === undefined || lv.order <= unlocked));
  return open.reduce((top, lv) => (!top || lv.order > top.order ? lv : top), null);
}

/** A hazard of `/api/levels` in plain words. */
function hazardWords(z) {
  const s = (n) => `${Math.round(n * 10) / 10} s`;
  switch (z.kind) {
    case 'fire':
      return `Fire: a soup left on the stove ${s(z.burn_after_s)} after it is ready burns and catches fire, and fire spreads to the next station every ${s(z.spread_s)}. Press Act at a fire to put it out.`;
    case 'spills':
      return `Spills: one lands on the floor every ${s(z.every_s)}; stepping in it stops your cook for ${s(z.stun_s)}.`;
    case 'rush':
      return `Rush: from ${z.at_s.map(clock).join(' and ')} into the round, for ${s(z.len_s)}, orders come twice as fast and pay half again as much.`;
    case 'carts':
      return `Carts: ${z.count === 1 ? 'a cart loops' : `${z.count} carts loop`} through the kitchen; one that hits your cook stops it for ${s(z.stun_s)}.`;
    default:
      return z.kind;
  }
}
