#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The test command of the README: installs what is missing, builds, runs every
# test (GPU tests skip without a GPU), then builds a CPU-only tree under
# AddressSanitizer + UndefinedBehaviorSanitizer and runs the unit and e2e
# tests there too, and last runs the libFuzzer harnesses, 30 s at once.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh build
ctest --test-dir build --output-on-failure -j "$(nproc)"
scripts/build.sh build-asan -DCGMODEL_CUDA=OFF -DCGMODEL_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -L 'unit|e2e'
# libFuzzer harnesses, 30 s each, all at once, on the seed corpus (docs/reliability.md, "Fuzzing")
scripts/fuzz.sh 30
echo "all tests passed"
