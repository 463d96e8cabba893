#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The demo of the README: installs what is missing, builds, then on a bundled
# SuiteSparse matrix: its features, a quick calibration of this machine (the
# GPUs when there are any, else the CPU), the prediction for every
# configuration, and a solve with the configuration the tuner picks, whose
# measured time is shown beside the prediction. The demo keeps its own
# database (build/demo.db) and matrix cache (build/demo-cache) so it does
# not touch yours.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh build
cg=build/cli/cgmodel
A=data/matrices/bcsstk16.mtx
export CGMODEL_DB=${CGMODEL_DB:-$PWD/build/demo.db}
cache=$PWD/build/demo-cache
if [ "$($cg version | grep -c 'CUDA backend')" = 1 ] && command -v nvidia-smi >/dev/null 2>&1 &&
   nvidia-smi -L >/dev/null 2>&1; then
  devices=cuda:all
else
  devices=cpu
fi
echo "== cgmodel info $A"
$cg info "$A"
echo
echo "== cgmodel calibrate --devices $devices --quick   (database: $CGMODEL_DB)"
$cg calibrate --devices "$devices" --quick
echo
echo "== cgmodel predict $A"
$cg predict "$A" --cache-dir "$cache"
echo
echo "== cgmodel solve $A --auto   (b = A * ones, so x should be all ones)"
$cg solve "$A" --auto --cache-dir "$cache"
