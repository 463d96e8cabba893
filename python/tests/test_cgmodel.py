# SPDX-License-Identifier: GPL-3.0-or-later
"""The Python binding against the command line and against independent
references: the same solves, features and predictions as `cgmodel ... --json`
on a bundled matrix, residuals recomputed here with SciPy, and bad input
refused with the library's message.

Run by CTest (python_binding, label e2e) with CGMODEL_LIBRARY and
CGMODEL_CLI set to the build's library and executable."""

import contextlib
import dataclasses
import json
import os
import sqlite3
import subprocess
import threading

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import cgmodel

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MATRIX = os.path.join(REPO, "data", "matrices", "bcsstk01.mtx")
CLI = os.environ.get("CGMODEL_CLI")


def read(path=MATRIX):
    return scipy.io.mmread(path).tocsr()


def cli(*args, db=None):
    """`cgmodel ARGS --json` with its own database; (exit code, JSON)."""
    if not CLI:
        pytest.skip("CGMODEL_CLI (the cgmodel executable) is not set")
    env = dict(os.environ)
    if db:
        env["CGMODEL_DB"] = str(db)
    p = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True, env=env)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None)


@pytest.fixture()
def nodb(tmp_path, monkeypatch):
    """A database path that does not exist, as the default one."""
    db = tmp_path / "none.db"
    monkeypatch.setenv("CGMODEL_DB", str(db))
    return db


def residual(A, x, b):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


# ------------------------------------------------------------- the CLI's ---


def test_solve_equals_cli(tmp_path, nodb):
    out = tmp_path / "x.mtx"
    rc, j = cli("solve", MATRIX, "--backend", "cpu", "--no-record", "-o", str(out))
    assert rc == 0
    A = read()
    x, r = cgmodel.solve(A, backend="cpu", record=False)
    assert r.converged and j["converged"]
    assert r.iterations == j["iterations"]
    x_cli = scipy.io.mmread(str(out)).reshape(-1)
    np.testing.assert_allclose(x, x_cli, rtol=0, atol=1e-12 * np.linalg.norm(x_cli))
    assert r.relative_residual == pytest.approx(j["relative_residual"], rel=1e-6)
    for k in ("block", "bx", "gpus", "precision", "backend", "tol", "maxiter"):
        assert getattr(r, k) == j[k], k
    assert not nodb.exists()  # a solve never creates the database


def test_solve_point_block_jacobi(nodb):
    """precond="block": the blocks follow a node's 3 coupled unknowns (the
    point block, found from the pattern of A = L (x) S), whatever the layout's
    block size, and take fewer iterations than Jacobi; x meets tol."""
    n = 6
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    eye = sp.identity(n)
    lap = sp.kron(sp.kron(t, eye), eye) + sp.kron(sp.kron(eye, t), eye) + sp.kron(sp.kron(eye, eye), t)
    s = np.array([[1.0, 0.9, 0.81], [0.9, 1.0, 0.9], [0.81, 0.9, 1.0]])
    A = sp.kron(lap, sp.csr_matrix(s)).tocsr()
    b = A @ np.ones(A.shape[0])
    _, rj = cgmodel.solve(A, b, backend="cpu", record=False)
    for block in (1, 2, 4):
        x, r = cgmodel.solve(A, b, backend="cpu", record=False, block=block, precond="block")
        assert r.converged and r.precond == "block" and r.precond_block == 3
        assert residual(A, x, b) <= 1e-8
        assert r.iterations < rj.iterations
    _, r2 = cgmodel.solve(A, b, backend="cpu", record=False, precond="block", precond_block=2)
    assert r2.precond_block == 2
    with pytest.raises(cgmodel.Error):
        cgmodel.solve(A, b, backend="cpu", record=False, precond="block", precond_block=9)


