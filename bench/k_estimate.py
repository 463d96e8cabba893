#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""How well can K (Jacobi CG's iteration count in double to a relative residual tol, b = A * ones,
x0 = 0) be known before a solve, on matrices too large for today's probe? For each case and
tolerance: the true K (a full Jacobi CG, ||r|| / ||b||), and these estimates with their ratio to K
and their cost (nonzeros read):
- probe: today's (pipeline/history.c): one run of clamp(1e8 / nnz, 50, 3000) steps, exact when it
  converges, else the second half's rate extrapolated; none above 2M nonzeros.
- size: cgm_iterations_estimate, 0.2 rows^(1/3) ln(2 / tol).
- fitA_B: sub-domain probes: breadth-first balls of m rows around a centre row (the most interior
  of five spread candidates: the fewest levels for 4096 rows; fit2mid: row nrows / 2), their
  principal submatrix (SPD by interlacing, Dirichlet at the cut) solved to tol with
  b = A_sub * ones; K(m) = K(m2) (m / m2)^gamma, gamma fitted (least squares in logs) on the ball
  sizes, clamped to [0, 1/2], taken to m = rows. fit2: 2^13 and 2^16 rows; fit3: 2^12, 2^14,
  2^16; fit2s: 2^12, 2^15; fit2b: 2^14, 2^17. Where rows <= the largest ball, the ball is the
  whole matrix: its own solve, exact.
- dim: the largest ball's K with gamma = 1 / d, d the balls' growth dimension (rows ~ levels^d).
- coarse: coarse matrices instead of balls: Galerkin P^T A P with P piecewise constant on
  aggregates (stars around a maximal independent set), repeated; the two finest levels of at most
  2^16 rows solved (b = A_c * ones) and extrapolated in rows as fit2. coarse_sa: the same with
  smoothed aggregation (P smoothed by a Jacobi step), only up to 8M nonzeros and rows of
  at most 200.
- probe+X: the probe where it converges within its run (exact), else X.

Usage: bench/k_estimate.py CGMODEL_BINARY OUT_DIR [CASE...]   (computes, kept in OUT_DIR)
       bench/k_estimate.py --table OUT_DIR [CASE...]          (prints the table)
CASE: a name of SPD (data/matrices) or of GEN; all by default. numpy and scipy (Debian's
python3-numpy, python3-scipy); the generated matrices come from `cgmodel gen` into OUT_DIR and stay
there (as .npz) with each case's residual histories (.json) for reruns. nnz is scipy's count after
symmetrising, without explicitly stored zeros (elasticity3d's differ from cgmodel's)."""
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

TOLS = (1e-8, 1e-10)
HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLED = os.path.join(HERE, "..", "data", "matrices")
SPD = ("LFAT5 LF10 Trefethen_20b Trefethen_20 bcsstm05 mesh1e1 bcsstk01 nos4 bcsstk03 bcsstk22 494_bus "
       "bcsstk05 662_bus bcsstk20 bcsstk04 bcsstk02 1138_bus bcsstk19 bcsstk06 bcsstk07 gr_30_30 bcsstk08 "
       "bcsstk10 msc01050 bcsstm25 msc00726 bcsstk13 bcsstk15 bcsstk16").split()
# generated cases: name -> cgmodel gen arguments
GEN = {
    "poisson3d:30": "poisson3d --n 30", "poisson3d:60": "poisson3d --n 60",
    "poisson3d:100": "poisson3d --n 100", "poisson3d:128": "poisson3d --n 128",
    "poisson2d:100": "poisson2d --n 100", "poisson2d:400": "poisson2d --n 400",
    "poisson2d:1000": "poisson2d --n 1000", "poisson2d:1600": "poisson2d --n 1600",
    "elasticity3d:10": "elasticity3d --n 10", "elasticity3d:20": "elasticity3d --n 20",
    "elasticity3d:32": "elasticity3d --n 32", "elasticity3d:48": "elasticity3d --n 48",
    "mesh3d:5000": "mesh3d --n 5000 --numbering random",
    "mesh3d:50000": "mesh3d --n 50000 --numbering random",
    "mesh3d:400000": "mesh3d --n 400000 --numbering random",
    "mesh3d:5000:1e4": "mesh3d --n 5000 --numbering random --contrast 1e4",
    "mesh3d:50000:1e4": "mesh3d --n 50000 --numbering random --contrast 1e4",
    "mesh3d:200000:1e4": "mesh3d --n 200000 --numbering random --contrast 1e4",
    "powerlaw:100000": "random --n 100000 --dist powerlaw",
    "powerlaw:1000000": "random --n 1000000 --dist powerlaw",
    "powerlaw:4000000": "random --n 4000000 --dist powerlaw",
    "kron:bcsstk15:50": "kron --with {B}/bcsstk15.mtx --k 50",
    "kron:gr_30_30:200": "kron --with {B}/gr_30_30.mtx --k 200",
}


def read_mtx(path):
    """A Matrix Market file as CSR: numpy's text parser for coordinate real files (the generated
    ones are large), scipy's reader otherwise."""
    with open(path, "rb") as f:
        banner = f.readline().decode().lower()
        if "coordinate" not in banner or "real" not in banner:
            return sp.csr_matrix(scipy.io.mmread(path))
        line = f.readline()
        while line.startswith(b"%"):
            line = f.readline()
        nr, nc, nz = (int(t) for t in line.split())
        v = np.fromstring(f.read(), sep=" ").reshape(nz, 3)  # the fast whitespace parser
    i, j = v[:, 0].astype(np.int64) - 1, v[:, 1].astype(np.int64) - 1
    A = sp.coo_matrix((v[:, 2], (i, j)), shape=(nr, nc)).tocsr()
    if "symmetric" in banner:
        A = A + sp.tril(A, -1, format="csr").T
    A = sp.csr_matrix(A)
    A.sum_duplicates()
    A.sort_indices()
    return A


