#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Estimators of Jacobi-CG's K from a probe of M steps (residual history + CG coefficients), evaluated
on the cached runs (runs/*.npz from gen.py). usage: [TABLE=1] python3 study.py [dev|held|heldgen|ss|all] [estimator ...]"""
import glob, math, os, sys
import numpy as np
import scipy.linalg as sl

TOLS = (1e-8, 1e-10)
HERE = os.path.dirname(os.path.abspath(__file__))


def load():
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, "runs", "*.npz"))):
        d = np.load(f)
        name = os.path.basename(f)[:-4]
        if name == "ss_bcsstk07":  # same iterations as bcsstk06
            continue
        out.append(dict(name=name, set=str(d["set"]), family=str(d["family"]), n=int(d["n"]),
                        nnz=int(d["nnz"]), res=d["res"], al=d["al"], be=d["be"]))
    return out


def k_of(res, tol):
    i = np.flatnonzero(res <= tol)
    return int(i[0]) if len(i) else 0


def ritz(al, be, m):
    dg = 1 / al[:m] + np.concatenate([[0], be[:m - 1] / al[:m - 1]])
    off = np.sqrt(be[:m - 1]) / al[:m - 1]
    return sl.eigh_tridiagonal(dg, off, eigvals_only=True)


def slope(h, a, b):
    """least-squares slope of h[a..b-1] against the index"""
    x = np.arange(a, b)
    return np.polyfit(x, h[a:b], 1)[0] if b - a >= 2 else 0.0


# ---- estimators: f(res[0..M], al[0..M-1], be[0..M-1], tol) -> K estimate (0: none)

def today(res, al, be, tol):
    n = len(res)
    z, a = n - 1, n // 2
    h = np.log(np.minimum.accumulate(res))
    rate = slope(h, a, n)
    if not rate < 0:
        rate = h[-1] / z if h[-1] < 0 else 0
    if not rate < 0:
        return 0
    k = z + (math.log(tol) - h[-1]) / rate
    return 0 if k > 20 * n else max(k, z)


def lastq(res, al, be, tol, frac=0.25):
    n = len(res)
    z = n - 1
    h = np.log(np.minimum.accumulate(res))
    rate = slope(h, int(n * (1 - frac)), n)
    if not rate < 0:
        return today(res, al, be, tol)
    return max(z, z + (math.log(tol) - h[-1]) / rate)


def accel(res, al, be, tol, linear=True, gcap=4.0):
    """rate of the two last quarters; the rate's change between them carried on (linearly in k, or
    geometrically), never slower than the last quarter's."""
    n = len(res)
    z = n - 1
    h = np.log(np.minimum.accumulate(res))
    q = n // 4
    r1 = -slope(h, n - 2 * q, n - q)
    r2 = -slope(h, n - q, n)
    if not r2 > 0:
        return today(res, al, be, tol)
    r1 = max(r1, 1e-12)
    need = h[-1] - math.log(tol)
    if need <= 0:
        return z
    if linear:
        d = max(r2 - r1, 0) / q  # rate increase per step
        # need = r2 t + d t^2 / 2, t measured from the last quarter's centre-ish: from z
        t = need / r2 if d == 0 else (-r2 + math.sqrt(r2 * r2 + 2 * d * need)) / d
    else:
        g = min(max(r2 / r1, 1.0), gcap) ** (1 / q)
        t = need / r2 if g == 1 else math.log(1 + need * math.log(g) / r2) / math.log(g)
    return z + t


def cheb(kap):
    s = math.sqrt(max(kap, 1 + 1e-12))
    return math.log((s + 1) / (s - 1))


def ritzrate(res, al, be, tol, c=2.0):
    """the larger of the last quarter's rate and c x the Chebyshev rate of the Ritz condition number"""
    n = len(res)
    z = n - 1
    h = np.log(np.minimum.accumulate(res))
    r2 = -slope(h, n - n // 4, n)
    t = ritz(al, be, len(al))
    rc = c * cheb(t[-1] / t[0])
    rate = max(r2, rc)
    return max(z, z + (h[-1] - math.log(tol)) / rate)


EST = {"today": today, "lastq": lastq, "accel": accel,
       "accelg": lambda *a: accel(*a, linear=False), "ritz2": ritzrate,
       "ritz1.5": lambda *a: ritzrate(*a, c=1.5)}


def probes(rec, tol):
    """(label, M) for the case: the budget's, K/4, K/2"""
    K = k_of(rec["res"], tol)
    out = []
    Mb = int(min(3000, max(50, 1e8 / rec["nnz"])))
    if Mb < K:
        out.append(("budget", Mb))
    for lab, f in (("K/4", 0.25), ("K/2", 0.5)):
        M = int(K * f)
        if M >= 20:
            out.append((lab, M))
    return K, out


def evaluate(recs, names, verbose=True):
    rows = []
    for rec in recs:
        for tol in TOLS:
            K, pr = probes(rec, tol)
            if K < 40:
                continue
            for lab, M in pr:
                res, al, be = rec["res"][:M + 1], rec["al"][:M], rec["be"][:M]
                est = [EST[e](res, al, be, tol) for e in names]
                rows.append((rec, tol, K, lab, M, [e / K for e in est]))
    return rows


def summary(rows, names, label):
    lines = []
    for sel_lab in ("budget", "K/4", "K/2", None):
        rs = [r for r in rows if sel_lab is None or r[3] == sel_lab]
        if not rs:
            continue
        lines.append(f"  {label} probes={sel_lab or 'all'} ({len(rs)} cases x tol)")
        for j, e in enumerate(names):
            r = np.array([x[5][j] for x in rs])
            d = np.abs(np.log(np.where(r > 0, r, 1e-3)))
            lines.append(f"    {e:10s} median|ln r| {math.exp(np.median(d)):5.2f}x  median r {np.median(r):5.2f}  "
                         f"worst {r[np.argmax(d)]:6.2f}  min {r.min():5.2f} max {r.max():5.2f}  "
                         f"within25% {np.mean(d <= math.log(1.25)):4.0%}  within50% {np.mean(d <= math.log(1.5)):4.0%}")
    return "\n".join(lines)


def table(rows, names):
    lines = [f"{'case':28s} {'family':11s} {'n':>7s} {'nnz':>8s} {'tol':>6s} {'K':>6s} {'probe':>6s} {'M':>5s} "
             + " ".join(f"{e:>8s}" for e in names)]
    for rec, tol, K, lab, M, r in rows:
        lines.append(f"{rec['name']:28s} {rec['family']:11s} {rec['n']:7d} {rec['nnz']:8d} {tol:6.0e} {K:6d} {lab:>6s} {M:5d} "
                     + " ".join(f"{x:8.2f}" for x in r))
    return "\n".join(lines)


def prologue(res, al, be, tol):
    """n steps watched, the last z, m coefficients, the log least residual so far, what is left to
    tol (in log), the Ritz values of all m steps."""
    n = len(res)
    h = np.log(np.minimum.accumulate(res))
    return n, n - 1, len(al), h, h[-1] - math.log(tol), ritz(al, be, len(al))


def theta_min_seq(al, be, ks):
    return np.array([ritz(al, be, k)[0] for k in ks])


def combo(res, al, be, tol, c=1.5, eps=0.05, quad=True, minlen=0.25):
    """Two phases. While the least Ritz value still falls (theta_min(M) below (1 - eps) theta_min(3M/4)),
    the rate is the larger of the last quarter's and c x the Chebyshev rate of the Ritz condition number.
    Once it has settled (since step kc), CG accelerates (superlinearly) at a steady pace: log r fitted by
    a + b k + q k^2 over [kc, M] (q <= 0: accelerating), extrapolated; never slower than c x Chebyshev."""
    n, z, m, h, need, t = prologue(res, al, be, tol)
    rc = c * cheb(t[-1] / t[0])
    r2 = -slope(h, n - n // 4, n)
    ks = np.unique(np.linspace(max(2, m // 20), m, 20).astype(int))
    th = theta_min_seq(al, be, ks)
    settled = th <= t[0] * (1 + eps)
    kc = ks[np.argmax(settled)]
    if not quad or z - kc < minlen * z or kc > 0.75 * m:
        rate = max(r2, rc)
        return max(z, z + need / rate)
    x = np.arange(kc, n)
    q, b, a = np.polyfit(x - z, h[kc:n], 2)   # h ~ a + b (k - z) + q (k - z)^2 around z
    rate0 = max(-b, rc)                        # the rate at z
    acc = max(-q, 0.0)                         # -h'' / 2
    # need = rate0 s + acc s^2
    s = need / rate0 if acc == 0 else (-rate0 + math.sqrt(rate0 ** 2 + 4 * acc * need)) / (2 * acc)
    return z + s


EST.update({"combo": combo, "combo_lin": lambda *a: combo(*a, quad=False),
            "combo2": lambda *a: combo(*a, c=2.0), "combo_e10": lambda *a: combo(*a, eps=0.10)})


def deflated(res, al, be, tol, c=1.5, eps=0.01, jmax=0.1):
    """K = M + need / rate, rate = max(last quarter's least-squares rate of log min-residual,
    c x Chebyshev rate of kappa_eff = theta_max / theta_{j+1}), j = the number of the lowest Ritz values
    that have settled (moved by less than eps relatively between step floor(3M/4) and M; at most
    jmax M of them): CG has already removed those, the rest of the run sees the others."""
    n, z, m, h, need, t = prologue(res, al, be, tol)
    t0 = ritz(al, be, max(2, (3 * m) // 4))
    j = 0
    while j < min(len(t0), int(jmax * m)) and abs(t[j] - t0[j]) <= eps * t[j]:
        j += 1
    j = min(j, m - 2)
    rc = c * cheb(t[-1] / t[j])
    r2 = -slope(h, n - n // 4, n)
    return max(z, z + need / max(r2, rc))


EST.update({"defl": deflated, "defl2": lambda *a: deflated(*a, c=2.0),
            "defl_e05": lambda *a: deflated(*a, eps=0.05), "defl_e001": lambda *a: deflated(*a, eps=0.001),
            "defl_j1": lambda *a: deflated(*a, jmax=1e-9 + 1.0 / len(a[1]))})


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "dev"
    names = sys.argv[2:] or list(EST)
    pick = {"dev": lambda r: r["set"] == "dev", "held": lambda r: r["set"] == "held",
            "heldgen": lambda r: r["set"] == "held" and r["family"] != "suitesparse",
            "ss": lambda r: r["family"] == "suitesparse", "all": lambda r: True}[which]
    recs = [r for r in load() if pick(r)]
    rows = evaluate(recs, names)
    if os.environ.get("TABLE"):
        print(table(rows, names))
    print(summary(rows, names, which))
