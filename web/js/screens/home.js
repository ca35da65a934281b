// The home screen (name, play solo, create, quick play, join or watch by code, replays,
// quests, how to play) and the join screen a room link opens.

import { api, me } from '../api.js';
import { go, h, say, show } from '../ui.js';

function nameField() {
  const input = h('input', { id: 'name', maxlength: 16, autocomplete: 'nickname', placeholder: 'Your cook\u2019s name', value: me.name });
  input.addEventListener('input', () => (me.name = input.value.trim()));
  return h('div', { class: 'field' }, h('label', { for: 'name' }, 'Name'), input);
}

// A cook with no name gets one of these (not the server's stand-in, "Cook", which tells
// nobody apart), shown in the Name field so it can be changed.
const HERBS = ['Basil', 'Sage', 'Thyme', 'Mint', 'Dill', 'Chive', 'Fennel', 'Saffron', 'Parsley', 'Rosemary', 'Oregano', 'Tarragon'];

function nameSomeone() {
  if (me.name) return;
  me.name = `Chef ${HERBS[Math.floor(Math.random() * HERBS.length)]}`;
  const field = document.getElementById('name');
  if (field) field.value = me.name;
}

async function enter(reserve) {
  say('');
  nameSomeone();
  try {
    const r = await reserve();
    me.room = r.room_code;
    go(`/r/${r.room_code}`);
  } catch (e) {
    say(e.message, 'error');
  }
}

const HOW = [
  ['Move', 'WASD or the arrow keys (a gamepad\u2019s stick, or the stick on a touch screen).'],
  ['Act', 'Space or E: pick up, put down, chop, plate, serve, wash, put out a fire.'],
  ['Emotes', '1 to 4.'],
  ['Cook', 'Take a tomato from its shelf, chop it on a board, put three in a pot, wait, plate the soup, serve it before the order runs out. Wash the plates that come back.'],
];

export function home() {
  const code = h('input', { id: 'code', maxlength: 5, autocapitalize: 'characters', placeholder: 'ABCDE' });
  const roomCode = () => code.value.trim().toUpperCase();
  show(
    'home',
    h('section', { class: 'panel' },
      h('h1', {}, 'Undercooked'),
      h('p', { class: 'lead' }, 'A co-op kitchen for up to four cooks. Serve the orders before they run out.'),
      nameField(),
      h('div', { class: 'row' },
        h('button', { class: 'primary', onclick: () => enter(api.solo) }, 'Play solo'),
        h('button', { onclick: () => enter(api.create) }, 'Create room'),
        h('button', { onclick: () => enter(api.quick) }, 'Quick play')),
      h('div', { class: 'field' }, h('label', { for: 'code' }, 'Room code'), code),
      h('div', { class: 'row' },
        h('button', { onclick: () => roomCode() && enter(() => api.join(roomCode())) }, 'Join'),
        h('button', { onclick: () => roomCode() && go(`/watch/${roomCode()}`) }, 'Watch'),
        h('button', { onclick: () => go('/replays') }, 'Replays'),
        h('button', { onclick: () => go('/quests') }, 'Quests'),
        h('button', { onclick: () => go('/history') }, 'History'))),
    h('section', { class: 'panel how' },
      h('h2', {}, 'How to play'),
      h('dl', {}, HOW.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))),
  );
}

/** A room link opened by someone without a seat there: their name, then Join (or Watch). */
export function joinScreen(code) {
  show(
    'join',
    h('section', { class: 'panel' },
      h('h1', {}, `Room ${code}`),
      h('p', {}, 'You were invited to cook. Pick a name and join.'),
      nameField(),
      h('div', { class: 'row' },
        h('button', { class: 'primary', onclick: () => enter(() => api.join(code)) }, 'Join'),
        h('button', { onclick: () => go(`/watch/${code}`) }, 'Watch'),
        h('button', { onclick: () => go('/') }, 'Home'))),
  );
}
