#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""P1 finite-element matrices on the Delaunay tetrahedralisation of random points in the unit cube:
the Laplacian (one unknown a node) or linear elasticity (three, node-major), the boundary's nodes
removed, numbered as the points came (random) or along a Morton curve of the points (a space-filling
curve, as mesh generators number). A family the repository's generators do not make: unstructured
tetrahedra whose rows (about 15 entries) fill N x N blocks partly at N = 2 and 4.

usage: p1_mesh.py laplace|elasticity NODES random|morton OUT.mtx [SEED]"""
import os
import sys

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "k_probe"))
from gen import p1_elast, p1_laplace, tet_mesh  # noqa: E402


def morton(X, bits=10):
    """The points' order along a Morton (Z-order) curve of 2^bits cells a side."""
    q = np.minimum((X * (1 << bits)).astype(np.int64), (1 << bits) - 1)
    key = np.zeros(len(X), np.int64)
    for b in range(bits):
        for d in range(3):
            key |= ((q[:, d] >> b) & 1) << (3 * b + d)
    return np.argsort(key, kind="stable")


def main():
    kind, nodes, numbering, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    A = (p1_laplace if kind == "laplace" else p1_elast)(nodes, seed)
    if numbering == "morton":  # the interior nodes are the first `nodes` points, in order
        X = tet_mesh(nodes, seed)[0][:nodes]
        p = morton(X)
        if kind != "laplace":
            p = (3 * p[:, None] + np.arange(3)).ravel()
        A = A[p][:, p]
    A = sp.csr_matrix(A)
    A.sum_duplicates()
    scipy.io.mmwrite(out, sp.tril(A).tocoo(), symmetry="symmetric")
    print(f"{out}: {A.shape[0]} rows, {A.nnz} nonzeros", file=sys.stderr)


if __name__ == "__main__":
    main()
