#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What recording costs a warm Python process as its database grows: the default
cgmodel.solve(A, b) (recorded in a copy of DB) against the same call with record=False, interleaved,
first with the database as given, then after HISTORY more solves are in it (copies of the solves
just recorded, spread over every matrix of the database: a user's history of time steps and other
matrices, written in one SQL statement instead of HISTORY solves). Prints, for each, the database's
size, the 25th percentile and median of each call's wall clock, and the library's analysis
(time_analyse_s). Run it with CGMODEL_LIBRARY set to each build to compare them.

usage: python_record_history.py DB MATRIX.mtx|poisson3d:N [CALLS] [BACKEND] [HISTORY]"""
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp


def matrix(spec):
    if ":" in spec:  # poisson3d:N, the 7-point Laplacian on an N^3 grid
        n = int(spec.split(":")[1])
        t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
        i = sp.identity(n)
        return (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(i, i), t)).tocsr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return scipy.io.mmread(spec).tocsr()


def grow(db, history):
    """history more solves: copies of the newest recorded one, given each matrix in turn."""
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(solves)") if r[1] != "id"]
    nmat = con.execute("SELECT count(*) FROM matrices").fetchone()[0]
    have = con.execute("SELECT count(*) FROM solves").fetchone()[0]
    rest = ", ".join(c for c in cols if c != "matrix_id")
    con.execute(
        f"INSERT INTO solves ({', '.join(cols)}) "
        f"WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ?), "
        f"mm(mid, r) AS (SELECT id, row_number() OVER (ORDER BY id) - 1 FROM matrices) "
        f"SELECT mid, {rest} FROM k JOIN mm ON mm.r = k.i % ?, "
        f"(SELECT * FROM solves ORDER BY id DESC LIMIT 1)", (history - 1, max(nmat, 1)))
    con.commit()
    n = con.execute("SELECT count(*) FROM solves").fetchone()[0]
    con.close()
    return n - have


def measure(A, b, db, cache, backend, calls):
    import cgmodel  # here: grow() serves bench/cli_record_history.sh without the library

    wall, plain, an = [], [], []
    for i in range(calls):
        t = time.perf_counter()
        _, r = cgmodel.solve(A, b, db=db, cache=cache, backend=backend)
        wall.append(time.perf_counter() - t)
        an.append(r.time_analyse_s)
        t = time.perf_counter()
        cgmodel.solve(A, b, db=db, cache=cache, backend=backend, record=False)
        plain.append(time.perf_counter() - t)
    q = len(wall) // 4
    ms = lambda v: f"q25 {sorted(v)[q] * 1e3:7.2f} median {statistics.median(v) * 1e3:7.2f}"
    rec, unrec = sorted(wall)[q], sorted(plain)[q]
    print(f"  recorded   {ms(wall)} ms\n  unrecorded {ms(plain)} ms\n"
          f"  analysis   {ms(an)} ms\n  recorded / unrecorded (q25) {rec / unrec:.3f}", flush=True)


def main():
    src, spec = sys.argv[1], sys.argv[2]
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    history = int(sys.argv[5]) if len(sys.argv) > 5 else 100000
    A = matrix(spec)
    b = A @ np.ones(A.shape[0])
    work = tempfile.mkdtemp()
    db, cache = os.path.join(work, "cal.db"), os.path.join(work, "cache")
    shutil.copy(src, db)
    import cgmodel

    for _ in range(5):  # warm-up: the cache entry, the verdict, a few records
        cgmodel.solve(A, b, db=db, cache=cache, backend=backend)
    print(f"{spec} ({A.shape[0]} rows, {A.nnz} nonzeros), {backend}, {calls} calls each:")
    print(f" the database as given, {os.path.getsize(db) / 1e6:.2f} MB:")
    measure(A, b, db, cache, backend, calls)
    added = grow(db, history)
    print(f" after {added} more solves, {os.path.getsize(db) / 1e6:.2f} MB:")
    measure(A, b, db, cache, backend, calls)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
