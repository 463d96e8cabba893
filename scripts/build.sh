#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Configures and builds cgmodel into build/ (CUDA backend when nvcc exists).
# Usage: scripts/build.sh [BUILD_DIR [extra cmake args...]]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cuda=()
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda[@]}" "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
