#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two estimates of CG's iteration count from its first iterations, against the count run
(docs/perf.md, "Iteration counts and the tuner's regret"). Jacobi-preconditioned CG in double from
x0 = 0 with b = A * ones (the probe's and `solve`'s default), to 1e-10:
- Ritz: the condition number of the Lanczos matrix of the first m iterations (m = 20, 50, 100),
  K = ln(2 / tol) / ln((sqrt k + 1) / (sqrt k - 1)); the ratio to the count run.
- The probe's extrapolation (pipeline/history.c) from its budget's M = 1e8 / nnz steps (50 to 3000):
  the least squares rate of the running least residual over the last half, quarter and tenth of
  the run; the ratio to the count run ("exact": the run reached tol).
usage: python3 bench/k_ritz.py A.mtx...   (needs numpy and scipy)"""
import sys

import numpy as np
import scipy.io
import scipy.linalg as sl


def pcg(A, b, tol, maxit, m):
    dinv = 1.0 / A.diagonal()
    x, r = np.zeros_like(b), b.copy()
    z = dinv * r
    p, rz, bn = z.copy(), r @ z, np.linalg.norm(b)
    al, be, res = [], [], [1.0]
    for k in range(1, maxit + 1):
        q = A @ p
        a = rz / (p @ q)
        x += a * p
        r -= a * q
        res.append(np.linalg.norm(r) / bn)
        z = dinv * r
        rz2 = r @ z
        bt, rz = rz2 / rz, rz2
        p = z + bt * p
        if k <= m:
            al.append(a), be.append(bt)
        if res[-1] <= tol:
            break
    return al, be, np.array(res)


def ritz_kappa(al, be):
    m = len(al)
    dg = [1 / al[j] + (be[j - 1] / al[j - 1] if j else 0) for j in range(m)]
    off = [np.sqrt(be[j]) / al[j] for j in range(m - 1)]
    w = sl.eigh_tridiagonal(np.array(dg), np.array(off), eigvals_only=True)
    return w[-1] / w[0]


def extrapolate(res, M, tol, frac):
    h = np.minimum.accumulate(res[:M])
    a = int(M * (1 - frac))
    rate = np.polyfit(np.arange(a, M), np.log(h[a:M]), 1)[0]
    return M - 1 + np.log(tol / h[M - 1]) / rate if rate < 0 else np.nan


print("matrix               rows     K8    K10  Ritz m=20,50,100 (K8, K10)         probe M  half,quarter,tenth (K8, K10)")
for f in sys.argv[1:]:
    A = scipy.io.mmread(f).tocsr()
    al, be, res = pcg(A, A @ np.ones(A.shape[0]), 1e-10, 20000, 100)
    K = {t: next(i for i, r in enumerate(res) if r <= t) for t in (1e-8, 1e-10)}
    out = f"{f.split('/')[-1][:18]:18s} {A.shape[0]:8d} {K[1e-8]:6d} {K[1e-10]:6d} "
    for m in (20, 50, 100):
        if m > len(al):
            out += "   conv    "
            continue
        s = np.sqrt(ritz_kappa(al[:m], be[:m]))
        out += " ".join(f"{np.log(2 / t) / np.log((s + 1) / (s - 1)) / K[t]:5.2f}" for t in (1e-8, 1e-10)) + " "
    M = int(min(3000, max(50, 1e8 / A.nnz)))
    out += f" {M:5d} "
    for frac in (0.5, 0.25, 0.1):
        out += " ".join("exact" if M > K[t] else f"{extrapolate(res, M, t, frac) / K[t]:5.2f}" for t in (1e-8, 1e-10)) + " "
    print(out, flush=True)
