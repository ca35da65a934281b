#!/bin/bash
# One row of docs/PERFORMANCE.md's capacity table: start `undercooked serve` (release build),
# load it with `undercooked loadtest --rooms ROOMS --duration 20`, and over the same window
# read the server's CPU (/proc), its RSS, and the tick histograms (two /metrics scrapes).
# usage: scripts/capacity.sh ROOMS [PLANNERS]   (from the checkout, after `cargo build --release`)
# PLANNERS (1-4, default 4): seats a room whose bot plans from the frames; the rest walk.
# CAPACITY_DB=postgres://USER@HOST:PORT/DATABASE attaches that PostgreSQL database as the
# server's history (`serve --db`) instead of the SQLite one in /tmp/lt: the same row, measured
# with PostgreSQL. The database must exist; the row's "db" says which one was used. Its
# session key is kept in /tmp/lt-session.key (the database remembers the key's fingerprint,
# so every run must bring the same one), and the node drains for 0 s when the next run stops
# it.
set -u
R=$1
K=${2:-4}
DB=${CAPACITY_DB:-}
cd "$(dirname "$0")/.."
pkill -f "serve --bind 127.0.0.1:8790"
# A server left with a thousand rooms takes a while to go: wait, or the new one cannot bind.
for _ in $(seq 100); do pgrep -f "serve --bind 127.0.0.1:8790" > /dev/null || break; sleep 0.1; done
rm -rf /tmp/lt
# Every load client is 127.0.0.1: the per-address, pending-socket and new-session caps and the shares and budgets are lifted.
if [ -n "$DB" ]; then
  export UNDERCOOKED_SESSION_KEY_FILE=/tmp/lt-session.key UNDERCOOKED_DRAIN_GRACE_S=0
fi
(UNDERCOOKED_MAX_CONNECTIONS_PER_IP=1000000 UNDERCOOKED_MAX_PENDING_SOCKETS=1000000 \
  UNDERCOOKED_MAX_PENDING_SOCKETS_PER_IP=1000000 UNDERCOOKED_REQUESTS_PER_S=1000000 \
  UNDERCOOKED_REQUEST_BURST=1000000 UNDERCOOKED_UPGRADES_PER_S=1000000 UNDERCOOKED_UPGRADE_BURST=1000000 \
  UNDERCOOKED_ROOMS_PER_SESSION=1000000 UNDERCOOKED_ROOMS_PER_IP=1000000 \
  UNDERCOOKED_NEW_SESSIONS_PER_MIN=100000 \
  ./target/release/undercooked serve --bind 127.0.0.1:8790 --data-dir /tmp/lt ${DB:+--db "$DB"} > /tmp/lt.log 2>&1 &)
# Up once it answers (a PostgreSQL history takes longer to open than 1.5 s, at most 15 s).
for _ in $(seq 150); do curl -sf 127.0.0.1:8790/healthz > /dev/null && break; sleep 0.1; done
SPID=$(pgrep -f "serve --bind 127.0.0.1:8790")
DELAY=$(python3 -c "print($R/20+5)")
( sleep $DELAY; awk '{print $14+$15, $14}' /proc/$SPID/stat > /tmp/c0; date +%s.%N > /tmp/t0; curl -s 127.0.0.1:8790/metrics > /tmp/m0; sleep 20; awk '{print $14+$15, $14}' /proc/$SPID/stat > /tmp/c1; date +%s.%N > /tmp/t1; curl -s 127.0.0.1:8790/metrics > /tmp/m1; grep VmRSS /proc/$SPID/status > /tmp/rss ) &
./target/release/undercooked loadtest --url http://127.0.0.1:8790 --rooms $R --duration 20 --planners $K --json > /tmp/lt.json
sleep 1
python3 - $R "${DB:+postgres}" <<'PY'
import sys, json
R=int(sys.argv[1])
db=sys.argv[2] or "sqlite"
c0,u0=map(float,open('/tmp/c0').read().split()); c1,u1=map(float,open('/tmp/c1').read().split())
t0=float(open('/tmp/t0').read()); t1=float(open('/tmp/t1').read())
share=(c1-c0)/100/(t1-t0)
ushare=(u1-u0)/100/(t1-t0)
sys.path.insert(0, 'scripts')
from histogram import quantile
def q(name, p): return quantile('/tmp/m0', '/tmp/m1', name, p)
lt=json.load(open('/tmp/lt.json'))
rss=open('/tmp/rss').read().split()[1]
l99,n=q('undercooked_tick_lateness_seconds',0.99)
d99,_=q('undercooked_tick_duration_seconds',0.99)
late0=[float(l.split()[1]) for l in open('/tmp/m0') if l.startswith('undercooked_ticks_late_total')][0]
late1=[float(l.split()[1]) for l in open('/tmp/m1') if l.startswith('undercooked_ticks_late_total')][0]
print(json.dumps({"rooms":R,"db":db,"planners":lt["planners"],"server_core_share":round(share,3),"server_user_share":round(ushare,3),"ms_per_room_s":round(share*1000/R,2),"rss_mb":round(int(rss)/1024,1),
 "tick_lateness_p99_le_ms":l99*1000,"tick_duration_p99_le_ms":d99*1000,"ticks":n,"late_ticks":late1-late0,
 "echo_p99_ms":lt["echo_ms"]["p99"],"snaps_per_client_s":round(lt["snaps_per_client_s"],2),"extra_full":lt["extra_full_frames"],
 "client_cpu_ms_per_room_s":round(lt["client_cpu_ms_per_room_s"],2),"errors":lt["errors"],"closes":lt["closes"]}))
PY
