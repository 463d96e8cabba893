# SPDX-License-Identifier: GPL-3.0-or-later
"""The steps of cgmodel on matrices in memory: info, predict, solve,
calibrate and devices. Results are dataclasses with the keys of the
command line's --json output (docs/cli.md)."""

import ctypes
import os
import dataclasses
import warnings
from typing import List, Optional

import numpy as np
import scipy.sparse as sp

from ._native import Csr, CsrDevice, Error, call_json, lib, options

__all__ = [
    "BlockFeatures",
    "Features",
    "Candidate",
    "Prediction",
    "SolveResult",
    "Warning",
    "info",
    "predict",
    "solve",
    "calibrate",
    "devices",
    "default_db",
    "version",
    "have_cuda",
]


class Warning(UserWarning):  # noqa: A001 (cgmodel.Warning, as the command line's warnings)
    """A note of the library that a result may mislead (a stale calibration,
    a solve not recorded)."""


def version() -> str:
    """The library's version ("0.2.3")."""
    return lib.cgm_version().decode()


def have_cuda() -> bool:
    """True when the library was built with the CUDA backend."""
    return bool(lib.cgm_have_cuda_build())


def default_db() -> Optional[str]:
    """The database the command line uses without --db: $CGMODEL_DB, else
    $XDG_DATA_HOME/cgmodel/cgmodel.db (an absolute XDG_DATA_HOME only), else
    ~/.local/share/cgmodel/cgmodel.db."""
    env = os.environ
    if env.get("CGMODEL_DB"):
        return env["CGMODEL_DB"]
    if env.get("XDG_DATA_HOME", "").startswith("/"):
        return os.path.join(env["XDG_DATA_HOME"], "cgmodel", "cgmodel.db")
    if env.get("HOME"):
        return os.path.join(env["HOME"], ".local", "share", "cgmodel", "cgmodel.db")
    return None


def _db(db):
    return str(db) if db is not None else default_db()


def _from_dict(cls, d):
    """cls from a JSON object: its fields by name, the rest ignored."""
    names = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in d.items() if k in names})


def _notes(j):
    """Warnings and errors of a step as Python warnings; returns every note."""
    notes = j.pop("notes", []) if j else []
    for n in notes:
        if n["kind"] != "info":
            warnings.warn(f"cgmodel: {n['message']}", Warning, stacklevel=3)
    return [n["message"] for n in notes]


# ----------------------------------------------------------------- matrix ---


class _Matrix:
    """A as the library reads it: CSR with int64 row pointers, int32 columns
    sorted and unique in each row, float64 values. The arrays are kept
    alive here while the library reads them; CSR input with int32 indices,
    float64 data and canonical order is passed without copying its columns
    and values (only the row pointers become int64)."""

    def __init__(self, A):
        if _on_gpu(A):
            A = A.get()  # features and predictions read the pattern on the host (docs/python.md)
        if not sp.issparse(A):
            raise Error("A must be a scipy.sparse matrix (CSR, CSC or COO)", 2)
        if A.ndim != 2:
            raise Error(f"A has {A.ndim} dimensions, not 2", 2)
        m, n = A.shape
        if m > 2**31 - 1 or n > 2**31 - 1:
            raise Error(f"A is {m} x {n}: rows and columns must fit in int32", 2)
        A = A.tocsr() if A.format != "csr" else A
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()  # sorts the columns too
        self.rowptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
        self.colidx = np.ascontiguousarray(A.indices, dtype=np.int32)
        if np.iscomplexobj(A.data):
            raise Error("A is complex: cgmodel solves real systems", 2)
        self.val = np.ascontiguousarray(A.data, dtype=np.float64)
        self.shape = (m, n)
        self.csr = Csr(
            nrows=m,
            ncols=n,
            nnz=int(self.rowptr[-1]) if m else 0,
            rowptr=self.rowptr.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
            colidx=self.colidx.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            val=self.val.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
        )


def _on_gpu(obj):
    """A CuPy array or cupyx.scipy.sparse matrix."""
    return type(obj).__module__.startswith(("cupy", "cupyx"))


