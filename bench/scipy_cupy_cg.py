#!/usr/bin/env python3
"""The reference for bench/e2e.sh: Jacobi-preconditioned CG with SciPy and
CuPy on the same matrix file and the same problem as `cgmodel solve`
(b = A * ones, x0 = 0, relative tolerance ||r|| / ||b|| <= tol).

  read:  scipy.io.mmread (the file to a sparse matrix on the host)
  setup: CSR on the host, cupyx.scipy.sparse.csr_matrix (the upload), b, and
         the inverse diagonal as a LinearOperator preconditioner
  solve: cupyx.scipy.sparse.linalg.cg, then the true residual ||b - A x|| / ||b||
         recomputed on the GPU in double

Prints one JSON object. CuPy's kernels are compiled once on a small matrix
before anything is timed (a first run compiles them, and caches them on
disk). Exit 77 (with a message on stderr) when SciPy or CuPy or a GPU is
missing, so the caller can skip the column.

usage: scipy_cupy_cg.py A.mtx [--tol 1e-8] [--maxiter K]"""
import argparse
import inspect
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("matrix")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxiter", type=int, default=None)
    a = ap.parse_args()
    try:
        import numpy as np
        import scipy.io
        import scipy.sparse
    except ImportError as e:
        print(f"scipy_cupy_cg: SciPy is not available ({e}): pip install scipy", file=sys.stderr)
        return 77
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
        ngpu = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # ImportError, or CUDA errors without a driver
        print(f"scipy_cupy_cg: CuPy is not usable here ({type(e).__name__}: {e}): "
              "pip install cupy-cuda12x (or the build of this CUDA), on a machine with a GPU",
              file=sys.stderr)
        return 77
    if ngpu < 1:
        print("scipy_cupy_cg: no GPU for CuPy", file=sys.stderr)
        return 77
    # The tolerance keyword: rtol in newer releases, tol in older ones.
    params = inspect.signature(cla.cg).parameters
    tol_kw = "rtol" if "rtol" in params else "tol"

    def solve(A, b, dinv, tol, maxiter):
        n = A.shape[0]
        M = cla.LinearOperator((n, n), matvec=lambda x: dinv * x, dtype=cp.float64)
        count = [0]

        def cb(_):
            count[0] += 1
        x, info = cla.cg(A, b, x0=cp.zeros(n), M=M, maxiter=maxiter, callback=cb,
                         **{tol_kw: tol})
        return x, info, count[0]

    # Compile CuPy's kernels before the clock runs.
    W = csp.csr_matrix(scipy.sparse.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(64, 64),
                                          format="csr"))
    wb = W @ cp.ones(64)
    solve(W, wb, 1.0 / W.diagonal(), 1e-8, 100)
    cp.cuda.runtime.deviceSynchronize()

    t0 = time.perf_counter()
    H = scipy.io.mmread(a.matrix)
    t1 = time.perf_counter()
    H = scipy.sparse.csr_matrix(H, dtype=np.float64)
    A = csp.csr_matrix(H)
    n = A.shape[0]
    b = A @ cp.ones(n)
    d = A.diagonal()
    if bool(cp.any(d <= 0)):
        print(f"scipy_cupy_cg: {a.matrix}: a diagonal entry is not positive", file=sys.stderr)
        return 2
    dinv = 1.0 / d
    cp.cuda.runtime.deviceSynchronize()
    t2 = time.perf_counter()
    maxiter = a.maxiter if a.maxiter else max(1000, 10 * n)
    x, info, iters = solve(A, b, dinv, a.tol, maxiter)
    cp.cuda.runtime.deviceSynchronize()
    t3 = time.perf_counter()
    bn = float(cp.linalg.norm(b))
    res = float(cp.linalg.norm(b - A @ x)) / bn if bn > 0 else 0.0
    out = {
        "matrix": a.matrix, "nrows": int(n), "nnz": int(H.nnz),
        "tol": a.tol, "converged": info == 0 and res <= a.tol * 1.0001,
        "iterations": iters, "relative_residual": res,
        "time_read_s": t1 - t0, "time_setup_s": t2 - t1, "time_solve_s": t3 - t2,
        "time_total_s": t3 - t0,
        "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        "versions": {"scipy": scipy.__version__, "cupy": cp.__version__},
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
