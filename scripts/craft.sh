#!/bin/bash
# Issue 34's headless table (docs/GAME.md, "Bots beside people"): on levels 1-7, seeds 11-30,
# three bots with (a) the scripted stand-in person (`simulate --human scripted`), (b) an idle
# one (`--human idle`) and (c) no person, it prints per level the person's share of the
# dishes served and the rounds won, and the rounds an idle person loses that three bots
# alone win on the same seed.
# `scripts/craft.sh alone` prints the alone table instead (docs/GAME.md, "Alone"): every
# campaign level, seeds 11-30, the scripted person by itself (`--bots 0 --human scripted`):
# the rounds won, the best and median score against the target, and whether the level
# picker says it needs a team or bots (no round won; src/levels/alone.rs keeps the counts).
# usage: scripts/craft.sh [alone]   (from the checkout, after `cargo build`; BIN picks the binary)
set -u
cd "$(dirname "$0")/.."
BIN=${BIN:-target/debug/undercooked}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
if [ "${1:-}" = alone ]; then
  for lv in $(ls levels | grep -E '^[0-9][0-9]_.*\.toml$' | sed 's/\.toml$//'); do
    target=$(sed -nE 's/^target_score = ([0-9]+).*/\1/p' "levels/$lv.toml")
    for seed in $(seq 11 30); do
      echo "$lv $target $("$BIN" simulate --levels levels --out "$OUT/r.ucr" --bots 0 --human scripted --level "$lv" --seed "$seed" 2>&1 | head -1)"
    done
  done | python3 -c '
import re, sys
by = {}
for line in sys.stdin:
    lv, target, rest = line.split(" ", 2)
    m = re.search(r"(won|lost) with (\d+) points", rest)
    d = by.setdefault(lv, [int(target), 0, []])
    d[1] += m.group(1) == "won"; d[2].append(int(m.group(2)))
print("| level | won alone | best score | median score | target | picker |")
print("|---|---|---|---|---|---|")
for lv, (target, won, scores) in by.items():
    s = sorted(scores)
    says = "needs a team or bots" if won == 0 else "-"
    print(f"| {lv} | {won}/20 | {s[-1]} | {s[len(s) // 2]} | {target} | {says} |")
'
  exit 0
fi
run() { "$BIN" simulate --levels levels --out "$OUT/r.ucr" --bots 3 "$@" 2>&1 | tr '\n' ' '; }
for lv in $(ls levels | grep -E '^0[1-7]_' | sed 's/\.toml$//'); do
  for seed in $(seq 11 30); do
    echo "$lv $seed | $(run --level "$lv" --seed "$seed" --human scripted) | $(run --level "$lv" --seed "$seed" --human idle) | $(run --level "$lv" --seed "$seed")"
  done
done | python3 -c '
import re, sys
by = {}
for line in sys.stdin:
    lv, rest = line.split(" ", 1)
    s, i, b = rest.split("|")[1:4]
    m = re.search(r"served (\d+) \(person (\d+)\)", s)
    d = by.setdefault(lv, [0] * 6)
    d[0] += int(m.group(1)); d[1] += int(m.group(2))
    d[2] += "won with" in s; d[3] += "won with" in i; d[4] += "won with" in b
    d[5] += ("won with" in b) and ("won with" not in i)
print("| level | scripted person served | scripted + 3 bots won | idle + 3 bots won | 3 bots won | idle lost, 3 bots won |")
print("|---|---|---|---|---|---|")
t = [0] * 6
for lv, d in by.items():
    t = [a + b for a, b in zip(t, d)]
    print(f"| {lv} | {d[1]}/{d[0]} ({100 * d[1] // max(d[0], 1)} %) | {d[2]}/20 | {d[3]}/20 | {d[4]}/20 | {d[5]} |")
print(f"| all | {t[1]}/{t[0]} ({100 * t[1] // max(t[0], 1)} %) | {t[2]}/{20 * len(by)} | {t[3]}/{20 * len(by)} | {t[4]}/{20 * len(by)} | {t[5]} of {t[4]} |")
'
