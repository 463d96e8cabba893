#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Matrix families for the K-estimator study, and the full Jacobi-CG runs (x0 = 0, b = A * ones,
||r_k|| / ||b||, to 1e-10 or 20000 steps) with their coefficients, cached as runs/<name>.npz.
usage: [K_PROBE_MATRICES=DIR] OMP_NUM_THREADS=1 nice python3 gen.py [name-substring ...]
(DIR: the SuiteSparse matrices of the held-out set, as .mtx files)"""
import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.spatial import Delaunay, cKDTree

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
SS = os.environ.get("K_PROBE_MATRICES", "")  # the SuiteSparse .mtx files of the held-out set


def lap1(n, h=1.0):
    return sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]) / h


def ksum(*ms):
    """Kronecker sum."""
    out = ms[0]
    for m in ms[1:]:
        out = sp.kron(out, sp.identity(m.shape[0])) + sp.kron(sp.identity(out.shape[0]), m)
    return out.tocsr()


def poisson2d(n):
    return ksum(lap1(n), lap1(n))


def poisson3d(n):
    return ksum(lap1(n), lap1(n), lap1(n))


def aniso3d(n, ex, ey):
    I = sp.identity(n)
    L = lap1(n)
    return (sp.kron(sp.kron(L, I), I) * ex + sp.kron(sp.kron(I, L), I) * ey + sp.kron(sp.kron(I, I), L)).tocsr()


def fwd(n):
    """Forward difference with Dirichlet: (n+1) x n."""
    return sp.diags([np.ones(n), -np.ones(n)], [0, -1], shape=(n + 1, n))


def jump3d(n, contrast, block, seed):
    """Cell-centred 7-point diffusion, coefficient constant on block^3 sub-cubes, log-uniform in
    [1, contrast], harmonic means on faces, Dirichlet (half cells) on the boundary."""
    rng = np.random.default_rng(seed)
    nb = -(-n // block)
    c = np.exp(rng.uniform(0, np.log(contrast), (nb, nb, nb)))
    c = np.repeat(np.repeat(np.repeat(c, block, 0), block, 1), block, 2)[:n, :n, :n]
    N = n ** 3
    idx = np.arange(N).reshape(n, n, n)
    rows, cols, vals = [], [], []
    diag = np.zeros(N)
    for ax in range(3):
        a = np.moveaxis(c, ax, 0)
        i = np.moveaxis(idx, ax, 0)
        w = 2 * a[:-1] * a[1:] / (a[:-1] + a[1:])
        p, q = i[:-1].ravel(), i[1:].ravel()
        w = w.ravel()
        rows += [p, q]; cols += [q, p]; vals += [-w, -w]
        np.add.at(diag, p, w); np.add.at(diag, q, w)
        # boundary faces (Dirichlet at the face: 2 a)
        np.add.at(diag, i[0].ravel(), 2 * a[0].ravel())
        np.add.at(diag, i[-1].ravel(), 2 * a[-1].ravel())
    rows.append(np.arange(N)); cols.append(np.arange(N)); vals.append(diag)
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(N, N))


def elast3d(n, lam_over_mu):
    """mu (vector Laplacian) + (lambda + mu) grad div, finite differences, Dirichlet: 3 n^3 rows,
    nodal numbering (3 unknowns a node interleaved)."""
    I = sp.identity(n)
    D = fwd(n)
    G = [sp.kron(sp.kron(D if a == 0 else I, D if a == 1 else I), D if a == 2 else I) for a in range(3)]
    # G[a]: differences along axis a, ((n+1) n n) x n^3 style shapes differ per axis; div needs a
    # common grid: use square forward differences instead (n x n, Dirichlet on one side)
    Ds = sp.diags([np.ones(n), -np.ones(n - 1)], [0, -1], shape=(n, n))
    Gs = [sp.kron(sp.kron(Ds if a == 0 else I, Ds if a == 1 else I), Ds if a == 2 else I) for a in range(3)]
    L = sum(g.T @ g for g in G)
    div = sp.hstack(Gs)
    A = sp.block_diag([L, L, L]) + (1 + lam_over_mu) * (div.T @ div)
    N = n ** 3
    perm = np.arange(3 * N).reshape(3, N).T.ravel()  # node-major
    A = A.tocsr()[perm][:, perm]
    return sp.csr_matrix(A)


def tet_mesh(npts, seed):
    rng = np.random.default_rng(seed)
    # random interior points plus a boundary grid so the hull is the cube
    P = rng.random((npts, 3))
    m = max(3, int(round((npts / 30) ** (1 / 2))))
    g = np.linspace(0, 1, m)
    B = []
    for ax in range(3):
        for s in (0.0, 1.0):
            u, v = np.meshgrid(g, g)
            q = np.zeros((u.size, 3))
            q[:, ax] = s
            q[:, (ax + 1) % 3] = u.ravel()
            q[:, (ax + 2) % 3] = v.ravel()
            B.append(q)
    B = np.unique(np.round(np.vstack(B), 12), axis=0)
    X = np.vstack([P, B])
    T = Delaunay(X).simplices
    bnd = np.zeros(len(X), bool)
    bnd[npts:] = True
    return X, T, bnd


def p1_grads(X, T):
    V = X[T]  # (t, 4, 3)
    E = V[:, 1:] - V[:, :1]  # (t, 3, 3)
    det = np.linalg.det(E)
    keep = np.abs(det) > 1e-12
    E, det, T = E[keep], det[keep], T[keep]
    Ei = np.linalg.inv(E)  # columns: grads of lambda_1..3
    g = np.concatenate([-Ei.sum(axis=2, keepdims=True).transpose(0, 2, 1), Ei.transpose(0, 2, 1)], axis=1)
    # g: (t, 4, 3): gradient of each barycentric coordinate
    vol = np.abs(det) / 6
    return T, g, vol


def p1_laplace(npts, seed):
    X, T, bnd = tet_mesh(npts, seed)
    T, g, vol = p1_grads(X, T)
    K = np.einsum("tid,tjd->tij", g, g) * vol[:, None, None]
    r = np.repeat(T, 4, axis=1).ravel()
    c = np.tile(T, (1, 4)).ravel()
    N = len(X)
    A = sp.csr_matrix((K.ravel(), (r, c)), shape=(N, N))
    keep = np.flatnonzero(~bnd)
    return A[keep][:, keep].tocsr()


def p1_elast(npts, seed, nu=0.3):
    X, T, bnd = tet_mesh(npts, seed)
    T, g, vol = p1_grads(X, T)
    lam, mu = nu / ((1 + nu) * (1 - 2 * nu)), 1 / (2 * (1 + nu))
    t = len(T)
    # strain-displacement B: (t, 6, 12)
    Bm = np.zeros((t, 6, 12))
    for i in range(4):
        gx, gy, gz = g[:, i, 0], g[:, i, 1], g[:, i, 2]
        Bm[:, 0, 3 * i] = gx; Bm[:, 1, 3 * i + 1] = gy; Bm[:, 2, 3 * i + 2] = gz
        Bm[:, 3, 3 * i] = gy; Bm[:, 3, 3 * i + 1] = gx
        Bm[:, 4, 3 * i + 1] = gz; Bm[:, 4, 3 * i + 2] = gy
        Bm[:, 5, 3 * i] = gz; Bm[:, 5, 3 * i + 2] = gx
    C = np.zeros((6, 6))
    C[:3, :3] = lam
    C[np.arange(3), np.arange(3)] += 2 * mu
    C[3:, 3:] = np.eye(3) * mu
    K = np.einsum("tai,ab,tbj->tij", Bm, C, Bm) * vol[:, None, None]
    dof = (3 * T[:, :, None] + np.arange(3)).reshape(t, 12)
    r = np.repeat(dof, 12, axis=1).ravel()
    c = np.tile(dof, (1, 12)).ravel()
    N = 3 * len(X)
    A = sp.csr_matrix((K.ravel(), (r, c)), shape=(N, N))
    keep = np.flatnonzero(~np.repeat(bnd, 3))
    return A[keep][:, keep].tocsr()


def graph_lap(edges, n, shift_rel):
    i, j = edges[:, 0], edges[:, 1]
    W = sp.csr_matrix((np.ones(len(i)), (i, j)), shape=(n, n))
    W = ((W + W.T) > 0).astype(float)
    d = np.asarray(W.sum(1)).ravel()
    L = sp.diags(d) - W
    return (L + sp.identity(n) * shift_rel * d.mean()).tocsr()


def rgg(n, dim, deg, shift_rel, seed):
    rng = np.random.default_rng(seed)
    P = rng.random((n, dim))
    # radius for expected degree deg
    from math import gamma, pi
    vball = pi ** (dim / 2) / gamma(dim / 2 + 1)
    r = (deg / (n * vball)) ** (1 / dim)
    e = np.array(list(cKDTree(P).query_pairs(r, output_type="ndarray")))
    return graph_lap(e, n, shift_rel)


def ba(n, m, shift_rel, seed):
    import networkx as nx
    G = nx.barabasi_albert_graph(n, m, seed=seed)
    e = np.array(G.edges())
    return graph_lap(e, n, shift_rel)


def kron_ss(name, k):
    B = sp.csr_matrix(scipy.io.mmread(os.path.join(SS, name + ".mtx")))
    d = B.diagonal()
    s = np.sqrt(1 / d)
    Bn = sp.diags(s) @ B @ sp.diags(s)  # unit diagonal
    return ksum(Bn.tocsr(), lap1(k) / 2).tocsr()


def suitesparse(name):
    return sp.csr_matrix(scipy.io.mmread(os.path.join(SS, name + ".mtx")))


SS_SPD = ("bcsstk13 bcsstk15 bcsstk16 bcsstk08 bcsstk10 msc01050 msc00726 gr_30_30 1138_bus bcsstk19 "
          "bcsstk06 bcsstk07 662_bus 494_bus bcsstk20 bcsstk04 bcsstk05 nos4 bcsstk03 bcsstk22").split()

# name -> (set, family, builder)
CASES = {}
for n in (60, 100, 150, 200, 300, 450):
    CASES[f"poisson2d_{n}"] = ("dev", "poisson2d", lambda n=n: poisson2d(n))
for n in (20, 32, 48, 64, 80):
    CASES[f"poisson3d_{n}"] = ("dev", "poisson3d", lambda n=n: poisson3d(n))
for n, c, b, s in ((24, 100, 4, 1), (32, 1e3, 4, 2), (40, 1e4, 4, 3), (48, 1e2, 2, 4), (48, 1e4, 6, 5), (64, 1e3, 8, 6)):
    CASES[f"jump3d_{n}_{c:g}_{b}"] = ("dev", "jump3d", lambda n=n, c=c, b=b, s=s: jump3d(n, c, b, s))
for n, r in ((10, 1), (14, 1), (18, 1), (22, 1), (16, 10), (24, 3)):
    CASES[f"elast3d_{n}_{r}"] = ("dev", "elast3d", lambda n=n, r=r: elast3d(n, r))
for n, d, deg, sh, s in ((20000, 2, 10, 1e-4, 1), (60000, 2, 10, 1e-4, 2), (30000, 3, 15, 1e-4, 3),
                         (120000, 3, 15, 1e-5, 4), (100000, 2, 12, 1e-3, 5)):
    CASES[f"rgg{d}d_{n}_{sh:g}"] = ("dev", "rgg", lambda n=n, d=d, deg=deg, sh=sh, s=s: rgg(n, d, deg, sh, s))
# held out
for n, ex, ey in ((40, 1, 0.01), (48, 0.1, 0.1), (64, 1, 0.1), (32, 100, 1), (56, 0.01, 0.01)):
    CASES[f"aniso3d_{n}_{ex:g}_{ey:g}"] = ("held", "aniso3d", lambda n=n, ex=ex, ey=ey: aniso3d(n, ex, ey))
for n, s in ((5000, 1), (20000, 2), (60000, 3), (150000, 4)):
    CASES[f"p1lap_{n}"] = ("held", "p1lap", lambda n=n, s=s: p1_laplace(n, s))
for n, s in ((2000, 1), (6000, 2), (15000, 3)):
    CASES[f"p1elast_{n}"] = ("held", "p1elast", lambda n=n, s=s: p1_elast(n, s))
for n, m, sh, s in ((20000, 3, 1e-3, 1), (100000, 2, 1e-4, 2), (200000, 4, 1e-5, 3), (50000, 1, 1e-4, 4)):
    CASES[f"ba_{n}_{m}_{sh:g}"] = ("held", "ba", lambda n=n, m=m, sh=sh, s=s: ba(n, m, sh, s))
for name, k in (("bcsstk15", 30), ("gr_30_30", 200), ("1138_bus", 100), ("bcsstk13", 40)):
    CASES[f"kron_{name}_{k}"] = ("held", "kron", lambda name=name, k=k: kron_ss(name, k))
for name in SS_SPD:
    CASES[f"ss_{name}"] = ("held", "suitesparse", lambda name=name: suitesparse(name))


def pcg(A, tol, maxiter):
    n = A.shape[0]
    b = A @ np.ones(n)
    dinv = 1.0 / A.diagonal()
    bn = np.linalg.norm(b)
    r = b.copy()
    z = dinv * r
    p = z.copy()
    rz = r @ z
    res, al, be = [1.0], [], []
    for _ in range(maxiter):
        q = A @ p
        alpha = rz / (p @ q)
        r -= alpha * q
        res.append(np.linalg.norm(r) / bn)
        al.append(alpha)
        if res[-1] <= tol or not np.isfinite(res[-1]):
            break
        z = dinv * r
        rz1 = r @ z
        beta = rz1 / rz
        be.append(beta)
        p *= beta
        p += z
        rz = rz1
    return np.array(res), np.array(al), np.array(be)


def main():
    os.makedirs(RUNS, exist_ok=True)
    pats = sys.argv[1:]
    for name, (st, fam, build) in CASES.items():
        if pats and not any(p in name for p in pats):
            continue
        out = os.path.join(RUNS, name + ".npz")
        if os.path.exists(out):
            continue
        t0 = time.time()
        A = build()
        A = sp.csr_matrix(A)
        A.eliminate_zeros()
        t1 = time.time()
        res, al, be = pcg(A, 1e-10, 20000)
        np.savez(out, res=res, al=al, be=be, n=A.shape[0], nnz=A.nnz, set=st, family=fam)
        print(f"{name:28s} n={A.shape[0]:8d} nnz={A.nnz:9d} K={len(res) - 1:6d} final={res[-1]:.1e} "
              f"build {t1 - t0:.1f}s cg {time.time() - t1:.1f}s", flush=True)


if __name__ == "__main__":
    main()