def test_release_then_solve(nodb):
    """release() gives back what solves keep (the database, a GPU's pinned memory); the next solve
    takes them anew and gives the same solution, on the GPU where there is one."""
    A = scipy.io.mmread(os.path.join(REPO, "data", "matrices", "bcsstk16.mtx")).tocsr()
    b = A @ np.ones(A.shape[0])
    gpu = cgmodel.devices(db=None)["gpus_present"] > 0
    kw = dict(record=False, backend="cuda" if gpu else "cpu")
    x1, r1 = cgmodel.solve(A, b, **kw)
    cgmodel.release()
    cgmodel.release()  # twice: nothing kept, nothing done
    x2, r2 = cgmodel.solve(A, b, **kw)
    assert r1.converged and r2.iterations == r1.iterations and np.array_equal(x1, x2)
    assert residual(A, x2, b) <= 1e-8


def test_info_equals_cli(nodb):
    rc, j = cli("info", MATRIX)
    assert rc == 0
    f = cgmodel.info(read())
    assert (f.x, f.nnz, f.row_min, f.row_max, f.symmetric, f.positive_diagonal) == (
        j["x"],
        j["nnz"],
        j["row_min"],
        j["row_max"],
        j["symmetric"],
        j["positive_diagonal"],
    )
    for mine, theirs in zip(f.blocks, j["blocks"]):
        assert mine == cgmodel.BlockFeatures(**theirs)


def test_predict_and_auto_equal_cli(tmp_path):
    db = tmp_path / "cal.db"
    try:
        cal = cgmodel.calibrate(devices="cpu", quick=True, precision="double", db=db)
    except cgmodel.Error as e:
        if e.code == 3:  # CPU timings disturbed by other work: nothing stored
            pytest.skip(str(e))
        raise
    assert cal["calibrations"][0]["device"] == "cpu" and db.exists()
    A = read()
    p = cgmodel.predict(A, db=db)
    assert p.cache["outcome"] in ("miss", "hit")
    # again: its checks, features and plans found kept by content, the same prediction
    p2 = cgmodel.predict(A.copy(), db=db)
    assert p2.cache["outcome"] == "hit" and p2.cache["features"] and p2.cache["plans"]
    assert p2.cache["check"] and p2.candidates == p.candidates
    rc, j = cli("predict", MATRIX, db=db)
    assert rc in (0, 1)
    assert len(p.candidates) == len(j["candidates"])
    fields = {f.name for f in dataclasses.fields(cgmodel.Candidate)}
    for mine, theirs in zip(p.candidates, j["candidates"]):
        assert set(theirs) <= fields, set(theirs) - fields  # a new key reaches Python
        assert dataclasses.asdict(mine) == {k: theirs.get(k) for k in fields}
    assert (p.choice is None) == (j["choice"] is None)
    assert p.reason == j["reason"]
    if p.choice is not None:
        x, r = cgmodel.solve(A, auto=True, db=db, record=False, cache=tmp_path / "c")
        assert r.auto == p.reason and r.block == p.choice.block
        assert residual(A, x, A @ np.ones(A.shape[0])) <= r.tol
        assert r.cache["outcome"] == "miss" and not r.cache["analysis"]
        # the same matrix again, as another object: its analysis found by content
        x2, r2 = cgmodel.solve(A.copy(), auto=True, db=db, record=False, cache=tmp_path / "c")
        assert r2.cache["outcome"] == "hit" and r2.cache["analysis"] and r2.cache["check"]
        assert (r2.block, r2.precision, r2.backend) == (r.block, r.precision, r.backend)
        assert residual(A, x2, A @ np.ones(A.shape[0])) <= r2.tol
        B = A * 2.0  # another content: decided again
        _, r3 = cgmodel.solve(B, auto=True, db=db, record=False, cache=tmp_path / "c")
        assert r3.cache["outcome"] == "miss" and not r3.cache["analysis"]
        _, r4 = cgmodel.solve(A, auto=True, db=db, record=False, cache=False)
        assert r4.cache["outcome"] == "off" and not r4.cache["analysis"]
    # two matrices in memory of one shape and name: each recorded as itself (NAME@CONTENT)
    B = (A + sp.identity(A.shape[0]) * abs(A).max()).tocsr()
    for M in (A, B):
        cgmodel.solve(M, db=db, backend="cpu", cache=tmp_path / "c")
    rc, j = cli("db", "solves", db=db)
    names = {s["matrix"] for s in j["solves"] if s["matrix"].startswith("matrix@")}
    assert rc == 0 and len(names) == 2, names
    # recorded solves in a loop keep the database open between calls (no open, no sync a
    # solve): each record is in the file for another connection at once; another path is
    # another file; a forked child records through a connection of its own, the parent's after it
    def count(path):
        with contextlib.closing(sqlite3.connect(path)) as con:
            return con.execute("SELECT count(*) FROM solves").fetchone()[0]

    db2 = tmp_path / "copy.db"
    with contextlib.closing(sqlite3.connect(db)) as src, contextlib.closing(sqlite3.connect(db2)) as dst:
        src.backup(dst)
    n, n2 = count(db), count(db2)
    for k, path in enumerate((db, db, db2, db)):
        cgmodel.solve(A, db=path, backend="cpu", threads=1, cache=tmp_path / "c")
        assert (count(db), count(db2)) == (n + k + (k < 2), n2 + (k >= 2)), k
    fds = [os.path.realpath(f"/proc/self/fd/{f}") for f in os.listdir("/proc/self/fd")]
    assert str(db.resolve()) in fds and str(db2.resolve()) not in fds  # db's, kept open
    pid = os.fork()
    if pid == 0:  # the child: no pytest teardown
        try:
            cgmodel.solve(A, db=db, backend="cpu", threads=1, cache=tmp_path / "c")
            os._exit(0)
        except BaseException:
            os._exit(1)
    assert os.waitpid(pid, 0)[1] == 0 and count(db) == n + 4
    cgmodel.solve(A, db=db, backend="cpu", threads=1, cache=tmp_path / "c")
    assert count(db) == n + 5
    # the devices report finds that calibration, made by this build
    d = cgmodel.devices(db=db)
    assert d["cpu"]["calibration"]["id"] == cal["calibrations"][0]["id"]
    assert d["cpu"]["calibration"]["stale"] is False
    # the calibrations the kept handle's last solve loaded serve the next as they were (the same
    # prediction) until another connection writes the file: one deleted there is seen at once
    solve = lambda: cgmodel.solve(A, db=db, backend="cpu", cache=tmp_path / "c")[1]
    p1, p2 = solve().predicted_time_per_iter_s, solve().predicted_time_per_iter_s
    assert p1 is not None and p1 == p2
    with contextlib.closing(sqlite3.connect(db)) as con:
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("DELETE FROM calibrations")
        con.commit()
    assert solve().predicted_time_per_iter_s is None
    assert solve().predicted_time_per_iter_s is None  # none kept serves as none


