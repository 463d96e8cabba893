# SPDX-License-Identifier: GPL-3.0-or-later
"""cgmodel.cg against scipy.sparse.linalg.cg: the same calls on bundled SPD
matrices give solutions as close to the direct solve's, the same info for
converged and for maxiter reached, and honour x0, atol and the callback;
what SciPy's cg takes that cgmodel cannot (M, a LinearOperator) is refused
clearly. The CuPy part (cupyx.scipy's cg as reference) runs only with CuPy
and a GPU."""

import inspect
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import cgmodel

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MATRICES = ["bcsstk01", "LF10", "nos4", "494_bus", "gr_30_30"]


@pytest.fixture(autouse=True)
def nodb(tmp_path, monkeypatch):
    """No database: a solve neither predicts nor records."""
    monkeypatch.setenv("CGMODEL_DB", str(tmp_path / "none.db"))


def read(name):
    return scipy.io.mmread(os.path.join(REPO, "data", "matrices", name + ".mtx")).tocsr()


def problem(name):
    """A, b = A x* for a smooth x*, and x* (from a direct solve of that b)."""
    A = read(name)
    xs = 1.0 + 0.5 * np.sin(0.1 * np.arange(A.shape[0]))
    b = A @ xs
    return A, b, sla.spsolve(A.tocsc(), b)


def scipy_cg(A, b, rtol, **kw):
    """SciPy's cg, whose rtol was tol before 1.12."""
    key = "rtol" if "rtol" in inspect.signature(sla.cg).parameters else "tol"
    return sla.cg(A, b, **{key: rtol}, **kw)


def err(x, xd):
    return np.linalg.norm(x - xd) / np.linalg.norm(xd)


def res(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


@pytest.mark.parametrize("name", MATRICES)
def test_converged_like_scipy(name):
    A, b, xd = problem(name)
    for rtol in (1e-6, 1e-10):
        xs, ins = scipy_cg(A, b, rtol, atol=0.0, maxiter=20 * A.shape[0])
        x, info = cgmodel.cg(A, b, rtol=rtol, backend="cpu")
        assert info == 0 == ins and x.shape == xs.shape == b.shape
        assert res(A, x, b) <= rtol  # recomputed here, whatever the solver says
        # as close to the direct solution as SciPy's own answer (its
        # plain CG and our Jacobi CG stop at other iterates of that residual)
        assert err(x, xd) <= 10 * max(err(xs, xd), rtol), (err(x, xd), err(xs, xd))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "bsr", "lil", "dok", "dia"])
def test_every_format(fmt):
    A, b, xd = problem("LF10")
    x, info = cgmodel.cg(A.asformat(fmt), b, rtol=1e-10, backend="cpu")
    assert info == 0 and res(A, x, b) <= 1e-10
    if hasattr(sp, "csr_array"):  # the sparse arrays of SciPy >= 1.8
        x2, info = cgmodel.cg(sp.csr_array(A).asformat(fmt), b, rtol=1e-10, backend="cpu")
        assert info == 0 and np.array_equal(x, x2)


def test_maxiter_reached():
    A, b, _ = problem("494_bus")
    xs, ins = scipy_cg(A, b, 1e-10, atol=0.0, maxiter=7)
    x, info = cgmodel.cg(A, b, rtol=1e-10, maxiter=7, backend="cpu")
    assert ins == 7 and info == 7  # SciPy's info: the iterations done
    assert res(A, x, b) > 1e-10 and np.isfinite(x).all()
    # None is 10 n, as SciPy's: converged here
    assert cgmodel.cg(A, b, rtol=1e-10, backend="cpu")[1] == 0


def test_restart_from_the_cap():
    """At maxiter, as SciPy, the last iterate comes back (the least error in A's norm): a restart
    loop lowers the error every time (it returned x0 on bcsstk13 with a random b, and stayed)."""
    A = read("bcsstk13")
    b = np.random.default_rng(3).standard_normal(A.shape[0])
    xd = sla.spsolve(A.tocsc(), b)

    def energy(x):
        e = x - xd
        return float(np.sqrt(e @ (A @ e)))

    x, before = np.zeros(A.shape[0]), energy(np.zeros(A.shape[0]))
    for _ in range(4):
        x, info = cgmodel.cg(A, b, x0=x, rtol=1e-10, maxiter=50, backend="cpu")
        assert info == 50 and np.isfinite(x).all() and energy(x) < 0.99 * before
        before = energy(x)


