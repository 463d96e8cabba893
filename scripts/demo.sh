#!/usr/bin/env bash
# The demo of the README: installs what is missing, builds, and runs cgmodel on
# a bundled SuiteSparse matrix: its features, then a solve (on the GPU when
# there is one, else on the CPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh build
cg=build/cli/cgmodel
A=data/matrices/bcsstk16.mtx
echo "== cgmodel info $A"
$cg info "$A"
echo
echo "== cgmodel solve $A (b = A * ones, so x should be all ones)"
$cg solve "$A" --block 2
