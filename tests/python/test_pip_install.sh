#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installing the binding as docs/python.md says, offline (no package index):
#  1. `pip install ./python` (the build backend of this python3, no build
#     isolation) into a temporary target, the library then found through
#     CGMODEL_LIBRARY;
#  2. a wheel built with CGMODEL_LIBRARY set, which carries the library,
#     installed into a fresh virtual environment (NumPy and SciPy from the
#     system's site packages) and used with neither CGMODEL_LIBRARY nor
#     LD_LIBRARY_PATH: the bundled library is the one loaded.
# Each solves a bundled matrix from the installed package (not the source
# tree) on the CPU and checks the residual with SciPy. Skipped (77) without
# pip, or without what builds a wheel offline (setuptools >= 70.1 or the
# wheel package) or the venv module.
set -euo pipefail
py=$1 src=$2 lib=$3
"$py" -m pip --version >/dev/null 2>&1 || { echo "no pip for $py: skipped"; exit 77; }
"$py" - <<'PY' || { echo "no setuptools >= 70.1 or wheel for $py: skipped"; exit 77; }
import importlib.util, setuptools
assert importlib.util.find_spec("wheel") or tuple(map(int, setuptools.__version__.split(".")[:2])) >= (70, 1)
PY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1
cat >"$tmp/check.py" <<'PY'
import sys
from importlib.metadata import metadata

import numpy as np
import scipy.io

import cgmodel

where, matrix = sys.argv[1], sys.argv[2]
assert cgmodel.__file__.startswith(where), cgmodel.__file__
A = scipy.io.mmread(matrix).tocsr()
b = A @ np.ones(A.shape[0])
x, info = cgmodel.cg(A, b, rtol=1e-10, backend="cpu", record=False)
rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
assert info == 0 and rel <= 1e-10, (info, rel)
assert metadata("cgmodel")["License"] == "GPL-3.0-or-later"
print("installed", cgmodel.__file__, "library", cgmodel.library_path, "residual", rel)
PY

# 1. pip install ./python, the library from CGMODEL_LIBRARY
cp -r "$src/python" "$tmp/src" # pip builds in the source folder
"$py" -m pip install --quiet --no-build-isolation --no-deps --target "$tmp/site" "$tmp/src"
(cd "$tmp" && PYTHONPATH="$tmp/site" CGMODEL_LIBRARY="$lib" CGMODEL_DB="$tmp/none.db" \
  OMP_NUM_THREADS=2 "$py" check.py "$tmp/site" "$src/data/matrices/bcsstk01.mtx")

# 2. a wheel that carries the library, in a fresh virtual environment
rm -rf "$tmp/src" && cp -r "$src/python" "$tmp/src"
CGMODEL_LIBRARY="$lib" "$py" -m pip wheel --quiet --no-build-isolation --no-deps -w "$tmp/dist" \
  "$tmp/src"
whl=$(ls "$tmp"/dist/cgmodel-*-py3-none-linux_*.whl)
"$py" -c 'import sys, zipfile; sys.exit("cgmodel/_lib/libcgmodel.so" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
  "$whl" || { echo "no library in $whl"; exit 1; }
"$py" -m venv --system-site-packages "$tmp/venv" || { echo "no venv for $py: skipped"; exit 77; }
"$tmp/venv/bin/python" -m pip install --quiet --no-deps "$whl"
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
(cd "$tmp" && env -u CGMODEL_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH CGMODEL_DB="$tmp/none.db" \
  OMP_NUM_THREADS=2 "$tmp/venv/bin/python" - "$site" <<'PY'
import sys

import cgmodel

assert cgmodel.library_path.startswith(sys.argv[1] + "/cgmodel/_lib/"), cgmodel.library_path
PY
)
(cd "$tmp" && env -u CGMODEL_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH CGMODEL_DB="$tmp/none.db" \
  OMP_NUM_THREADS=2 "$tmp/venv/bin/python" check.py "$site" "$src/data/matrices/bcsstk01.mtx")
