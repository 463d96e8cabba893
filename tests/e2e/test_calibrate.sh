#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The pipeline on the CPU device end to end: calibrate --quick stores fits
# that reproduce the kernels' own measured times; db list/show/export; predict
# gives every configuration with the keys of docs/cli.md and a choice; solve
# records its time beside the prediction; --auto runs the tuner's choice;
# validate reports Table 6 groups; and every missing-calibration path fails
# clearly.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk16.mtx

# ---- no calibration yet: clear errors, exit 2, nothing created by reads
expect_fail 2 "cgmodel calibrate" "$CGM" predict "$A"
assert_no_file "$CGMODEL_DB" "predict without a database must not create one"
expect_fail 2 "cgmodel calibrate" "$CGM" solve "$A" --auto --backend cpu
expect_exit 0 "$CGM" solve "$A" --backend cpu
assert_no_file "$CGMODEL_DB" "a solve must not create a database"
expect_fail 2 "cgmodel calibrate" "$CGM" db list
expect_fail 2 "calibrate" "$CGM" calibrate --devices tpu:0
expect_fail 2 "no CUDA device" "$CGM" calibrate --devices cuda:all
expect_fail 2 "'cpu2' is not cpu" "$CGM" calibrate --devices cpu,cpu2
assert_no_file "$CGMODEL_DB" "a refused --devices list must not create a database"

# ---- calibrate the CPU (quick, double), as JSON
expect_exit 0 "$CGM" calibrate --devices cpu --quick --precision double --json
cp "$OUT" "$TMP/cal.json"
json_check "$TMP/cal.json" 'len(j["calibrations"]) == 1 and j["calibrations"][0]["device"] == "cpu"' "one CPU calibration"
json_check "$TMP/cal.json" 'j["calibrations"][0]["samples"] >= 100 and j["calibrations"][0]["fits"] >= 30' "samples and fits stored"
json_check "$TMP/cal.json" 'list(j["calibrations"][0]["stages"])[0] == "setup" and list(j["calibrations"][0]["stages"])[-4:] == ["fits", "locality", "gather", "store"] and "spmv" in j["calibrations"][0]["stages"]' "stage times: setup, the sweeps, fits, locality, the gather sweep, store"
# The locality sweep's coefficient (docs/model.md): fitted, >= 0, stored.
json_check "$TMP/cal.json" '0 <= j["calibrations"][0]["x_coef"]["double"] <= 16' "the locality coefficient is fitted"
json_check "$TMP/cal.json" 'abs(sum(j["calibrations"][0]["stages"].values()) - j["calibrations"][0]["seconds"]) <= 0.02 * j["calibrations"][0]["seconds"]' "the stage times add up to the calibration's seconds"
ID=$(json_get "$TMP/cal.json" calibrations.0.id)

