#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Iteration counts predicted for a matrix never solved against those run (docs/perf.md, "Iteration
# counts and the tuner's regret"): for generated families on both sides of the probe's 2M stored
# entries, `predict --json` (its "iterations" and where they came from: the CPU probe, or the size's
# estimate) beside `solve --backend cpu --no-record` to 1e-8 and 1e-10, in a database holding a
# calibration (DB; predict records nothing). The table on stdout; ratio = predicted / run.
# usage: bench/k_families.sh [BUILD_DIR] DB
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=${2:?usage: bench/k_families.sh [BUILD_DIR] DB}
cg=$build/cli/cgmodel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%F), $(nproc) cores, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-26s %6s %10s %9s %6s %6s\n' matrix tol nonzeros predicted from run
for spec in "poisson3d 40" "poisson3d 64" "poisson3d 100" "poisson2d 300" "poisson2d 1200" \
  "elasticity3d 16" "elasticity3d 28" "mesh3d 100000" "mesh3d 100000 --contrast 100" \
  "random 300000 --dist powerlaw"; do
  set -- $spec
  name="$1_$2${3:+_${4}}"
  "$cg" gen "$1" --n "$2" "${@:3}" -o "$tmp/$name.mtx" >"$tmp/gen.txt" 2>&1
  nnz=$(grep -o '[0-9]* nonzeros' "$tmp/gen.txt" | cut -d' ' -f1)
  for tol in 1e-8 1e-10; do
    read -r k from < <("$cg" predict "$tmp/$name.mtx" --db "$db" --tol "$tol" --json 2>/dev/null |
      python3 -c "import json,sys; d=json.load(sys.stdin); print(d['iterations'], d['iterations_source'])")
    run=$("$cg" solve "$tmp/$name.mtx" --backend cpu --tol "$tol" --no-record --json --db "$db" 2>/dev/null |
      python3 -c "import json,sys; print(json.load(sys.stdin)['iterations'])")
    printf '%-26s %6s %10s %9s %6s %6s  %5.2f\n' "$name" "$tol" "$nnz" "$k" "$from" "$run" \
      "$(python3 -c "print($k / max($run, 1))")"
  done
  rm -f "$tmp/$name.mtx"
done