class _DeviceMatrix:
    """A CuPy matrix as cgm_solve_device reads it, in the GPU's memory: CSR
    with int32 (CuPy's) or int64 row offsets, int32 columns sorted and unique
    in each row, float64 values. What is not so already is converted by
    CuPy on that GPU (a copy there); nothing goes through the host."""

    def __init__(self, A):
        import cupy as cp
        import cupyx.scipy.sparse as csp

        if not csp.issparse(A):
            raise Error("A must be a cupyx.scipy.sparse matrix (CSR, CSC or COO)", 2)
        m, n = A.shape
        if m > 2**31 - 1 or n > 2**31 - 1:
            raise Error(f"A is {m} x {n}: rows and columns must fit in int32", 2)
        if A.dtype.kind == "c":
            raise Error("A is complex: cgmodel solves real systems", 2)
        A = A.tocsr() if A.format != "csr" else A
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()  # sorts the columns too
        indptr = A.indptr
        if indptr.dtype not in (cp.int32, cp.int64):
            indptr = indptr.astype(cp.int64)
        self.indptr = cp.ascontiguousarray(indptr)
        self.indices = cp.ascontiguousarray(A.indices.astype(cp.int32, copy=False))
        self.data = cp.ascontiguousarray(A.data.astype(cp.float64, copy=False))
        self.device = self.data.device.id
        self.shape = (m, n)
        self.matrix = A
        self.csr = CsrDevice(
            device=self.device,
            nrows=m,
            ncols=n,
            nnz=int(self.indices.size),
            rowptr=self.indptr.data.ptr,
            rowptr64=self.indptr.dtype == cp.int64,
            colidx=self.indices.data.ptr,
            val=self.data.data.ptr,
        )


def _vector(b, n):
    if _on_gpu(b):
        b = b.get()
    b = np.ascontiguousarray(np.asarray(b, dtype=np.float64).reshape(-1))
    if b.shape[0] != n:
        raise Error(f"b has {b.shape[0]} entries but A has {n} rows", 2)
    return b


# ------------------------------------------------------------------- info ---


@dataclasses.dataclass(frozen=True)
class BlockFeatures:
    """One block size's features (info --json's "blocks")."""

    N: int
    blocks: int
    e_N: int
    d_N: float
    padded_blocks: int
    padded_elements: int
    max_blocks_per_row: int
    bx: int
    # x locality (docs/model.md): 32-byte sectors of x the SpMV's warps read,
    # the least they could, the bytes moved and their ratio; double, then single
    x_sectors: int = 0
    x_sectors_min: int = 0
    x_bytes_moved: float = 0.0
    x_locality: float = 1.0
    x_sectors_single: int = 0
    x_locality_single: float = 1.0


@dataclasses.dataclass(frozen=True)
class Features:
    """The features the model uses (info --json without the file's counts)."""

    x: int
    nnz: int
    row_min: int
    row_max: int
    row_avg: float
    row_cv: float
    empty_rows: int
    symmetric: bool
    positive_diagonal: bool
    blocks: List[BlockFeatures]
    first_bad_diagonal_row: Optional[int] = None


def _features(j):
    j = dict(j)
    j["blocks"] = [_from_dict(BlockFeatures, b) for b in j["blocks"]]
    return _from_dict(Features, j)


def info(A, name: str = "") -> Features:
    """The features of A (square), as `cgmodel info --json`."""
    M = _Matrix(A)
    _, j = call_json("cgm_json_info", ctypes.byref(M.csr), name.encode())[:2]
    return _features(j)


