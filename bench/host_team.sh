#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A small GPU solve's host phases (the checks and the plan before the solver, its set-up, its
# finish) and the whole command's wall clock with the default team (a thread to 2^19 entries)
# against --threads T (every core, the default before 2026-12-01), interleaved, R rounds; the
# medians and minima per matrix and team. Usage: bench/host_team.sh [T [R]] (cgmodel on PATH,
# one GPU; writes nothing but stdout).
set -euo pipefail
T=${1:-$(nproc)} R=${2:-8}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M=$(dirname "$0")/../data/matrices/bcsstk16.mtx
for n in 64 128; do
  cgmodel gen poisson3d --n $n -o "$tmp/p$n.mtx" >/dev/null 2>&1
  touch -d "@$(($(date +%s) - 10))" "$tmp/p$n.mtx" # cached: not modified within the second
done
set -- "$M" "$tmp/p64.mtx" "$tmp/p128.mtx"
for f; do cgmodel solve "$f" --no-record --json >/dev/null 2>&1; done # the cache warm
for _ in $(seq "$R"); do for f; do for t in 0 "$T"; do
  a=()
  [ "$t" -gt 0 ] && a=(--threads "$t")
  s=$(date +%s.%N)
  cgmodel solve "$f" --no-record --json "${a[@]}" >"$tmp/j.json" 2>/dev/null
  e=$(date +%s.%N)
  python3 - "$f" "$t" "$s" "$e" "$tmp/j.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[5]))
print("%s t=%s check %.2f setup %.2f finish %.2f wall %.1f" % (sys.argv[1].split("/")[-1], sys.argv[2],
      j["time_check_s"] * 1e3, j["time_setup_s"] * 1e3, j["time_finish_s"] * 1e3,
      (float(sys.argv[4]) - float(sys.argv[3])) * 1e3))
PY
done; done; done >"$tmp/all.txt"
python3 - "$tmp/all.txt" <<'PY'
import collections, statistics as S, sys
d = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(sys.argv[1]):
    w = l.split()
    for name in ("check", "setup", "finish", "wall"):
        d[(w[0], w[1])][name].append(float(w[w.index(name) + 1]))
print("%-16s %-5s %22s %22s %22s %22s" % ("matrix", "team", "check ms min / median", "setup",
                                          "finish", "wall"))
for k in sorted(d):
    print("%-16s %-5s" % k, *["%10.2f / %9.2f" % (min(d[k][n]), S.median(d[k][n]))
                              for n in ("check", "setup", "finish", "wall")])
PY
