#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPUs' synchronisation side by side, in one run (docs/perf.md): every
# case on 1..G GPUs with the halo and p2p exchanges, synchronised by flags in
# device memory (the default, cgm_sync in solver/cuda/kernels.h) and by
# cross-device CUDA-graph edges (CGMODEL_SYNC=events). From the repository
# root on a 2- or 4-GPU machine:
#   scripts/device-run.sh exec bench/multi_sync.sh [OUTDIR] [CASE...]
set -euo pipefail
out=${1:-.}
shift || true
[ $# -gt 0 ] || set -- poisson3d:32 poisson3d:64 poisson3d:128 poisson3d:256
bin=${MULTI_BENCH:-build-dev/bench/multi_bench}
[ -x "$bin" ] || bin=build/bench/multi_bench
"$bin" --iters 96 --exchange halo,p2p --sync flags,events --csv "$out/multi_sync.csv" "$@"
