#!/bin/bash
# `undercooked loadtest` against three nodes at once (docs/SCALING.md): a throwaway PostgreSQL
# (initdb + pg_ctl on 127.0.0.1:$PGPORT, as the `postgres` user when run as root), three
# release `undercooked serve` nodes on 127.0.0.1:8791-8793 sharing it, and one loadtest of
# ROOMS rooms over the three (room i is created on node i mod 3, its guests join through the
# next node). Over the measuring window it reads each node's CPU (/proc) and tick histograms
# (two /metrics scrapes, as scripts/capacity.sh), PostgreSQL's CPU (every process of its
# postmaster's tree, /proc), and PostgreSQL's connections to the database (pg_stat_activity,
# sampled every second), and prints a row per node, then one JSON object with everything.
# usage: scripts/cluster-load.sh [ROOMS] [PLANNERS] [SECONDS]   (from the checkout, after
#        `cargo build --release`; defaults 300 rooms, 1 planner a room, 20 s)
# PGPORT (default 5499) picks PostgreSQL's port; PG_OPTS adds `-c name=value` settings
# (PostgreSQL's defaults otherwise: fsync and synchronous commits on). Work files, logs
# included, are in /tmp/uc-cluster-load (removed at the next run).
set -u
R=${1:-300}
K=${2:-1}
D=${3:-20}
PGPORT=${PGPORT:-5499}
PORTS=(8791 8792 8793)
W=/tmp/uc-cluster-load
cd "$(dirname "$0")/.."
UC=./target/release/undercooked
[ -x "$UC" ] || { echo "no $UC: run cargo build --release first" >&2; exit 2; }
BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$BIN" ] || { echo "no PostgreSQL in /usr/lib/postgresql/*/bin: apt-get install postgresql" >&2; exit 2; }

# PostgreSQL refuses to run as root: as root its binaries run as `postgres`.
as_pg() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups "$@"; else "$@"; fi
}
NODE_PIDS=()
stop_all() {
  for p in "${NODE_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${NODE_PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  [ -f "$W/pg/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$W/pg" -m fast -w stop > /dev/null
}
trap stop_all EXIT

# A stopped earlier run's PostgreSQL still holding the folder is stopped first.
[ -f "$W/pg/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$W/pg" -m fast -w stop > /dev/null 2>&1
rm -rf "$W"
mkdir -p "$W"
[ "$(id -u)" = 0 ] && chown postgres:postgres "$W"
as_pg "$BIN/initdb" -D "$W/pg" -U postgres --auth=trust --encoding=UTF8 --locale=C > "$W/initdb.log" 2>&1 \
  || { cat "$W/initdb.log" >&2; exit 2; }
as_pg "$BIN/pg_ctl" -D "$W/pg" -l "$W/pg/postgres.log" -w \
  -o "-p $PGPORT -k $W/pg -c listen_addresses=127.0.0.1 -c max_connections=200 ${PG_OPTS:-}" start > /dev/null \
  || { tail "$W/pg/postgres.log" >&2; exit 2; }
"$BIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U postgres undercooked || exit 2
PGPID=$(head -1 "$W/pg/postmaster.pid")
export UNDERCOOKED_DB="postgres://postgres@127.0.0.1:$PGPORT/undercooked"
export UNDERCOOKED_SESSION_KEY_FILE="$W/session.key"
# Every load client is 127.0.0.1: the per-address, pending-socket and new-session caps, shares and budgets are
# lifted, as capacity.sh does; a stopped node does not wait for its rounds.
export UNDERCOOKED_MAX_CONNECTIONS_PER_IP=1000000 UNDERCOOKED_MAX_PENDING_SOCKETS=1000000 \
  UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP=1000000 UNDERCOOKED_REQUESTS_PER_S=1000000 \
  UNDERCOOKED_REQUEST_BURST=1000000 UNDERCOOKED_UPGRADES_PER_S=1000000 UNDERCOOKED_UPGRADE_BURST=1000000 \
  UNDERCOOKED_ROOMS_PER_SESSION=1000000 UNDERCOOKED_ROOMS_PER_IP=1000000 \
  UNDERCOOKED_NEW_SESSIONS_PER_MIN=100000 UNDERCOOKED_DRAIN_GRACE_S=0
URLS=()
for port in "${PORTS[@]}"; do
  "$UC" serve --bind "127.0.0.1:$port" --data-dir "$W/node-$port" > "$W/node-$port.log" 2>&1 &
  NODE_PIDS+=($!)
  URLS+=(--url "http://127.0.0.1:$port")
done
for port in "${PORTS[@]}"; do
  for _ in $(seq 200); do curl -sf "127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
  curl -sf "127.0.0.1:$port/healthz" > /dev/null || { echo "node $port did not come up:" >&2; tail "$W/node-$port.log" >&2; exit 2; }
done

# utime+stime (clock ticks) of each node, then of every process of PostgreSQL's tree, by pid.
cpu() {
  for p in "${NODE_PIDS[@]}"; do echo "node $p $(awk '{print $14+$15}' /proc/$p/stat)"; done
  for p in $PGPID $(pgrep -P "$PGPID"); do
    [ -r /proc/$p/stat ] && echo "pg $p $(awk '{print $14+$15}' /proc/$p/stat)"
  done
}
# The window opens once every room had its countdown (loadtest's own rule: ROOMS/20 + 5 s).
DELAY=$(python3 -c "print($R/20+5)")
: > "$W/conns"
(
  sleep "$DELAY"
  cpu > "$W/c0"; date +%s.%N > "$W/t0"
  for port in "${PORTS[@]}"; do curl -s "127.0.0.1:$port/metrics" > "$W/m0-$port"; done
  end=$(python3 -c "import time; print(time.time()+$D)")
  while python3 -c "import time,sys; sys.exit(time.time()>=$end)"; do
    "$BIN/psql" -X -A -t -h 127.0.0.1 -p "$PGPORT" -U postgres -d postgres \
      -c "SELECT count(*) FROM pg_stat_activity WHERE datname = 'undercooked'" >> "$W/conns" 2>/dev/null
    sleep 1
  done
  cpu > "$W/c1"; date +%s.%N > "$W/t1"
  for port in "${PORTS[@]}"; do curl -s "127.0.0.1:$port/metrics" > "$W/m1-$port"; done
) &
SAMPLER=$!
"$UC" loadtest "${URLS[@]}" --rooms "$R" --duration "$D" --planners "$K" --json > "$W/lt.json" \
  || { echo "the loadtest failed" >&2; exit 2; }
wait "$SAMPLER"
python3 - "$W" "$R" "$D" "${PORTS[@]}" <<'PY'
import sys, json
W, R, D, ports = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def cpu(path):
    out = {}
    for line in open(path):
        kind, pid, ticks = line.split()
        out[(kind, pid)] = float(ticks)
    return out
c0, c1 = cpu(W + '/c0'), cpu(W + '/c1')
secs = float(open(W + '/t1').read()) - float(open(W + '/t0').read())
def share(kind):
    # A process born in the window counts from 0; one gone before its end is not counted.
    return {pid: (t - c0.get((k, pid), 0.0)) / 100 / secs for (k, pid), t in c1.items() if k == kind}
nodes_cpu = list(share('node').values())  # in the order the nodes were started
pg_cpu = sum(share('pg').values())
sys.path.insert(0, 'scripts')
from histogram import quantile
def q(port, name, p): return quantile(f'{W}/m0-{port}', f'{W}/m1-{port}', name, p)
lt = json.load(open(W + '/lt.json'))
conns = [int(x) for x in open(W + '/conns').read().split()]
rows = []
for i, (port, node) in enumerate(zip(ports, lt['nodes'])):
    l99, ticks = q(port, 'undercooked_tick_lateness_seconds', 0.99)
    rows.append({"node": node["node"], "rooms": node["rooms"], "sockets": node["clients"],
                 "tick_lateness_p99_le_ms": l99 * 1000, "ticks": ticks,
                 "core_share": round(nodes_cpu[i], 3),
                 "echo_p99_ms": node["echo_ms"]["p99"],
                 "snaps_per_client_s": round(node["snaps_per_client_s"], 2),
                 "errors": node["errors"], "closes": node["closes"]})
print(f"{'node':<16} {'rooms':>5} {'sockets':>7} {'tick late p99 ≤':>15} {'CPU (cores)':>11} {'echo p99':>9} {'snaps/s':>7}  errors")
for r in rows:
    print(f"{r['node']:<16} {r['rooms']:>5} {r['sockets']:>7} {r['tick_lateness_p99_le_ms']:>12.1f} ms {r['core_share']:>11.3f} {r['echo_p99_ms']:>6.1f} ms {r['snaps_per_client_s']:>7.2f}  {sum(r['errors'].values())}")
print(f"{'PostgreSQL':<16} {'':>5} {'':>7} {'':>15} {pg_cpu:>11.3f}")
if conns:
    print(f"PostgreSQL connections to the database: min {min(conns)} / max {max(conns)} over {len(conns)} samples")
print(f"loadtest: {lt['rooms_opened']} of {lt['rooms']} rooms opened, client CPU {lt['client_cpu_ms_per_room_s']:.2f} ms per room-second, window {secs:.1f} s")
print(json.dumps({"rooms": R, "planners": lt["planners"], "seconds": round(secs, 1), "nodes": rows,
                  "postgres_core_share": round(pg_cpu, 3),
                  "postgres_connections": {"min": min(conns) if conns else None, "max": max(conns) if conns else None, "samples": len(conns)},
                  "rooms_opened": lt["rooms_opened"], "errors": lt["errors"], "closes": lt["closes"],
                  "client_cpu_ms_per_room_s": round(lt["client_cpu_ms_per_room_s"], 2)}))
PY
