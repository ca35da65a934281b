// The history a player can see (`/history`): a level's leaderboard (best teams by score and
// by time left), this browser's own rounds (date, level, result, stars, what its cook
// served) and a small plot of its scores on the picked level, drawn here as SVG.
// Everything comes from `GET /api/history/…` (docs/ROOMS.md); the plot's arithmetic is in
// `plot.js`, a pure module with its own test.

import { api, me } from '../api.js';
import { recipe } from '../recipes.js';
import { plotScores } from '../plot.js';
import { go, h, say, show, starsImg } from '../ui.js';

/** A whole number of seconds as m:ss (the server has already floored it). */
function mss(s) {
  if (s === null || s === undefined) return '\u2013';
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function when(unix) {
  return unix > 0 ? new Date(unix * 1000).toLocaleDateString() : 'unknown';
}

/** Replaces a box's content with the given nodes, leaving out the absent ones. */
function fill(box, ...nodes) {
  box.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined));
}

function team(t) {
  return t.map((c) => (c.bot ? `${c.name} (bot)` : c.name)).join(', ');
}

/** One leaderboard table: `by` is `score` or `time`. */
async function board(box, level, by, page) {
  let data;
  try {
    data = await api.board(level, by, page);
  } catch (e) {
    box.replaceChildren(h('p', { class: 'why' }, e.message));
    return;
  }
  const caption = by === 'score' ? 'Best score' : 'Most time left';
  const rows = data.rounds.map((r) => h('tr', {},
    h('td', {}, String(r.rank)),
    h('td', {}, team(r.team)),
    h('td', {}, `${r.score}`),
    h('td', {}, r.result === 'won' ? starsImg(r.stars) : 'lost'),
    h('td', {}, r.result === 'won' ? mss(r.time_left_s) : '0:00'),
    h('td', {}, when(r.started_at))));
  fill(box,
    h('table', { class: 'list', id: `board-${by}` },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ['#', 'Team', 'Score', 'Stars', 'Time left', 'Played'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: 6 }, by === 'time' ? 'No round of this level has been won yet.' : 'No round of this level has been played yet.')))),
    pager(page, data.more, (p) => board(box, level, by, p), caption));
}

/** Newer/older buttons for a paged table, named for what they page. */
function pager(page, more, to, what) {
  if (page === 0 && !more) return null;
  return h('div', { class: 'row' },
    page > 0 ? h('button', { class: 'small', 'aria-label': `${what}: previous page`, onclick: () => to(page - 1) }, 'Previous') : null,
    more ? h('button', { class: 'small', 'aria-label': `${what}: next page`, onclick: () => to(page + 1) }, 'Next') : null);
}

function served(list) {
  if (!list.length) return 'nothing';
  return list.map((s) => `${s.count}\u00d7 ${recipe(s.recipe).name}`).join(', ');
}

async function mine(box, page) {
  if (!me.token) {
    box.replaceChildren(h('p', { class: 'quiet' }, 'Play a round and your rounds show here.'));
    return;
  }
  let data;
  try {
    data = await api.myRounds(page);
  } catch (e) {
    const why = e.code === 'no_session' ? 'Play a round and your rounds show here.' : e.message;
    box.replaceChildren(h('p', { class: 'quiet' }, why));
    return;
  }
  const rows = data.rounds.map((r) => h('tr', { 'data-round': r.round_key },
    h('td', {}, when(r.started_at)),
    h('td', {}, r.level_name || r.level_id),
    h('td', {}, r.result),
    h('td', {}, starsImg(r.result === 'won' ? r.stars : 0)),
    h('td', {}, `${r.score} / ${r.target}`),
    h('td', {}, `${r.points}`),
    h('td', { class: 'served' }, served(r.served))));
  fill(box,
    rows.length ? h('table', { class: 'list', id: 'my-rounds' },
      h('caption', {}, 'Your rounds, newest first'),
      h('thead', {}, h('tr', {}, ['Date', 'Level', 'Result', 'Stars', 'Team score', 'Your points', 'You served'].map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, rows)) : h('p', { class: 'quiet' }, 'You have not finished a round yet.'),
    pager(page, data.more, (p) => mine(box, p), 'Your rounds'));
}

async function trend(box, level) {
  if (!me.token) {
    box.replaceChildren();
    return;
  }
  let data;
  try {
    data = await api.myLevel(level);
  } catch {
    box.replaceChildren();
    return;
  }
  box.replaceChildren(
    h('h2', {}, `Your score on ${data.name}`),
    data.rounds.length ? plotScores(data.rounds, data.target, data.name)
      : h('p', { class: 'quiet' }, 'You have not finished a round of this level yet.'));
}

export async function historyScreen() {
  show('history', h('section', { class: 'panel wide' }, h('h1', {}, 'History'), h('p', {}, 'Loading\u2026')));
  let levels;
  try {
    levels = (await api.levels()).levels;
  } catch (e) {
    say(e.message, 'error');
    return;
  }
  if (location.pathname !== '/history') return;
  const picker = h('select', { id: 'history-level', class: 'narrow' },
    levels.map((lv) => h('option', { value: lv.id }, `${lv.order}. ${lv.name}`)));
  const byScore = h('div', { id: 'board-score-box' });
  const byTime = h('div', { id: 'board-time-box' });
  const plot = h('div', { id: 'trend' });
  const rounds = h('div', { id: 'mine' });
  const pick = () => {
    board(byScore, picker.value, 'score', 0);
    board(byTime, picker.value, 'time', 0);
    trend(plot, picker.value);
  };
  picker.addEventListener('change', pick);
  show('history',
    h('section', { class: 'panel wide history' },
      h('h1', {}, 'History'),
      h('p', { class: 'lead' }, 'Every finished round on this server: the best teams of each level, and your own rounds.'),
      h('div', { class: 'field' }, h('label', { for: 'history-level' }, 'Level'), picker),
      h('h2', {}, 'Leaderboard'),
      h('div', { class: 'boards' }, byScore, byTime),
      plot,
      h('h2', {}, 'Your rounds'),
      rounds,
      h('div', { class: 'row' }, h('button', { onclick: () => go('/') }, 'Home'))));
  pick();
  mine(rounds, 0);
}
