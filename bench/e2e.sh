#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What users wait for, end to end: on the same files and in one run,
# `cgmodel solve` (the whole command, wall clock) against SciPy's mmread +
# CuPy's Jacobi CG at the same tolerance (bench/scipy_cupy_cg.py), with the
# read / setup / solve split each reports and the recomputed residual. Round
# 1 starts from an empty matrix cache (docs/cache.md) and, where permitted,
# drops the page cache before each tool, so each reads the file from disk:
# cgmodel parses the file and stores it. Round 2 has the file and cgmodel's
# cache entry in the page cache; cgmodel reads the entry. Our cuSPARSE
# backend runs with --no-cache (it parses each time).
# Run on a GPU machine from the repository root (after
# scripts/device-run.sh has linked the tree):
#   bench/e2e.sh BUILD_DIR OUTDIR [TOL] [CASE...]   (CASE: kind:n as `cgmodel gen`)
# Environment: E2E_BACKEND (cgmodel's --backend; cpu also leaves out the
# cuSPARSE row), E2E_DROP_CACHES=0 (leave the page cache alone), E2E_PYTHON
# (the Python of SciPy + CuPy; default: python3, else /usr/bin/python3, whichever
# has SciPy).
set -euo pipefail
build=$1 out=$2 tol=${3:-1e-8}
shift 3 || shift $#
cases=("${@:-poisson3d:128 poisson3d:192 elasticity3d:48}")
cg=$build/cli/cgmodel
mkdir -p "$out"
cache=$out/cache
backend=()
[ -n "${E2E_BACKEND:-}" ] && backend=(--backend "$E2E_BACKEND")
cusparse=1
if [ "${E2E_BACKEND:-}" = cpu ] || "$cg" version | grep -q "CPU-only"; then cusparse=0; fi
py=$(bench/scipy_python.sh) # the Python that has SciPy
drop_caches() { sync && { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; }
if [ "${E2E_DROP_CACHES:-1}" != 1 ]; then
  echo "page cache: not dropped (E2E_DROP_CACHES=0): round 1 reads the files from the page cache"
elif drop_caches; then
  echo "page cache: dropped before each tool's round 1 of each case"
else
  echo "page cache: NOT dropped (no permission): round 1 reads the files from the page cache"
fi
printf "%-18s %-14s %7s %7s %7s %7s %7s %9s %s\n" case tool read setup solve total iters residual cache
# shellcheck disable=SC2068 # the default is one word holding every case
for c in ${cases[@]}; do
  kind=${c%%:*} n=${c##*:} f=$out/${kind}_$n.mtx
  [ -e "$f" ] || "$cg" gen "$kind" --n "$n" -o "$f" 2>/dev/null
  # a file modified within the last second is not cached (docs/cache.md)
  touch -d '10 seconds ago' "$f"
  "$cg" cache clear --cache-dir "$cache" >/dev/null
  [ "${E2E_DROP_CACHES:-1}" = 1 ] && { drop_caches || true; }
  sync
  for rep in 1 2; do
    # round 2: everything in the page cache, the file, our cache entry and
    # our program with its libraries alike, as SciPy's are after its round
    # 1 (the drops before the other tools evicted ours: 0.8 s more at
    # Poisson 128^3 on an H100)
    if [ "$rep" = 2 ]; then
      cat "$f" "$cache"/* >/dev/null 2>&1 || true
      "$cg" devices >/dev/null 2>&1 || true
    fi
    t0=$(date +%s.%N)
    j=$("$cg" solve "$f" --tol "$tol" --no-record --json --cache-dir "$cache" "${backend[@]}" \
      2>/dev/null) || true
    t1=$(date +%s.%N)
    k='{"skipped": true}'
    # round 1: every tool reads the file from disk, not only the first
    cold() { if [ "$rep" = 1 ] && [ "${E2E_DROP_CACHES:-1}" = 1 ]; then drop_caches || true; fi; }
    t1b=$t1
    if [ $cusparse = 1 ]; then
      cold
      t1b=$(date +%s.%N)
      k=$("$cg" solve "$f" --tol "$tol" --no-record --json --backend cusparse --no-cache \
        2>/dev/null) || true
    fi
    t2=$(date +%s.%N)
    cold
    p=$("$py" bench/scipy_cupy_cg.py "$f" "$tol" 2>/dev/null || echo '{"error": "failed"}')
    python3 - "$c" "$rep" "$t0" "$t1" "$t1b" "$t2" "$j" "$k" "$p" <<'PY'
import json, sys
c, rep = sys.argv[1], sys.argv[2]
t0, t1, t1b, t2 = (float(v) for v in sys.argv[3:7])
j, k, p = sys.argv[7], sys.argv[8], sys.argv[9]
def load(s):
    try:
        return json.loads(s)
    except Exception:
        return {}
q = json.loads(p)
wall = t1 - t0
for tool, d, w in (("cgmodel", load(j), t1 - t0), ("cgm cusparse", load(k), t2 - t1b)):
    if d.get("skipped"):
        continue
    print("%-18s %-14s %7.2f %7.2f %7.2f %7.2f %7d %9.2e %s" % (
        c + " #" + rep, tool, d.get("time_read_s", float("nan")), d.get("time_setup_s", float("nan")),
        d.get("time_solve_s", float("nan")), w, d.get("iterations", 0),
        d.get("relative_residual", float("nan")), d.get("cache", {}).get("outcome", "-")))
if "error" in q:
    print("%-18s %-14s %s" % (c + " #" + rep, "scipy+cupy", q["error"]))
else:
    print("%-18s %-14s %7.2f %7.2f %7.2f %7.2f %7d %9.2e   ours/theirs total %.2f" % (
        c + " #" + rep, "scipy+cupy", q["read_s"], q["setup_s"], q["solve_s"], q["total_s"],
        q["iterations"], q["relative_residual"], wall / q["total_s"]))
PY
  done
done
echo "cache: how cgmodel read the matrix (miss: parsed and stored; hit: the matrix cache)"
echo "cgmodel total = the whole command's wall clock (process start to exit); scipy+cupy total = read + setup + solve after its imports (imports_s not counted)"
