// The page: which screen a path shows. `/` home, `/r/{code}` a room (rejoined at once when
// this browser holds a seat there, else its join screen), `/watch/{code}` watching a room,
// `/replays` the list, `/replays/{id}` the viewer, `/quests` the quests, `/history` the
// leaderboards and this browser's own rounds.

import { api, me } from './api.js';
import { home, joinScreen } from './screens/home.js';
import { historyScreen } from './screens/history.js';
import { questsScreen } from './screens/quests.js';
import { replayList, Viewer } from './screens/replays.js';
import { RoomSession } from './screens/room.js';
import { say } from './ui.js';

let current = null;

function route() {
  if (current) current.stop();
  current = null;
  say('');
  const parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'r' && parts[1]) {
    const code = parts[1].toUpperCase();
    if (me.room === code && me.token) {
      current = new RoomSession(code);
      current.start();
    } else {
      joinScreen(code);
    }
  } else if (parts[0] === 'watch' && parts[1]) {
    current = new RoomSession(parts[1].toUpperCase(), { watch: true });
    current.start();
  } else if (parts[0] === 'replays' && parts[1]) {
    current = new Viewer(parts[1]);
    current.start();
  } else if (parts[0] === 'replays') {
    replayList(0);
  } else if (parts[0] === 'quests') {
    questsScreen();
  } else if (parts[0] === 'history') {
    historyScreen();
  } else {
    home();
  }
}

// The game's data (recipes) comes with the levels: asked once before the first screen, so
// a ticket drawn at once (a room link, a replay) already knows its recipe. Without an
// answer the screens still draw, and each asks again for the levels it shows.
const gameData = api.levels().catch(() => null);

window.addEventListener('popstate', route);
document.getElementById('home-link').addEventListener('click', (e) => {
  e.preventDefault();
  if (current) current.stop();
  history.pushState({}, '', '/');
  route();
});
gameData.then(route);
