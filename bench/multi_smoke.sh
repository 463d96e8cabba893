#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Quick multi-GPU check on a GPU machine: every exchange mode on a small
# Poisson problem through the CLI, each under its own time limit.
#   scripts/device-run.sh exec bench/multi_smoke.sh [GPUS]
set -uo pipefail
g=${1:-2}
cg=build-dev/cli/cgmodel
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
$cg gen poisson3d --n 30 -o "$t/p30.mtx" 2>/dev/null
for m in nccl p2p halo host; do
  timeout 25 $cg solve "$t/p30.mtx" --gpus "$g" --exchange "$m" --json >"$t/out.json" 2>"$t/err.txt"
  rc=$?
  python3 -c "import json;j=json.load(open('$t/out.json'));print('$m', 'G=$g', 'rc=$rc', j['converged'], j['iterations'], '%.2e'%j['relative_residual'], '%.1f us/it'%(1e6*j['time_per_iter_s']), j.get('exchange_bytes'))" 2>/dev/null || { echo "$m G=$g rc=$rc"; head -c 600 "$t/err.txt"; }
done