# ---------------------------------------------------------------- predict ---


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One configuration timed by the model (predict --json's candidates)."""

    device: str
    backend: str
    block: int
    gpus: int
    precision: str
    time_per_iter_s: Optional[float]
    gflops_raw: Optional[float]
    gflops_real: Optional[float]
    memory_bytes: int
    exchange_bytes: int
    fits: bool
    exchange: Optional[str] = None
    speedup: Optional[float] = None
    setup_s: Optional[float] = None  # predicted setup before the first iteration
    iterations: Optional[float] = None  # the iterations the total counts in this precision
    total_s: Optional[float] = None  # setup + iterations x time per iteration


@dataclasses.dataclass(frozen=True)
class Prediction:
    """Every configuration of the calibrated devices and the tuner's choice."""

    candidates: List[Candidate]
    choice: Optional[Candidate]
    reason: str
    model: str
    features: Features
    notes: List[str]
    iterations: Optional[float] = None  # double precision's K the totals use
    iterations_source: Optional[str] = None  # "hint", "database" or "estimate"


def predict(
    A,
    gpus: Optional[int] = None,
    precision: str = "both",
    block: Optional[int] = None,
    exchange: Optional[str] = None,
    model: str = "refined",
    devices: str = "all",
    cusparse: bool = True,
    tol: Optional[float] = None,
    iters_hint: Optional[float] = None,
    db=None,
    name: str = "matrix",
) -> Prediction:
    """Predicted time per iteration of every configuration, as `cgmodel
    predict --json`; `choice` is None when nothing can be recommended
    (the command line's exit 1). Needs a calibration in the database."""
    M = _Matrix(A)
    opts = options(
        db=_db(db),
        name=name,
        gpus=gpus,
        precision=precision,
        block=block,
        exchange=exchange,
        model=model,
        devices=devices,
        cusparse=cusparse,
        tol=tol,
        iters_hint=iters_hint,
    )
    _, j = call_json("cgm_json_predict", ctypes.byref(M.csr), opts)[:2]
    notes = _notes(j)
    cands = [_from_dict(Candidate, c) for c in j["candidates"]]
    choice = _from_dict(Candidate, j["choice"]) if j.get("choice") else None
    return Prediction(
        cands,
        choice,
        j["reason"],
        j["model"],
        _features(j["features"]),
        notes,
        j.get("iterations"),
        j.get("iterations_source"),
    )


# ------------------------------------------------------------------ solve ---


@dataclasses.dataclass(frozen=True)
class SolveResult:
    """What a solve did (solve --json): iterations, residuals, the
    configuration run and the time of each phase."""

    converged: bool
    iterations: int
    relative_residual: float
    solver_residual: float
    tol: float
    maxiter: int
    time_per_iter_s: float
    time_solve_s: float
    time_setup_s: float
    time_read_s: float
    time_analyse_s: float
    block: int
    bx: int
    gpus: int
    precision: str
    backend: str
    device: str
    device_bytes: int
    matrix: str = ""
    exchange: Optional[str] = None
    exchange_bytes: int = 0
    stop_reason: Optional[str] = None
    predicted_time_per_iter_s: Optional[float] = None
    auto: Optional[str] = None
    solution_error: Optional[float] = None
    time_total_s: Optional[float] = None
    stalled: bool = False
    fallback_iterations: int = 0
    predicted: Optional[dict] = None  # auto: the tuner's setup_s, iterations, total_s, ...
    memory: Optional[str] = None  # "device": A, b and x stayed in the GPU's memory (CuPy)
    precond: str = "jacobi"
    precond_block: Optional[int] = None  # block-Jacobi's block as run
    notes: List[str] = dataclasses.field(default_factory=list)


def solve(
    A,
    b=None,
    tol: float = 1e-8,
    precision: Optional[str] = None,
    backend: Optional[str] = None,
    auto: bool = False,
    db=None,
    record: bool = True,
    block: Optional[int] = None,
    bx: Optional[int] = None,
    gpus: Optional[int] = None,
    exchange: Optional[str] = None,
    maxiter: Optional[int] = None,
    check_every: Optional[int] = None,
    threads: Optional[int] = None,
    iters_hint: Optional[float] = None,
    name: str = "matrix",
    precond: Optional[str] = None,
    precond_block: Optional[int] = None,
):
    """Solves A x = b with Jacobi-preconditioned CG, as `cgmodel solve`.

    precond: "jacobi" (default) or "block" (block-Jacobi, cpu and cuda
    backends); precond_block: its block, 1..8 (None: the matrix's point
    block, e.g. 3 for 3 unknowns a node, else block).

    b None: b = A * ones (x is then all ones). precision: double, mixed
    or single. tol: the true relative
    residual ||b - A x|| / ||b|| to reach, whatever the precision;
    precision None: double (or the tuner's choice with auto); backend
    None: cuda when a GPU is present, else cpu (as the command line).
    auto lets the tuner choose among this machine's calibrated devices.
    db: the database of the prediction, the record and auto (None: the
    command line's default path); the solve is recorded, under `name`,
    when the database exists and record is true.

    A CuPy matrix (cupyx.scipy.sparse) is solved where it is, on its GPU
    with block size 1 (cgm_solve_device): b (CuPy, NumPy or None) goes to
    that GPU, x comes back as a CuPy array, and nothing of A is copied to
    the host; auto, several GPUs, other block sizes and the record need a
    host (SciPy) matrix.

    Returns (x, result); a solve that did not converge is a result
    (result.converged False, result.stop_reason), not an error."""
    if _on_gpu(A):
        if precond not in (None, "jacobi"):
            raise Error(
                "a CuPy matrix is solved with Jacobi: block-Jacobi needs a SciPy matrix", 2
            )
        if auto:
            raise Error(
                "auto chooses from the matrix's features, computed on the host: pass a SciPy "
                "matrix (or A.get()) for auto, or choose the precision for a CuPy matrix",
                2,
            )
        return _solve_device(A, b, tol, precision, backend, block, bx, gpus, maxiter,
                             check_every, name)
    M = _Matrix(A)
    n = M.shape[0]
    bv = _vector(b, n) if b is not None else None
    x = np.zeros(max(n, 1), dtype=np.float64)
    opts = options(
        db=_db(db) if (record or auto) else None,
        name=name,
        record=record,
        auto=auto,
        backend=backend,
        precision=precision,
        block=block,
        bx=bx,
        gpus=gpus,
        exchange=exchange,
        tol=tol,
        maxiter=maxiter,
        check_every=check_every,
        threads=threads,
        iters_hint=iters_hint,
        precond=precond,
        precond_block=precond_block,
    )
    ptr = ctypes.POINTER(ctypes.c_double)
    _, j, _msg = call_json(
        "cgm_json_solve",
        ctypes.byref(M.csr),
        bv.ctypes.data_as(ptr) if bv is not None else None,
        x.ctypes.data_as(ptr),
        opts,
        ok=(0, 1),
    )
    notes = _notes(j)
    res = _from_dict(SolveResult, j)
    return x[:n], dataclasses.replace(res, notes=notes)


def _solve_device(A, b, tol, precision, backend, block, bx, gpus, maxiter, check_every, name):
    """solve() of a CuPy matrix: cgm_json_solve_device on its GPU."""
    import cupy as cp

    M = _DeviceMatrix(A)
    n = M.shape[0]
    with cp.cuda.Device(M.device):
        ones = None
        if b is None:
            ones = cp.ones(n, dtype=cp.float64)
            bv = M.matrix @ ones
        else:
            bv = cp.asarray(b, dtype=cp.float64).reshape(-1)
            if bv.shape[0] != n:
                raise Error(f"b has {bv.shape[0]} entries but A has {n} rows", 2)
        bv = cp.ascontiguousarray(bv)
        x = cp.zeros(max(n, 1), dtype=cp.float64)
        opts = options(
            name=name,
            backend=backend,
            precision=precision,
            block=block,
            bx=bx,
            gpus=gpus,
            tol=tol,
            maxiter=maxiter,
            check_every=check_every,
        )
        # the library works on streams of its own: CuPy's work on A, b, x first
        cp.cuda.get_current_stream().synchronize()
        _, j, _msg = call_json(
            "cgm_json_solve_device",
            ctypes.byref(M.csr),
            ctypes.c_void_p(bv.data.ptr),
            ctypes.c_void_p(x.data.ptr),
            opts,
            ok=(0, 1),
        )
        x = x[:n]
        if ones is not None:
            j["solution_error"] = float(cp.linalg.norm(x - ones) / cp.linalg.norm(ones))
    notes = _notes(j)
    res = _from_dict(SolveResult, j)
    return x, dataclasses.replace(res, notes=notes)


# -------------------------------------------------------------- calibrate ---


def calibrate(
    devices: Optional[str] = None,
    quick: bool = False,
    precision: str = "both",
    threads: Optional[int] = None,
    db=None,
) -> dict:
    """Calibrates this machine's devices into the database (created when
    missing), as `cgmodel calibrate --json`: returns its object."""
    opts = options(db=_db(db), devices=devices, quick=quick, precision=precision, threads=threads)
    return call_json("cgm_json_calibrate", opts)[1]


def devices(db=None) -> dict:
    """This machine's devices and their calibrations, as `cgmodel devices
    --json`."""
    return call_json("cgm_json_devices", _db(db).encode() if _db(db) else None)[1]
