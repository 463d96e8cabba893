#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""No matrix slower than before: an old and a new cgmodel, each at its best
plain configuration (double or mixed precision, `--no-record`), the solve's
own time (time_setup_s + time_solve_s of `--json`: the matrix read and the
process start are the same for both), interleaved, the low of R rounds.

usage: storage_regress.py OLD_CGMODEL NEW_CGMODEL OUTDIR [--rounds R] [--tols 1e-8,1e-10] CASE...
  CASE: kind:n[:numbering] as `cgmodel gen` (poisson3d:64, mesh3d:200000:random) or a .mtx path
Prints per case and tolerance: old best (s, which), new best (s, which), new/old, iterations."""
import argparse
import json
import os
import subprocess


def solve(cg, path, tol, prec, cache):
    cmd = [cg, "solve", path, "--json", "--no-record", "--tol", tol, "--precision", prec,
           "--cache-dir", cache]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
        return (j["time_setup_s"] + j["time_solve_s"], j["iterations"], j["converged"],
                (j.get("storage") or {}).get("format", ""))
    except (ValueError, KeyError):
        return (float("nan"), 0, False, (p.stderr or "").strip()[-60:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("out")
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--tols", default="1e-8,1e-10")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    print(f"{'case':28} {'tol':6} {'old best s':>11} {'':7} {'new best s':>11} {'':12} {'new/old':>7}  iters old/new")
    worst = 0.0
    for case in a.cases:
        path = case
        if not case.endswith(".mtx"):
            kind, n, *rest = case.split(":")
            path = os.path.join(a.out, case.replace(":", "_") + ".mtx")
            if not os.path.exists(path):
                gen = [a.new, "gen", kind, "--n", n, "-o", path] + (["--numbering", rest[0]] if rest else [])
                subprocess.run(gen, capture_output=True, check=True)
        for tol in a.tols.split(","):
            best = {}
            for _ in range(a.rounds):
                for who, cg in (("old", a.old), ("new", a.new)):
                    for prec in ("double", "mixed"):
                        t, it, ok, fmt = solve(cg, path, tol, prec, os.path.join(a.out, "cache-" + who))
                        key = (who, prec)
                        if ok and (key not in best or t < best[key][0]):
                            best[key] = (t, it, fmt)
            o = min((best[k] + (k[1],) for k in best if k[0] == "old"), default=None)
            n_ = min((best[k] + (k[1],) for k in best if k[0] == "new"), default=None)
            if not o or not n_:
                print(f"{os.path.basename(case):28} {tol:6} no converged run: {best}")
                continue
            r = n_[0] / o[0]
            worst = max(worst, r)
            print(f"{os.path.basename(case)[:28]:28} {tol:6} {o[0]:11.4f} {o[3]:7} {n_[0]:11.4f} "
                  f"{(n_[3] + ' ' + n_[2]).strip():12} {r:7.3f}  {o[1]}/{n_[1]}")
    print(f"worst new/old {worst:.3f}")


if __name__ == "__main__":
    main()
