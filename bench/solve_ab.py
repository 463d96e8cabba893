#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two builds' `cgmodel solve --json` of the same files, interleaved run by run
(the first run of each file warms the matrix cache and is not counted): the
whole command's wall clock and the phases the solve reports (read, check,
setup = layout + upload, solve, finish), each build's low quantile (the
minimum of ROUNDS: other work only adds time) and the ratio new / old.

With --cold every run reads the file into an empty matrix cache of its own: the first contact
with a content, its analysis (time_analyse_s: the features, --reorder auto's verdict, --auto's
choice) made anew.

Usage: bench/solve_ab.py [--cold] OLD_CGMODEL NEW_CGMODEL ROUNDS FILE[:solve options] ...
  e.g. bench/solve_ab.py old/cgmodel build-dev/cli/cgmodel 5 p192.mtx:--tol=1e-10
"""
import json
import shutil
import subprocess
import sys
import tempfile
import time

PHASES = ["read", "analyse", "check", "setup", "upload", "solve", "finish", "total"]
COLD = False


def run(cg, path, opts):
    cache = tempfile.mkdtemp() if COLD else None
    t0 = time.perf_counter()
    p = subprocess.run([cg, "solve", path, "--no-record", "--json"] + opts +
                       (["--cache-dir", cache] if cache else []), capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if cache:
        shutil.rmtree(cache)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        sys.exit(f"{cg} {path}: no JSON (exit {p.returncode}): {p.stderr.strip()[:300]}")
    out = {"wall": wall, "iters": j.get("iterations"), "res": j.get("relative_residual")}
    for k in PHASES:
        out[k] = j.get(f"time_{k}_s", float("nan"))
    return out


def main():
    global COLD
    args = sys.argv[1:]
    COLD = bool(args) and args[0] == "--cold"
    args = args[1:] if COLD else args
    if len(args) < 4:
        sys.exit(__doc__)
    old, new, rounds = args[0], args[1], int(args[2])
    cols = ["wall"] + PHASES
    print(f"{'case':34} {'build':5} " + " ".join(f"{c:>7}" for c in cols) + "   iters  residual")
    for case in args[3:]:
        path, _, o = case.partition(":")
        opts = [a.replace("=", " ", 1).split(" ") for a in o.split(",") if a]
        opts = [x for a in opts for x in a]
        runs = {"old": [], "new": []}
        for b in ("old", "new"):
            run(old if b == "old" else new, path, opts)  # warms the cache
        for _ in range(rounds):
            for b in ("old", "new"):
                runs[b].append(run(old if b == "old" else new, path, opts))
        best = {b: {c: min(r[c] for r in runs[b]) for c in cols} for b in runs}
        for b in ("old", "new"):
            last = runs[b][-1]
            print(f"{case[:34]:34} {b:5} " + " ".join(f"{best[b][c]:7.3f}" for c in cols) +
                  f" {last['iters']:>7} {last['res']:.1e}")
        print(f"{case[:34]:34} {'ratio':5} " +
              " ".join(f"{best['new'][c] / best['old'][c]:7.2f}" if best['old'][c] > 0 else
                       f"{'-':>7}" for c in cols))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
