#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `pip install ./python` as a user runs it (docs/python.md, "Installing"):
# into a temporary target, then a fresh python3 imports the installed
# package (not the source tree) and solves a bundled matrix on the CPU,
# checking the residual with SciPy. Skipped (77) without pip.
set -euo pipefail
py=$1 src=$2 lib=$3
"$py" -m pip --version >/dev/null 2>&1 || { echo "no pip for $py: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/python" "$tmp/src" # the build writes into the source folder
PIP_ROOT_USER_ACTION=ignore "$py" -m pip install --quiet --no-build-isolation --no-deps --no-index --target "$tmp/site" \
  "$tmp/src"
cd "$tmp"
PYTHONPATH="$tmp/site" CGMODEL_LIBRARY="$lib" CGMODEL_DB="$tmp/none.db" OMP_NUM_THREADS=2 \
  "$py" - "$src/data/matrices/bcsstk01.mtx" "$tmp/site" <<'PY'
import sys

import numpy as np
import scipy.io

import cgmodel

assert cgmodel.__file__.startswith(sys.argv[2]), cgmodel.__file__
A = scipy.io.mmread(sys.argv[1]).tocsr()
b = A @ np.ones(A.shape[0])
x, r = cgmodel.solve(A, b, backend="cpu", tol=1e-10, record=False)
rel = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
assert r.converged and rel <= 1e-10 and abs(rel - r.relative_residual) <= 1e-3 * 1e-10, (r, rel)
print("installed", cgmodel.__file__, "solved in", r.iterations, "iterations, residual", rel)
PY
