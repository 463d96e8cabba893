#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `solve --auto` against not tuning, an old build and this one in one device
# call (docs/perf.md): one quick calibration of the GPU, copied into a fresh
# database for each build, then bench/auto_bench.py with each build on the same
# generated files, old, new, old, new (CuPy in the first pass alone). From the repository root after
# scripts/device-run.sh has linked the tree:
#   scripts/device-run.sh exec bash bench/auto_old_new.sh OLD_CGMODEL [CASE...]
# CASE: a .mtx path, beside gen poisson2d --n 2048, mesh3d --n 300000
# --contrast 100 and elasticity3d --n 32. Results: $OUT/auto_old_new.tgz and
# summary.txt.
set -uo pipefail
old=$1
shift
new=build-dev/cli/cgmodel
out=$(mktemp -d)/auto_old_new
mkdir -p "$out/m"
trap 'rm -rf "$out"/*/cache "$out"/m; tar czf "${OUT:-.}/auto_old_new.tgz" -C "$(dirname "$out")" auto_old_new; cp "$out/summary.txt" "${OUT:-.}/"' EXIT
say() { echo "$@" | tee -a "$out/summary.txt"; }
say "$(date -u +%FT%TZ): $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores"
"$new" gen poisson2d --n 2048 -o "$out/m/poisson2d_2048.mtx"
"$new" gen mesh3d --n 300000 --contrast 100 -o "$out/m/mesh3d_300k_contrast.mtx"
"$new" gen elasticity3d --n 32 -o "$out/m/elasticity3d_32.mtx"
touch -d '-1 min' "$out"/m/*.mtx
cases=("$out"/m/*.mtx "$@")
t0=$(date +%s)
timeout 120 "$new" calibrate --devices cuda:0 --quick --db "$out/cal.db" >"$out/calibrate.txt" 2>&1
say "calibrate --quick: rc $?, $(($(date +%s) - t0)) s"
for r in 1 2; do
  for v in old new; do
    b=$new
    [ $v = old ] && b=$old
    [ -f "$out/$v.db" ] || cp "$out/cal.db" "$out/$v.db"
    say "== $v, pass $r"
    timeout 120 python3 bench/auto_bench.py "$b" "$out/$v$r" --rounds "${ROUNDS:-3}" \
      --cold-rounds "${COLD_ROUNDS:-2}" --db "$out/$v.db" $([ $r = 2 ] && echo --no-cupy) "${cases[@]}" 2>&1 |
      tee -a "$out/summary.txt"
  done
done
