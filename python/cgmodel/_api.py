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

from ._input import HostMatrix, number, on_gpu, vector
from ._native import MONITOR, Csr, CsrDevice, Extras, InputError, call_json, lib, options

_DBL = ctypes.POINTER(ctypes.c_double)

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
    """The library's version ("0.2.4")."""
    return lib.cgm_version().decode()


def have_cuda() -> bool:
    """True when the library was built with the CUDA backend."""
    return bool(lib.cgm_have_cuda_build())


def release() -> None:
    """Gives back what solves keep from one call to the next: the database connection and each
    GPU's pinned host memory (the next solve opens and pins them again). Called at exit; call it
    before resetting a GPU (cupy.cuda.runtime.deviceReset), whose reset frees that memory under it."""
    lib.cgm_json_release()


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


def _cache(cache):
    return None if cache is False else default_cache() if cache in (None, True) else str(cache)


def default_cache() -> Optional[str]:
    """The cache directory the command line uses: $XDG_CACHE_HOME/cgmodel
    (an absolute XDG_CACHE_HOME only), else ~/.cache/cgmodel."""
    env = os.environ
    if env.get("XDG_CACHE_HOME", "").startswith("/"):
        return os.path.join(env["XDG_CACHE_HOME"], "cgmodel")
    if env.get("HOME"):
        return os.path.join(env["HOME"], ".cache", "cgmodel")
    return None


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


class _Matrix(HostMatrix):
    """A as the library reads it (HostMatrix: checked copies) and the struct
    cgm_csr over those arrays, which live as long as this object."""

    def __init__(self, A, finite=False):
        super().__init__(A, finite)
        m, n = self.shape
        self.csr = Csr(
            nrows=m,
            ncols=n,
            nnz=self.colidx.size,
            rowptr=self.rowptr.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
            colidx=self.colidx.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            val=self.val.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
        )


class _DeviceMatrix:
    """A CuPy matrix as cgm_solve_device reads it, in the GPU's memory: CSR
    with int32 or int64 row offsets, int32 columns, float64 values, each a
    copy made by CuPy on that GPU (nothing goes through the host), so that
    what the caller changes during the solve changes nothing of it. The
    library checks the structure (row offsets, column range and order)
    there; the lengths and dtypes are checked here."""

    def __init__(self, A):
        import cupy as cp
        import cupyx.scipy.sparse as csp

        if not csp.issparse(A):
            raise InputError("A must be a cupyx.scipy.sparse matrix (CSR, CSC or COO)")
        m, n = (int(d) for d in A.shape)
        if not (0 <= m <= 2**31 - 1 and 0 <= n <= 2**31 - 1):
            raise InputError(f"A is {m} x {n}: rows and columns must be in 0 .. 2^31 - 1")
        if A.dtype.kind == "c":
            raise InputError("A's values: complex, and cgmodel solves real systems")
        A = A.tocsr() if A.format != "csr" else A
        ptr, idx, val = A.indptr, A.indices, A.data
        if ptr.dtype.kind not in "iu" or idx.dtype.kind not in "iu":
            raise InputError(f"A's indices have dtypes {ptr.dtype} and {idx.dtype}: integers")
        if ptr.size != m + 1 or idx.size != val.size or (m and int(ptr[-1]) != idx.size):
            raise InputError(
                f"A has {ptr.size} row offsets for {m} rows, {idx.size} indices and "
                f"{val.size} values: they must match"
            )
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
            raise InputError(f"A.indices: an index outside 0 .. {n - 1}")
        ptr = ptr.astype(cp.int32 if ptr.dtype == cp.int32 else cp.int64)  # astype copies
        A = csp.csr_matrix((val.astype(cp.float64), idx.astype(cp.int32), ptr), shape=(m, n))
        if not A.has_canonical_format:
            A.sum_duplicates()  # sorts the columns too
        self.indptr = cp.ascontiguousarray(A.indptr)
        self.indices = cp.ascontiguousarray(A.indices)
        self.data = cp.ascontiguousarray(A.data)
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


