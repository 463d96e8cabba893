#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Reordering as the tuner's decision, measured: a random geometric mesh of
# NODES nodes (3 unknowns a node) numbered at random, solved as numbered and
# in reverse Cuthill-McKee's numbering (the time an iteration takes, measured
# beside the model's prediction of each numbering), and by `solve --auto`,
# which says whether it reorders. Prints the measured and predicted gains.
# Run on a GPU machine with a calibrated database:
#   bench/rcm_gain.sh BUILD_DIR DB OUTDIR [NODES (default 400000: 1.2M rows)]
set -euo pipefail
build=$1 db=$2 out=$3 nodes=${4:-400000}
cg=$build/cli/cgmodel
mkdir -p "$out"
m=$out/mesh_random_$nodes.mtx
[ -e "$m" ] || "$cg" gen mesh3d --n "$nodes" --numbering=random --symmetric -o "$m" 2>/dev/null
touch -d '1 minute ago' "$m" # cached from the first solve on
for r in none rcm; do
  "$cg" solve "$m" --db "$db" --no-record --reorder "$r" --json >"$out/rcm_$r.json" 2>"$out/rcm_$r.err" || true
  "$cg" solve "$m" --db "$db" --no-record --reorder "$r" --json >"$out/rcm_$r.json" 2>"$out/rcm_$r.err" || true
done
"$cg" solve "$m" --db "$db" --no-record --auto --json >"$out/rcm_auto.json" 2>"$out/rcm_auto.err" || true
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
j = {r: json.load(open("%s/rcm_%s.json" % (d, r))) for r in ("none", "rcm", "auto")}
n, r = j["none"], j["rcm"]
adv = r.get("reorder_advice", {})
print("matrix: %s; block %d, %s" % (n["matrix"], n["block"], n["precision"]))
print("as numbered: %.1f us an iteration measured, %.1f predicted; %d iterations" % (
    1e6 * n["time_per_iter_s"], 1e6 * adv.get("time_per_iter_s", float("nan")), n["iterations"]))
print("rcm:         %.1f us an iteration measured, %.1f predicted; %d iterations; reordering %.3f s" % (
    1e6 * r["time_per_iter_s"], 1e6 * r.get("predicted_time_per_iter_s", float("nan")), r["iterations"],
    r.get("time_reorder_s", float("nan"))))
pg = adv.get("time_per_iter_s", float("nan")) / adv.get("time_per_iter_rcm_s", float("nan"))
mg = n["time_per_iter_s"] / r["time_per_iter_s"]
print("gain an iteration: measured %.3fx, predicted %.3fx (predicted / measured %.3f)" % (mg, pg, pg / mg))
a = j["auto"]
print("solve --auto: block %d, %s, reorder %s, %.3f s in all (%s)" % (
    a["block"], a["precision"], a.get("reorder"), a.get("time_total_s", float("nan")),
    a.get("reorder_advice", {}).get("why", "")[:160]))
PY
