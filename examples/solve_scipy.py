#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Solve a sparse SPD system from SciPy with cgmodel, and check the answer.

    python3 examples/solve_scipy.py [A.mtx]

Without an argument it builds the 2-D Poisson matrix on a 100 x 100 grid.
It solves with cgmodel.solve (the report of the solve), then with
cgmodel.cg beside scipy.sparse.linalg.cg (the same call and answer),
recomputing each residual here. The library is found as docs/python.md
says (CGMODEL_LIBRARY, a bundled copy, or the system's loader path)."""

import inspect
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import cgmodel


def poisson2d(n):
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    return (sp.kron(sp.identity(n), t) + sp.kron(t, sp.identity(n))).tocsr()


def residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def main():
    A = scipy.io.mmread(sys.argv[1]).tocsr() if len(sys.argv) > 1 else poisson2d(100)
    f = cgmodel.info(A)
    print(f"x = {f.x}, nnz = {f.nnz}, rows {f.row_min}..{f.row_max}, symmetric {f.symmetric}")
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    try:
        x, r = cgmodel.solve(A, b, tol=1e-8, backend="cpu", record=False)
    except cgmodel.Error as e:
        sys.exit(f"cgmodel: {e}")
    true = residual(A, x, b)
    print(
        f"solve: {'converged' if r.converged else 'NOT converged'} in {r.iterations} iterations on "
        f"{r.device} ({r.backend}, {r.precision}, block {r.block}): residual {true:.2e} "
        f"(library: {r.relative_residual:.2e}), {1e6 * r.time_per_iter_s:.1f} us per iteration"
    )

    # The same system as SciPy users write it: (x, info), callback(xk) after each iteration
    steps = []
    xc, info = cgmodel.cg(A, b, rtol=1e-8, backend="cpu", record=False,
                          callback=lambda xk: steps.append(residual(A, xk, b)))
    rtol = "rtol" if "rtol" in inspect.signature(sla.cg).parameters else "tol"  # SciPy < 1.12: tol
    xs, info_s = sla.cg(A, b, atol=0.0, **{rtol: 1e-8})
    apart = np.linalg.norm(xc - xs) / np.linalg.norm(xs)
    print(
        f"cg: info {info}, {len(steps)} iterations, residual {residual(A, xc, b):.2e} "
        f"(first step {steps[0]:.2e}); scipy.sparse.linalg.cg: info {info_s}, residual "
        f"{residual(A, xs, b):.2e}; the two {apart:.1e} apart"
    )
    return 0 if r.converged and true <= r.tol and info == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
