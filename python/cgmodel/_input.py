# SPDX-License-Identifier: GPL-3.0-or-later
"""A matrix and vectors as the library reads them, checked in Python first
and held in arrays of this package's own.

Every array is copied before it is checked, and the library reads the
copies: a caller's array that another thread changes during a solve (the
library runs with the GIL released) changes nothing of it, and what was
checked is what is read. The checks are those whose failure would make the
library read out of bounds, or read another matrix than the one given:
shapes, the lengths of the arrays (nnz is indptr[-1], no more than there
are indices and values), the range of every index before it is narrowed to
int32, and the dtypes. Each failure raises InputError (a ValueError) that
says what is wrong."""

import numpy as np
import scipy.sparse as sp

from ._native import Error, InputError

__all__ = ["HostMatrix", "vector", "number", "on_gpu"]

_INT32_MAX = 2**31 - 1


def on_gpu(obj):
    """A CuPy array or cupyx.scipy.sparse matrix."""
    return type(obj).__module__.startswith(("cupy", "cupyx"))


def number(name, v, lo=0.0, hi=np.inf, integer=False, open_lo=False):
    """v as a float (an int when `integer`) in [lo, hi] ((lo, hi] when open_lo), finite."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise InputError(f"{name} is {v!r}: not a number") from None
    low_ok = lo < f if open_lo else lo <= f
    if not np.isfinite(f) or not (low_ok and f <= hi) or (integer and f != int(f)):
        kind = "an integer" if integer else "a finite number"
        raise InputError(f"{name} is {v!r}: {kind} in {'(' if open_lo else '['}{lo:g}, {hi:g}] "
                         "is needed")
    return int(f) if integer else f


def _shape(A):
    try:
        m, n = (int(d) for d in A.shape)
    except (TypeError, ValueError):
        raise InputError(f"A's shape {getattr(A, 'shape', None)!r} is not two dimensions") from None
    if not (0 <= m <= _INT32_MAX and 0 <= n <= _INT32_MAX):
        raise InputError(f"A is {m} x {n}: rows and columns must be in 0 .. 2^31 - 1")
    return m, n


def _index_copy(a, what, narrow=False):
    """An integer array as a new int64 array (uint64 beyond int64 wraps to
    a negative index, which the range check refuses); narrow: as int32
    where every value of its dtype keeps its sign there (SciPy's usual
    int32 indices: half the bytes to copy and check)."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise InputError(f"{what} has dtype {a.dtype}: integers are needed")
    fits = a.dtype.itemsize < 4 or (a.dtype.itemsize == 4 and a.dtype.kind == "i")
    return np.array(a, dtype=np.int32 if narrow and fits else np.int64, copy=True).reshape(-1)


def _value_copy(a, what):
    a = np.asarray(a)
    if a.dtype.kind == "c":
        raise InputError(f"{what}: complex, and cgmodel solves real systems")
    if a.dtype.kind not in "biuf":
        raise InputError(f"{what}: dtype {a.dtype}, and real numbers are needed")
    return np.array(a, dtype=np.float64, copy=True).reshape(-1)


def _in_range(idx, bound, what):
    if idx.size and (idx.min() < 0 or idx.max() >= bound):
        k = int(np.argmax((idx < 0) | (idx >= bound)))
        raise InputError(f"{what}[{k}] = {idx[k]} is outside 0 .. {bound - 1}")


def _compressed(A, nmajor, nminor, block=None):
    """(indptr, indices, data) of CSR, CSC or BSR (block: its R x C), copied
    and checked: nnz (blocks) is indptr[-1], at most len(indices) =
    len(data)."""
    ptr = _index_copy(A.indptr, "A.indptr")
    idx = _index_copy(A.indices, "A.indices", narrow=True)
    val = np.asarray(A.data)
    if ptr.size != nmajor + 1:
        raise InputError(f"A.indptr has {ptr.size} entries; A's shape needs {nmajor + 1}")
    if ptr[0] != 0 or (ptr.size > 1 and np.any(ptr[1:] < ptr[:-1])):
        raise InputError("A.indptr must start at 0 and never fall: it is not a row pointer")
    nnz = int(ptr[-1])
    nvals = val.shape[0] if val.ndim else 0
    if idx.size != nvals or (val.shape[1:] != block if block else val.ndim != 1):
        raise InputError(
            f"A has {idx.size} indices and values of shape {val.shape}: they must match"
        )
    if nnz > idx.size:
        raise InputError(f"A.indptr[-1] = {nnz} but A has only {idx.size} indices and values")
    idx = idx[:nnz]
    _in_range(idx, nminor, "A.indices")
    return ptr, idx, _value_copy(val[:nnz], "A's values")


