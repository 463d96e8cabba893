#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Unreachable tolerances on ill-conditioned meshes: where a solve stops
# against the iterations that reach its floor. For each mesh (cgmodel gen
# mesh3d --contrast 1e8, random numbering) and precision: a solve at 1e-12
# gives the floor (attainable_residual), a solve at that floor gives the
# floor's iteration count, then every tolerance of TOLS runs; the table
# gives each one's exit, iterations, residual and iterations / floor count.
# Run from the repository root:
#   bench/floor.sh BUILD_DIR OUTDIR [NODES] [TOLS] [PRECISIONS] [BACKEND]
set -euo pipefail
build=$1 out=$2
nodes=${3:-"40000 330000"}
tols=${4:-"1e-3 1e-6 1e-8 1e-10 1e-12"}
precs=${5:-"double mixed"}
backend=${6:-cuda}
cg=$build/cli/cgmodel
mkdir -p "$out"
solve() { # FILE PRECISION TOL -> "rc iterations residual floor stalled seconds"
  local rc=0 j
  j=$("$cg" solve "$1" --backend "$backend" --precision "$2" --tol "$3" --no-record --no-cache \
    --json 2>/dev/null) || rc=$?
  python3 -c '
import json, sys
rc, j = sys.argv[1], sys.argv[2]
try:
    d = json.loads(j)
except Exception:
    d = {}
print(rc, d.get("iterations", 0), d.get("relative_residual", float("nan")),
      d.get("attainable_residual", float("nan")), int(bool(d.get("stalled"))),
      d.get("time_solve_s", float("nan")))' "$rc" "$j"
}
printf "%-8s %-6s %8s | %2s %6s %9s %9s %7s %6s %7s\n" mesh prec tol rc iters residual floor stalled ratio solve_s
for n in $nodes; do
  f=$out/m$n.mtx
  [ -e "$f" ] || "$cg" gen mesh3d --n "$n" --contrast 1e8 --numbering random -o "$f" >&2
  for p in $precs; do
    read -r _ _ _ floor _ _ <<<"$(solve "$f" "$p" 1e-12)"
    read -r rc kf res _ st sec <<<"$(solve "$f" "$p" "$floor")"
    printf "%-8s %-6s %8.2e | %2s %6s %9.2e %9.2e %7s %6s %7.3f   (the floor's count)\n" \
      "m$n" "$p" "$floor" "$rc" "$kf" "$res" "$floor" "$st" 1.00 "$sec"
    for t in $tols; do
      read -r rc it res fl st sec <<<"$(solve "$f" "$p" "$t")"
      printf "%-8s %-6s %8s | %2s %6s %9.2e %9.2e %7s %6.2f %7.3f\n" "m$n" "$p" "$t" "$rc" "$it" \
        "$res" "$fl" "$st" "$(python3 -c "print($it / max($kf, 1))")" "$sec"
    done
  done
done
