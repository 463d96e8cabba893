#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The model on the values' storage formats that `--storage auto` takes
# (docs/perf.md, "Storage formats"): exact-valued matrices past 16 MiB run in
# dict at N = 1 and in f32 (exact) at N = 2, 4, 8. A quick calibration of GPU 0
# in double, then the format each block size runs (solve --json, 5
# iterations) and `validate --backend cuda --precision double` over Poisson
# grids (3D and 2D) and, for comparison, matrices that keep full values.
# On a GPU machine from the repository root (after scripts/device-run.sh):
#   bench/validate_storage.sh BUILD_DIR OUTDIR
set -uo pipefail
build=$1 out=$2
cg=$build/cli/cgmodel
mkdir -p "$out/m"
db=$out/v.db
"$cg" calibrate --quick --devices cuda:0 --precision double --db "$db" >"$out/calibrate.txt" 2>&1
echo "calibrate rc $?"
for spec in poisson3d:64 poisson3d:96 poisson3d:128 poisson3d:160 poisson2d:1024 poisson2d:2048 \
  elasticity3d:48 mesh3d:400000; do
  kind=${spec%%:*} n=${spec##*:}
  "$cg" gen "$kind" --n "$n" -o "$out/m/${kind}_$n.mtx" 2>/dev/null
done
echo "== the format each block size runs (storage auto, double)"
for f in "$out"/m/*.mtx; do
  for N in 1 2 4 8; do
    "$cg" solve "$f" --backend cuda --block $N --maxiter 5 --tol 1e-300 --no-record --json --db "$db" 2>/dev/null |
      python3 -c 'import json,sys; j=json.load(sys.stdin); s=j["storage"]; print(sys.argv[1], "N=%s" % sys.argv[2], s["format"], "exact" if s["exact"] else "", s["bytes_per_iteration"])' "$(basename "$f")" $N
  done
done
echo "== validate"
"$cg" validate "$out/m" --backend cuda --precision double --iters 100 --repeat 3 --db "$db" \
  --csv "$out/validate.csv" 2>"$out/validate.err"
echo "validate rc $?"
