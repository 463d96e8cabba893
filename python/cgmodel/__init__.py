# SPDX-License-Identifier: GPL-3.0-or-later
"""cgmodel: predict, tune and run Jacobi-preconditioned Conjugate Gradient on
sparse SPD matrices, over libcgmodel (docs/python.md).

    import cgmodel, scipy.sparse as sp
    x, r = cgmodel.solve(A)              # A: scipy.sparse CSR/CSC/COO
    print(r.iterations, r.relative_residual, r.backend, r.time_per_iter_s)
    x, info = cgmodel.cg(A, b, rtol=1e-8)  # as scipy.sparse.linalg.cg
"""

from ._native import Error, InputError, library_path
from ._api import (
    BlockFeatures,
    Candidate,
    Features,
    Prediction,
    SolveResult,
    Warning,
    calibrate,
    default_cache,
    default_db,
    devices,
    have_cuda,
    info,
    predict,
    release,
    solve,
    version,
)
from ._scipy import cg

__version__ = version()
__all__ = [
    "BlockFeatures",
    "Candidate",
    "Error",
    "Features",
    "InputError",
    "Prediction",
    "SolveResult",
    "Warning",
    "calibrate",
    "cg",
    "default_cache",
    "default_db",
    "devices",
    "have_cuda",
    "info",
    "library_path",
    "predict",
    "release",
    "solve",
    "version",
]
