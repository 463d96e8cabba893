#!/usr/bin/env bash
# End to end: what a user waits for. On the same generated files, `cgmodel
# solve` cold (matrix cache cleared, page cache dropped when permitted) and
# warm (matrix cache hit), and SciPy + CuPy's Jacobi CG at the same relative
# tolerance (bench/scipy_cupy_cg.py); read / setup / solve / total wall-clock
# seconds as a table, and the speed-up over SciPy + CuPy. docs/perf.md
# ("End to end") has the results. On a GPU machine, from the repository root:
#
#   scripts/device-run.sh exec bench/e2e.sh [OUTDIR]
#
# Environment: CGMODEL (the binary; default build-dev, build, then
# build-cpu), E2E_BACKEND (cuda | cpu; default cuda), E2E_CASES (default
# "poisson3d:128 poisson3d:192 elasticity3d:40"), E2E_TOL (default 1e-8),
# E2E_WORK (where the matrices go; default OUTDIR/e2e-work), E2E_DROP_CACHES
# (0: leave the page cache alone), PYTHON.
# Without SciPy, CuPy or a GPU for them the reference column is skipped, said so.
set -euo pipefail
out=${1:-.}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${E2E_WORK:-$out/e2e-work}
mkdir -p "$work"
here=$(cd "$(dirname "$0")" && pwd)
cgm=${CGMODEL:-}
if [ -z "$cgm" ]; then
  for c in build-dev/cli/cgmodel build/cli/cgmodel build-cpu/cli/cgmodel; do
    if [ -x "$c" ]; then cgm=$PWD/$c; break; fi
  done
fi
if [ -z "$cgm" ] || [ ! -x "$cgm" ]; then
  echo "e2e.sh: no cgmodel binary (set CGMODEL)" >&2
  exit 2
fi
backend=${E2E_BACKEND:-cuda}
cases=${E2E_CASES:-poisson3d:128 poisson3d:192 elasticity3d:40}
tol=${E2E_TOL:-1e-8}
py=${PYTHON:-python3}
cache=$work/cache
table=$out/e2e.tsv

# ---- what this machine offers
echo "e2e: $("$cgm" version), backend $backend, tolerance $tol"
ref=1
if ! command -v "$py" >/dev/null; then
  echo "e2e: no $py: the SciPy + CuPy column is skipped"
  ref=0
elif ! "$py" -c 'import scipy' 2>/dev/null; then
  echo "e2e: SciPy is not installed for $py: the SciPy + CuPy column is skipped"
  ref=0
elif ! "$py" -c 'import cupy, sys; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)' 2>/dev/null; then
  echo "e2e: CuPy is not installed for $py, or sees no GPU: the SciPy + CuPy column is skipped"
  ref=0
fi
# Dropping the page cache needs root and a writable /proc/sys (not in most containers).
drop_caches() {
  sync
  if { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then return 0; fi
  return 1
}
if [ "${E2E_DROP_CACHES:-1}" != 1 ]; then
  page="not dropped (E2E_DROP_CACHES=0): cold runs read the file from the page cache"
elif drop_caches; then
  page="dropped before each cold run"
else
  page="NOT dropped (no permission): cold runs read the file from the page cache"
fi
echo "e2e: page cache $page"

now() { date +%s.%N; }
# cg_run NAME FILE MODE: one `cgmodel solve`; appends a row to the table.
printf 'case\trun\tread_s\tsetup_s\tsolve_s\ttotal_s\twall_s\titerations\trelative_residual\tcache\n' >"$table"
cg_run() {
  local name=$1 file=$2 mode=$3 t0 t1 json
  json=$work/$name.$mode.json
  t0=$(now)
  "$cgm" solve "$file" --backend "$backend" --tol "$tol" --no-record --cache-dir "$cache" \
    --json >"$json" || { echo "e2e: cgmodel solve $file failed ($mode)" >&2; return 1; }
  t1=$(now)
  "$py" - "$json" "$name" "$mode" "$t0" "$t1" >>"$table" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
wall = float(sys.argv[5]) - float(sys.argv[4])
read = j["time_read_s"]
setup = j["time_analyse_s"] + j["time_setup_s"]
solve = j["time_solve_s"]
print("\t".join(str(v) for v in (sys.argv[2], sys.argv[3], read, setup, solve, read + setup + solve,
                                  wall, j["iterations"], j["relative_residual"],
                                  j["cache"]["outcome"])))
PY
}
ref_run() {
  local name=$1 file=$2 t0 t1 json rc=0
  json=$work/$name.ref.json
  t0=$(now)
  "$py" "$here/scipy_cupy_cg.py" "$file" --tol "$tol" >"$json" || rc=$?
  t1=$(now)
  if [ $rc -ne 0 ]; then echo "e2e: scipy_cupy_cg.py $file failed (exit $rc)" >&2; return 0; fi
  "$py" - "$json" "$name" "$t0" "$t1" >>"$table" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
print("\t".join(str(v) for v in (sys.argv[2], "scipy+cupy", j["time_read_s"], j["time_setup_s"],
                                  j["time_solve_s"], j["time_total_s"], wall, j["iterations"],
                                  j["relative_residual"], "-")))
PY
}

for c in $cases; do
  kind=${c%%:*} n=${c##*:}
  name=$kind-$n
  file=$work/$name.mtx
  if [ ! -s "$file" ]; then
    echo "e2e: generating $name"
    "$cgm" gen "$kind" --n "$n" -o "$file" >/dev/null 2>&1
  fi
  # A file modified within the last second is not cached (its timestamp
  # could not show a later change): the bench's files are older than that.
  touch -d '10 seconds ago' "$file"
  "$cgm" cache clear --cache-dir "$cache" >/dev/null
  [ "${E2E_DROP_CACHES:-1}" = 1 ] && { drop_caches || true; }
  cg_run "$name" "$file" cold
  cg_run "$name" "$file" warm
  [ $ref -eq 1 ] && ref_run "$name" "$file"
done

# ---- the table: seconds, and the speed-up of the total over SciPy + CuPy
"$py" - "$table" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
ref = {r["case"]: float(r["total_s"]) for r in rows if r["run"] == "scipy+cupy"}
print(f"{'case':<18} {'run':<11} {'read s':>8} {'setup s':>8} {'solve s':>8} {'total s':>8} "
      f"{'wall s':>8} {'iters':>6} {'residual':>9} {'cache':>8} {'vs ref':>7}")
for r in rows:
    ratio = ref.get(r["case"])
    ratio = f"{ratio / float(r['total_s']):.2f}x" if ratio and r["run"] != "scipy+cupy" else "-"
    print(f"{r['case']:<18} {r['run']:<11} {float(r['read_s']):8.3f} {float(r['setup_s']):8.3f} "
          f"{float(r['solve_s']):8.3f} {float(r['total_s']):8.3f} {float(r['wall_s']):8.3f} "
          f"{r['iterations']:>6} {float(r['relative_residual']):9.2e} {r['cache']:>8} {ratio:>7}")
if not ref:
    print("(no SciPy + CuPy column: see above why)")
PY
echo "e2e: total = read + setup + solve as each reports them; wall = the whole process"
echo "e2e: (cgmodel: with CUDA's start-up; scipy+cupy: with Python's imports and CuPy's warm-up)."
echo "e2e: vs ref = SciPy + CuPy total / this total. Table: $table"
