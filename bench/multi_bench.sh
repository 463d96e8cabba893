#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The multi-GPU benchmark of docs/perf.md (run on a 2- or 4-GPU machine from
# the repository root): scripts/device-run.sh exec bench/multi_bench.sh [OUTDIR]
set -euo pipefail
out=${1:-.}
bin=${MULTI_BENCH:-build-dev/bench/multi_bench}
[ -x "$bin" ] || bin=build/bench/multi_bench
"$bin" --csv "$out/multi_bench_fp64.csv" poisson3d:64 poisson3d:128 poisson3d:256 \
  elasticity3d:80 data/matrices/bcsstk16.mtx
