# SPDX-License-Identifier: GPL-3.0-or-later
"""cgmodel.cg: scipy.sparse.linalg.cg's call and answer over cgmodel.solve,
so that code written for SciPy (or cupyx.scipy) runs on this library's
solver by changing the import (docs/python.md, "As SciPy's cg")."""

import numpy as np

from ._api import solve
from ._input import number, on_gpu, vector
from ._native import InputError

__all__ = ["cg"]


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None, tol=None,
       **options):
    """Solves A x = b as scipy.sparse.linalg.cg does; returns (x, info).

    Converged once ||b - A x|| <= max(rtol ||b||, atol), with the residual
    recomputed in double (SciPy tests its recursive one). info: 0
    converged; > 0 not converged after that many iterations (maxiter, or
    fewer where the residual stopped falling: a tolerance below what the
    precision can reach); -1 CG broke down (the matrix is not positive
    definite, or rounding). maxiter None: 10 n, as SciPy. x0: the initial
    guess. callback(xk): after each iteration the solver reports (every
    iteration on the CPU, every convergence check on a GPU).

    M: None only; the preconditioner is built in: Jacobi (the diagonal of
    A), or block-Jacobi with precond="block". tol: rtol's name before
    SciPy 1.12. options: cgmodel.solve's keywords (backend, precision,
    threads, record, db, ...). A may be a SciPy sparse matrix or array of
    any format, or a CuPy one (x is then a CuPy array); a LinearOperator
    or a dense array is refused (the solver reads A's entries). Bad input
    raises cgmodel.InputError, a ValueError."""
    if M is not None:
        raise InputError(
            "M: cgmodel's CG has its preconditioner built in (Jacobi, the diagonal of A; "
            "precond='block' for block-Jacobi): pass M=None"
        )
    if tol is not None:
        rtol = tol
    rtol, atol = number("rtol", rtol), number("atol", atol)
    if b is None:
        raise InputError("b is None: cg needs a right-hand side (cgmodel.solve takes b=None)")
    if rtol > 1.0:  # (the library's tol is at most 1) ||r|| <= rtol ||b|| is an atol
        rtol, atol = 1.0, max(atol, rtol * _norm(b))
    if maxiter is None:
        try:
            maxiter = max(10 * int(A.shape[0]), 1)
        except (AttributeError, TypeError, IndexError, ValueError):
            maxiter = None  # solve() says what A lacks
    x, r = solve(A, b, x0=x0, rtol=max(rtol, 1e-300), atol=atol, maxiter=maxiter,
                 callback=callback, **options)
    return x, _info(r)


def _norm(b):
    if on_gpu(b):
        import cupy as cp

        return float(cp.linalg.norm(b.astype(cp.float64).ravel()))
    return float(np.linalg.norm(vector(b, np.size(b), "b")))


def _info(r):
    """SciPy's info of a result."""
    if r.converged:
        return 0
    why = r.stop_reason or ""
    if "breakdown" in why or "not positive definite" in why or "NaN or Inf" in why:
        return -1
    return max(r.iterations, 1)
