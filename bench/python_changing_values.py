#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A warm Python process whose matrix changes its values at every step (a nonlinear or
time-dependent solve: the same pattern, other values), each step's default cgmodel.solve(A, b)
recorded in a copy of DB with a cache directory of its own: STEPS steps; every PER steps it prints
the median call's wall clock over those steps, the cache directory's files and bytes and the
database's size. Run it with CGMODEL_LIBRARY set to each build to compare them.

usage: python_changing_values.py DB MATRIX.mtx [STEPS] [PER] [BACKEND]"""
import os
import shutil
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.io

import cgmodel


def main():
    src, path = sys.argv[1], sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 4000
    per = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    backend = sys.argv[5] if len(sys.argv) > 5 else "cpu"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A0 = scipy.io.mmread(path).tocsr()
    work = tempfile.mkdtemp()
    db, cache = os.path.join(work, "cal.db"), os.path.join(work, "cache")
    shutil.copy(src, db)
    wall = []
    for k in range(steps):
        A = A0 * (1.0 + 1e-3 * k)  # the same pattern, other values
        b = A @ np.ones(A.shape[0])
        t = time.perf_counter()
        cgmodel.solve(A, b, db=db, cache=cache, backend=backend)
        wall.append(time.perf_counter() - t)
        if (k + 1) % per == 0:
            files = os.listdir(cache)
            size = sum(os.path.getsize(os.path.join(cache, f)) for f in files)
            print(f"after {k + 1:6d} steps: median {statistics.median(wall) * 1e3:8.2f} ms a call over "
                  f"the last {per}; cache {len(files)} files, {size / 1e6:.1f} MB; database "
                  f"{os.path.getsize(db) / 1e6:.1f} MB", flush=True)
            wall = []
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
