#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The tuner's terms against the measured ones, per configuration: where a wrong choice comes from.

For every matrix: `cgmodel predict --json` (the candidates' predicted setup, iterations, time per
iteration and total), then ROUNDS interleaved `cgmodel solve --no-record --json` of each
configuration asked (backend:precision:block, e.g. cuda:double:1 cuda:mixed:1), warm matrix cache.
Prints, per configuration, predicted / measured for setup (time_setup_s), iterations, time per
iteration and setup + solve (the least of the rounds for times; the iterations as run), and which
configuration the tuner chose against the fastest measured.

usage: tuner_terms.py CGMODEL DB ROUNDS TOL CONFIGS CASE...
  CONFIGS: comma-separated backend:precision:block; CASE: kind:n (`cgmodel gen`) or a .mtx path"""
import json
import os
import subprocess
import sys
import tempfile


def cg(cgm, *args):
    p = subprocess.run([cgm, *args], capture_output=True, text=True)
    return json.loads(p.stdout) if p.stdout.strip().startswith("{") else {"error": p.stderr}


def main():
    cgm, db, rounds, tol, configs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    configs = [c.split(":") for c in configs.split(",")]
    tmp = tempfile.mkdtemp()
    for case in sys.argv[6:]:
        path = case
        if not os.path.exists(case):
            kind, n = case.split(":")
            path = os.path.join(tmp, f"{kind}_{n}.mtx")
            subprocess.run([cgm, "gen", kind, "--n", n, "-o", path], check=True, capture_output=True)
            os.utime(path, (os.path.getmtime(path) - 60,) * 2)
        pr = cg(cgm, "predict", path, "--db", db, "--tol", tol, "--json")
        cands = {(c["backend"], c["precision"], str(c["block"])): c
                 for c in pr.get("candidates", []) if c.get("gpus", 0) <= 1}
        choice = pr.get("choice") or {}
        meas = {tuple(c): [] for c in configs}
        for r in range(rounds + 1):  # round 0 warms the cache
            for c in configs:
                j = cg(cgm, "solve", path, "--db", db, "--no-record", "--tol", tol, "--json",
                       "--backend", c[0], "--precision", c[1], "--block", c[2])
                if r and "time_setup_s" in j:
                    meas[tuple(c)].append(j)
        print(f"## {case}: {pr.get('features', {}).get('x')} rows, {pr.get('features', {}).get('nnz')} "
              f"nonzeros; K {pr.get('iterations')} ({pr.get('iterations_source')}); tuner's choice "
              f"{choice.get('backend')} {choice.get('precision')} N={choice.get('block')}")
        print("config               setup ms p/m        iterations p/m   us/iter p/m        "
              "setup+solve ms p/m   storage")
        best = None
        for c in configs:
            k, js = tuple(c), meas[tuple(c)]
            p = cands.get(k)
            if not js or not p:
                print(f"{':'.join(c):20s} (no {'measurement' if not js else 'prediction'})")
                continue
            setup = min(j["time_setup_s"] for j in js)
            it = js[-1]["iterations"]
            tpi = min(j["time_per_iter_s"] for j in js)
            tot = min(j["time_setup_s"] + j["time_solve_s"] for j in js)
            if best is None or tot < best[1]:
                best = (":".join(c), tot)
            print(f"{':'.join(c):20s} {p['setup_s'] * 1e3:7.2f} {setup * 1e3:7.2f}   "
                  f"{p['iterations']:7.0f} {it:6d}   {p['time_per_iter_s'] * 1e6:8.2f} {tpi * 1e6:8.2f}   "
                  f"{p['total_s'] * 1e3:8.2f} {tot * 1e3:8.2f}   {p.get('storage')}/"
                  f"{(js[-1].get('storage') or {}).get('format')}")
        print(f"fastest measured: {best[0] if best else None}\n", flush=True)


if __name__ == "__main__":
    main()
