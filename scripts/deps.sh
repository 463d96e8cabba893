#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs the Debian packages cgmodel needs when they are missing.
# The CUDA toolkit is not installed here: without nvcc the build is CPU-only.
set -euo pipefail
# libxxhash-dev: optional; the unit test checks the matrix cache's own XXH64 against it.
# python3-numpy, -scipy, -pytest: the Python binding's tests (python/, docs/python.md);
# python3-setuptools, python3-wheel: pip install --no-build-isolation ./python, offline (Debian 12's
# setuptools 66 builds no wheel without the wheel package).
# zlib1g-dev: reading .mtx.gz (optional in the build: CGMODEL_ZLIB).
# libopenmpi-dev + openmpi-bin: the MPI solve (optional in the build: CGMODEL_MPI,
# but CI tests it); libmetis-dev: its --partition metis (optional too).
pkgs=(build-essential cmake ninja-build pkg-config libgsl-dev libsqlite3-dev libcjson-dev
      zlib1g-dev gnuplot-nox clang python3-numpy python3-scipy python3-pytest python3-setuptools python3-wheel python3-pip
      libxxhash-dev libopenmpi-dev openmpi-bin libmetis-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# nvcc is usually not on PATH by default: let CMake find the toolkit.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: using /usr/local/cuda/bin/nvcc" >&2
fi
