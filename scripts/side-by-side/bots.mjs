// The load of the side-by-side run (see README.md), for either server: ROOMS rooms x 4
// clients, each sending one input at 20 Hz once its room plays, counting the state frames it
// receives (Colyseus: onStateChange; Undercooked: `snap` frames).
//
// usage: node bots.mjs colyseus|undercooked     (or SERVER=colyseus|undercooked)
// env:   PORT      the server's port on 127.0.0.1 (required)
//        ROOMS     rooms, 4 clients each (default 1)
//        DURATION  seconds of the measuring window (default 10)
//        SETTLE    seconds between every client's first frame and the window (default 1)
//        LEVEL     the Undercooked level (default 01_first_kitchen)
//
// stdout, one JSON line each:
//   {"phase":"measuring",...}  when the window opens: every client is in a room that plays
//                              (Undercooked: its first `snap`, after the 3 s countdown;
//                              Colyseus: its first state) and SETTLE seconds have passed.
//                              run.sh starts reading the server's CPU on this line.
//   {"phase":"done",...}       after DURATION more seconds: what the clients received in
//                              the window. Then the sockets are closed and the process exits.
// A failure (a refused join, a timeout) goes to stderr with exit status 1.
import WebSocket from "ws";
import { Client } from "@colyseus/sdk";

const SERVER = process.argv[2] || process.env.SERVER;
const PORT = Number(process.env.PORT);
const ROOMS = Number(process.env.ROOMS || 1);
const DURATION = Number(process.env.DURATION || 10);
const SETTLE = Number(process.env.SETTLE ?? 1);
const LEVEL = process.env.LEVEL || "01_first_kitchen";
const SEATS = 4;
const INPUT_MS = 50; // 20 Hz
// Joins, plus Undercooked's countdown, must be done by then.
const LOAD_TIMEOUT_S = 30 + ROOMS * 0.5;

function die(msg) {
  console.error(`bots.mjs: ${msg}`);
  process.exit(1);
}
if (SERVER !== "colyseus" && SERVER !== "undercooked") die("say colyseus or undercooked (argument or SERVER)");
if (!(PORT > 0)) die("PORT is not set");
if (!(ROOMS >= 1) || !(DURATION > 0)) die("ROOMS and DURATION must be positive");

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const clients = []; // {frames, bytes, timer, close()}
const errors = {}; // refusals and unexpected closes, by code
const count = (what) => (errors[what] = (errors[what] || 0) + 1);
let closing = false;
let roundsEnded = 0;

// tick: the server's simulation tick in the last frame (kept by each room's first client),
// which tells its simulation rate apart from the frames' rate.
function newClient() {
  const c = { frames: 0, bytes: 0, playing: false, tick: null, timer: null, close: () => {} };
  clients.push(c);
  return c;
}

// ---- Undercooked: protocol v1 (docs/PROTOCOL.md) ----------------------------------------

const SNAP = Buffer.from('{"type":"snap"'); // how every snap frame begins (src/wire/snapshot.rs)
const isSnap = (d) => d.length > SNAP.length && d.compare(SNAP, 0, SNAP.length, 0, SNAP.length) === 0;
const TICK = /^\{"type":"snap","p":\d+,"raw":\{"t":(\d+)/; // the body's tick comes first

function ucSocket(code) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/ws/${code}`, { perMessageDeflate: false });
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

// Resolves with the first frame (not a snap) that `pred` accepts; rejects on an `err`.
function ucNext(ws, pred, what) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => done(reject, new Error(`no ${what} within 10 s`)), 10000);
    const h = (d) => {
      if (isSnap(d)) return;
      const f = JSON.parse(d);
      if (f.type === "err") done(reject, new Error(`err ${f.code} (${f.msg}) waiting for ${what}`));
      else if (pred(f)) done(resolve, f);
    };
    const done = (k, v) => {
      clearTimeout(t);
      ws.off("message", h);
      k(v);
    };
    ws.on("message", h);
  });
}

async function ucRoom() {
  const res = await fetch(`http://127.0.0.1:${PORT}/api/rooms`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bot0" }),
  });
  if (res.status !== 201) throw new Error(`POST /api/rooms: ${res.status} ${await res.text()}`);
  const body = await res.json();
  const code = body.room_code;
  const group = [];
  for (let i = 0; i < SEATS; i++) {
    const ws = await ucSocket(code);
    const welcome = ucNext(ws, (f) => f.type === "welcome", "welcome");
    // Seat 0 is the room's creator; the guests let the server mint their tokens.
    ws.send(JSON.stringify({ type: "hello", p: 1, token: i === 0 ? body.you.token : null, name: `bot${i}` }));
    const w = await welcome;
    if (w.you.seat !== i) throw new Error(`room ${code}: seat ${w.you.seat}, expected ${i}`);
    group.push(ws);
  }
  const host = group[0];
  // The host starts once the level is picked and its three guests are ready.
  const lobby = ucNext(
    host,
    (f) => f.type === "lobby" && f.level === LEVEL && f.can_start && f.seats.filter((s) => !s.host).every((s) => s.ready),
    "a lobby that can start",
  );
  for (let i = 1; i < SEATS; i++) group[i].send(JSON.stringify({ type: "ready" }));
  host.send(JSON.stringify({ type: "set_level", level: LEVEL }));
  await lobby;
  for (const ws of group) {
    const c = newClient();
    const keepTick = ws === host;
    let seq = 0;
    let k = Math.random() * 2 * Math.PI;
    ws.on("message", (d) => {
      c.bytes += d.length;
      if (isSnap(d)) {
        c.frames++;
        if (keepTick) c.tick = Number(TICK.exec(d.toString("latin1", 0, 64))?.[1] ?? NaN);
        if (!c.playing) {
          // The round is on: one input every 50 ms from now on (a circle, a press every 10th).
          c.playing = true;
          c.timer = setInterval(() => {
            k += 0.3;
            const move = { x: +(Math.cos(k) * 0.99).toFixed(3), y: +(Math.sin(k) * 0.99).toFixed(3) };
            ws.send(JSON.stringify({ type: "input", seq: ++seq, move, act: seq % 10 === 0, face: null }));
          }, INPUT_MS);
        }
        return;
      }
      const f = JSON.parse(d);
      if (f.type === "err") count(`err ${f.code}`);
      else if (f.type === "round") roundsEnded++;
    });
    ws.on("close", (code) => closing || count(`close ${code}`));
    c.close = () => ws.close();
  }
  host.send(JSON.stringify({ type: "start" }));
}

