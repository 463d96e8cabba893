#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The README's demo on a busy machine (docs/calibration.md, "Timing on a busy
# machine"): `scripts/demo.sh` RUNS times beside two `yes > /dev/null` that
# this script starts and stops, each run with a database of its own (the demo
# calibrates every time): exit code, seconds, and the demo's warnings. Run it
# in a clone whose `build/` the demo has made once (a first run builds).
# With CPUS (a CPU list, e.g. CPUS=0,1) the demo and the loops run on those
# CPUs (taskset -c). The last line says how many runs passed.
# usage: [CPUS=LIST] bench/busy_demo.sh [RUNS]   (the table on stdout)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
on=()
if [ -n "${CPUS:-}" ]; then on=(taskset -c "$CPUS"); fi
tmp=$(mktemp -d)
hogs=()
trap 'for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
for _ in 1 2; do
  "${on[@]}" yes >/dev/null &
  hogs+=($!)
done
echo "# $(date -u +%F), $("${on[@]}" nproc) cores${CPUS:+ (CPUs $CPUS)} beside two yes > /dev/null," \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "run  exit  seconds  warnings"
passed=0
for i in $(seq 1 "$runs"); do
  t0=$(date +%s.%N)
  rc=0
  CGMODEL_DB=$tmp/demo$i.db "${on[@]}" scripts/demo.sh >"$tmp/out$i" 2>"$tmp/err$i" || rc=$?
  secs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" \
    "$t0" "$(date +%s.%N)")
  [ "$rc" = 0 ] && passed=$((passed + 1))
  warn=$(grep -ci "warning" "$tmp/err$i" "$tmp/out$i" | awk -F: '{s += $2} END {print s + 0}')
  printf '%3d  %4d  %7s  %s\n' "$i" "$rc" "$secs" \
    "$warn ($(grep -ih "warning" "$tmp/err$i" "$tmp/out$i" | head -1 | cut -c1-90))"
done
echo "demo passed $passed of $runs beside two busy loops"