# ----------------------------------------------------- independent checks ---


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_residual_meets_tol(fmt):
    A = read().asformat(fmt)
    rng = np.random.default_rng(7)
    b = rng.standard_normal(A.shape[0])
    for tol in (1e-6, 1e-10):
        x, r = cgmodel.solve(A, b, tol=tol, backend="cpu", record=False, block=2)
        assert r.converged and r.tol == tol
        assert residual(A.tocsr(), x, b) <= tol
        assert r.relative_residual == pytest.approx(residual(A.tocsr(), x, b), rel=1e-6)


def test_int64_and_duplicates():
    A = read().tocoo()
    # every entry split in two halves: the same matrix once summed
    half = sp.coo_matrix(
        (np.r_[A.data / 2, A.data / 2], (np.r_[A.row, A.row], np.r_[A.col, A.col])), shape=A.shape
    )
    B = sp.csr_matrix(
        (half.data, (half.row.astype(np.int64), half.col.astype(np.int64))), shape=A.shape
    )
    x1, r1 = cgmodel.solve(A, backend="cpu", record=False)
    x2, r2 = cgmodel.solve(half, backend="cpu", record=False)
    assert r1.iterations == r2.iterations
    np.testing.assert_allclose(x1, x2, rtol=1e-12)
    assert cgmodel.info(B).nnz == A.nnz


