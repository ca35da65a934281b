// The quests: each one's title, what counts towards it and this session's progress, from
// `GET /api/session`. A screen of its own (from home) and a panel in the lobby.

import { api, me } from '../api.js';
import { go, h, show } from '../ui.js';

/** This session's standing (`{quests, best, unlocked}`), or null without a session yet. */
export async function standing() {
  if (!me.token) return null;
  try {
    return await api.session();
  } catch {
    return null;
  }
}

/** The list of quests, done ones marked, with a progress bar each. */
export function questList(quests) {
  if (!quests || !quests.length) {
    return h('p', { class: 'quiet' }, 'No quests yet: finish a round and your progress shows here.');
  }
  return h('ul', { class: 'quests' }, quests.map((q) => {
    const shown = Math.min(q.progress, q.target);
    return h('li', { class: q.completed ? 'quest done' : 'quest', 'data-quest': q.id },
      h('div', { class: 'quest-head' },
        h('span', { class: 'quest-title' }, q.title),
        h('span', { class: q.completed ? 'tag ok' : 'tag' }, q.completed ? '\u2713 done' : `${shown} / ${q.target}`)),
      q.description ? h('p', { class: 'quest-what' }, q.description) : null,
      h('progress', { max: q.target, value: shown, 'aria-label': `${q.title}: ${shown} of ${q.target}` }));
  }));
}

export async function questsScreen() {
  show('quests', h('section', { class: 'panel' }, h('h1', {}, 'Quests'), h('p', {}, 'Loading\u2026')));
  const s = await standing();
  if (location.pathname !== '/quests') return;
  show('quests',
    h('section', { class: 'panel' },
      h('h1', {}, 'Quests'),
      s ? h('p', { class: 'lead' }, `${s.quests.filter((q) => q.completed).length} of ${s.quests.length} done \u00b7 levels unlocked up to ${s.unlocked}`)
        : h('p', { class: 'lead' }, 'Your quests are kept with this browser\u2019s session: play a round and they start counting.'),
      questList(s ? s.quests : []),
      h('div', { class: 'row' }, h('button', { onclick: () => go('/') }, 'Home'))));
}
