#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What `solve --auto` costs the user, end to end, against not tuning.

For every matrix, in one run and interleaved (the machine as it is, busy or
not): the whole `cgmodel solve` command's wall clock for
  double     plain solve in double precision, --no-record
  mixed      plain solve in mixed precision, --no-record
  recorded   plain double solve recorded in the database
  auto       solve --auto (recorded, as a user runs it)
  cupy       what a user would run instead (bench/scipy_cupy_cg.py: SciPy reads the
             file, CuPy's Jacobi CG on the GPU): a fresh Python process each time,
             timed whole (imports included: `cupy_s`) and after its imports (its own
             total_s: `cupy_work_s`, as in a Python process that imported them once);
             it keeps no cache, so it runs in the cold rounds only
first on a cold matrix cache (each command the first read of its file: the
cache cleared before it; C interleaved rounds), then warm (R interleaved
rounds); each command's time is the low quantile of its rounds, since
interference only adds time. Ratios:
auto / the faster of double and mixed (cold and warm), recorded / double,
--auto's own analysis time (time_analyse_s, warm), and auto (cold and warm) /
CuPy's work after its imports. The last column says what --auto chose ("CPU
first": no GPU started) and the GPU start each command paid.

usage: auto_bench.py CGMODEL OUTDIR [--rounds R] [--cold-rounds C] [--tol T] CASE...
  CASE: kind:n as `cgmodel gen` (poisson3d:128, mesh3d:400000, ...) or a .mtx path
The database must hold a calibration of this machine (CGMODEL_DB or --db)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {"error": (p.stderr or p.stdout).strip()[-300:]}
    j["wall_s"] = wall
    j["rc"] = p.returncode
    return j


CUPY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scipy_cupy_cg.py")


def low(v, q=0.25):
    v = sorted(x for x in v if x == x)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cgmodel")
    ap.add_argument("out")
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cold-rounds", type=int, default=3)
    ap.add_argument("--tol", default="1e-8")
    ap.add_argument("--db", default=os.environ.get("CGMODEL_DB"))
    ap.add_argument("--no-cupy", action="store_true", help="leave out the SciPy + CuPy runs")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cache = os.path.join(a.out, "cache")
    base = [a.cgmodel, "solve", "--json", "--tol", a.tol, "--cache-dir", cache, "--db", a.db]
    tools = {
        "double": ["--precision", "double", "--no-record"],
        "mixed": ["--precision", "mixed", "--no-record"],
        "recorded": ["--precision", "double"],
        "auto": ["--auto"],
    }
    rows = []
    print("%-22s %-9s %8s %8s %8s %8s %8s  %s" % (
        "case", "tool", "cold_s", "warm_s", "iters", "analyse", "residual", "choice"))
    for c in a.cases:
        if c.endswith(".mtx"):
            f = c
        else:
            kind, n = c.split(":")
            f = os.path.join(a.out, "%s_%s.mtx" % (kind, n))
            if not os.path.exists(f):
                gen = [a.cgmodel, "gen", kind, "--n", n, "-o", f]
                if kind == "mesh3d":
                    gen += ["--numbering", "random"]
                subprocess.run(gen, capture_output=True, check=True)
        old = time.time() - 10  # a file changed within the last second is not cached
        try:
            os.utime(f, (old, old))
        except OSError:
            pass
        cold = {t: [] for t in tools}
        cupy = {"cupy_s": [], "cupy_work_s": []}
        for _ in range(a.cold_rounds):
            for t, extra in tools.items():  # each the first read of its file
                shutil.rmtree(cache, ignore_errors=True)
                cold[t].append(run(base + [f] + extra)["wall_s"])
            if not a.no_cupy:
                j = run([sys.executable, CUPY, f, a.tol])
                cupy["cupy_s"].append(j["wall_s"] if "total_s" in j else float("nan"))
                cupy["cupy_work_s"].append(j.get("total_s", float("nan")))
                cupy["last"] = j
        warm = {t: [] for t in tools}
        last = {}
        run(base + [f] + tools["double"])  # the entry in the cache, for every warm round
        for _ in range(a.rounds):
            for t, extra in tools.items():
                last[t] = run(base + [f] + extra)
                warm[t].append(last[t]["wall_s"])
        row = {"case": c, "cold": {t: low(cold[t]) for t in tools},
               "warm": {t: low(warm[t]) for t in tools}, "runs": last,
               "cupy": {k: low(v) for k, v in cupy.items() if k != "last"},
               "cupy_run": cupy.get("last", {})}
        rows.append(row)
        for t in tools:
            j = last[t]
            choice = ""
            if t == "auto":
                choice = "%s %s N=%s%s%s" % (j.get("backend"), j.get("precision"), j.get("block"),
                                             " (by size)" if "auto_declined" in j else "",
                                             " (CPU first)" if "auto_cpu_first" in j else "")
            if "time_gpu_start_s" in j:  # the GPU's start this command paid, beside its read
                choice += " GPU start %.3f s" % j["time_gpu_start_s"]
            print("%-22s %-9s %8.3f %8.3f %8s %8.4f %8.1e  %s" % (
                c, t, row["cold"][t], row["warm"][t], j.get("iterations", "-"),
                j.get("time_analyse_s", float("nan")), j.get("relative_residual", float("nan")),
                choice or j.get("error", "")))
        if not a.no_cupy:
            j = row["cupy_run"]
            print("%-22s %-9s %8.3f %8.3f %8s %8s %8.1e  %s" % (
                c, "cupy", row["cupy"]["cupy_s"], row["cupy"]["cupy_work_s"],
                j.get("iterations", "-"), "-", j.get("relative_residual", float("nan")),
                "whole process (cold_s) / after imports (warm_s) " + j.get("error", "")))
    print()
    print("%-22s %12s %12s %12s %12s %12s %12s" % (
        "case", "auto/best w", "auto/best c", "rec/no-rec", "analyse w", "auto/cupy w",
        "auto/cupy c"))
    worst = [0, 0, 0, 0, 0, 0]
    for r in rows:
        bw = min(r["warm"]["double"], r["warm"]["mixed"])
        bc = min(r["cold"]["double"], r["cold"]["mixed"])
        v = [r["warm"]["auto"] / bw, r["cold"]["auto"] / bc,
             r["warm"]["recorded"] / r["warm"]["double"],
             r["runs"]["auto"].get("time_analyse_s", float("nan")),
             r["warm"]["auto"] / r["cupy"].get("cupy_work_s", float("nan")),
             r["cold"]["auto"] / r["cupy"].get("cupy_work_s", float("nan"))]
        worst = [max(x, y) for x, y in zip(worst, v)]
        print("%-22s %12.3f %12.3f %12.3f %12.4f %12.3f %12.3f" % (r["case"], *v))
    print("%-22s %12.3f %12.3f %12.3f %12.4f %12.3f %12.3f" % ("worst", *worst))
    print("targets: auto/best warm <= 1.03, cold <= 1.10, recorded <= 1.05, analyse warm <= 0.020 s")
    with open(os.path.join(a.out, "auto_bench.json"), "w") as fh:
        json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
