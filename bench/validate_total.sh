#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The tuner by time to a solution: a quick calibration (unless OUTDIR/v.db
# exists), then `cgmodel validate --total TOL` over the bundled SPD matrices
# and generated ones: every configuration solved to TOL, the tuner's choice
# by predicted total time against the best measured total. Run on a GPU
# machine from the repository root (after scripts/device-run.sh):
#   bench/validate_total.sh BUILD_DIR OUTDIR [TOL]
# Environment: VALIDATE_REPEAT (runs of each configuration, the least kept;
# default 3: with one run, solves of a few milliseconds differ by their noise,
# 74% within 10% on one H200 on 2026-11-30 against 91% with three before).
set -euo pipefail
build=$1 out=$2 tol=${3:-1e-8}
cg=$build/cli/cgmodel
mkdir -p "$out/m"
db=$out/v.db
[ -e "$db" ] || "$cg" calibrate --quick --db "$db" >"$out/calibrate.txt" 2>&1
list=$out/list.txt
: >"$list"
for spec in poisson2d:700 poisson3d:48 poisson3d:96 elasticity3d:20 elasticity3d:36 random:100000; do
  kind=${spec%%:*} n=${spec##*:} f=$out/m/${kind}_$n.mtx
  [ -e "$f" ] || "$cg" gen "$kind" --n "$n" -o "$f" 2>/dev/null
  echo "$f" >>"$list"
done
awk -F'\t' '$7 == "yes" {print "data/matrices/" $1 ".mtx"}' data/matrices/MANIFEST.tsv >>"$list"
"$cg" validate "$list" --total "$tol" --repeat "${VALIDATE_REPEAT:-3}" --db "$db" --csv "$out/validate_total.csv" \
  --json >"$out/validate_total.json" 2>"$out/validate_total.err"
python3 - "$out/validate_total.csv" "$out/validate_total.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
print("groups (predicted total vs measured setup + solve):")
for g in j["groups"]:
    print("  %-8s %-6s N=%d gpus=%d  n=%3d  avg |err| %5.1f%%" % (g["backend"], g["precision"], g["block"],
          g["gpus"], g["count"], 100 * g["avg_rel_error"]))
t = j["tuner"]
print("tuner by total time: %d matrices, mean regret %.3f, max %.3f, within 5%%: %.0f%%, within 10%%: %.0f%%" % (
    j["matrices"], t["mean_regret"], t["max_regret"], 100 * t["within_5_percent"],
    100 * t["within_10_percent"]))
PY
