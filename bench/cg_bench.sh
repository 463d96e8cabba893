#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The CG benchmark of docs/perf.md: our CUDA CG at N = 1, 2, 4, 8 beside the
# cuSPARSE baseline, fp64 and fp32, one run on one GPU. Run it on a GPU
# machine from the repository root:
#   scripts/device-run.sh exec bench/cg_bench.sh [OUTDIR]
set -euo pipefail
out=${1:-.}
bin=${CG_BENCH:-build-dev/bench/cg_bench}
[ -x "$bin" ] || bin=build/bench/cg_bench
"$bin" --csv "$out/cg_bench.csv" \
  poisson3d:32 poisson3d:64 poisson3d:128 poisson3d:192 \
  elasticity3d:20 elasticity3d:40 elasticity3d:80 elasticity3d:110 \
  data/matrices/bcsstk16.mtx data/matrices/bcsstk15.mtx data/matrices/bcsstk13.mtx \
  data/matrices/msc00726.mtx
