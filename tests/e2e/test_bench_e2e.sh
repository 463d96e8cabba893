#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/e2e.sh's CPU parts: on two tiny matrices with the CPU backend, round
# 1 parses and stores the matrix (cache miss), round 2 reads the matrix
# cache (hit), both converge; without CuPy or a GPU the SciPy + CuPy row
# says why (the GPU machine runs the whole benchmark).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

BUILD=$(dirname "$(dirname "$CGM")")
cd "$REPO" || exit 2
run_cmd env E2E_BACKEND=cpu E2E_DROP_CACHES=0 bash bench/e2e.sh "$BUILD" "$TMP/bench" 1e-8 \
  poisson3d:10 elasticity3d:3
assert_eq "$RC" 0 "bench/e2e.sh exit status"
[ "$RC" -eq 0 ] || show_last
python3 - "$OUT" <<'PY' && pass || { fail "the table's cgmodel rows"; show_last; }
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.split()[1:3] in (["#1", "cgmodel"], ["#2", "cgmodel"])]
got = [(r[0], r[1], r[-1]) for r in rows]
assert got == [("poisson3d:10", "#1", "miss"), ("poisson3d:10", "#2", "hit"),
               ("elasticity3d:3", "#1", "miss"), ("elasticity3d:3", "#2", "hit")], got
for r in rows:
    assert float(r[-2]) <= 1e-8 and int(r[-3]) > 0, r  # residual, iterations
PY
if grep -q "cgm cusparse" "$OUT"; then fail "a cuSPARSE row with the CPU backend"; else pass; fi
# the alternative's row says what this machine has: SciPy and a usable CuPy,
# SciPy alone, or neither, in the Python bench/e2e.sh picks
py=$("$REPO/bench/scipy_python.sh")
if "$py" -c 'import cupy, sys; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)' 2>/dev/null; then
  last_stdout_contains "scipy+cupy"
elif "$py" -c 'import scipy' 2>/dev/null; then
  last_stdout_contains "cupy is not usable here"
else
  last_stdout_contains "scipy is not available"
fi
last_stdout_contains "page cache: not dropped (E2E_DROP_CACHES=0)"
finish