def test_tol_range_said_once():
    A, b, _ = problem("bcsstk01")
    for f in (lambda t: cgmodel.solve(A, b, tol=t), lambda t: cgmodel.predict(A, tol=t)):
        for t in (0.0, -1.0, 2.0):
            with pytest.raises(cgmodel.InputError, match=r"in \(0, 1\] is needed"):
                f(t)


def test_x0_respected():
    A, b, xd = problem("494_bus")
    calls = []
    x, info = cgmodel.cg(A, b, x0=xd, rtol=1e-6, backend="cpu", callback=calls.append)
    xs, ins = scipy_cg(A, b, 1e-6, x0=xd, atol=0.0)
    assert info == 0 == ins and calls == []  # converged where it started
    np.testing.assert_allclose(x, xd, rtol=1e-14)
    cold, warm = [], []
    cgmodel.cg(A, b, rtol=1e-10, backend="cpu", callback=lambda xk: cold.append(1))
    near = xd * (1 + 1e-4 * np.cos(np.arange(A.shape[0])))
    x, info = cgmodel.cg(
        A, b, x0=near, rtol=1e-10, backend="cpu", callback=lambda xk: warm.append(1)
    )
    assert info == 0 and res(A, x, b) <= 1e-10 and 0 < len(warm) < len(cold)
    x0 = np.ones(A.shape[0])  # x0 is read, not written
    cgmodel.cg(A, b, x0=x0, backend="cpu")
    assert (x0 == 1).all()


def test_atol_respected():
    A, b, _ = problem("gr_30_30")
    atol = 1e-4 * np.linalg.norm(b)
    tight, loose = [], []
    x, info = cgmodel.cg(A, b, rtol=0.0, atol=atol, backend="cpu", callback=loose.append)
    xs, ins = scipy_cg(A, b, 0.0, atol=atol)
    assert info == 0 == ins
    assert np.linalg.norm(b - A @ x) <= atol and np.linalg.norm(b - A @ xs) <= atol
    cgmodel.cg(A, b, rtol=1e-10, backend="cpu", callback=tight.append)
    assert len(loose) < len(tight)
    x, info = cgmodel.cg(A, b, rtol=2.0, backend="cpu")  # rtol > 1: x0 is an answer
    assert info == 0 and not x.any()


def test_callback_xk():
    """callback(xk) after every iteration on the CPU: xk of b's shape, the
    count the iterations, its residuals falling, the last xk the answer;
    SciPy calls it as often (one call an iteration)."""
    A, b, _ = problem("494_bus")
    seen = []

    def cb(xk):
        assert xk.shape == b.shape and xk.dtype == np.float64
        seen.append((len(seen) + 1, res(A, xk, b), xk.copy()))

    x, r = cgmodel.solve(A, b, rtol=1e-8, backend="cpu", callback=cb, record=False)
    assert r.converged and len(seen) == r.iterations
    assert [k for k, _, _ in seen] == list(range(1, r.iterations + 1))
    assert seen[-1][1] <= 1e-8 < seen[0][1] and np.array_equal(seen[-1][2], x)
    hist = np.array(r.residual_history)  # (iteration, relative residual) from 0
    assert hist.shape == (r.iterations + 1, 2) and hist[-1, 0] == r.iterations
    np.testing.assert_allclose(hist[1:, 1], [s for _, s, _ in seen], rtol=1e-4)
    scipy_calls = []
    xs, _ = scipy_cg(A, b, 1e-8, atol=0.0, callback=lambda xk: scipy_calls.append(xk.shape))
    assert set(scipy_calls) == {b.shape}


def test_callback_error_raised_after_the_solve():
    A, b, _ = problem("LF10")
    calls = []

    def cb(xk):
        calls.append(1)
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        cgmodel.cg(A, b, backend="cpu", callback=cb)
    assert calls == [1]  # not called again once it raised


def test_not_positive_definite_is_info_below_zero():
    A = sp.diags([1.0, -2.0, 3.0], format="csr")
    x, info = cgmodel.cg(A, np.ones(3), backend="cpu")
    assert info < 0
    B = sp.csr_matrix(np.array([[1.0, 2.0], [2.0, 1.0]]))  # indefinite, positive diagonal
    x, info = cgmodel.cg(B, np.array([1.0, -1.0]), backend="cpu")
    assert info < 0


def test_b_zero():
    A, _, _ = problem("LF10")
    x, info = cgmodel.cg(A, np.zeros(A.shape[0]), x0=np.ones(A.shape[0]), backend="cpu")
    xs, ins = scipy_cg(A, np.zeros(A.shape[0]), 1e-5, atol=0.0)
    assert info == 0 == ins and not x.any() and not xs.any()