def load(case, cgmodel, outdir):
    if case in GEN:
        path = os.path.join(outdir, case.replace(":", "_") + ".mtx")
        npz = path[:-4] + ".npz"
        if os.path.exists(npz):
            return sp.load_npz(npz).tocsr()
        if not os.path.exists(path):
            args = GEN[case].format(B=BUNDLED).split()
            subprocess.run([cgmodel, "gen", *args, "--symmetric", "-o", path], check=True,
                           stderr=subprocess.DEVNULL)
        A = read_mtx(path)
        sp.save_npz(npz, A, compressed=False)
        os.remove(path)
        return A
    return read_mtx(os.path.join(BUNDLED, case + ".mtx"))


def pcg(A, tol, maxiter, dinv=None):
    """Jacobi CG from x0 = 0 with b = A * ones: the relative residuals ||r_k|| / ||b||, k = 0..,
    to tol or maxiter steps."""
    n = A.shape[0]
    b = A @ np.ones(n)
    if dinv is None:
        dinv = 1.0 / A.diagonal()
    bn = np.linalg.norm(b)
    hist = [1.0]
    if bn == 0:
        return hist
    r = b.copy()
    z = dinv * r
    p = z.copy()
    rz = r @ z
    for _ in range(maxiter):
        q = A @ p
        alpha = rz / (p @ q)
        r -= alpha * q
        res = np.linalg.norm(r) / bn
        hist.append(res)
        if res <= tol or not np.isfinite(res):
            break
        z = dinv * r
        rz1 = r @ z
        p *= rz1 / rz
        p += z
        rz = rz1
    return hist


def k_of(hist, tol):
    for i, v in enumerate(hist):
        if v <= tol:
            return i
    return 0


def probe_today(A, tol, budget=1e8):
    """pipeline/history.c's probe: K exact within the run, else the second half's rate."""
    nnz = A.nnz
    if nnz > 2_000_000:
        return 0, 0
    M = int(min(3000, max(50, budget / nnz)))
    h = pcg(A, tol, M)
    k = k_of(h, tol)
    cost = nnz * (len(h) - 1)
    if k:
        return k, cost
    n = len(h)
    if n <= 10:
        return 0, cost
    z, a = n - 1, n // 2
    least, xs, ys, first = math.inf, [], [], None
    for i in range(n):
        if 0 < h[i] < least:
            least = h[i]
        if i == 0:
            first = least
        if i >= a:
            xs.append(i), ys.append(math.log(least))
    rate = np.polyfit(xs, ys, 1)[0] if len(xs) >= 2 else 0
    if not rate < 0:
        rate = math.log(least / first) / z if first > least else 0
    if not rate < 0:
        return 0, cost
    k = z + math.log(tol / least) / rate
    if k > 20 * n:
        return 0, cost
    return math.ceil(max(k, z)), cost