# ---- db list / show / export
expect_exit 0 "$CGM" db list --json
json_check "$OUT" "any(c['id'] == $ID and c['complete'] and c['device']['kind'] == 'cpu' for c in j['calibrations'])" "db list shows it"
# db list: the header's columns over the rows'
expect_exit 0 "$CGM" db list
python3 - "$OUT" <<'PY' && pass || fail "db list: the header does not line up with its rows: $(cat "$OUT")"
import sys
head, row = open(sys.argv[1]).read().splitlines()[:2]
assert [head.index(w) for w in ("kind", "model")] == [row.index(w) for w in ("cpu ", row.split()[3])]
assert head.rstrip().endswith("time") and len(head.rstrip()) == len(row.rstrip())
PY
expect_exit 0 "$CGM" db show "$ID"
last_stdout_contains "spmv"
last_stdout_contains "cg4"
expect_exit 0 "$CGM" db export "$ID" -o "$TMP/export.json"
# The CPU's setup, timed on solves of grids at every block size (the
# tuner's setup model of the CPU): samples of kernel "setup" that grow with
# the layout's bytes.
json_check "$TMP/export.json" 'len({s["block"] for s in j["samples"] if s["kernel"] == "setup" and s["bytes"] > 0 and s["seconds"] > 0}) == 4' "setup samples at every block size"
json_check "$TMP/export.json" 'max(s["bytes"] for s in j["samples"] if s["kernel"] == "setup") > 100 * min(s["bytes"] for s in j["samples"] if s["kernel"] == "setup")' "setup samples over a range of layouts"
# The CPU's timed iterations start at the 4^2 grid (the solver's fixed
# steps, under which matrices of 14-20 rows are priced), at every block size.
json_check "$TMP/export.json" 'len({s["block"] for s in j["samples"] if s["kernel"] == "iter" and s["source"] == "poisson2d:4" and s["seconds"] > 0}) == 4' "iterations of the 4^2 grid at every block size"
# The relative fits reproduce the kernels' own measured times: median
# |T_fit / T_measured - 1| over the samples of each kernel, the curve being rel
# up to where rel-hi (a CPU's cache peak passed) takes over: <= 35%. A CPU's
# curves have a step per cache level (a CG5 bump in L2, 2x the L3 level) that
# two pieces follow only roughly (medians of 2-28% seen on this machine), and its SpMV throughput at one size spans 2x
# between matrices (x's cache reuse: random vs stencil), which a model of bytes
# alone cannot see (docs/model.md); garbage fits are off by far more. Not in
# a sanitized build (CGM_TEST_SANITIZED), whose timings are not the kernels'.
fits_check() { # EXPORT.json: prints what is off, fails when something is
  python3 - "$1" <<'PY' 2>&1
import json, math, sys
j = json.load(open(sys.argv[1]))
def eq3(f, m):
    return f["nu"] / (1 + math.exp(-(math.log2(m) - f["mu"]) / f["sigma"]))
# The SpMV curve the refined model uses is the mesh curve, over the samples
# of Poisson grids (pipeline_on_mesh): elasticity's 81-entry rows are no
# samples of it, so they do not judge it.
def mesh(s):
    return s.get("source", "").startswith(("poisson3d:", "poisson2d:"))
curves = {}
for f in j["fits"]:
    if (f["converged"] or f["kind"] == "interp") and f["kind"] in ("rel", "rel-hi", "interp") and (
            f["kernel"] in ("cg4", "cg5") or (f["kernel"] == "spmv" and f["variant"] == "mesh")):
        curves.setdefault((f["kernel"], f["block"], f["precision"]), {})[f["kind"]] = f
bad = []
fitted = 0
for key, c in curves.items():
    if "rel" not in c:
        if "interp" not in c:  # the samples' interpolation serves: their own medians
            bad.append(f"{key}: a rel-hi fit without a rel fit")
        continue
    fitted += 1
    hi = c.get("rel-hi")
    errs = sorted(abs(eq3(hi if hi and s["m"] >= hi["m_lo"] else c["rel"], s["m"]) / s["gbps"] - 1)
                  for s in j["samples"]
                  if (s["kernel"], s["block"], s["precision"]) == key
                  and (s["kernel"] != "spmv" or mesh(s)))
    if not errs or errs[len(errs) // 2] > 0.35:
        bad.append(f"{key}: median error {errs[len(errs) // 2] if errs else 'no samples'}")
if len(curves) < 6 or fitted < 1:
    bad.append(f"only {len(curves)} curves, {fitted} fitted")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
# Timings of a 2-core VM wander now and then (one CI run in ~25 saw the SpMV
# median at 41%): a miss is measured once more, in a database of its own, and
# only a second miss fails. Fits that are wrong miss both times.
if [ -n "${CGM_TEST_SANITIZED:-}" ]; then
  echo "note: sanitized build: the accuracy check of the fits is skipped" >&2
elif msg=$(fits_check "$TMP/export.json"); then
  pass "fits reproduce the measured kernel times (median)"
elif CGMODEL_DB=$TMP/again.db "$CGM" calibrate --devices cpu --quick --precision double >/dev/null 2>&1 &&
  CGMODEL_DB=$TMP/again.db "$CGM" db export 1 -o "$TMP/again.json" >/dev/null 2>&1 &&
  msg2=$(fits_check "$TMP/again.json"); then
  echo "note: the first calibration's fits missed ($msg); a second calibration's passed" >&2
  pass "fits reproduce the measured kernel times (median, second calibration)"
else
  fail "fits reproduce the measured kernel times (median): $msg; a second calibration: ${msg2:-failed}"
fi
# No fit counts as converged outside its bounds (cgm_fit_bounded): its
# plateau at most 4x the fastest sample of its kernel and precision (a
# relative fit written as a power law once reached nu = 2.7e18 GB/s); where
# the relative fit is not converged, an interp row says the samples serve.
json_check "$TMP/export.json" 'all(f["nu"] <= 4 * max(s["gbps"] for s in j["samples"] if (s["kernel"], s["precision"]) == (f["kernel"], f["precision"])) for f in j["fits"] if f["converged"])' "converged fits within their bounds"
json_check "$TMP/export.json" 'all(any(g["kind"] == "interp" and (g["kernel"], g["variant"], g["precision"], g["block"]) == (f["kernel"], f["variant"], f["precision"], f["block"]) for g in j["fits"]) for f in j["fits"] if f["kind"] == "rel" and not f["converged"] and "interpolation" in f.get("message", ""))' "a relative fit out of bounds has its interpolation"
json_check "$TMP/export.json" 'all("spread" in s for s in j["samples"] if s["kernel"] in ("cg4", "spmv"))' "every timed sample keeps its spread"
expect_fail 2 "calibration ID" "$CGM" db show abc
expect_fail 2 "no calibration with id 999" "$CGM" db show 999

# ---- predict: every configuration, the keys of docs/cli.md, a choice
expect_exit 0 "$CGM" predict "$A" --json
cp "$OUT" "$TMP/pred.json"
json_check "$TMP/pred.json" 'j["features"]["x"] == 4884 and len(j["features"]["blocks"]) == 4' "features in predict"
json_check "$TMP/pred.json" 'len(j["candidates"]) == 4 and all(k in c for c in j["candidates"] for k in ("block", "gpus", "precision", "time_per_iter_s", "gflops_raw", "gflops_real", "speedup"))' "candidates with the docs/cli.md keys"
# the least total of its precision; another precision must lead by its margin (at most 10%) to be chosen
json_check "$TMP/pred.json" 'j["choice"]["total_s"] <= 1.01 * min(c["total_s"] for c in j["candidates"] if c["precision"] == j["choice"]["precision"]) and j["choice"]["total_s"] <= 1.10 * min(c["total_s"] for c in j["candidates"])' "the choice has the least predicted total, within the precisions' margin"
json_check "$TMP/pred.json" 'all(abs(c["total_s"] - c["setup_s"] - c["iterations"] * c["time_per_iter_s"]) <= 1e-9 * c["total_s"] for c in j["candidates"])' "total = setup + K iterations"
json_check "$TMP/pred.json" 'all(c["gflops_real"] <= c["gflops_raw"] + 1e-9 for c in j["candidates"])' "real performance <= raw (Eq. 8 vs 7)"
expect_exit 0 "$CGM" predict "$A" --json --model paper
json_check "$OUT" 'j["model"] == "paper" and all(c["time_per_iter_s"] > 0 for c in j["candidates"])' "paper mode predicts"
expect_exit 0 "$CGM" predict "$A"
# a CPU's database asked for 4 GPUs: its rows, and a word that none is on 4
expect_stderr_contains "no configuration on 4 GPUs: no GPU among the calibrated devices asked" "$CGM" predict "$A" --gpus 4
last_stdout_contains "recommended"
# solve --reorder auto's decision for the choice: both numberings predicted
last_stdout_contains "bandwidth"
json_check "$TMP/pred.json" 'j["reorder"]["choice"] in ("rcm", "none") and j["reorder"]["time_per_iter_s"] > 0 and j["reorder"]["iterations"] > 0 and j["reorder"]["gain_bound_s"] >= 0' "predict: the reorder decision"
# RCM computed and both numberings predicted; or skipped because even x
# read in its least sectors could not repay the least RCM costs; or computed
# and found to leave the entries about as far apart (no plan made for it).
# Which one depends on the calibration's locality fit, so each is accepted
# with its own evidence.
json_check "$TMP/pred.json" '(j["reorder"]["rcm_computed"] and j["reorder"]["time_per_iter_rcm_s"] > 0 and j["reorder"]["bandwidth_rcm"] > 0) or (not j["reorder"]["rcm_computed"] and j["reorder"]["choice"] == "none" and "bandwidth_rcm" not in j["reorder"] and "time_per_iter_rcm_s" not in j["reorder"] and ((j["reorder"]["gain_bound_s"] <= 5e-9 * j["features"]["nnz"] and j["reorder"]["reorder_s"] == 0) or (j["reorder"]["gain_bound_s"] > 5e-9 * j["features"]["nnz"] and j["reorder"]["reorder_s"] > 0 and "RCM leaves entries" in j["reorder"]["why"])))' "predict: RCM weighed, bounded out, or found no nearer"
expect_fail 2 "--block" "$CGM" predict "$A" --block 3

# ---- db refit: a database from before the mesh curves (only the "all"
# SpMV curves) still predicts; refit fits the stored samples anew and gives
# back the very fits and predictions of the calibration itself.
python3 - "$CGMODEL_DB" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("DELETE FROM fits WHERE variant = 'mesh'")
c.commit()
PY
expect_exit 0 "$CGM" predict "$A" --json
json_check "$OUT" 'len(j["candidates"]) == 4 and all(c["time_per_iter_s"] > 0 for c in j["candidates"])' "predicts from the all curves alone"
expect_exit 0 "$CGM" db refit "$ID"
last_stdout_contains "calibration $ID: cpu"
expect_exit 0 "$CGM" db refit "$ID" --json
json_check "$OUT" "len(j['calibrations']) == 1 and j['calibrations'][0]['id'] == $ID and j['calibrations'][0]['fits'] > 0" "db refit --json: the calibration refitted"
expect_exit 0 "$CGM" db export "$ID" -o "$TMP/refit.json"
assert_py "$(python3 -c "
import json
a = json.load(open('$TMP/export.json'))['fits']; b = json.load(open('$TMP/refit.json'))['fits']
key = lambda f: (f['kernel'], f['variant'], f['precision'], f['block'], f['kind'])
print(int(sorted(map(key, a)) == sorted(map(key, b)) and
          all((x['mu'], x['sigma'], x['nu']) == (y['mu'], y['sigma'], y['nu'])
              for x, y in zip(sorted(a, key=key), sorted(b, key=key)))))") == 1" "refit restores the calibration's own fits"
expect_exit 0 "$CGM" predict "$A" --json
json_check "$OUT" "[c['time_per_iter_s'] for c in j['candidates']] == [c['time_per_iter_s'] for c in __import__('json').load(open('$TMP/pred.json'))['candidates']]" "refit restores the predictions"
# The SpMV "mesh" curves are fitted on the Poisson grids' samples alone:
# elasticity's long rows (also swept) stay in "real" and "all"; a lone dip
# (a disturbed run: pipeline/calibrate.c) may be left out.
assert_py "$(python3 -c "
import json
j = json.load(open('$TMP/refit.json'))
ok = 0
for f in j['fits']:
    if (f['kernel'], f['variant'], f['kind']) != ('spmv', 'mesh', 'avg'): continue
    same = [s for s in j['samples'] if s['kernel'] == 'spmv' and s['precision'] == f['precision'] and s['block'] == f['block']]
    pois = [s for s in same if s.get('source', '').startswith('poisson')]
    elas = [s for s in same if s.get('source', '').startswith('elasticity')]
    # fitted on the settled ones, when 4 or more settled
    settled = [s for s in pois if not s.get('unsettled')]
    fitted = settled if len(settled) >= 4 else pois
    ok += len(fitted) - len(pois) // 4 <= f['n'] <= len(fitted) and len(elas) > 0
print(ok)") == 4" "mesh fits: the Poisson samples only, at every block size"
expect_fail 2 "no calibration with id 999" "$CGM" db refit 999
expect_fail 2 "calibration ID" "$CGM" db refit

# ---- solve records measured beside predicted; --auto runs the choice
expect_exit 0 "$CGM" solve "$A" --backend cpu --block 4 --json
json_check "$OUT" '"predicted_time_per_iter_s" in j and j["predicted_time_per_iter_s"] > 0' "solve reports its prediction"
expect_exit 0 "$CGM" solve "$A" --auto --json
cp "$OUT" "$TMP/auto.json"
json_check "$TMP/auto.json" 'j["converged"] and j["backend"] == "cpu" and "auto" in j' "--auto solved on the CPU"
# the tuner's K: a converged double solve of this matrix at 1e-8 is on record (above)
json_check "$TMP/auto.json" 'j["predicted"]["iterations_source"] == "database" and j["predicted"]["total_s"] > j["predicted"]["setup_s"] > 0' "--auto's K from the recorded solve"
expect_exit 0 "$CGM" solve "$A" --auto --json --tol 1e-11 --no-record
json_check "$OUT" 'j["predicted"]["iterations_source"] == "database" and j["relative_residual"] <= 1e-11' "a record at 1e-8 only: K scaled from it to 1e-11, the tolerance met"
json_check "$OUT" '0.3 * j["iterations"] <= j["predicted"]["iterations"] <= 3 * j["iterations"]' "the scaled K within 3x of the iterations run"
expect_exit 0 "$CGM" solve "$A" --auto --json --tol 1e-11 --no-record --iters-hint 77
json_check "$OUT" 'j["predicted"]["iterations_source"] == "hint" and j["predicted"]["iterations"] in (77, 93)' "--iters-hint is K (mixed: x1.2)"
CHOICE_N=$(json_get "$TMP/pred.json" choice.block)
json_check "$TMP/auto.json" "j['block'] == $CHOICE_N" "--auto ran the block size predict recommends"
expect_exit 0 "$CGM" db solves --json
json_check "$OUT" 'len(j["solves"]) >= 2 and all("predicted_time_per_iter_s" in s for s in j["solves"])' "solves stored with predictions"
json_check "$OUT" 'all(s["matrix"] == "bcsstk16.mtx" for s in j["solves"])' "db solves --json: the matrix by name"
expect_exit 0 "$CGM" db solves
last_stdout_contains "  bcsstk16.mtx "
expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record --json
expect_exit 0 "$CGM" db solves --json
json_check "$OUT" 'len(j["solves"]) == 2' "--no-record stores nothing"
# What a solve refuses, predict refuses with its message (exit 2), and a
# refused solve (nothing run, nothing timed) is no measurement to record.
expect_fail 2 "$DATA/west0479.mtx: matrix is not symmetric" "$CGM" predict "$DATA/west0479.mtx"
expect_fail 2 "$DATA/zenios.mtx: matrix is not positive definite: diagonal entry (1, 1) is missing or 0" \
  "$CGM" predict "$DATA/zenios.mtx" --json
expect_exit 1 "$CGM" solve "$DATA/zenios.mtx" --backend cpu
last_stderr_contains "matrix is not positive definite: diagonal entry (1, 1) is missing or 0"
expect_exit 0 "$CGM" db solves --json
json_check "$OUT" 'len(j["solves"]) == 2' "a refused solve is not recorded"
# --reorder: rcm solves in the RCM numbering and returns x in the file's
# (its residual recomputed on A); auto (the default) says what the model
# weighed; none does not reorder.
expect_exit 0 "$CGM" solve "$A" --backend cpu --reorder rcm --no-record --json -o "$TMP/rcm.x.mtx"
cp "$OUT" "$TMP/rcm.json"
json_check "$TMP/rcm.json" 'j["converged"] and j["reorder"] == "rcm" and j["time_reorder_s"] > 0 and j["predicted_time_per_iter_s"] > 0' "--reorder rcm"
printf '%s\t%s\t%s\n' "$A" "$TMP/rcm.json" "$TMP/rcm.x.mtx" >"$TMP/rcm.tsv"
if $MMTOOL check-solves "$TMP/rcm.tsv" >"$TMP/check.txt" 2>&1; then pass; else
  fail "the reordered solve does not solve A:"; sed 's/^/  /' "$TMP/check.txt" >&2; fi
expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record --json
json_check "$OUT" 'j["reorder"] in ("rcm", "none") and j["reorder_advice"]["choice"] == j["reorder"]' "--reorder auto decides by the model"
expect_exit 0 "$CGM" solve "$A" --backend cpu --reorder none --no-record --json
json_check "$OUT" 'j["reorder"] == "none" and "time_reorder_s" not in j' "--reorder none"
# The verdict of the default --reorder auto is said when it reordered, when
# --reorder was given or with -v, never as --auto's: the report alone else.
expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record
reordered=$(grep -c "^reordered" "$OUT")
if [ "$reordered" = 0 ] && [ -s "$ERR" ]; then fail "a solve as numbered said: $(cat "$ERR")"; else pass; fi
if grep -q -- "--auto" "$ERR"; then fail "--auto's prefix without --auto: $(cat "$ERR")"; else pass; fi
for how in "--reorder auto" -v; do
  # shellcheck disable=SC2086 # the option and its value are words
  expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record $how
  last_stderr_matches "^cgmodel solve: (no reordering|reverse Cuthill|RCM|reorder)"
done
expect_fail 2 "--reorder: 'amd' is not auto, none or rcm" "$CGM" solve "$A" --reorder amd

# ---- the analysis kept beside the cache entry (docs/cache.md): decided once,
# read back while the options, the model and K are the same, decided anew
# when one differs or the extra is damaged (1e-7: no K on record)
ANA=("$CGM" solve "$A" --backend cpu --no-record --json --tol 1e-7)
expect_exit 0 "${ANA[@]}"
cp "$OUT" "$TMP/ana1.json"
json_check "$TMP/ana1.json" 'j["cache"]["outcome"] == "hit" and not j["cache"]["analysis"]' "analysis: decided at first"
entry=$(json_get "$TMP/ana1.json" cache.entry)
assert_file_exists "$entry-analysis" "analysis: kept beside the entry"
# decided from the whole models: a solve first loads them without samples, enough for the key
expect_exit 0 "$CGM" predict "$A" --json
cp "$OUT" "$TMP/ana_pred.json"
same_as_predict() { # the solve's JSON ($OUT), its block size: its prediction is predict's (as numbered)
  json_check "$TMP/ana_pred.json" "'$(json_get "$OUT" reorder)' == 'rcm' or [c['time_per_iter_s'] for c in j['candidates'] if (c['backend'], c['block'], c['precision'], c['storage']) == ('cpu', $1, 'double', 'full')] == [$(json_get "$OUT" predicted_time_per_iter_s)]" "analysis: the solve's prediction is predict's at N = $1"
}
cp "$TMP/ana1.json" "$OUT"
same_as_predict 1
expect_exit 0 "${ANA[@]}"
json_check "$OUT" 'j["cache"]["analysis"]' "analysis: read back"
for k in predicted_time_per_iter_s reorder iterations; do
  assert_eq "$(json_get "$OUT" $k)" "$(json_get "$TMP/ana1.json" $k)" "analysis read back: same $k"
done
expect_exit 0 "${ANA[@]}" --block 2
json_check "$OUT" 'not j["cache"]["analysis"] and j["block"] == 2' "analysis: other options decide anew"
same_as_predict 2 # the models first without samples (a verdict kept), then whole
expect_exit 0 "${ANA[@]}" --block 2
json_check "$OUT" 'j["cache"]["analysis"]' "analysis: the new options' verdict kept"
expect_exit 0 "${ANA[@]}"
json_check "$OUT" 'j["cache"]["analysis"] and j["block"] == 1' "analysis: the first options' verdict kept beside it"
printf 'garbage' >>"$entry-analysis"
expect_exit 0 "${ANA[@]}" --block 2
json_check "$OUT" 'not j["cache"]["analysis"]' "analysis: a damaged extra is not trusted"
expect_exit 0 "${ANA[@]}" --block 2 --iters-hint 50
json_check "$OUT" 'not j["cache"]["analysis"]' "analysis: another K decides anew"
# the probe's runs kept beside the entry, double's and mixed's, paid once
# (an extra named outside [a-z0-9] is refused: mixed's ran anew every time)
expect_exit 0 "${ANA[@]}" --auto
for k in probe probemixed; do assert_file_exists "$entry-$k" "the probe's run kept: $k"; done
# --auto on a file read the first time (a miss: its entry written in the background while the
# analysis runs) keeps its verdict, and the next reads it back (the models first without their
# samples and history): the same choice (the probe's runs, put while the entry is written, are kept
# too: test_cache)
expect_exit 0 "$CGM" gen poisson3d --n 20 -o "$TMP/fresh.mtx"
touch -d "@$(($(date +%s) - 10))" "$TMP/fresh.mtx" # not modified within the second: cached
FRESH=("$CGM" solve "$TMP/fresh.mtx" --backend cpu --no-record --json --tol 1e-7 --auto --cache-dir "$TMP/fresh")
expect_exit 0 "${FRESH[@]}"
cp "$OUT" "$TMP/auto1.json"
json_check "$OUT" 'j["cache"]["outcome"] == "miss" and not j["cache"]["analysis"]' "--auto, first read: decided"
assert_file_exists "$(json_get "$OUT" cache.entry)-analysis" "--auto, first read: its verdict kept"
expect_exit 0 "${FRESH[@]}"
json_check "$OUT" 'j["cache"]["analysis"]' "--auto: its verdict read back"
for k in auto predicted_time_per_iter_s block precision; do
  assert_eq "$(json_get "$OUT" $k)" "$(json_get "$TMP/auto1.json" $k)" "--auto read back: same $k"
done
# a plain solve's verdict kept first: --auto then misses on the models read without their samples,
# decides on the whole ones and keeps that, which the next --auto reads back
PLAIN=("$CGM" solve "$TMP/fresh.mtx" --backend cpu --no-record --json --tol 1e-6 --cache-dir "$TMP/fresh")
expect_exit 0 "${PLAIN[@]}"
expect_exit 0 "${PLAIN[@]}" --auto
json_check "$OUT" 'not j["cache"]["analysis"]' "--auto after a plain solve: decided"
cp "$OUT" "$TMP/auto2.json"
expect_exit 0 "${PLAIN[@]}" --auto
json_check "$OUT" 'j["cache"]["analysis"]' "--auto after a plain solve: read back the next time"
assert_eq "$(json_get "$OUT" auto)" "$(json_get "$TMP/auto2.json" auto)" "--auto after a plain solve: the same choice"
# recorded solves: the first records K (the next weighs it: decided anew),
# then the verdict holds though every solve adds a record. A right-hand side
# of its own: the probe (b = A * ones) would otherwise know the very K the
# record does wherever it runs, and the key would not change.
python3 - "$TMP/rhs16.mtx" <<'PY'
import random, sys
random.seed(16)
with open(sys.argv[1], "w") as f:
    f.write("%%MatrixMarket matrix array real general\n4884 1\n")
    f.writelines(f"{random.uniform(-1, 1):.17g}\n" for _ in range(4884))
PY
REC=("$CGM" solve "$A" --backend cpu --json --tol 3e-7 --rhs "$TMP/rhs16.mtx")
for i in 1 2 3; do expect_exit 0 "${REC[@]}"; cp "$OUT" "$TMP/rec$i.json"; done
# a first solve other work held up is recorded disturbed: no K is learnt from it
if json_get "$TMP/rec1.json" disturbed >/dev/null; then
  echo "note: the first recorded solve was disturbed: K not learnt from it" >&2
else
  json_check "$TMP/rec2.json" 'not j["cache"]["analysis"]' "analysis: K learnt from the record decides anew"
fi
json_check "$TMP/rec3.json" 'j["cache"]["analysis"]' "analysis: read back between recorded solves"

# ---- validate: Table 6 groups and the tuner's regret, and the CSV
mkdir -p "$TMP/set"
cp "$DATA/bcsstk16.mtx" "$DATA/msc01050.mtx" "$DATA/gr_30_30.mtx" "$DATA/west0479.mtx" "$TMP/set/"
expect_exit 0 "$CGM" validate "$TMP/set" --iters 20 --json --csv "$TMP/val.csv"
cp "$OUT" "$TMP/val.json"
json_check "$TMP/val.json" 'j["matrices"] == 3 and len(j["groups"]) == 4' "3 SPD matrices (west0479 skipped), 4 block sizes"
# every solve measured, or left out as one other work held up (validate says
# so: ctest runs another test beside this one)
json_check "$TMP/val.json" 'all(1 <= g["count"] <= 3 and g["avg_rel_error"] >= 0 for g in j["groups"]) and sum(g["count"] for g in j["groups"]) + j["disturbed"] == 12' "every group measured"
json_check "$TMP/val.json" '1.0 <= j["tuner"]["mean_regret"]' "regret >= 1"
json_check "$TMP/val.json" 'all(abs(g["mean_signed_error"]) <= g["avg_rel_error"] + 1e-12 for g in j["groups"])' "the bias is at most the mean absolute error"
assert_py "$(python3 -c "
import csv
r = list(csv.DictReader(open('$TMP/val.csv')))
print(int(all(abs(abs(float(x['signed_error'])) - float(x['rel_error'])) < 1e-5 for x in r)))") == 1" "CSV: signed errors beside the absolute ones"
assert_py "$(wc -l < "$TMP/val.csv") == 13" "CSV: header + 12 rows"
expect_exit 0 "$CGM" db solves --json
json_check "$OUT" 'len(j["solves"]) == 17' "one solve per configuration (median of --repeat 3), not per run"
# total-time mode: every configuration solved to the tolerance, mixed among them
expect_exit 0 "$CGM" validate "$TMP/set" --total 1e-8 --repeat 1 --backend cpu --json
cp "$OUT" "$TMP/valt.json"
# (a double-only calibration: mixed, which iterates on single's curves, is left out)
json_check "$TMP/valt.json" 'j["matrices"] == 3 and {g["precision"] for g in j["groups"]} == {"double"} and j["measurements"] == 12' "--total: what the calibration can predict is measured"
json_check "$TMP/valt.json" 'all(g["count"] == 3 and g["avg_rel_error"] >= 0 for g in j["groups"]) and j["tuner"]["mean_regret"] >= 1.0' "--total: totals predicted for every run, regret >= 1"
# the iteration counts predicted as for a new matrix, against those run: per
# matrix and over them (the errors recomputed from the rows' counts below)
json_check "$TMP/valt.json" 'len(j["iterations"]["matrices"]) == 3 and 0 <= j["iterations"]["double"]["median_rel_error"] <= j["iterations"]["double"]["max_rel_error"] and abs(j["iterations"]["double"]["max_rel_error"] - max(m["double_rel_error"] for m in j["iterations"]["matrices"])) < 1e-12' "--total: the iteration counts' errors per matrix and over them"
# the set's matrices are small: the probe ran each to the tolerance, so their counts are exact
json_check "$TMP/valt.json" 'j["iterations"]["counted"] == 3 and j["iterations"]["probed_to_tol"] == sum(m["probed_to_tol"] for m in j["iterations"]["matrices"]) == 3 and j["iterations"]["double"]["max_rel_error"] == 0' "--total: the counts the probe ran to the tolerance, said"
expect_fail 2 "--precision: 'mixed' is not a list of single, double (or both)" "$CGM" validate "$TMP/set" --precision mixed
expect_fail 2 "no matrices" "$CGM" validate "$TMP/nowhere"
expect_fail 2 "--backend: 'foo' is not cpu, cuda, cusparse or all" "$CGM" validate "$TMP/set" --backend foo
expect_fail 2 "option --repeat: '0' is not an integer in [1, 99]" "$CGM" validate "$TMP/set" --repeat 0
mkdir -p "$TMP/unsym" && cp "$DATA/west0479.mtx" "$TMP/unsym/"
expect_fail 2 "nothing was measured" "$CGM" validate "$TMP/unsym" --iters 20

# ---- a CPU calibrated on 1 thread serves solves on 1 thread: --auto runs
# it (whatever OpenMP's default), a solve on other threads is told which
# calibration would serve
T1=(--db "$TMP/t1.db")
expect_exit 0 "$CGM" calibrate --devices cpu --quick --precision double --threads 1 "${T1[@]}"
# the report ends with the command that shows the calibration, its ID in it
last_stdout_contains "see it with: cgmodel db show 1 --db $TMP/t1.db"
expect_exit 0 "$CGM" solve "$A" --auto --no-record --json "${T1[@]}"
json_check "$OUT" 'j["converged"] and j["backend"] == "cpu" and j["device"].startswith("cpu (1 thread") and j["predicted_time_per_iter_s"] > 0' "--auto on a --threads 1 calibration: 1 thread, predicted"
expect_exit 0 "$CGM" solve "$A" --backend cpu --threads 3 --no-record "${T1[@]}"
last_stderr_contains "serves threads=1"
expect_exit 0 "$CGM" devices "${T1[@]}"
last_stdout_contains "serves solve --threads 1"

# ---- --auto on a small matrix weighs the CPU before starting a GPU: a GPU
# whose calibration measured a start longer than the CPU's predicted solve is
# never started (its curves would win per iteration); a quick start is
if ! "$CGM" version | grep -q CPU-only; then
  for start in 100 1e-6; do
    cp "$CGMODEL_DB" "$TMP/first.db"
    python3 "$(dirname "$0")/fake_gpu_calibration.py" "$TMP/first.db" $start
    expect_exit 0 "$CGM" solve "$A" --auto --no-record --json --db "$TMP/first.db"
    if [ $start = 100 ]; then
      json_check "$OUT" 'j["backend"] == "cpu" and j["auto_cpu_first"]["gpu_start_s"] == 100 and 0 < j["auto_cpu_first"]["cpu_s"] < 100 and j["auto"].startswith("on the CPU before any GPU") and "time_gpu_start_s" not in j and j["converged"]' "--auto: the CPU first, no GPU started"
    else
      json_check "$OUT" '"auto_cpu_first" not in j and j["converged"]' "--auto: a GPU's quick start weighed against"
    fi
  done
fi

# ---- nothing to recommend (exit 1, the table stands), --auto beside a layout option (exit 2)
expect_exit 1 "$CGM" predict "$A" --precision single
last_stdout_contains "recommended none (no configuration to run"
last_stderr_contains "no calibrated device has curves for the precision"
expect_fail 2 "--auto chooses the block size" "$CGM" solve "$A" --auto --block 4
expect_fail 2 "drop --gpus" "$CGM" solve "$A" --auto --gpus 1

# ---- a busy CPU: one thread held to one CPU beside a busy loop held there too; the calibration
# reads under half its CPU's time, starts again with a bounded spin (GOMP_SPINCOUNT, which the
# restarted process's environment shows) and leaves out what a busy quick calibration does
if command -v taskset >/dev/null; then
  CPU1=$(python3 -c "import os; print(min(os.sched_getaffinity(0)))")
  taskset -c "$CPU1" sh -c 'while :; do :; done' &
  HOG=$!
  expect_exit 0 env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT taskset -c "$CPU1" "$CGM" calibrate \
    --devices cpu --quick --threads 1 --precision double --db "$TMP/busy.db" --json
  kill "$HOG"
  wait "$HOG" 2>/dev/null
  assert_py "$(python3 -c "import json; d = json.load(open('$OUT')); c = d['calibrations'][0]
print(repr((d['openmp_wait'], c['cpu_share'] < 0.75, 'the CPU was busy' in c['warning'])))") == \
    ('GOMP_SPINCOUNT=10000', True, True)" "busy calibration restarted with a bounded spin"
fi

# ---- a corrupt database is refused with the path, and left alone
printf 'garbage%.0s' $(seq 1 600) > "$TMP/bad.db"
cp "$TMP/bad.db" "$TMP/bad.copy"
expect_fail 2 "bad.db" "$CGM" predict "$A" --db "$TMP/bad.db"
assert_py "$(cmp -s "$TMP/bad.db" "$TMP/bad.copy" && echo 1 || echo 0) == 1" "corrupt database untouched"
finish