class _Callback:
    """SciPy's callback(xk) on the solver's monitor (cgm_solve_opts.monitor
    and monitor_x): called after each iteration the solver reports (every
    iteration on the CPU, every convergence check on a GPU), not at
    iteration 0, with xk a read-only view of the iterate (a CuPy array for
    a CuPy matrix). An exception it raises is kept, the calls stop, and it
    is raised when the solve returns (a solve cannot be stopped from it)."""

    def __init__(self, callback, n, cupy=False):
        self.buf = np.zeros(max(n, 1), dtype=np.float64)
        self.xk = self.buf[:n]
        self.xk.flags.writeable = False
        self.callback, self.cupy = callback, cupy
        self.last, self.error = 0, None
        self.fn = MONITOR(self._call)  # kept alive as long as this object

    def extras(self, x0=None):
        return Extras(
            x0=x0.ctypes.data_as(_DBL) if x0 is not None else None,
            monitor=self.fn,
            monitor_every=1,
            monitor_x=self.buf.ctypes.data_as(_DBL),
        )

    def _call(self, _ctx, iteration, _relres):
        if iteration <= self.last or self.error is not None:
            return
        self.last = iteration
        try:
            if self.cupy:
                import cupy as cp

                self.callback(cp.asarray(self.xk))
            else:
                self.callback(self.xk)
        except BaseException as e:  # noqa: BLE001 (raised when the solve returns)
            self.error = e

    def raise_error(self):
        if self.error is not None:
            raise self.error


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
    what_if: bool = False  # on GPUs that are not here or were not calibrated together
    interconnect: Optional[str] = None  # on several GPUs: the profile that priced the exchange
    storage: str = "full"  # the values' storage priced: full, f32 or dict (solve's storage auto)


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
    cache: Optional[dict] = None  # A's entry: outcome; check, features, plans (found kept)


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
    interconnect: Optional[str] = None,
    cache=None,
) -> Prediction:
    """Predicted time per iteration of every configuration, as `cgmodel
    predict --json`; `choice` is None when nothing can be recommended
    (the command line's exit 1). Needs a calibration in the database.
    cache: as solve's (A's checks, features, plans and probe kept by its
    content: a second prediction of the same matrix walks none of it)."""
    if tol is not None:  # as solve's: the relative residual to reach
        tol = number("tol", tol, 0, 1, open_lo=True)
    M = _Matrix(A)
    opts = options(
        db=_db(db),
        cache_dir=_cache(cache),
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
        interconnect=interconnect,
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
        j.get("cache"),
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
    time_per_iter_low_s: Optional[float] = None  # the low decile: what other work did not add
    stalled: bool = False
    fallback_iterations: int = 0
    predicted: Optional[dict] = None  # auto: the tuner's setup_s, iterations, total_s, ...
    memory: Optional[str] = None  # "device": A, b and x stayed in the GPU's memory (CuPy)
    precond: str = "jacobi"
    precond_block: Optional[int] = None  # block-Jacobi's block as run
    residual_history: Optional[list] = None  # with a callback: [iteration, relative residual]s
    storage: Optional[dict] = None  # the values as stored: format, exact, value/index bytes, ...
    cache: Optional[dict] = None  # A's entry by content: outcome, features, analysis (kept), ...
    notes: List[str] = dataclasses.field(default_factory=list)


def solve(
    A,
    b=None,
    tol: Optional[float] = None,
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
    x0=None,
    rtol: Optional[float] = None,
    atol: float = 0.0,
    callback=None,
    storage: Optional[str] = None,
    cache=None,
):
    """Solves A x = b with Jacobi-preconditioned CG, as `cgmodel solve`.

    precond: "jacobi" (default) or "block" (block-Jacobi, cpu and cuda
    backends); precond_block: its block, 1..8 (None: the matrix's point
    block, e.g. 3 for 3 unknowns a node, else block). storage: how the
    matrix's values are stored in double precision, auto (default), full
    or compact (docs/cli.md, solve --storage).

    b None: b = A * ones (x is then all ones). precision: double, mixed
    or single. tol (or rtol, its SciPy name; default 1e-8): the true
    relative residual ||b - A x|| / ||b|| to reach, whatever the
    precision, in (0, 1]; atol: converged also once ||b - A x|| <= atol.
    x0: the initial guess (None: zeros). callback(xk): called with the
    iterate after each iteration the solver reports (every iteration on
    the CPU, every convergence check on a GPU; docs/python.md).
    precision None: double (or the tuner's choice with auto); backend
    None: cuda when a GPU is present, else cpu (as the command line).
    auto lets the tuner choose among this machine's calibrated devices.
    db: the database of the prediction, the record and auto (None: the
    command line's default path); the solve is recorded, under `name`,
    when the database exists and record is true. cache: the directory
    where what the record and auto derive from A is kept, under the hash
    of A's arrays, and found again by the next solve of the same matrix
    (None: the command line's, default_cache(); False: nothing kept).

    A, b and x0 are copied and checked before the library reads the
    copies (cgmodel/_input.py): bad input raises cgmodel.InputError.

    A CuPy matrix (cupyx.scipy.sparse) is solved where it is, on its GPU
    with block size 1 (cgm_solve_device): b and x0 (CuPy, NumPy or None)
    go to that GPU, x comes back as a CuPy array, and nothing of A is
    copied to the host; auto, several GPUs, other block sizes and the
    record need a host (SciPy) matrix.

    Returns (x, result); a solve that did not converge is a result
    (result.converged False, result.stop_reason), not an error."""
    if tol is not None and rtol is not None and tol != rtol:
        raise InputError(f"tol {tol!r} and rtol {rtol!r}: rtol is tol's other name, give one")
    key = "rtol" if rtol is not None else "tol"
    tol = number(key, tol if tol is not None else rtol if rtol is not None else 1e-8, 0, 1,
                 open_lo=True)
    atol = number("atol", atol)
    maxiter = number("maxiter", maxiter, 1, 1e9, integer=True) if maxiter is not None else None
    solver = dict(backend=backend, precision=precision, block=block, bx=bx, gpus=gpus, tol=tol,
                  atol=atol or None, maxiter=maxiter, check_every=check_every, name=name,
                  storage=storage)
    if on_gpu(A):
        if precond not in (None, "jacobi"):
            raise InputError(
                "a CuPy matrix is solved with Jacobi: block-Jacobi needs a SciPy matrix"
            )
        if auto:
            raise InputError(
                "auto chooses from the matrix's features, computed on the host: pass a SciPy "
                "matrix (or A.get()) for auto, or choose the precision for a CuPy matrix"
            )
        return _solve_device(A, b, x0, callback, solver)
    M = _Matrix(A, finite=True)
    n = M.shape[0]
    bv = vector(b, n, "b") if b is not None else None
    xv = vector(x0, n, "x0") if x0 is not None else None
    x = np.zeros(max(n, 1), dtype=np.float64)
    cb = _Callback(callback, n) if callback is not None else None
    extras = cb.extras(xv) if cb else Extras(x0=xv.ctypes.data_as(_DBL) if xv is not None else None)
    opts = options(
        db=_db(db) if (record or auto) else None,
        record=record,
        auto=auto,
        exchange=exchange,
        threads=threads,
        iters_hint=iters_hint,
        precond=precond,
        precond_block=precond_block,
        cache_dir=_cache(cache),
        **solver,
    )
    _, j, _msg = call_json(
        "cgm_json_solve",
        ctypes.byref(M.csr),
        bv.ctypes.data_as(_DBL) if bv is not None else None,
        x.ctypes.data_as(_DBL),
        opts,
        ctypes.byref(extras),
        ok=(0, 1),
    )
    if cb:
        cb.raise_error()
    notes = _notes(j)
    res = _from_dict(SolveResult, j)
    return x[:n], dataclasses.replace(res, notes=notes)


def _solve_device(A, b, x0, callback, solver):
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
            bv = _device_vector(b, n, "b")
        x = cp.zeros(max(n, 1), dtype=cp.float64)
        if x0 is not None:
            x[:n] = _device_vector(x0, n, "x0")
        cb = _Callback(callback, n, cupy=True) if callback is not None else None
        # the library works on streams of its own: CuPy's work on A, b, x first
        cp.cuda.get_current_stream().synchronize()
        _, j, _msg = call_json(
            "cgm_json_solve_device",
            ctypes.byref(M.csr),
            ctypes.c_void_p(bv.data.ptr),
            ctypes.c_void_p(x.data.ptr),
            options(**solver),
            ctypes.byref(cb.extras()) if cb else None,
            ok=(0, 1),
        )
        if cb:
            cb.raise_error()
        x = x[:n]
        if ones is not None:
            j["solution_error"] = float(cp.linalg.norm(x - ones) / cp.linalg.norm(ones))
    notes = _notes(j)
    res = _from_dict(SolveResult, j)
    return x, dataclasses.replace(res, notes=notes)


def _device_vector(v, n, what):
    """v (CuPy or NumPy) as a new contiguous float64 CuPy array of n entries."""
    import cupy as cp

    if not on_gpu(v):
        return cp.asarray(vector(v, n, what))
    if v.dtype.kind not in "biuf" or v.ndim > 2 or (v.ndim == 2 and v.shape[1] != 1):
        raise InputError(f"{what}: {v.dtype} of shape {v.shape}; a real vector of {n} is needed")
    if v.size != n:
        raise InputError(f"{what} has {v.size} entries but A has {n} rows")
    return cp.array(v, dtype=cp.float64).reshape(-1)  # a copy


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