def size_estimate(n, tol):
    return max(10, math.ceil(0.2 * n ** (1 / 3) * math.log(2 / tol)))


def ball(A, c, m):
    """The first m rows of a breadth-first search from c (whole levels, the last cut), and the
    number of levels it took."""
    n = A.shape[0]
    seen = np.zeros(n, bool)
    seen[c] = True
    parts, front, total, levels = [np.array([c])], np.array([c]), 1, 0
    while total < m and len(front):
        nb = np.unique(A[front].indices)
        nb = nb[~seen[nb]]
        seen[nb] = True
        parts.append(nb)
        total += len(nb)
        front = nb
        levels += 1
    idx = np.concatenate(parts)[:m]
    return np.sort(idx), levels


def centre(A, m, ncand=5):
    """The row among nrows/2 and a few spread ones whose m-row ball spans the fewest levels (an
    interior one: a ball cut by the boundary reaches further)."""
    n = A.shape[0]
    deg = np.diff(A.indptr)
    # each candidate moved on to the next row with a neighbour (an isolated row's ball is itself)
    cands = [n // 2] + [int(n * (k + 0.5) / ncand) for k in range(ncand - 1)]
    cands = [c + int(np.argmax(deg[c:] > 1)) if (deg[c:] > 1).any() else c for c in cands]
    best = None
    for c in cands:
        _, lv = ball(A, c, m)
        if best is None or lv < best[1]:
            best = (c, lv)
    return best[0]


def aggregate(A, seed=1, smooth=False):
    """A Galerkin coarse matrix P^T A P, P piecewise constant on aggregates: the stars around a
    maximal independent set of the graph of A (Luby's, random priorities), each other row joined
    to its strongest root neighbour. smooth: P smoothed by one Jacobi step (smoothed aggregation,
    omega = 4 / (3 lambda_max(D^-1 A)), the latter from 15 power steps)."""
    n = A.shape[0]
    S = A.tocsr().copy(); S.setdiag(0); S.eliminate_zeros()
    S.data = np.abs(S.data)
    rng = np.random.default_rng(seed)
    w = rng.random(n)
    U = np.ones(n, bool); mis = np.zeros(n, bool)
    ip, ix = S.indptr, S.indices
    empty = ip[:-1] == ip[1:]
    Sb = sp.csr_matrix((np.ones_like(S.data), ix, ip), shape=S.shape)
    while U.any():
        pr = np.where(U, w, -1.0)
        v = pr[ix]
        nbmax = np.full(n, -1.0)
        ne = ~empty
        nbmax[ne] = np.maximum.reduceat(v, ip[:-1][ne])
        new = U & (w > nbmax)
        mis |= new
        nb = (Sb @ new.astype(float)) > 0
        U &= ~new & ~nb
    roots = np.flatnonzero(mis)
    agg = np.full(n, -1); agg[roots] = np.arange(len(roots))
    C = S.tocoo()
    keep = mis[C.col] & ~mis[C.row]
    r, c, v = C.row[keep], C.col[keep], C.data[keep]
    o = np.lexsort((-v, r))
    r, c = r[o], c[o]
    first = np.ones(len(r), bool); first[1:] = r[1:] != r[:-1]
    agg[r[first]] = agg[c[first]]
    lone = agg < 0   # isolated rows: own aggregate
    agg[lone] = len(roots) + np.arange(lone.sum())
    nc = len(roots) + lone.sum()
    P = sp.csr_matrix((np.ones(n), (np.arange(n), agg)), shape=(n, nc))
    if smooth:
        dinv, x = 1 / A.diagonal(), rng.random(n)
        for _ in range(15):
            y = dinv * (A @ x)
            lam = np.linalg.norm(y) / np.linalg.norm(x)
            x = y / np.linalg.norm(y)
        P = (P - (4 / (3 * lam)) * sp.diags(dinv) @ (A @ P)).tocsr()
    return (P.T @ A @ P).tocsr()

def coarse_ks(A, tol_min, top=2 ** 16, smooth=False):
    """K of the successive coarse matrices of at most top rows: (rows, nonzeros, history)."""
    out, B = [], A
    while B.shape[0] > 300:
        nb = B.shape[0]
        B = aggregate(B, smooth=smooth)
        if B.shape[0] > 0.9 * nb:  # no coupling left to coarsen along
            break
        if B.shape[0] <= top:
            out.append((B.shape[0], B.nnz, pcg(B, tol_min, 20000)))
    return out


def coarse_estimate(levels, n, tol):
    """K extrapolated from the two finest coarse levels within the budget, as fit_estimate."""
    if len(levels) < 2:
        return 0, 0
    (n1, z1, h1), (n2, z2, h2) = levels[1], levels[0]
    k1, k2 = k_of(h1, tol), k_of(h2, tol)
    if not k1 or not k2:
        return 0, 0
    g = min(max(math.log(k2 / k1) / math.log(n2 / n1), 0.0), 0.5)
    return k2 * (n / n2) ** g, z1 * k1 + z2 * k2


SIZES = [2 ** e for e in range(10, 18)]


def sub_ks(A, c, tol_min):
    """K of the balls of SIZES rows around c (each solved to tol_min: the history serves both
    tolerances), their levels and costs."""
    out = {}
    n = A.shape[0]
    for m in SIZES:
        if m >= n:
            break
        idx, lv = ball(A, c, m)
        S = A[idx][:, idx].tocsr()
        h = pcg(S, tol_min, 20000)
        out[m] = {"hist": h, "levels": lv, "nnz": S.nnz}
    return out


def fit_estimate(sub, n, tol, ms):
    ks = [k_of(sub[m]["hist"], tol) for m in ms]
    if any(k == 0 for k in ks):
        return 0, 0
    x, y = np.log(ms), np.log(ks)
    g = np.polyfit(x, y, 1)[0] if len(ms) > 1 else 0
    g = min(max(g, 0.0), 0.5)
    k = math.exp(y[-1] + g * (math.log(n) - x[-1]))
    cost = sum(sub[m]["nnz"] * k_of(sub[m]["hist"], tol) for m in ms)
    return k, cost


def dim_estimate(sub, n, tol, m1, m2):
    """gamma = 1 / d, d the ball's growth dimension m ~ levels^d."""
    l1, l2 = sub[m1]["levels"], sub[m2]["levels"]
    k2 = k_of(sub[m2]["hist"], tol)
    if l2 <= l1 or k2 == 0:
        return 0, 0
    g = math.log(l2 / l1) / math.log(m2 / m1)
    g = min(max(g, 0.0), 0.5)
    return k2 * (n / m2) ** g, sub[m2]["nnz"] * k2


def estimators(rec, tol):
    """(name, estimate, cost in nonzeros read) for one record and tolerance."""
    n, t = rec["n"], str(tol)
    sub = {int(m): v for m, v in rec["sub"].items()}
    mid = {int(m): v for m, v in rec["sub_mid"].items()}
    pk, pc = rec["probe"][t]
    out = [("probe", pk, pc), ("size", size_estimate(n, tol), 0)]
    for name, s, ms in (("fit2", sub, (2 ** 13, 2 ** 16)), ("fit2mid", mid, (2 ** 13, 2 ** 16)),
                        ("fit3", sub, (2 ** 12, 2 ** 14, 2 ** 16)), ("fit2s", sub, (2 ** 12, 2 ** 15)),
                        ("fit2b", sub, (2 ** 14, 2 ** 17))):
        if all(m in s for m in ms):
            out.append((name, *fit_estimate(s, n, tol, ms)))
        else:  # the whole matrix is within the ball: its own solve
            out.append((name, k_of(rec["true"], tol), rec["nnz"] * k_of(rec["true"], tol)))
    out.append(("coarse", *coarse_estimate(rec["coarse"], n, tol)))
    out.append(("coarse_sa", *coarse_estimate(rec["coarse_sa"], n, tol)))
    if 2 ** 16 in sub:
        out.append(("dim", *dim_estimate(sub, n, tol, 2 ** 13, 2 ** 16)))
    else:
        out.append(("dim", k_of(rec["true"], tol), rec["nnz"] * k_of(rec["true"], tol)))
    # the probe where it converged within its run (then exact), else the sub-domain or coarse fit
    f = {a: (b, c) for a, b, c in out}
    for other in ("fit2", "coarse"):
        e, c = (pk, pc) if probe_exact(rec, tol) else (f[other][0], pc + f[other][1])
        out.append(("probe+" + other, e, c))
    return out


def probe_exact(rec, tol):
    """Whether today's probe converged within its run (K known exactly)."""
    M = int(min(3000, max(50, 1e8 / rec["nnz"]))) if rec["nnz"] <= 2_000_000 else 0
    return k_of(rec["true"][:M + 1], tol) > 0


def table(outdir, cases):
    rows = {}
    for case in cases:
        cache = os.path.join(outdir, case.replace(":", "_") + ".json")
        if not os.path.exists(cache):
            continue
        with open(cache) as f:
            rec = json.load(f)
        for tol in TOLS:
            K = k_of(rec["true"], tol)
            if not K:
                continue
            est = estimators(rec, tol)
            rows.setdefault(tol, []).append((case, rec["nnz"], K, est, probe_exact(rec, tol)))
    for tol, rs in rows.items():
        names = [e[0] for e in rs[0][3]]
        print(f"## tol {tol:g}: estimate / ratio to K (cost: nonzeros read, millions)")
        print(f"{'case':20s} {'nnz':>9s} {'K':>6s} " + " ".join(f"{x:>17s}" for x in names))
        for case, nnz, K, est, _ in rs:
            cells = [f"{e:7.0f} {e / K:4.2f} {c / 1e6:4.0f}" for _, e, c in est]
            print(f"{case:20s} {nnz:9d} {K:6d} " + " ".join(f"{x:>17s}" for x in cells))
        for label, sel in (("all", rs), ("where today's probe is not exact", [x for x in rs if not x[4]])):
            print(f"{len(sel)} cases, {label}; per estimator: median ratio, median |ln ratio| as a "
                  f"factor, worst ratio (none counts as 0), within 1.25x, within 1.5x, worst cost "
                  f"(M nonzeros read)")
            for j, name in enumerate(names):
                r = np.array([x[3][j][1] / x[2] for x in sel])
                d = np.abs(np.log(np.where(r > 0, r, 1e-3)))
                worst = r[np.argmax(d)]
                cost = max(x[3][j][2] for x in sel)
                print(f"  {name:13s} median {np.median(r):5.2f}  typical {math.exp(np.median(d)):5.2f}x  "
                      f"worst {worst:5.2f}  within 25%: {np.sum(d <= math.log(1.25)):3d}  within 50%: "
                      f"{np.sum(d <= math.log(1.5)):3d}  cost {cost / 1e6:6.0f}")


def main():
    if sys.argv[1] == "--table":
        outdir = sys.argv[2]
        table(outdir, sys.argv[3:] or SPD + list(GEN))
        return
    cgmodel, outdir = sys.argv[1], sys.argv[2]
    cases = sys.argv[3:] or SPD + list(GEN)
    os.makedirs(outdir, exist_ok=True)
    for case in cases:
        t0 = time.time()
        A = load(case, cgmodel, outdir)
        n = A.shape[0]
        cache = os.path.join(outdir, case.replace(":", "_") + ".json")
        if os.path.exists(cache):
            with open(cache) as f:
                rec = json.load(f)
        else:
            rec = {"true": pcg(A, min(TOLS), 100000)}
        if "sub" not in rec:
            rec["centre"] = centre(A, 4096) if n > 4096 else n // 2
            rec["sub"] = {str(m): v for m, v in sub_ks(A, rec["centre"], min(TOLS)).items()}
            rec["sub_mid"] = {str(m): v for m, v in sub_ks(A, n // 2, min(TOLS)).items()}
        if "coarse" not in rec:
            rec["coarse"] = coarse_ks(A, min(TOLS))
        if "coarse_sa" not in rec:  # its products fill in: none above 8M nonzeros or with hub rows
            small = A.nnz <= 8e6 and np.diff(A.indptr).max() <= 200
            rec["coarse_sa"] = coarse_ks(A, min(TOLS), smooth=True) if small else []
        if "probe" not in rec:
            rec["probe"] = {str(t): probe_today(A, t) for t in TOLS}
        rec.update(n=n, nnz=A.nnz)
        with open(cache, "w") as f:
            json.dump(rec, f)
        print(f"{case} n={n} nnz={A.nnz} {time.time() - t0:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
