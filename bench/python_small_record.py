#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a recorded solve of a small matrix costs from Python, call by call: the default
cgmodel.solve(A, b) (recorded in DB, its analysis kept in a cache directory of its own) CALLS times
after 5 warm-up calls; prints the median and 25th percentile of the call's wall clock and of the
library's analysis (time_analyse_s). Run it with CGMODEL_LIBRARY set to each build to compare them.

usage: python_small_record.py DB MATRIX.mtx [CALLS] [BACKEND]"""
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np
import scipy.io

import cgmodel


def main():
    db, path = sys.argv[1], sys.argv[2]
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    backend = sys.argv[4] if len(sys.argv) > 4 else "cpu"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A = scipy.io.mmread(path).tocsr()
    b = A @ np.ones(A.shape[0])
    cache = tempfile.mkdtemp()
    for _ in range(5):
        cgmodel.solve(A, b, db=db, cache=cache, backend=backend)
    wall, an = [], []
    for _ in range(calls):
        t = time.perf_counter()
        _, r = cgmodel.solve(A, b, db=db, cache=cache, backend=backend)
        wall.append(time.perf_counter() - t)
        an.append(r.time_analyse_s)
    q = len(wall) // 4
    print(f"call median {statistics.median(wall) * 1e3:.2f} ms, q25 {sorted(wall)[q] * 1e3:.2f}; "
          f"analyse median {statistics.median(an) * 1e3:.2f} ms, q25 {sorted(an)[q] * 1e3:.2f}")


if __name__ == "__main__":
    main()
