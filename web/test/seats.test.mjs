// Seat colours come from the wire: the server's palette (written here by tests/client.rs from
// `log::PALETTE`) is what the client draws, and no client file holds a copy that could drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { NO_COLOR, seatColor, seatColors } from '../js/art.js';

const FIXTURE = process.env.UC_GAME_DATA_FIXTURE;
const data = FIXTURE ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : null;

test('each seat is drawn in the colour its lobby seat carries', { skip: !data }, () => {
  // A lobby frame's seats, as the room makes them: `color` from the server's palette.
  seatColors(data.palette.map((color, index) => ({ index, color })));
  data.palette.forEach((c, i) => assert.equal(seatColor(i), c, `seat ${i}`));
  // A replay's header names them `seat`; a colour the wire never sent is grey, not a guess.
  seatColors([{ seat: 2, color: '#123456' }]);
  assert.equal(seatColor(2), '#123456');
  assert.equal(seatColor(0), NO_COLOR);
});

test('no client file holds a seat colour of its own', { skip: !data }, () => {
  const dir = new URL('../js/', import.meta.url);
  const files = readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js'));
  for (const f of files) {
    const src = readFileSync(new URL(f, dir), 'utf8').toLowerCase();
    for (const c of data.palette) assert.ok(!src.includes(c.toLowerCase()), `${f} copies the seat colour ${c}`);
  }
  // Nor the palette it had before (Okabe–Ito in upper case).
  const art = readFileSync(new URL('art.js', dir), 'utf8');
  assert.doesNotMatch(art, /color:\s*'#/, 'art.js lists no seat colours');
});
