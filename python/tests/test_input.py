# SPDX-License-Identifier: GPL-3.0-or-later
"""Input that cannot crash the binding: broken CSR (and COO, CSC) matrices
from a seeded generator each raise a clean cgmodel.InputError before the
library reads anything; arrays changed by another thread during a solve
change nothing of it (the library reads copies); a NaN is named where it
is; non-finite options are refused in Python."""

import os
import resource
import subprocess
import sys
import threading

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import cgmodel

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(autouse=True)
def nodb(tmp_path, monkeypatch):
    monkeypatch.setenv("CGMODEL_DB", str(tmp_path / "none.db"))


def poisson2d(k):
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(k, k))
    return (sp.kron(sp.identity(k), t) + sp.kron(t, sp.identity(k))).tocsr()


def solve(A, maxiter=200, **kw):
    return cgmodel.solve(A, backend="cpu", record=False, maxiter=maxiter, threads=1, **kw)


# ------------------------------------------------------------------ fuzz ---


def _breakers(n, nnz):
    """Ways to break a CSR matrix of n rows and nnz entries: (what, fn(A, rng))
    with fn changing A's arrays or shape in place."""

    def set_(attr, fn):
        return lambda A, rng: setattr(A, attr, fn(getattr(A, attr), rng))

    def at(arr, rng, value, dtype=None):
        a = np.array(arr, dtype=dtype or arr.dtype)
        a[rng.integers(a.size)] = value
        return a

    big = 2**31 - 1
    return [
        ("indptr[-1] + k", set_("indptr", lambda p, r: np.r_[p[:-1], p[-1] + r.integers(1, 5)])),
        ("indptr[0] != 0", set_("indptr", lambda p, r: np.r_[r.integers(1, 3), p[1:]])),
        ("indptr falls", set_("indptr", lambda p, r: at(p, r, -7))),
        ("indptr too short", set_("indptr", lambda p, r: p[:-2])),
        ("indptr too long", set_("indptr", lambda p, r: np.r_[p, p[-1]])),
        ("indptr huge", set_("indptr", lambda p, r: at(p, r, 2**40, np.int64))),
        ("indptr float", set_("indptr", lambda p, r: p.astype(np.float64))),
        ("indptr uint64 wraps", set_("indptr", lambda p, r: at(p, r, 2**64 - 1, np.uint64))),
        ("indices >= n", set_("indices", lambda c, r: at(c, r, n + r.integers(0, 3)))),
        ("indices < 0", set_("indices", lambda c, r: at(c, r, -1))),
        ("indices int32 max", set_("indices", lambda c, r: at(c, r, big))),
        ("indices + 2^32", set_("indices", lambda c, r: c.astype(np.int64) + 2**32)),
        ("indices uint32 2^31", set_("indices", lambda c, r: at(c.astype(np.uint32), r, 2**31 + 5))),
        ("one index + 2^32", set_("indices", lambda c, r: at(c.astype(np.int64), r, 2**32 + 3))),
        ("indices short", set_("indices", lambda c, r: c[: -r.integers(1, 4)])),
        ("indices long", set_("indices", lambda c, r: np.r_[c, c[:3]])),
        ("indices float", set_("indices", lambda c, r: c.astype(np.float32))),
        ("indices bool", set_("indices", lambda c, r: c.astype(bool))),
        ("data short", set_("data", lambda d, r: d[: -r.integers(1, 4)])),
        ("data 2-D", set_("data", lambda d, r: d.reshape(-1, 1))),
        ("data complex", set_("data", lambda d, r: d.astype(np.complex128))),
        ("data object", set_("data", lambda d, r: d.astype(object))),
        ("data strings", set_("data", lambda d, r: d.astype(str))),
        ("data nan", set_("data", lambda d, r: at(d, r, np.nan))),
        ("data inf", set_("data", lambda d, r: at(d, r, -np.inf))),
        ("shape rows + 1", lambda A, r: setattr(A, "_shape", (n + 1, n))),
        ("shape cols - 1", lambda A, r: setattr(A, "_shape", (n, n - 1))),
        ("shape 2^31", lambda A, r: setattr(A, "_shape", (2**31, 2**31))),
        ("shape negative", lambda A, r: setattr(A, "_shape", (-n, n))),
    ]


