#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Predicts again, with another calibration, the per-iteration times a GPU
measured: `cgmodel predict --json` of every matrix of a validate CSV
(bench/validate_families.sh's) with DB, against the CSV's measured times,
grouped by family and by block size x precision (average |error|, mean
signed error), and the tuner's choice by time per iteration in double
precision against the measured best. The matrices are found in MATRIX_DIR
by the CSV's file names (regenerate them with the same commands).

  bench/predict_again.py CGMODEL DB VALIDATE.csv MATRIX_DIR
"""
import csv, json, os, re, subprocess, sys
from collections import defaultdict

cg, db, meas_csv, mdir = sys.argv[1:5]
meas = {}
for r in csv.DictReader(open(meas_csv)):
    if r["backend"] == "cuda" and r["gpus"] == "1" and float(r["measured_s"]) > 0:
        meas[(r["matrix"], r["precision"], int(r["block"]))] = float(r["measured_s"])
pred = {}
for m in sorted({k[0] for k in meas}):
    f = os.path.join(mdir, m)
    if not os.path.exists(f):
        print("missing", f, file=sys.stderr)
        continue
    out = subprocess.run([cg, "predict", f, "--db", db, "--json", "--tol", "1e-3"],
                         capture_output=True, text=True).stdout
    for c in json.loads(out)["candidates"]:
        if c["backend"] == "cuda" and c["gpus"] == 1:
            pred[(m, c["precision"], c["block"])] = c["time_per_iter_s"]
fams = r"(poisson3d|elasticity|mesh-sorted|mesh-random|powerlaw|uniform|kron)_"
groups = defaultdict(list)
for k, t in meas.items():
    if k not in pred:
        continue
    e = (pred[k] - t) / t
    g = re.match(fams, k[0])
    groups[g.group(1) if g else "bundled"].append(e)
    groups["N=%d %s" % (k[2], k[1])].append(e)
    groups["all"].append(e)
print("%-16s %4s %9s %12s" % ("group", "n", "avg |err|", "mean signed"))
for g in sorted(groups):
    v = groups[g]
    print("%-16s %4d %8.1f%% %+11.1f%%" % (g, len(v), 100 * sum(map(abs, v)) / len(v),
                                           100 * sum(v) / len(v)))
by = defaultdict(dict)
for k, t in meas.items():
    if k[1] == "double" and k in pred:
        by[k[0]][k[2]] = (pred[k], t)
regs = []
for d in by.values():
    if len(d) > 1:
        pick = min(d, key=lambda n: d[n][0])
        regs.append(d[pick][1] / min(v[1] for v in d.values()))
print("tuner (double, block size by time per iteration): %d matrices, within 5%%: %.0f%%, "
      "mean regret %.3f, max %.3f" % (len(regs), 100 * sum(r <= 1.05 for r in regs) / len(regs),
                                     sum(regs) / len(regs), max(regs)))
