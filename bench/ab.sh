#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A/B of two builds on one GPU, in one run: the time per iteration of our
# CG (cg_bench, fp64, the cases given, two rounds alternating) and the
# model's validation errors (a quick calibration and validate over a list of
# matrices, each build with its own database). Run on a GPU machine from the
# repository root, after scripts/device-run.sh has linked the tree:
#   bench/ab.sh OLD_BIN_DIR NEW_BUILD_DIR OUTDIR MATRIX_LIST CASE...
# OLD_BIN_DIR holds cgmodel and cg_bench; NEW_BUILD_DIR is a build tree.
set -euo pipefail
old=$1 new=$2 out=$3 list=$4
shift 4
mkdir -p "$out"
declare -A bench=([old]="$old/cg_bench" [new]="$new/bench/cg_bench")
declare -A cli=([old]="$old/cgmodel" [new]="$new/cli/cgmodel")
for round in 1 2; do
  for v in old new; do
    echo "== cg_bench $v round $round"
    "${bench[$v]}" --precision double --iters 320 --reps 20 "$@" | tee "$out/cg_bench_${v}_$round.txt"
  done
done
for v in old new; do
  echo "== calibrate --quick and validate: $v"
  "${cli[$v]}" calibrate --devices cuda:0 --quick --db "$out/$v.db" >"$out/calibrate_$v.txt" 2>&1
  tail -n 3 "$out/calibrate_$v.txt"
  "${cli[$v]}" validate "$list" --db "$out/$v.db" --csv "$out/validate_$v.csv" \
    2>"$out/validate_$v.err" | tee "$out/validate_$v.txt"
done
