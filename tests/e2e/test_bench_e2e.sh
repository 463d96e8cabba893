#!/usr/bin/env bash
# bench/e2e.sh's CPU parts: on two tiny matrices with the CPU backend, a
# cold run (cache miss) and a warm one (hit) per matrix, a table of both,
# and the SciPy + CuPy column skipped with its reason when CuPy or a GPU is
# missing (the GPU machine runs the whole benchmark).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

run_cmd env CGMODEL="$CGM" E2E_BACKEND=cpu E2E_CASES="poisson3d:10 elasticity3d:3" \
  E2E_DROP_CACHES=0 bash "$REPO/bench/e2e.sh" "$TMP/bench"
assert_eq "$RC" 0 "bench/e2e.sh exit status"
[ "$RC" -eq 0 ] || show_last
TSV=$TMP/bench/e2e.tsv
assert_file_exists "$TSV" "the table"
python3 - "$TSV" <<'PY' && pass || fail "e2e.tsv rows"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
runs = [(r["case"], r["run"], r["cache"]) for r in rows if r["run"] != "scipy+cupy"]
assert runs == [("poisson3d-10", "cold", "miss"), ("poisson3d-10", "warm", "hit"),
                ("elasticity3d-3", "cold", "miss"), ("elasticity3d-3", "warm", "hit")], runs
for r in rows:
    assert float(r["relative_residual"]) <= 1e-8, r
    assert float(r["wall_s"]) >= float(r["total_s"]) - 1e-3 and float(r["total_s"]) > 0, r
PY
if python3 -c 'import cupy, sys; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)' 2>/dev/null; then
  last_stdout_contains "scipy+cupy"
else
  last_stdout_contains "the SciPy + CuPy column is skipped"
  last_stdout_contains "(no SciPy + CuPy column: see above why)"
fi
last_stdout_contains "page cache not dropped (E2E_DROP_CACHES=0)"
finish
