#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The stall test's price and what it reaches: each matrix of MATRICES (names
# in data/matrices, or paths) is solved at TOL with b = A * ones and with a
# random b (uniform in [-1, 1), Python's random.seed(1)), x0 = 0, no
# reordering; the table gives the exit ("conv", "stall" or "cap"), the
# iterations and the residual recomputed in long double, one column per
# build (the same command with another BUILD_DIR gives the before and after).
# Run from the repository root:
#   bench/stall.sh OUTDIR TOL BACKEND PRECISION THREADS BUILD_DIR...
#   (MATRICES="nos4 bcsstk13 ..." to choose; 0 threads: OpenMP's default)
set -euo pipefail
out=$1 tol=$2 backend=$3 prec=$4 threads=$5
shift 5
mats=${MATRICES:-"nos4 bcsstk03 gr_30_30 1138_bus bcsstk19 bcsstk13 bcsstk15 bcsstk16"}
mkdir -p "$out"
export CGMODEL_DB=$out/none.db # nothing recorded (--no-record), nothing read
solve() { # CGMODEL FILE [--rhs B] -> "iterations exit residual"
  local cg=$1 f=$2 j
  shift 2
  local th=()
  [ "$threads" -gt 0 ] && th=(--threads "$threads")
  j=$("$cg" solve "$f" "$@" --backend "$backend" --precision "$prec" --tol "$tol" "${th[@]}" \
    --reorder none --no-record --no-cache --json 2>/dev/null) || true
  python3 -c '
import json, sys
try:
    d = json.loads(sys.argv[1])
except Exception:
    print("error"); sys.exit()
e = "conv" if d["converged"] else ("stall" if d.get("stalled") else "cap")
print("%d %s %.2g" % (d["iterations"], e, d["relative_residual"]))' "$j"
}
printf "| matrix | b |"
for b in "$@"; do printf " %s |" "$b"; done
printf "\n"
for m in $mats; do
  f=$m
  [ -e "$f" ] || f=data/matrices/$m.mtx
  n=$(awk '!/^%/ { print $1; exit }' "$f")
  python3 -c "
import random, sys
random.seed(1)
print('%%MatrixMarket matrix array real general'); print($n, 1)
for i in range($n): print(repr(random.uniform(-1, 1)))" >"$out/$(basename "$m" .mtx).rhs.mtx"
  for rhs in ones random; do
    printf "| %s | %s |" "$(basename "$m" .mtx)" "$rhs"
    for b in "$@"; do
      if [ "$rhs" = random ]; then
        printf " %s |" "$(solve "$b/cli/cgmodel" "$f" --rhs "$out/$(basename "$m" .mtx).rhs.mtx")"
      else
        printf " %s |" "$(solve "$b/cli/cgmodel" "$f")"
      fi
    done
    printf "\n"
  done
done
