#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A GPU's start priced: its calibration stores one "start" sample (the
# driver's start and its context, 10 ms to 10 s); a solve on it reports the
# start it paid; `solve --auto` of a small matrix whose iterations are known
# (the second solve: the first recorded them) runs on the CPU without
# starting the GPU (auto_cpu_first, no time_gpu_start_s) and meets the
# tolerance (the first, which knows no iterations, does not count the GPU's
# start in its analysis); a matrix above the small files' size starts the
# GPU at once.
# Exits 77 (skipped) without a GPU.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh" "$@"

"$CGM" devices 2>/dev/null | grep -q 'cuda:0' || { echo "no GPU: skipped"; exit 77; }
DB=$TMP/first.db
A=$DATA/bcsstk16.mtx
expect_exit 0 "$CGM" calibrate --devices cpu,cuda:0 --quick --precision double --db "$DB"
python3 - "$DB" <<'PY' || fail "the GPU's start sample"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
s = db.execute("SELECT d.kind, s.seconds FROM samples s JOIN calibrations c ON c.id = "
               "s.calibration_id JOIN devices d ON d.id = c.device_id WHERE s.kernel = 'start'").fetchall()
print("start samples:", s)
assert len(s) == 1 and s[0][0] == "cuda" and 0.01 < s[0][1] < 10, s
PY
pass
expect_exit 0 "$CGM" solve "$A" --backend cuda --no-record --json --db "$DB"
json_check "$OUT" '0.01 < j["time_gpu_start_s"] < 10 and j["converged"]' "a GPU solve reports its start"
expect_exit 0 "$CGM" solve "$A" --auto --json --db "$DB"
# the first knows no iterations (its K the row count): where that prices the CPU over the GPU's start
# (so on an H200 node), the GPU is started within the analysis, whose time is then the start's alone
# (not counted twice); a CPU that would run those iterations sooner than a GPU starts keeps it
json_check "$OUT" '(j["backend"] == "cpu" and "time_gpu_start_s" not in j) or (j["backend"] == "cuda" and j["time_gpu_start_s"] > 0 and j["time_analyse_s"] + j["time_gpu_start_s"] <= j["time_total_s"])' "--auto: the GPU's start not in the analysis"
expect_exit 0 "$CGM" solve "$A" --auto --json --db "$DB"
json_check "$OUT" 'j["backend"] == "cpu" and j["auto_cpu_first"]["cpu_s"] < j["auto_cpu_first"]["gpu_start_s"] and "time_gpu_start_s" not in j and j["converged"] and j["relative_residual"] <= 1e-8' "--auto: the CPU first"
expect_exit 0 "$CGM" gen poisson3d --n 72 -o "$TMP/grid.mtx"
expect_exit 0 "$CGM" solve "$TMP/grid.mtx" --auto --no-record --json --db "$DB"
json_check "$OUT" 'j["backend"] == "cuda" and "auto_cpu_first" not in j and j["time_gpu_start_s"] > 0' "--auto: a larger file starts the GPU at once"
finish
