#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a user would run instead of cgmodel: SciPy reads the Matrix Market
file, CuPy solves with Jacobi-preconditioned CG on the GPU to the same
relative tolerance, and the true residual is recomputed. Prints one JSON
line: read_s, setup_s (CSR conversion and upload), solve_s, total_s (the
process's work after the imports), iterations, relative_residual.

usage: scipy_cupy_cg.py A.mtx TOL
"""
import inspect
import json
import sys
import time

t_start = time.perf_counter()
# Without SciPy, CuPy or a GPU the caller prints the reason in this row.
try:
    import numpy as np
    import scipy.io
    import scipy.sparse
except ImportError as e:
    print(json.dumps({"error": "scipy is not available: %s" % e}))
    sys.exit(0)
try:
    import cupy as cp
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cla
    if cp.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("no GPU")
except Exception as e:  # ImportError, or CUDA's errors without a driver or device
    print(json.dumps({"error": "cupy is not usable here: %s: %s" % (type(e).__name__, e)}))
    sys.exit(0)

path, tol = sys.argv[1], float(sys.argv[2])
t0 = time.perf_counter()
A = scipy.io.mmread(path)
t1 = time.perf_counter()
A = scipy.sparse.csr_matrix(A)
b = A @ np.ones(A.shape[0])  # as cgmodel solve: b = A * ones
Ad = csp.csr_matrix(A)
bd = cp.asarray(b)
dinv = 1.0 / Ad.diagonal()
M = cla.LinearOperator(A.shape, matvec=lambda v: dinv * v, dtype=cp.float64)
cp.cuda.Device().synchronize()
t2 = time.perf_counter()
iters = [0]


def count(_):
    iters[0] += 1


params = inspect.signature(cla.cg).parameters
kw = {"rtol": tol} if "rtol" in params else {"tol": tol}
x, info = cla.cg(Ad, bd, M=M, maxiter=10 * A.shape[0], callback=count, atol=0.0, **kw)
cp.cuda.Device().synchronize()
t3 = time.perf_counter()
res = float(cp.linalg.norm(bd - Ad @ x) / cp.linalg.norm(bd))
print(json.dumps({"read_s": t1 - t0, "setup_s": t2 - t1, "solve_s": t3 - t2,
                  "total_s": t3 - t0, "iterations": iters[0], "relative_residual": res,
                  "info": int(info), "imports_s": t0 - t_start}))
