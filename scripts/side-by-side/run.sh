#!/usr/bin/env bash
# Side by side, in one run: the CPU of a Colyseus 0.17 server and of the Undercooked server
# while ROOMS rooms x 4 bot clients play on each at 20 Hz (README.md in this folder).
#
# usage: scripts/side-by-side/run.sh ROOMS SECONDS [BIN]
#   ROOMS    rooms on each server, 4 clients each (1-1000)
#   SECONDS  the measuring window (1-120), after a warm-up covering the joins and the countdown
#   BIN      the Undercooked binary (default: target/release/undercooked in this checkout)
# SIDE_BY_SIDE_DB=postgres://… runs Undercooked on that PostgreSQL (a cluster node: its
# history, and its rounds' live logs streamed for adoption) instead of a SQLite file.
# Prints one JSON line per server, then one with the ratios (Undercooked / Colyseus).
set -euo pipefail

case ${BASH_SOURCE[0]} in */*) here=${BASH_SOURCE[0]%/*} ;; *) here=. ;; esac
here=$(cd "$here" && pwd)
root=$(cd "$here/../.." && pwd)

die() { echo "run.sh: $*" >&2; exit 1; }
usage() { echo "usage: $0 ROOMS SECONDS [BIN]" >&2; exit 2; }

[ $# -ge 2 ] && [ $# -le 3 ] || usage
rooms=$1 secs=$2 bin=${3:-$root/target/release/undercooked}
[[ $rooms =~ ^[0-9]+$ ]] && [ "$rooms" -ge 1 ] && [ "$rooms" -le 1000 ] || die "ROOMS must be 1-1000, not '$rooms'"
# The window must end well inside the level's 150 s round (joins and countdown come first).
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 1 ] && [ "$secs" -le 120 ] || die "SECONDS must be 1-120, not '$secs'"
case $bin in /*) ;; *) bin=$PWD/$bin ;; esac

command -v node >/dev/null || die "node is not installed (Node.js 20 or newer, with npm, is needed)"
command -v npm >/dev/null || die "npm is not installed (it comes with Node.js)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || die "node $(node --version) is too old: Node.js 20 or newer is needed"
[ -e "$bin" ] || die "no Undercooked binary at $bin (cargo build --release, or give its path as BIN)"
[ -x "$bin" ] && [ -f "$bin" ] || die "$bin is not an executable file"
[ -r /proc/self/stat ] || die "/proc is needed to read the servers' CPU (Linux)"

# The Colyseus side's packages, exactly as package-lock.json pins them.
if [ ! -d "$here/node_modules" ]; then
  echo "run.sh: installing the Colyseus packages (npm ci) in $here" >&2
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >&2) || die "npm ci failed in $here"
fi

# The server sees only the settings this script gives it, whatever the shell exports.
while read -r v; do unset "$v"; done < <(compgen -e | grep '^UNDERCOOKED_' || true)
db_args=()
[ -n "${SIDE_BY_SIDE_DB:-}" ] && db_args=(--db "$SIDE_BY_SIDE_DB")

hz=$(getconf CLK_TCK)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/side-by-side.XXXXXX")
server_pid= bots_pid= sleep_pid=

stop() { # pid: TERM, then KILL after 10 s
  local pid=$1 i
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  trap - EXIT INT TERM HUP
  stop "$sleep_pid"; stop "$bots_pid"; stop "$server_pid"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# A sleep that a signal interrupts at once (the traps run without waiting for it to end).
pause() { sleep "$1" & sleep_pid=$!; wait "$sleep_pid" || true; sleep_pid=; }

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# utime and stime of a process (all its threads), in clock ticks; the fields after the
# command name, which is in parentheses and may hold spaces.
cpu_ticks() {
  local line rest
  read -r line < "/proc/$1/stat" || return 1
  rest=${line##*) }
  set -- $rest
  echo "${12} ${13}"
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
now() { date +%s.%N; }

# measure NAME PORT LOG: the server (server_pid) under the bots' load; prints its JSON line.
# Not in a pipeline or $(...): it sets bots_pid and server_pid for cleanup, and die exits.
measure() {
  local name=$1 port=$2 log=$3 i rc line u0 s0 u1 s1 t0 t1 rss
  # Up when it takes a TCP connection.
  for i in $(seq 300); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      rc=0; wait "$server_pid" || rc=$?; server_pid=
      tail -n 20 "$log" >&2; die "$name exited at start, status $rc (the end of its output is above, if any)"
    fi
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    [ "$i" -eq 300 ] && { tail -n 20 "$log" >&2; die "$name did not listen on 127.0.0.1:$port within 30 s"; }
    sleep 0.1
  done
  (cd "$here" && PORT=$port ROOMS=$rooms DURATION=$secs exec node bots.mjs "$name") \
    > "$tmp/$name.bots" 2> "$tmp/$name.bots.err" &
  bots_pid=$!
  # The warm-up: the bots say when every client plays (joins and countdown done).
  until grep -qs '"phase":"measuring"' "$tmp/$name.bots"; do
    if ! kill -0 "$bots_pid" 2>/dev/null; then
      cat "$tmp/$name.bots.err" >&2; die "the bots failed against $name (above)"
    fi
    kill -0 "$server_pid" 2>/dev/null || { tail -n 20 "$log" >&2; die "$name died during the warm-up"; }
    sleep 0.05
  done
  read -r u0 s0 < <(cpu_ticks "$server_pid") || die "$name died before the window"
  t0=$(now)
  pause "$secs"
  read -r u1 s1 < <(cpu_ticks "$server_pid") || die "$name died during the window"
  t1=$(now); rss=$(rss_kb "$server_pid")
  wait "$bots_pid" || { cat "$tmp/$name.bots.err" >&2; die "the bots failed against $name (above)"; }
  bots_pid=
  line=$(grep '"phase":"done"' "$tmp/$name.bots") || die "the bots against $name printed no result"
  stop "$server_pid"; server_pid=
  node -e '
    const [name, rooms, hz, u0, s0, u1, s1, t0, t1, rss, bots] = process.argv.slice(1);
    const b = JSON.parse(bots), wall = t1 - t0;
    const user = (u1 - u0) / hz / wall, total = (u1 - u0 + (s1 - s0)) / hz / wall;
    const r = (x, n) => Number(x.toFixed(n));
    const out = { server: name, rooms: +rooms, cpu_core_share: r(total, 3), user_core_share: r(user, 3),
      ms_per_room_s: r(total * 1000 / rooms, 2), rss_mb: r(rss / 1024, 1),
      frames_per_client_s: b.frames_per_client_s, frames_per_client_s_min: b.frames_per_client_s_min,
      kb_in_per_client_s: b.kb_in_per_client_s, server_tick_hz: b.server_tick_hz, clients: b.clients,
      secs: r(wall, 2) };
    if (Object.keys(b.errors).length) out.bot_errors = b.errors;
    if (b.rounds_ended) out.rounds_ended = b.rounds_ended;
    console.log(JSON.stringify(out));
  ' "$name" "$rooms" "$hz" "$u0" "$s0" "$u1" "$s1" "$t0" "$t1" "$rss" "$line"
}

# ---- Colyseus ---------------------------------------------------------------------------
port=$(free_port)
(cd "$here" && PORT=$port exec node colyseus-room.mjs) > "$tmp/colyseus.log" 2>&1 &
server_pid=$!
measure colyseus "$port" "$tmp/colyseus.log" > "$tmp/colyseus.json"
cat "$tmp/colyseus.json"

# ---- Undercooked ------------------------------------------------------------------------
# Every bot connects from 127.0.0.1: the per-address, pending-socket and new-session caps, shares and budgets
# are lifted (Colyseus has none).
port=$(free_port)
mkdir "$tmp/uc-data"
(cd "$tmp" && UNDERCOOKED_MAX_CONNECTIONS_PER_IP=1000000 UNDERCOOKED_MAX_PENDING_SOCKETS=1000000 \
  UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP=1000000 UNDERCOOKED_REQUESTS_PER_S=1000000 \
  UNDERCOOKED_REQUEST_BURST=1000000 UNDERCOOKED_UPGRADES_PER_S=1000000 UNDERCOOKED_UPGRADE_BURST=1000000 \
  UNDERCOOKED_ROOMS_PER_SESSION=1000000 UNDERCOOKED_ROOMS_PER_IP=1000000 \
  UNDERCOOKED_NEW_SESSIONS_PER_MIN=100000 \
  exec "$bin" serve --bind "127.0.0.1:$port" --data-dir "$tmp/uc-data" --levels "$root/levels" "${db_args[@]}") \
  > "$tmp/undercooked.log" 2>&1 &
server_pid=$!
measure undercooked "$port" "$tmp/undercooked.log" > "$tmp/undercooked.json"
cat "$tmp/undercooked.json"

node -e '
  const fs = require("fs");
  const [cy, uc] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const q = (a, b) => (b > 0 ? Number((a / b).toFixed(3)) : null);
  console.log(JSON.stringify({ ratio: "undercooked/colyseus", rooms: uc.rooms,
    total: q(uc.cpu_core_share, cy.cpu_core_share), user: q(uc.user_core_share, cy.user_core_share) }));
' "$tmp/colyseus.json" "$tmp/undercooked.json"
