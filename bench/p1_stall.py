#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Whether `cgmodel solve` stops short on an unstructured P1 tetrahedral
matrix that plain CG solves (docs/reliability.md, "The stall test").

P1 finite elements of -div grad u + u on the Delaunay tetrahedralisation of
N random points in the unit cube (SciPy), randomly numbered; b uniform in
[-1, 1) from seed 1. A plain fp64 Jacobi CG in NumPy runs to 20,000
iterations and reports where it first meets each tolerance; then
`cgmodel solve` (the backend and precision given) at each tolerance, with
its iterations, verdict and the residual recomputed here.

usage: p1_stall.py CGMODEL OUTDIR [--points N] [--backend cuda] [--precision double] [--tol T...]"""
import argparse
import json
import os
import subprocess

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.spatial import Delaunay


def p1_matrix(npts, seed):
    rng = np.random.default_rng(seed)
    pts = rng.random((npts, 3))
    tets = Delaunay(pts).simplices
    rng.shuffle(tets)
    perm = rng.permutation(npts)  # random numbering
    tets = perm[tets]
    pts = pts[np.argsort(perm)]
    X = pts[tets]  # (t, 4, 3)
    D = X[:, 1:, :] - X[:, :1, :]  # edges from vertex 0
    det = np.linalg.det(D)
    keep = np.abs(det) > 1e-14
    tets, D, det = tets[keep], D[keep], det[keep]
    vol = np.abs(det) / 6.0
    Dinv = np.linalg.inv(D)  # gradients of the barycentrics 1..3 are Dinv's columns
    G = np.concatenate([-Dinv.sum(axis=2, keepdims=True), Dinv], axis=2)  # (t, 3, 4)
    K = np.einsum("tik,til->tkl", G, G) * vol[:, None, None]
    M = (np.ones((4, 4)) + np.eye(4)) / 20.0 * vol[:, None, None]
    E = K + M
    rows = np.repeat(tets, 4, axis=1).ravel()
    cols = np.tile(tets, (1, 4)).ravel()
    A = sp.csr_matrix((E.ravel(), (rows, cols)), shape=(npts, npts))
    A.sum_duplicates()
    return A


def plain_cg(A, b, tols, cap=20000):
    d = A.diagonal()
    x = np.zeros_like(b)
    r = b.copy()
    z = r / d
    p = z.copy()
    rz = r @ z
    bn = np.linalg.norm(b)
    reach = {t: None for t in tols}
    least = 1.0
    for k in range(1, cap + 1):
        q = A @ p
        a = rz / (p @ q)
        x += a * p
        r -= a * q
        rel = np.linalg.norm(r) / bn
        for t in tols:
            if reach[t] is None and rel <= t:
                reach[t] = k
        if k % 200 == 0 or all(v is not None for v in reach.values()):
            true = np.linalg.norm(b - A @ x) / bn
            least = min(least, true)
            if all(v is not None for v in reach.values()):
                break
        z = r / d
        rz, rz0 = r @ z, rz
        p = z + (rz / rz0) * p
    return reach, least


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cgmodel")
    ap.add_argument("out")
    ap.add_argument("--points", type=int, default=150000)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--precision", default="double")
    ap.add_argument("--tol", nargs="+", type=float, default=[1e-8, 1e-10])
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    A = p1_matrix(a.points, 1)
    b = np.random.default_rng(1).uniform(-1, 1, A.shape[0])
    fa, fb = os.path.join(a.out, "p1.mtx"), os.path.join(a.out, "p1_b.mtx")
    scipy.io.mmwrite(fa, sp.tril(A).tocoo(), symmetry="symmetric", precision=17)
    scipy.io.mmwrite(fb, b.reshape(-1, 1), precision=17)
    reach, least = plain_cg(A, b, a.tol)
    print("P1 tetrahedra, %d rows, %d nonzeros; plain Jacobi CG (NumPy): %s; least true %.2e" % (
        A.shape[0], A.nnz, ", ".join("%g at %s" % (t, reach[t]) for t in a.tol), least))
    print("%-8s %8s %10s %12s %s" % ("tol", "iters", "converged", "recomputed", "verdict"))
    for t in a.tol:
        fx = os.path.join(a.out, "x_%g.mtx" % t)
        p = subprocess.run([a.cgmodel, "solve", fa, "--rhs", fb, "--backend", a.backend,
                            "--precision", a.precision, "--tol", str(t), "--no-record", "--json",
                            "--reorder", "none", "-o", fx], capture_output=True, text=True)
        try:
            j = json.loads(p.stdout)
        except ValueError:
            j = {}
        res = float("nan")
        if os.path.exists(fx):
            x = scipy.io.mmread(fx).ravel()
            res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
            os.remove(fx)
        print("%-8g %8s %10s %12.3e rc %d %s" % (t, j.get("iterations"), j.get("converged"), res,
                                                 p.returncode, (p.stderr or "").strip()[-160:]))


if __name__ == "__main__":
    main()