def test_fuzz_broken_csr():
    """200 matrices, one to three breakages each: every solve (and info)
    raises cgmodel.InputError or, where the breakage left a valid matrix,
    solves it; never a crash, never another exception."""
    rng = np.random.default_rng(20261129)
    base = poisson2d(9)
    n, nnz = base.shape[0], base.nnz
    breakers = _breakers(n, nnz)
    outcomes = {"refused": 0, "solved": 0}
    for case in range(200):
        A = base.copy()
        picked = rng.choice(len(breakers), size=rng.integers(1, 4), replace=False)
        for k in picked:
            breakers[k][1](A, rng)
        what = ", ".join(breakers[k][0] for k in picked)
        for call in (solve, cgmodel.info):
            try:
                out = call(A)
            except cgmodel.InputError as e:
                assert str(e), what
                outcomes["refused"] += 1
                continue
            except Exception as e:  # noqa: BLE001 (the assertion says which)
                pytest.fail(f"case {case} ({what}): {type(e).__name__}: {e}")
            outcomes["solved"] += 1
            if call is solve:  # a breakage that left a matrix: solved as it is
                x, r = out
                assert np.isfinite(x).all() or not r.converged, what
    print(outcomes)
    assert outcomes["refused"] >= 300, outcomes


@pytest.mark.parametrize("fmt", ["coo", "csc", "bsr"])
def test_broken_other_formats(fmt):
    """SciPy's own tocsr() indexes with these arrays unchecked (an index out
    of range writes out of bounds): refused before it runs."""
    A = poisson2d(6).asformat(fmt)
    n = A.shape[0]
    attrs = {"coo": ["row", "col"], "csc": ["indices"], "bsr": ["indices"]}[fmt]
    for attr in attrs:
        for bad in (n + 5, -3, 2**31 - 1, 2**40):
            B = A.copy()
            arr = getattr(B, attr).astype(np.int64)
            arr[len(arr) // 2] = bad
            setattr(B, attr, arr)
            if getattr(B, attr)[len(arr) // 2] != bad:
                continue  # narrowed by SciPy's own setter (SciPy >= 1.13): another valid matrix
            with pytest.raises(cgmodel.InputError, match=attr):
                solve(B)
    B = A.copy()
    B.data = B.data[:-1]
    with pytest.raises(cgmodel.InputError):
        solve(B)


def test_adversarial_cases():
    """The three found by hand: nnz read from indptr past the arrays, an
    int64 index 2^32 away from a valid one, a NaN without b."""
    A = scipy.io.mmread(os.path.join(REPO, "data", "matrices", "bcsstk01.mtx")).tocsr()
    B = A.copy()
    B.indptr[-1] += 1
    with pytest.raises(cgmodel.InputError, match=r"indptr\[-1\] = 401 .* only 400"):
        cgmodel.solve(B)
    B = A.copy()
    B.indices = B.indices.astype(np.int64)
    B.indices[7] += 2**32
    with pytest.raises(cgmodel.InputError, match=r"A.indices\[7\] = 4294967\d+ is outside"):
        cgmodel.solve(B)
    B = A.copy()
    B.data[12] = np.nan
    row = int(np.searchsorted(B.indptr, 12, side="right"))
    with pytest.raises(cgmodel.InputError) as e:
        cgmodel.solve(B)  # b = A * ones would carry the NaN: the matrix is named
    assert str(e.value).startswith(f"matrix entry ({row}, {B.indices[12] + 1}) is nan")
    for bad in (dict(tol=np.nan), dict(rtol=np.inf), dict(atol=np.nan), dict(maxiter=1.5)):
        with pytest.raises(cgmodel.InputError, match=next(iter(bad))):
            cgmodel.solve(A, **bad)
    with pytest.raises(cgmodel.InputError, match="tol is nan"):
        cgmodel.predict(A, tol=np.nan, db="x.db")
    # b's and x0's own, not the matrix's name before them; a sparse b asked as a dense vector
    b, x0 = np.ones(A.shape[0]), np.zeros(A.shape[0])
    b[3], x0[2] = np.nan, np.inf
    with pytest.raises(cgmodel.InputError) as e:
        solve(A, b=b)
    assert str(e.value).startswith("right-hand side entry 4 is nan")
    with pytest.raises(cgmodel.InputError) as e:
        solve(A, x0=x0)
    assert str(e.value).startswith("initial guess entry 3 is inf")
    with pytest.raises(cgmodel.InputError, match="a dense vector"):
        solve(A, b=sp.csr_matrix(np.ones(A.shape[0])).T)


_OOM_CHILD = """
import scipy.sparse as sp, cgmodel
A = sp.coo_matrix((2**31 - 1, 2**31 - 1))  # no entries: its CSR row pointer alone is 8-16 GB
for call in (cgmodel.solve, cgmodel.info):
    try:
        call(A)
        print(call.__name__, "returned")
    except cgmodel.Error as e:
        print(call.__name__, "Error", e.code, e)
"""


def test_out_of_memory_is_error_3():
    """An empty (2^31 - 1)^2 matrix under a 4 GB address space: the copies
    and SciPy's conversion run out of memory at once, and the binding says
    so as a runtime failure (cgmodel.Error, code 3, as the library's own
    out-of-memory), not a bare MemoryError (nor an OOM kill without a limit
    that would catch it first)."""
    lim = 4 << 30
    p = subprocess.run(
        [sys.executable, "-c", _OOM_CHILD],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (lim, lim)),
    )
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    want = [["solve", "Error", "3"], ["info", "Error", "3"]]
    assert [ln.split()[:3] for ln in lines] == want, p.stdout
    assert all("out of memory for A (2147483647 x 2147483647)" in ln for ln in lines), p.stdout


def test_unsorted_and_duplicates_are_summed():
    """Columns out of order and repeated (SciPy's has_canonical_format may
    say otherwise: it is not trusted) are the matrix they sum to."""
    A = poisson2d(7)
    x1, r1 = solve(A, tol=1e-10)
    B = A.copy()
    for i in range(B.shape[0]):  # reverse every row, the diagonal split in two
        s, e = B.indptr[i], B.indptr[i + 1]
        B.indices[s:e] = B.indices[s:e][::-1].copy()
        B.data[s:e] = B.data[s:e][::-1].copy()
    B.has_canonical_format = True  # a lie
    x2, r2 = solve(B, tol=1e-10)
    assert r1.iterations == r2.iterations
    np.testing.assert_allclose(x1, x2, rtol=1e-13)


# -------------------------------------------------- mutation during a solve ---


def _reference():
    A = poisson2d(80)  # 6400 rows: a few hundred iterations
    b = np.cos(np.arange(A.shape[0]))
    return A, b, solve(A, b=b, tol=1e-10, maxiter=5000)


def test_mutation_in_callback():
    """Changing A and b from the callback, during the solve, changes nothing
    of it: the library reads copies."""
    A, b, (x_ref, r_ref) = _reference()
    A2, b2 = A.copy(), b.copy()

    def wreck(xk):
        A2.indices[5000] = 2**31 - 1
        A2.indptr[-1] += 1
        A2.data[:] = np.nan
        b2[:] = np.inf

    x, r = solve(A2, b=b2, tol=1e-10, maxiter=5000, callback=wreck)
    assert r.iterations == r_ref.iterations and np.array_equal(x, x_ref)


def test_mutation_from_a_thread():
    """A thread writes out-of-range indices and NaN into A while solves run
    (the GIL released): 8 solves, each the reference's answer."""
    A, b, (x_ref, r_ref) = _reference()
    started = threading.Event()
    for run in range(8):
        A2 = A.copy()
        stop = threading.Event()
        started.clear()

        def mutate():
            started.wait()  # once the solve runs on its copies
            k = 0
            while not stop.is_set():
                A2.indices[5000 + k % 100] = 2**31 - 1
                A2.data[k % A2.nnz] = np.nan
                k += 1

        t = threading.Thread(target=mutate)
        t.start()
        try:
            x, r = solve(A2, b=b, tol=1e-10, maxiter=5000, callback=lambda xk: started.set())
        finally:
            stop.set()
            started.set()
            t.join()
        assert r.iterations == r_ref.iterations and np.array_equal(x, x_ref), run
        assert A2.indices[5000] == 2**31 - 1  # the thread did write


def test_narrow_index_dtypes():
    """Indices of int16, uint16 or int8 are read as the same matrix (copied
    as int32 directly: every value of those dtypes keeps its sign there)."""
    from cgmodel._api import _Matrix

    A = poisson2d(5)
    for dt in (np.int16, np.uint16, np.int8, np.uint8):
        B = A.copy()
        B.indices = B.indices.astype(dt)
        M = _Matrix(B)
        assert M.colidx.dtype == np.int32
        np.testing.assert_array_equal(M.colidx, A.indices)
        np.testing.assert_array_equal(M.rowptr, A.indptr)


def test_arrays_are_copied():
    from cgmodel._api import _Matrix

    A = poisson2d(5)
    M = _Matrix(A)
    assert not np.shares_memory(M.colidx, A.indices) and not np.shares_memory(M.val, A.data)
    assert M.colidx.dtype == np.int32 and M.rowptr.dtype == np.int64
    np.testing.assert_array_equal(M.colidx, A.indices)
