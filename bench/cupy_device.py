# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python binding's CuPy path at scale (needs CuPy and a GPU).

A 3D Poisson matrix (7-point, n^3 rows) is built on the GPU with CuPy, so
the host never holds it, then solved three ways in one process:
  device  cgmodel.solve(A_cupy, b_cupy): A, b and x stay in GPU memory
  host    cgmodel.solve(A_scipy, b_numpy): the same configuration (block
          size 1, double) from host memory; its solve phase is the
          command line's
  cupy    cupyx.scipy.sparse.linalg.cg with Jacobi, to the same tolerance
The host process's resident memory is sampled every 2 ms during the device
solves: a copy of A to the host would raise it by A's size.

    python3 bench/cupy_device.py [n=192] [tol=1e-8] [reps=3]

Prints a table and one JSON line (bench/results/)."""

import json
import statistics
import sys
import threading
import time

import cupy as cp
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as csl
import psutil

import cgmodel


def poisson3d_gpu(n):
    """The 7-point Laplacian of an n^3 grid (6 on the diagonal), on the GPU."""
    N = n**3
    i = cp.arange(N, dtype=cp.int64)
    x, y, z = i % n, (i // n) % n, i // (n * n)
    rows, cols, vals = [i], [i], [cp.full(N, 6.0)]
    for mask, off in ((x > 0, -1), (x < n - 1, 1), (y > 0, -n), (y < n - 1, n),
                      (z > 0, -n * n), (z < n - 1, n * n)):
        r = i[mask]
        rows.append(r)
        cols.append(r + off)
        vals.append(cp.full(r.size, -1.0))
    A = csp.coo_matrix(
        (cp.concatenate(vals), (cp.concatenate(rows).astype(cp.int32),
                                cp.concatenate(cols).astype(cp.int32))),
        shape=(N, N),
    ).tocsr()
    A.sum_duplicates()
    return A


class RssPeak:
    """The largest rise of this process's resident memory while active."""

    def __init__(self):
        self.proc = psutil.Process()
        self.base = self.peak = self.proc.memory_info().rss
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set():
            self.peak = max(self.peak, self.proc.memory_info().rss)
            time.sleep(0.002)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *a):
        self.stop.set()
        self.t.join()
        self.peak = max(self.peak, self.proc.memory_info().rss)

    @property
    def rise(self):
        return self.peak - self.base


def timed(fn, reps):
    out, walls = None, []
    for _ in range(reps):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        out = fn()
        cp.cuda.Device().synchronize()
        walls.append(time.perf_counter() - t0)
    return out, walls


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 192
    tol = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-8
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    A = poisson3d_gpu(n)
    N = A.shape[0]
    b = A @ cp.ones(N)
    a_bytes = A.nnz * 12 + (N + 1) * 4
    cgmodel.solve(A, b, tol=tol, bx=1)  # the first call makes the CUDA context and loads code
    with RssPeak() as rss:
        (xd, rd), walls_d = timed(lambda: cgmodel.solve(A, b, tol=tol, bx=1), reps)
    rel_d = float(cp.linalg.norm(b - A @ xd) / cp.linalg.norm(b))

    Ah, bh = A.get(), b.get()
    (xh, rh), walls_h = timed(lambda: cgmodel.solve(Ah, bh, tol=tol, bx=1, record=False), reps)
    del Ah, bh

    dinv = 1.0 / A.diagonal()
    M = csl.LinearOperator(A.shape, matvec=lambda v: dinv * v, dtype=cp.float64)
    it = [0]

    def cupy_cg():
        it[0] = 0

        def count(_):
            it[0] += 1

        try:
            return csl.cg(A, b, rtol=tol, atol=0.0, maxiter=10 * N, M=M, callback=count)
        except TypeError:  # CuPy before rtol
            return csl.cg(A, b, tol=tol, atol=0.0, maxiter=10 * N, M=M, callback=count)

    (xc, _), walls_c = timed(cupy_cg, reps)
    rel_c = float(cp.linalg.norm(b - A @ xc) / cp.linalg.norm(b))

    md, mh, mc = (statistics.median(w) for w in (walls_d, walls_h, walls_c))
    print(f"Poisson 3D {n}^3: {N} rows, {A.nnz} nonzeros, A = {a_bytes / 1e6:.0f} MB on the GPU, "
          f"tol {tol:g}, {reps} reps (medians)")
    print(f"{'':8} {'wall s':>8} {'setup s':>8} {'solve s':>8} {'iters':>6} {'residual':>9}")
    print(f"{'device':8} {md:8.3f} {rd.time_setup_s:8.3f} {rd.time_solve_s:8.3f} "
          f"{rd.iterations:6d} {rel_d:9.2e}")
    print(f"{'host':8} {mh:8.3f} {rh.time_setup_s:8.3f} {rh.time_solve_s:8.3f} "
          f"{rh.iterations:6d} {rh.relative_residual:9.2e}")
    print(f"{'cupy':8} {mc:8.3f} {'':8} {'':8} {it[0]:6d} {rel_c:9.2e}")
    print(f"device wall / host solve phase: {md / rh.time_solve_s:.2f}; device / cupy: "
          f"{md / mc:.2f}; host memory rise during the device solves: {rss.rise / 1e6:.1f} MB "
          f"(A is {a_bytes / 1e6:.0f} MB)")
    print(json.dumps({
        "n": n, "rows": N, "nnz": int(A.nnz), "tol": tol, "reps": reps,
        "device": {"walls_s": walls_d, "setup_s": rd.time_setup_s, "solve_s": rd.time_solve_s,
                   "check_s": rd.time_check_s if hasattr(rd, "time_check_s") else None,
                   "iterations": rd.iterations, "residual": rel_d, "memory": rd.memory},
        "host": {"walls_s": walls_h, "setup_s": rh.time_setup_s, "solve_s": rh.time_solve_s,
                 "iterations": rh.iterations, "residual": rh.relative_residual},
        "cupy": {"walls_s": walls_c, "iterations": it[0], "residual": rel_c},
        "host_rss_rise_bytes": rss.rise, "matrix_bytes": a_bytes,
    }))


if __name__ == "__main__":
    main()