def test_refusals():
    A, b, _ = problem("LF10")
    with pytest.raises(ValueError, match="M=None") as e:
        cgmodel.cg(A, b, M=sp.identity(A.shape[0]))
    assert "Jacobi" in str(e.value) and isinstance(e.value, cgmodel.Error)
    with pytest.raises(ValueError, match="LinearOperator"):
        cgmodel.cg(sla.aslinearoperator(A), b)
    with pytest.raises(ValueError, match="scipy.sparse"):
        cgmodel.cg(A.toarray(), b)
    for bad in (dict(rtol=np.nan), dict(rtol=-1.0), dict(atol=np.inf), dict(maxiter=0)):
        with pytest.raises(cgmodel.InputError):
            cgmodel.cg(A, b, **bad)
    with pytest.raises(ValueError, match="entries"):
        cgmodel.cg(A, b[:-1])
    with pytest.raises(ValueError, match="x0 has"):
        cgmodel.cg(A, b, x0=np.ones(3))


def test_solve_takes_scipy_names():
    A, b, _ = problem("494_bus")
    x1, r1 = cgmodel.solve(A, b, rtol=1e-7, backend="cpu", record=False)
    x2, r2 = cgmodel.solve(A, b, tol=1e-7, backend="cpu", record=False)
    assert r1.tol == r2.tol == 1e-7 and np.array_equal(x1, x2)
    with pytest.raises(cgmodel.InputError, match="give one"):
        cgmodel.solve(A, b, tol=1e-6, rtol=1e-7)
    atol = 1e-3 * np.linalg.norm(b)
    _, r = cgmodel.solve(A, b, rtol=1e-12, atol=atol, backend="cpu", record=False)
    assert r.converged and r.tol == pytest.approx(1e-3)  # the target that decided


# ------------------------------------------------------------- on a GPU ---


def _gpu():
    if not cgmodel.have_cuda() or cgmodel.devices()["gpus_present"] < 1:
        pytest.skip("no GPU (or a libcgmodel without CUDA)")


@pytest.mark.parametrize("precision", ["double", "mixed"])
def test_gpu_callback_at_checks(precision):
    """On a GPU the callback comes at each convergence check (every few
    iterations), with x downloaded there: the last xk is the answer."""
    _gpu()
    A, b, xd = problem("494_bus")
    seen = []
    x, r = cgmodel.solve(A, b, rtol=1e-8, backend="cuda", precision=precision, record=False,
                         callback=lambda xk: seen.append(xk.copy()))
    assert r.converged and res(A, x, b) <= 1e-8
    assert 2 <= len(seen) <= r.iterations and np.array_equal(seen[-1], x)
    assert res(A, seen[0], b) > res(A, seen[-1], b)
    x, info = cgmodel.cg(A, b, rtol=1e-8, backend="cuda", precision=precision)
    assert info == 0 and err(x, xd) <= 10 * max(err(scipy_cg(A, b, 1e-8, atol=0.0)[0], xd), 1e-8)


def _cupy():
    cp = pytest.importorskip("cupy")
    pytest.importorskip("cupyx.scipy.sparse")
    _gpu()
    return cp


def test_cupy_cg_like_cupyx():
    cp = _cupy()
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as csla

    A, b, xd = problem("494_bus")
    Ad, bd = csp.csr_matrix(A), cp.asarray(b)
    seen = []
    x, info = cgmodel.cg(Ad, bd, rtol=1e-8, callback=lambda xk: seen.append(type(xk)))
    assert isinstance(x, cp.ndarray) and info == 0
    assert res(A, cp.asnumpy(x), b) <= 1e-8 and seen and set(seen) == {cp.ndarray}
    kw = {"rtol" if "rtol" in inspect.signature(csla.cg).parameters else "tol": 1e-8}
    xc, ic = csla.cg(Ad, bd, atol=0.0, **kw)
    assert ic == 0 and err(cp.asnumpy(x), xd) <= 10 * max(err(cp.asnumpy(xc), xd), 1e-8)
    x0 = cp.asarray(xd)
    x, info = cgmodel.cg(Ad, bd, x0=x0, rtol=1e-6)  # converged where it started
    assert info == 0 and float(cp.abs(x - x0).max()) <= 1e-14 * float(cp.abs(x0).max())
    x, info = cgmodel.cg(Ad, bd, rtol=1e-12, maxiter=5)
    assert info == 5
