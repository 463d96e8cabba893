#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a Python user waits for, in one warm process: cgmodel against CuPy.

A user who solves from Python keeps one process, its imports and its CUDA
context; the command line pays them at every solve (docs/perf.md, "What
`solve --auto` costs against not tuning"). Here every matrix is read once
(SciPy), then each way below is called in turn, interleaved, ROUNDS times
after one warm-up call each, and each call's wall clock (synchronised) is
kept; the table gives the 25th percentile of each. The recorded and tuned
calls keep what they derive from A in a cache directory of the run's own
(cgmodel.solve's cache), found again by A's content from the second call on.

  plain   cgmodel.solve(A_scipy, b, record=False)  the untuned default
  record  cgmodel.solve(A_scipy, b)                the same, recorded (the default)
  auto    cgmodel.solve(A_scipy, b, auto=True)     the tuner, recorded
  device  cgmodel.solve(A_cupy, b_cupy)            A already in GPU memory
  cupy    CuPy's Jacobi CG from the SciPy matrix: upload, CG, x back
  cupy_d  CuPy's Jacobi CG on A_cupy, b_cupy       A already in GPU memory

Every x is checked: the true relative residual, recomputed in double,
must meet TOL (CuPy's own stopping test is its recurrence's residual).

usage: python_warm.py CGMODEL DB ROUNDS TOL SPEC...
  CGMODEL: the cgmodel program (for `gen`); DB: a calibrated database
  (auto's; it gets auto's records); SPEC: KIND:N for `cgmodel gen KIND
  --n N` or a Matrix Market file.
"""
import inspect
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as cla
import numpy as np
import scipy.io
import scipy.sparse

import cgmodel
from cgmodel._input import HostMatrix


def load(cg, spec, tmp):
    if os.path.exists(spec):
        return os.path.basename(spec), spec
    kind, n = spec.split(":")
    path = os.path.join(tmp, f"{kind}_{n}.mtx")
    subprocess.run([cg, "gen", kind, "--n", n, "-o", path], check=True, capture_output=True)
    return spec, path


def relres(A, b, x):
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


def cupy_cg(Ad, bd, tol, maxiter):
    dinv = 1.0 / Ad.diagonal()
    M = cla.LinearOperator(Ad.shape, matvec=lambda v: dinv * v, dtype=cp.float64)
    params = inspect.signature(cla.cg).parameters
    kw = {"rtol": tol} if "rtol" in params else {"tol": tol}
    x, _ = cla.cg(Ad, bd, M=M, maxiter=maxiter, atol=0.0, **kw)
    return x


def main():
    cg, db, rounds, tol = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in sys.argv[5:]:
            name, path = load(cg, spec, tmp)
            with warnings.catch_warnings():  # SciPy's notice of mmread's future return type
                warnings.simplefilter("ignore", DeprecationWarning)
                A = scipy.sparse.csr_matrix(scipy.io.mmread(path))
            n = A.shape[0]
            b = A @ np.ones(n)
            Ad, bd = csp.csr_matrix(A), cp.asarray(b)
            maxiter = 10 * n
            out = {}

            cache = os.path.join(tmp, "cache")

            def plain():
                return cgmodel.solve(A, b, tol=tol, record=False, db=db, cache=cache)

            def record():
                return cgmodel.solve(A, b, tol=tol, db=db, name=name, cache=cache)

            def auto():
                return cgmodel.solve(A, b, tol=tol, auto=True, db=db, name=name, cache=cache)

            def device():
                return cgmodel.solve(Ad, bd, tol=tol, db=db)

            def cupy_host():
                Ah = csp.csr_matrix(A)
                return cupy_cg(Ah, cp.asarray(b), tol, maxiter).get(), None

            def cupy_dev():
                return cupy_cg(Ad, bd, tol, maxiter), None

            ways = {"plain": plain, "record": record, "auto": auto, "device": device, "cupy": cupy_host,
                    "cupy_d": cupy_dev}
            times = {k: [] for k in ways}
            info = {}
            for r in range(rounds + 1):  # round 0: the warm-up
                for k, f in ways.items():
                    cp.cuda.Device().synchronize()
                    t0 = time.perf_counter()
                    x, res = f()
                    cp.cuda.Device().synchronize()
                    t = time.perf_counter() - t0
                    if r > 0:
                        times[k].append(t)
                    xh = cp.asnumpy(x) if isinstance(x, cp.ndarray) else x
                    rr = relres(A, b, xh)
                    if not (np.isfinite(rr) and rr <= tol * 1.0001):
                        print(f"{name} {k}: true relative residual {rr:.3g} > {tol:g}",
                              file=sys.stderr)
                    if res is not None:
                        info[k] = (res.precision, res.block, res.iterations, res.backend,
                                   {p: round((getattr(res, "time_" + p + "_s", 0.0) or 0.0) * 1e3, 2)
                                    for p in ("analyse", "setup", "solve", "total")})
            q = {k: sorted(v)[len(v) // 4] for k, v in times.items()}
            t0 = time.perf_counter()
            HostMatrix(A, finite=True)  # the binding's checked copies of A, alone
            py_ms = (time.perf_counter() - t0) * 1e3
            out = {"matrix": name, "rows": n, "nnz": A.nnz, "q25_s": q, "config": info,
                   "copies_ms": round(py_ms, 2)}
            rows.append(out)
            print(json.dumps(out), flush=True)
    print()
    print("matrix                 rows        nnz    plain   record     auto   device     cupy"
          "   cupy_d  record/plain auto/plain auto/cupy device/cupy_d  auto's choice")
    for o in rows:
        q = o["q25_s"]
        c = o["config"].get("auto", ("", "", "", "", {}))
        print(f"{o['matrix']:18s} {o['rows']:9d} {o['nnz']:10d} "
              + " ".join(f"{q[k] * 1e3:8.1f}"
                         for k in ("plain", "record", "auto", "device", "cupy", "cupy_d"))
              + f"  {q['record'] / q['plain']:12.3f} {q['auto'] / q['plain']:10.3f}"
              + f" {q['auto'] / q['cupy']:9.3f}"
              + f" {q['device'] / q['cupy_d']:13.3f}  {c[3]} {c[0]} N={c[1]}")
    print("(ms, the 25th percentile of each call's wall clock over the rounds)")
    print("\nwhere the last round's calls went (ms: the library's analyse, setup, solve and total;"
          " copies: the binding's checked copies of A)")
    for o in rows:
        for k in ("plain", "record", "auto", "device"):
            if k in o["config"]:
                print(f"{o['matrix']:18s} {k:7s} {o['config'][k][4]} copies {o['copies_ms']}")


if __name__ == "__main__":
    main()