def test_not_converged_is_a_result():
    x, r = cgmodel.solve(read(), maxiter=3, backend="cpu", record=False)
    assert not r.converged and r.iterations == 3 and "maximum of 3" in r.stop_reason


def test_single_precision():
    A = read()
    x, r = cgmodel.solve(A, precision="single", tol=1e-5, backend="cpu", record=False)
    assert r.converged and r.precision == "single" and r.tol == 1e-5
    assert residual(A, x, A @ np.ones(A.shape[0])) <= 1e-5
    # the default tolerance, 1e-8, is beyond single precision here: a result, not an error
    x, r = cgmodel.solve(A, precision="single", backend="cpu", record=False)
    assert r.tol == 1e-8 and not r.converged and "single precision" in r.stop_reason
    # mixed precision reaches it (single-precision iterations, double-precision residual)
    x, r = cgmodel.solve(A, precision="mixed", backend="cpu", record=False)
    assert r.converged and r.precision == "mixed"
    assert residual(A, x, A @ np.ones(A.shape[0])) <= 1e-8


def test_storage():
    # a 2-D Laplacian: two distinct values, so compact keeps them as codes
    # beside the columns (dict), the same iterations as full values
    n = 30
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    A = sp.csr_matrix(sp.kronsum(T, T))
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    runs = {}
    for storage in ("full", "compact"):
        x, r = cgmodel.solve(A, b, storage=storage, backend="cpu", record=False)
        assert r.converged and residual(A, x, b) <= 1e-8
        runs[storage] = r
    assert runs["full"].storage["format"] == "full"
    assert runs["compact"].storage["format"] == "dict"
    assert runs["compact"].storage["value_bytes"] == 0
    assert runs["compact"].iterations == runs["full"].iterations
    with pytest.raises(cgmodel.Error, match="storage"):
        cgmodel.solve(A, b, storage="bogus", backend="cpu", record=False)


