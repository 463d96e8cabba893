#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where a small solve's setup goes in a warm process (docs/perf.md, "Small solves' setup"): each
# tts_bench given (builds to compare) solves the cases R times in one process, the builds taking
# turns for ROUNDS rounds (tables of medians); then the last build's solves again under
# bench/api_trace.c (the host time in each CUDA call over every solve, a table).
# usage: bench/small_setup.sh [--reps R] [--rounds K] [--trace LIB] TTS_BENCH... -- CASE...
set -euo pipefail
reps=20 rounds=2 trace=
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --trace) trace=$2; shift 2 ;;
    *) break ;;
  esac
done
builds=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do builds+=("$1"); shift; done
shift || true
cases=("$@")
[ ${#builds[@]} -gt 0 ] && [ ${#cases[@]} -gt 0 ] || {
  echo "usage: $0 [--reps R] [--rounds K] [--trace LIB] TTS_BENCH... -- CASE..." >&2
  exit 2
}
for k in $(seq "$rounds"); do
  for t in "${builds[@]}"; do
    for prec in double mixed; do
      echo "== round $k: $t, $prec"
      "$t" --backend cuda --tol 1e-8 --precision $prec --reps "$reps" "${cases[@]}"
    done
  done
done
if [ -n "$trace" ]; then
  for c in "${cases[@]}"; do
    echo "== api_trace: ${builds[-1]} $c, double, $reps solves"
    CUDA_INJECTION64_PATH=$trace "${builds[-1]}" --backend cuda --tol 1e-8 --precision double \
      --reps "$reps" "$c" 2>&1
  done
fi
