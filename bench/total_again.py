#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tuner by time to a solution, chosen again with another calibration:
for every matrix of a `validate --total` CSV (bench/validate_total.sh's),
`cgmodel predict --json --tol TOL` with DB gives the tuner's choice, whose
measured total the CSV holds, against the best measured total. Prints the
misses (over 10%) and the share within 5% and 10%. The matrices are looked
up by name in the directories given (regenerate the generated ones with the
bench's commands).

  bench/total_again.py CGMODEL DB VALIDATE_TOTAL.csv TOL DIR...
"""
import csv, json, os, subprocess, sys
from collections import defaultdict

cg, db, csvf, tol, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
by = defaultdict(dict)
for r in csv.DictReader(open(csvf)):
    by[r["matrix"]][(r["backend"], r["precision"], int(r["block"]))] = float(r["measured_s"])
regs = []
for m, meas in by.items():
    f = next((os.path.join(d, m) for d in dirs if os.path.exists(os.path.join(d, m))), None)
    if not f:
        print("missing", m, file=sys.stderr)
        continue
    out = subprocess.run([cg, "predict", f, "--db", db, "--json", "--tol", tol],
                         capture_output=True, text=True).stdout
    c = json.loads(out)["choice"]
    key = (c["backend"], c["precision"], 1 if c["backend"] == "cusparse" else c["block"])
    if key not in meas:
        print("no measurement of", m, key, file=sys.stderr)
        continue
    reg = meas[key] / min(meas.values())
    regs.append(reg)
    if reg > 1.1:
        print("%-20s %.2f  chose %s %s N=%d" % (m, reg, *key))
print("tuner by total time: %d matrices, within 5%%: %.0f%%, within 10%%: %.0f%%, mean regret %.3f, "
      "max %.3f" % (len(regs), 100 * sum(r <= 1.05 for r in regs) / len(regs),
                    100 * sum(r <= 1.1 for r in regs) / len(regs), sum(regs) / len(regs), max(regs)))
