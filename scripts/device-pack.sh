#!/usr/bin/env bash
# Builds the tree that travels to a lent GPU machine (docs/architecture.md,
# "Working with the GPU machines"): GSL, SQLite and cudart linked statically,
# cJSON's shared library copied beside it, no object files. The result is
# .carry/build-dev; name `.carry` in the device call's carry list and run
# scripts/device-run.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build-dev -DCGMODEL_STATIC_DEPS=ON -DCMAKE_CUDA_ARCHITECTURES=90
rm -rf .carry
mkdir -p .carry
cp -a build-dev .carry/build-dev
find .carry/build-dev -name CMakeFiles -prune -exec rm -rf {} +
rm -f .carry/build-dev/*.a .carry/build-dev/libcgmodel.so* .carry/build-dev/build.ninja \
  .carry/build-dev/.ninja_* .carry/build-dev/compile_commands.json
mkdir -p .carry/build-dev/lib
cp -L "$(ldconfig -p | awk '/libcjson.so.1 /{print $NF; exit}')" .carry/build-dev/lib/libcjson.so.1
du -sh .carry
