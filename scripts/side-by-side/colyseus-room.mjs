// The Colyseus 0.17 side of the side-by-side run (see README.md): the room closest to one of
// ours that Colyseus offers out of the box, on loopback only.
//   - 4 players a room (our max_players);
//   - a 20 Hz simulation (our tick_hz) that applies each player's last input, and 20 Hz state
//     patches (our snapshot_hz): Colyseus sends a patch only when the state changed, and the
//     tick counter changes every simulation step;
//   - a flood guard: maxMessagesPerSecond 40 (our max_inputs_per_s; Colyseus's default is no
//     limit). Over it Colyseus closes the socket at once; ours answers rate_limited and closes
//     at the third in a row. The bots send 20 a second, so neither ever fires here;
//   - a dropped player's seat held 10 s (allowReconnection). Ours holds it 45 s; nothing
//     drops in a run, so the length does not matter to what is measured.
// usage: PORT=2567 node colyseus-room.mjs   (prints "listening <port>" once it accepts)
import { Server, Room } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { schema } from "@colyseus/schema";

const Player = schema({ x: "number", y: "number" });
const State = schema({ tick: "number", players: { map: Player } });

class Kitchen extends Room {
  maxClients = 4;
  patchRate = 50; // ms: 20 Hz patches (Colyseus's default, set here so it is explicit)
  maxMessagesPerSecond = 40;
  // Every number set explicitly: a schema() field starts undefined, and `undefined + 1` is
  // NaN, which Colyseus encodes with a console.log line each patch (the harness this one
  // replaced spent much of its Colyseus CPU writing those lines to its log).
  state = new State({ tick: 0 });

  onCreate() {
    this.inputs = new Map(); // sessionId -> the last "move" it sent
    this.onMessage("move", (client, m) => {
      this.inputs.set(client.sessionId, m);
    });
    this.setSimulationInterval(() => {
      this.state.tick++;
      for (const [id, m] of this.inputs) {
        const p = this.state.players.get(id);
        if (p) {
          p.x += m.dx | 0;
          p.y += m.dy | 0;
        }
      }
    }, 50);
  }

  onJoin(client) {
    this.state.players.set(client.sessionId, new Player({ x: 0, y: 0 }));
  }

  async onDrop(client) {
    await this.allowReconnection(client, 10);
  }

  onLeave(client) {
    this.state.players.delete(client.sessionId);
    this.inputs.delete(client.sessionId);
  }
}

const port = Number(process.env.PORT || 2567);
const gameServer = new Server({ transport: new WebSocketTransport() });
gameServer.define("kitchen", Kitchen);
await gameServer.listen(port, "127.0.0.1");
console.log(`listening ${port}`);