def test_threads_release_the_gil():
    """Two solves in threads both finish with the right answer (ctypes
    releases the GIL during the calls)."""
    A = read()
    results = []

    def run():
        results.append(cgmodel.solve(A, backend="cpu", record=False, threads=1))

    ts = [threading.Thread(target=run) for _ in range(2)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert len(results) == 2 and all(r.converged for _, r in results)
    np.testing.assert_array_equal(results[0][0], results[1][0])


def test_devices_cpu_only():
    d = cgmodel.devices(db=None)
    assert d["cpu"]["cores"] >= 1 and d["cpu"]["threads"] >= 1
    # the MPI solve and its METIS partition as built (METIS only with MPI)
    assert isinstance(d["build"]["mpi"], bool) and isinstance(d["build"]["metis"], bool)
    assert d["build"]["mpi"] or not d["build"]["metis"]
    assert d["gpus_present"] == len(d["gpus"]) or d["gpus_present"] > 8
    if not cgmodel.have_cuda():
        assert d["gpus"] == [] and d["build"]["nccl"] is False


# ------------------------------------------------------------- bad input ---


def test_bad_inputs_raise():
    A = read()
    n = A.shape[0]
    with pytest.raises(cgmodel.Error, match="square"):
        cgmodel.solve(sp.random(4, 5, density=0.5, format="csr"), record=False)
    with pytest.raises(cgmodel.Error, match="square"):
        cgmodel.info(sp.random(4, 5, density=0.5, format="csr"))
    U = sp.csr_matrix(np.array([[4.0, 1.0], [0.0, 4.0]]))
    with pytest.raises(cgmodel.Error, match="symmetric"):
        cgmodel.solve(U, backend="cpu", record=False)
    N = A.copy()
    N.data[5] = np.nan
    with pytest.raises(cgmodel.Error, match="(?i)nan|finite"):
        cgmodel.solve(N, backend="cpu", record=False)
    b = np.ones(n)
    b[3] = np.inf
    with pytest.raises(cgmodel.Error, match="(?i)inf|finite"):
        cgmodel.solve(A, b, backend="cpu", record=False)
    with pytest.raises(cgmodel.Error, match="entries"):
        cgmodel.solve(A, np.ones(n + 1), record=False)
    with pytest.raises(cgmodel.Error, match="backend: 'gpu'"):
        cgmodel.solve(A, backend="gpu", record=False)
    with pytest.raises(cgmodel.Error, match="scipy.sparse"):
        cgmodel.solve(np.eye(3), record=False)
    with pytest.raises(cgmodel.Error) as e:
        cgmodel.solve(A, auto=True, block=2, db="x.db")
    assert e.value.code == 2 and "drop block" in str(e.value)


def test_missing_database(nodb):
    with pytest.raises(cgmodel.Error, match="run 'cgmodel calibrate' first"):
        cgmodel.predict(read())
    with pytest.raises(cgmodel.Error, match="calibrate"):
        cgmodel.solve(read(), auto=True)
    assert not nodb.exists()


def test_default_db_follows_the_cli(monkeypatch, tmp_path):
    monkeypatch.setenv("CGMODEL_DB", str(tmp_path / "a.db"))
    assert cgmodel.default_db() == str(tmp_path / "a.db")


# ----------------------------------------------------- CuPy (GPU only) ---


def _cupy_gpu():
    """CuPy and a GPU, and a library built with CUDA; else the test skips."""
    cp = pytest.importorskip("cupy")
    import cupyx.scipy.sparse  # noqa: F401

    if not cgmodel.have_cuda():
        pytest.skip("this libcgmodel has no CUDA backend")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no GPU")
    except cp.cuda.runtime.CUDARuntimeError:
        pytest.skip("no GPU")
    return cp


@pytest.mark.parametrize("precision,tol", [("double", 1e-10), ("mixed", 1e-10), ("single", 1e-5)])
def test_cupy_solve_stays_on_the_gpu(nodb, precision, tol):
    cp = _cupy_gpu()
    import cupyx.scipy.sparse as csp

    A = read(os.path.join(REPO, "data", "matrices", "bcsstk15.mtx"))
    b = A @ np.linspace(1.0, 2.0, A.shape[0])
    Ad = csp.csr_matrix(A)
    x, r = cgmodel.solve(Ad, cp.asarray(b), tol=tol, precision=precision, bx=1)
    assert isinstance(x, cp.ndarray) and r.memory == "device" and r.converged
    xh = cp.asnumpy(x)
    assert residual(A, xh, b) <= tol and abs(r.relative_residual - residual(A, xh, b)) <= 1e-3 * tol
    # the same layout and vectors as from host memory: the same iteration, but
    # for ||b|| (summed in another order), whose last bit moves the
    # replacements near the floor by an iteration or two
    x2, r2 = cgmodel.solve(A, b, tol=tol, precision=precision, bx=1, record=False)
    assert r2.converged and r.backend == "cuda" and r.block == 1
    assert abs(r.iterations - r2.iterations) <= max(2, r2.iterations // 50)


def test_cupy_b_none_and_refusals(nodb):
    cp = _cupy_gpu()
    import cupyx.scipy.sparse as csp

    A = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(300, 300), format="csr")
    x, r = cgmodel.solve(csp.csr_matrix(A), tol=1e-12)
    assert r.converged and r.solution_error < 1e-10 and float(cp.abs(x - 1).max()) < 1e-10
    U = A.tolil()
    U[0, 5] = 1.0
    with pytest.raises(cgmodel.Error, match="not symmetric") as e:
        cgmodel.solve(csp.csr_matrix(U.tocsr()))
    assert e.value.code == 2
    with pytest.raises(cgmodel.Error, match="auto chooses"):
        cgmodel.solve(csp.csr_matrix(A), auto=True)
    with pytest.raises(cgmodel.Error, match="block size 1"):
        cgmodel.solve(csp.csr_matrix(A), block=2)
    N = A.copy()
    N[3, 3] = -1.0
    x, r = cgmodel.solve(csp.csr_matrix(N))  # refused, as from the host: a result
    assert not r.converged and "not positive definite" in r.stop_reason