// ---- Colyseus ---------------------------------------------------------------------------

const colyseus = new Client(`http://127.0.0.1:${PORT}`);

async function cyRoom() {
  const first = await colyseus.create("kitchen");
  const group = [first];
  for (let i = 1; i < SEATS; i++) group.push(await colyseus.joinById(first.roomId));
  for (const room of group) {
    const c = newClient();
    const keepTick = room === first;
    room.onStateChange((state) => {
      c.frames++;
      c.playing = true;
      if (keepTick) c.tick = state.tick;
    });
    // Bytes: every message on the socket, as for Undercooked.
    room.connection?.transport?.ws?.addEventListener?.("message", (e) => {
      c.bytes += e.data.byteLength ?? e.data.length ?? 0;
    });
    room.onError((code, msg) => count(`error ${code} ${msg ?? ""}`.trim()));
    room.onLeave((code) => closing || count(`leave ${code}`));
    c.timer = setInterval(() => room.send("move", { dx: 1, dy: -1 }), INPUT_MS);
    c.close = () => room.leave().catch(() => {});
  }
}

// ---- the run ----------------------------------------------------------------------------

const t0 = Date.now();
const joinRoom = SERVER === "colyseus" ? cyRoom : ucRoom;
const loadTimer = setTimeout(() => die(`not every client had a frame after ${LOAD_TIMEOUT_S} s`), LOAD_TIMEOUT_S * 1000);
try {
  for (let r = 0; r < ROOMS; r++) await joinRoom();
} catch (e) {
  die(`joining room ${clients.length / SEATS + 1}: ${e.message}`);
}
const joinS = (Date.now() - t0) / 1000;
while (!clients.every((c) => c.playing)) await sleep(20);
clearTimeout(loadTimer);
await sleep(SETTLE * 1000);

const ticked = clients.filter((c) => c.tick !== null);
const k0 = ticked.map((c) => c.tick);
const f0 = clients.map((c) => c.frames);
const b0 = clients.map((c) => c.bytes);
const e0 = JSON.stringify(errors);
const w0 = performance.now();
console.log(JSON.stringify({ phase: "measuring", server: SERVER, rooms: ROOMS, clients: clients.length, join_s: joinS, load_s: (Date.now() - t0) / 1000 }));
await sleep(DURATION * 1000);
const secs = (performance.now() - w0) / 1000;
const fps = clients.map((c, i) => (c.frames - f0[i]) / secs);
const kbps = clients.map((c, i) => (c.bytes - b0[i]) / 1024 / secs);
const tickHz = ticked.map((c, i) => (c.tick - k0[i]) / secs);
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
const r2 = (x) => Math.round(x * 100) / 100;
console.log(
  JSON.stringify({
    phase: "done",
    server: SERVER,
    rooms: ROOMS,
    clients: clients.length,
    secs: r2(secs),
    frames_per_client_s: r2(mean(fps)),
    frames_per_client_s_min: r2(Math.min(...fps)),
    frames_per_client_s_max: r2(Math.max(...fps)),
    kb_in_per_client_s: r2(mean(kbps)),
    server_tick_hz: r2(mean(tickHz)), // the simulation's rate, seen from the frames' ticks
    errors, // over the whole run: joins and countdown included
    errors_before_window: JSON.parse(e0),
    ...(SERVER === "undercooked" ? { rounds_ended: roundsEnded } : {}),
  }),
);
// The load goes on a moment past the window, so that run.sh's reading (which starts a few
// milliseconds after this window) ends before the sockets close.
await sleep(1000);
closing = true;
for (const c of clients) {
  clearInterval(c.timer);
  c.close();
}
await sleep(200);
process.exit(0);
