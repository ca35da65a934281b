#!/usr/bin/env bash
# How long a node alone takes to resume its live rounds after `kill -9` (docs/PERFORMANCE.md,
# "A round outlives its server").
#
# usage: scripts/restart-resume.sh ROOMS [BIN]
#   ROOMS  rooms of the load generator (4 clients each, one planning bot a room)
#   BIN    the undercooked binary (default: target/release/undercooked)
# Starts `serve` on a fresh data dir, plays ROOMS rooms with `undercooked loadtest`, kills the
# server with SIGKILL 25 s in, starts it again on the same data dir and prints how long it
# took to answer HTTP and what its log said of the resumed rounds.
set -euo pipefail
rooms=${1:?usage: $0 ROOMS [BIN]}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${2:-$root/target/release/undercooked}
[ -x "$bin" ] || { echo "$0: no binary at $bin (cargo build --release)" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
data=$(mktemp -d "${TMPDIR:-/tmp}/restart-resume.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$data"' EXIT
# Every client is 127.0.0.1: the per-address shares are lifted, as the side-by-side does.
export UNDERCOOKED_MAX_CONNECTIONS_PER_IP=1000000 UNDERCOOKED_MAX_PENDING_SOCKETS=1000000 \
  UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP=1000000 UNDERCOOKED_REQUESTS_PER_S=1000000 \
  UNDERCOOKED_REQUEST_BURST=1000000 UNDERCOOKED_UPGRADES_PER_S=1000000 UNDERCOOKED_UPGRADE_BURST=1000000 \
  UNDERCOOKED_ROOMS_PER_SESSION=1000000 UNDERCOOKED_ROOMS_PER_IP=1000000 \
  UNDERCOOKED_NEW_SESSIONS_PER_MIN=100000 UNDERCOOKED_LOG=info
serve() { "$bin" serve --bind "127.0.0.1:$port" --data-dir "$data" --levels "$root/levels" > "$data/$1.log" 2>&1 & pid=$!; }
up() { for _ in $(seq 600); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && return 0; sleep 0.05; done; return 1; }
serve first; up
"$bin" loadtest --url "http://127.0.0.1:$port" --rooms "$rooms" --duration 60 --planners 1 --ramp 50 \
  --levels "$root/levels" > "$data/loadtest.out" 2>&1 &
sleep 25
echo "live rounds at the kill: $(curl -s "http://127.0.0.1:$port/api/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rooms"]["playing"])')"
kill -9 "$pid"; wait "$pid" 2>/dev/null || true
t0=$(date +%s.%N); serve second; up; t1=$(date +%s.%N)
echo "answering HTTP $(python3 -c "print(round($t1 - $t0, 2))") s after the start"
grep -E "resumed from their logs|is not resumed|could not be reopened" "$data/second.log" | cut -c1-240 || true
echo "RSS after: $(ps -o rss= -p "$pid") KiB"