def _csr_of(A, m, n):
    """A's CSR arrays from copies checked before anything reads them (SciPy's
    own conversions of CSC, COO and BSR index with them unchecked)."""
    fmt = A.format
    if fmt == "csr":
        return _compressed(A, m, n)
    if fmt == "csc":
        ptr, idx, val = _compressed(A, n, m)
        B = sp.csc_matrix((val, idx, ptr), shape=(m, n), copy=False).tocsr()
    elif fmt == "bsr":
        R, C = (int(d) for d in A.blocksize)
        if R < 1 or C < 1 or m % R or n % C:
            raise InputError(f"A's blocks of {R} x {C} do not tile {m} x {n}")
        ptr, idx, val = _compressed(A, m // R, n // C, (R, C))
        B = sp.bsr_matrix((val.reshape(-1, R, C), idx, ptr), shape=(m, n), copy=False).tocsr()
    elif fmt == "coo":
        row = _index_copy(A.row, "A.row")
        col = _index_copy(A.col, "A.col")
        val = np.asarray(A.data)
        if not (row.size == col.size == (val.shape[0] if val.ndim == 1 else -1)):
            raise InputError(
                f"A has {row.size} rows, {col.size} columns and values of shape {val.shape}: "
                "they must match"
            )
        _in_range(row, m, "A.row")
        _in_range(col, n, "A.col")
        val = _value_copy(val, "A's values")
        B = sp.coo_matrix((val, (row, col)), shape=(m, n), copy=False).tocsr()
    else:  # DIA, LIL, DOK: their conversions check as they go
        return _compressed(A.tocsr(), m, n)
    return (
        B.indptr.astype(np.int64),
        B.indices.astype(np.int64, copy=False),
        B.data.astype(np.float64, copy=False),
    )


def _canonical(ptr, idx, val, m, n):
    """Columns sorted and unique in each row, duplicates summed (SciPy's
    has_canonical_format may be stale: it is not trusted)."""
    if idx.size < 2:
        return ptr, idx, val
    rising = idx[1:] > idx[:-1]  # no difference array: a bool a pair
    starts = ptr[1:-1]
    starts = starts[(starts > 0) & (starts < idx.size)]
    rising[starts - 1] = True  # a new row may start anywhere
    if rising.all():
        return ptr, idx, val
    B = sp.csr_matrix((val, idx, ptr), shape=(m, n), copy=False)
    B.has_canonical_format = False
    B.sum_duplicates()
    return B.indptr.astype(np.int64), B.indices.astype(np.int64), B.data


class HostMatrix:
    """A as the library reads it: CSR with int64 row pointers, int32 columns
    sorted and unique in each row, float64 values, every array this
    object's own copy. finite: refuse NaN/Inf values here, naming the
    entry (a solve, whose b = A * ones would otherwise carry them)."""

    def __init__(self, A, finite=False):
        import scipy.sparse.linalg as sla

        if on_gpu(A):
            A = A.get()  # features and predictions read the pattern on the host
        if isinstance(A, sla.LinearOperator):
            raise InputError(
                "A is a LinearOperator: cgmodel reads the matrix's entries (its layout and "
                "Jacobi preconditioner are built from them); pass a scipy.sparse matrix"
            )
        if not sp.issparse(A):
            raise InputError(
                f"A is a {type(A).__name__}: a scipy.sparse matrix (CSR, CSC, COO, ...) is needed"
            )
        m, n = _shape(A)
        try:  # the copies and SciPy's conversions: a runtime failure (code 3), as the library's
            ptr, idx, val = _canonical(*_csr_of(A, m, n), m, n)
        except MemoryError as e:
            raise Error(f"out of memory for A ({m} x {n}) and its copies: {e}", 3) from None
        if finite and not np.isfinite(val).all():
            k = int(np.argmin(np.isfinite(val)))
            i = int(np.searchsorted(ptr, k, side="right")) - 1
            raise InputError(
                f"matrix entry ({i + 1}, {idx[k] + 1}) is {val[k]}: NaN/Inf is not allowed"
            )
        self.shape = (m, n)
        self.rowptr = np.ascontiguousarray(ptr, dtype=np.int64)
        self.colidx = np.ascontiguousarray(idx, dtype=np.int32)
        self.val = np.ascontiguousarray(val, dtype=np.float64)


def vector(v, n, what):
    """v as a new contiguous float64 array of n entries ((n,) or (n, 1)),
    from NumPy or CuPy."""
    if on_gpu(v):
        v = v.get()
    if hasattr(v, "toarray") and hasattr(v, "nnz"):  # NumPy would see one object, not entries
        raise InputError(f"{what} is a sparse {type(v).__name__}: a dense vector of {n} entries "
                         f"is needed ({what}.toarray().ravel())")
    try:
        a = np.asarray(v)
    except Exception as e:  # noqa: BLE001 (anything NumPy cannot read)
        raise InputError(f"{what}: {e}") from None
    if a.ndim > 2 or (a.ndim == 2 and a.shape[1] != 1):
        raise InputError(f"{what} has shape {a.shape}: a vector of {n} entries is needed")
    a = _value_copy(a, what)
    if a.size != n:
        raise InputError(f"{what} has {a.size} entries but A has {n} rows")
    return a
