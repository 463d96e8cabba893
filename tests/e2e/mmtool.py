#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Independent checks for the e2e tests: a small Matrix Market reader and the
quantities the tests compare with what cgmodel prints. Standard library only
(python3 is on every machine the tests run on, CI included).

  mmtool.py residual A.mtx [--rhs b.mtx] x.mtx...
                                           ||b - A x|| / ||b|| for each x, one a line
                                           (b = A * ones without --rhs)
  mmtool.py vector x.mtx                   length, max |x_i|, RMS of x - 1 (one line)
  mmtool.py features A.mtx                 the features `cgmodel info --json` reports, as JSON
  mmtool.py check-info [--manifest MANIFEST.tsv] A.mtx info.json...
                                           compares `cgmodel info --json` with the
                                           features recomputed here (and with the
                                           MANIFEST row of the matrix); pairs repeat;
                                           prints mismatches, exit 1 if any
  mmtool.py check-solves LIST              LIST: lines `A.mtx<TAB>out.json<TAB>x.mtx[<TAB>b.mtx[<TAB>EXPR]]`
                                           of converged `cgmodel solve --json -o x.mtx`
                                           runs; checks the JSON against x (see
                                           check_solve) and that the Python EXPR over
                                           the JSON object j holds; prints problems,
                                           exit 1 if any
  mmtool.py write-vector OUT N EXPR        writes an `array real general` N x 1 vector,
                                           entry i (0-based) = EXPR evaluated with i and math
"""
import json
import math
import sys


class MMError(Exception):
    pass


def _lines(path):
    with open(path, "r", encoding="utf-8", errors="strict") as f:
        for raw in f:
            yield raw.rstrip("\r\n")


def read_mm(path):
    """Returns (kind, data): ('coordinate', (nrows, ncols, {(i, j): v}, field, symmetry))
    with 0-based indices, mirrored half expanded and duplicates summed, or
    ('array', [values]) for an n x 1 array."""
    it = _lines(path)
    banner = next(it, None)
    if banner is None or not banner.lower().startswith("%%matrixmarket"):
        raise MMError(f"{path}: no Matrix Market banner")
    words = banner.split()
    if len(words) != 5:
        raise MMError(f"{path}: bad banner {banner!r}")
    obj, fmt, field, sym = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise MMError(f"{path}: object {obj}")
    size = None
    for line in it:
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        size = [int(t) for t in s.split()]
        break
    if size is None:
        raise MMError(f"{path}: no size line")
    if fmt == "array":
        nrows, ncols = size
        vals = []
        for line in it:
            s = line.strip()
            if not s or s.startswith("%"):
                continue
            vals.append(float(s.split()[0]))
        if len(vals) != nrows * ncols:
            raise MMError(f"{path}: {len(vals)} values, expected {nrows * ncols}")
        return "array", vals
    if fmt != "coordinate":
        raise MMError(f"{path}: format {fmt}")
    if field not in ("real", "integer", "pattern"):
        raise MMError(f"{path}: field {field}")
    nrows, ncols, nent = size
    entries = {}
    count = 0
    for line in it:
        s = line.strip()
        if not s or s.startswith("%"):
            continue
        t = s.split()
        i, j = int(t[0]) - 1, int(t[1]) - 1
        v = 1.0 if field == "pattern" else float(t[2])
        count += 1
        entries[(i, j)] = entries.get((i, j), 0.0) + v
        if sym == "symmetric" and i != j:
            entries[(j, i)] = entries.get((j, i), 0.0) + v
    if count != nent:
        raise MMError(f"{path}: {count} entries, size line says {nent}")
    return "coordinate", (nrows, ncols, entries, field, sym)


def read_matrix(path):
    kind, data = read_mm(path)
    if kind != "coordinate":
        raise MMError(f"{path}: not a coordinate matrix")
    return data


def read_vector(path):
    kind, data = read_mm(path)
    if kind == "array":
        return data
    nrows, ncols, entries, _, _ = data
    if ncols != 1:
        raise MMError(f"{path}: {nrows} x {ncols} is not a vector")
    v = [0.0] * nrows
    for (i, _), x in entries.items():
        v[i] = x
    return v


def norm2(v):
    """||v||_2 without underflow or overflow (scaled like BLAS dnrm2)."""
    scale = max((abs(t) for t in v), default=0.0)
    if scale == 0.0 or not math.isfinite(scale):
        return scale
    return scale * math.sqrt(math.fsum((t / scale) ** 2 for t in v))


def matvec(nrows, entries, x):
    rows = [[] for _ in range(nrows)]
    for (i, j), a in entries.items():
        rows[i].append(a * x[j])
    return [math.fsum(r) for r in rows]


def residuals(a_path, x_paths, b_path=None):
    nrows, ncols, entries, _, _ = read_matrix(a_path)
    b = read_vector(b_path) if b_path else matvec(nrows, entries, [1.0] * ncols)
    if len(b) != nrows:
        raise MMError(f"{b_path}: {len(b)} entries, the matrix has {nrows} rows")
    bn = norm2(b)
    out = []
    for x_path in x_paths:
        x = read_vector(x_path)
        if len(x) != ncols:
            raise MMError(f"{x_path}: {len(x)} entries, the matrix has {ncols} columns")
        ax = matvec(nrows, entries, x)
        rn = norm2([bi - yi for bi, yi in zip(b, ax)])
        out.append(rn / bn if bn > 0 else rn)
    return out


def auto_bx(nrows, nnz, n, gpus=1):
    """B_x of the solver's layout (cgm_bcsr_params_for): at N = 1 it doubles
    while the average row exceeds 16 B_x and one GPU's rows times B_x stay
    within 2^20 threads; at N >= 2 it is 1."""
    bx, rowlen, rows = 1, nnz / nrows / n if nrows else 0.0, -(-nrows // gpus)
    while n == 1 and bx < 8 and rowlen / bx > 16.0 and rows * bx * 2 <= 1 << 20:
        bx *= 2
    return bx


def features(path):
    nrows, ncols, entries, field, sym = read_matrix(path)
    lens = [0] * nrows
    diag = {}
    for (i, j), v in entries.items():
        lens[i] += 1
        if i == j:
            diag[i] = v
    bad = [i for i in range(nrows) if not diag.get(i, 0.0) > 0.0]
    avg = sum(lens) / nrows
    var = sum(l * l for l in lens) / nrows - avg * avg
    symmetric = all(entries.get((j, i)) == v for (i, j), v in entries.items())
    blocks = []
    for n in (1, 2, 4, 8):
        nbr = (nrows + n - 1) // n
        cols = [set() for _ in range(nbr)]
        for (i, j) in entries:
            cols[i // n].add(j // n)
        if nrows % n and nrows == ncols:  # identity rows of the padding: diagonal block
            cols[nbr - 1].add(nbr - 1)
        blen = [len(c) for c in cols]
        # MBR as the solver lays it out: B_x doubles (to 8, N B_x <= 32) while
        # the average scalar row over N exceeds 16 B_x, B_y = 32 / (N B_x);
        # block rows sorted by length, longest first (stable); every block
        # row of a slice padded to the longest one of its slice rounded up to
        # B_x, empty slots included.
        bx = auto_bx(nrows, len(entries), n)
        by = max(1, 32 // (n * bx))
        order = sorted(range(nbr), key=lambda b: -blen[b])
        padded = sum(-(-blen[order[k]] // bx) * bx * by for k in range(0, nbr, by))
        nb = sum(blen)
        blocks.append({
            "N": n, "blocks": nb, "e_N": nb * n * n,
            "d_N": len(entries) / (nb * n * n) if nb else 0.0,
            "padded_blocks": padded, "padded_elements": padded * n * n,
            "max_blocks_per_row": max(blen) if blen else 0, "bx": bx,
        })
    return {
        "x": nrows, "nnz": len(entries), "row_min": min(lens), "row_max": max(lens),
        "row_avg": avg, "row_cv": math.sqrt(max(var, 0.0)) / avg if avg > 0 else 0.0,
        "empty_rows": lens.count(0), "symmetric": symmetric,
        "positive_diagonal": not bad, "field": field, "file_symmetry": sym,
        "blocks": blocks,
        **({"first_bad_diagonal_row": bad[0] + 1} if bad else {}),
    }


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str):
        return a == b
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def check_info(a_path, info_path, manifest=None):
    want = features(a_path)
    with open(info_path) as f:
        got = json.load(f)
    bad = check_manifest(a_path, got, manifest) if manifest is not None else []
    for k, v in want.items():
        if k == "blocks":
            continue
        if k not in got:
            bad.append(f"key {k} missing")
        elif not close(v, got[k]):
            bad.append(f"{k}: cgmodel {got[k]!r}, expected {v!r}")
    gb = got.get("blocks")
    if not isinstance(gb, list) or len(gb) != 4:
        bad.append(f"blocks: expected an array of 4, got {gb!r}")
    else:
        for w, g in zip(want["blocks"], gb):
            for k, v in w.items():
                if k not in g:
                    bad.append(f"blocks N={w['N']}: key {k} missing")
                elif not close(v, g[k]):
                    bad.append(f"blocks N={w['N']} {k}: cgmodel {g[k]!r}, expected {v!r}")
            d = g.get("d_N", 0)
            if not 0 < d <= 1:
                bad.append(f"blocks N={w['N']}: d_N = {d!r} not in (0, 1]")
    for b in bad:
        print(f"{a_path}: {b}")
    return not bad


def check_manifest(a_path, got, manifest):
    import os
    name = os.path.basename(a_path)[:-4] if a_path.endswith(".mtx") else os.path.basename(a_path)
    row = manifest.get(name)
    if row is None:
        return [f"{name} is not in the MANIFEST"]
    bad = []
    want = {"x": int(row["rows"]), "entries_in_file": int(row["nnz_stored"]),
            "field": row["field"], "file_symmetry": row["symmetry"]}
    for k, v in want.items():
        if got.get(k) != v:
            bad.append(f"{k}: cgmodel {got.get(k)!r}, MANIFEST {v!r}")
    if row["spd_hint"] == "yes" and not (got.get("symmetric") and got.get("positive_diagonal")):
        bad.append("SPD in the MANIFEST but not symmetric with a positive diagonal")
    return bad


def read_manifest(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return {r[0]: dict(zip(head, r)) for r in
                (line.rstrip("\n").split("\t") for line in f) if r and r[0]}


REQUIRED_SOLVE_KEYS = ("converged", "iterations", "relative_residual", "time_per_iter_s",
                       "block", "gpus", "precision", "backend")


def check_solve(a_path, json_path, x_path, b_path, cache, expr=None):
    """A converged solve: the required keys (docs/cli.md), relative_residual <= tol,
    the residual of the written x recomputed here within 5% of tol of the
    reported one, x of the right length, and solution_error (b = A * ones)
    equal to the RMS of x - 1."""
    bad = []
    with open(json_path) as f:
        j = json.load(f)
    for k in REQUIRED_SOLVE_KEYS:
        if k not in j:
            bad.append(f"key {k} missing")
    if bad:
        return bad
    key = (a_path, b_path)
    if key not in cache:
        nrows, ncols, entries, _, _ = read_matrix(a_path)
        b = read_vector(b_path) if b_path else matvec(nrows, entries, [1.0] * ncols)
        cache.clear()
        cache[key] = (nrows, ncols, entries, b)
    nrows, ncols, entries, b = cache[key]
    if expr:
        try:
            env = {"j": j, "math": math, "bx_for": lambda n: auto_bx(nrows, len(entries), n)}
            ok = eval(expr, env)
        except Exception as e:  # a key missing, a wrong type
            ok, expr = False, f"{expr} ({type(e).__name__}: {e})"
        if not ok:
            bad.append(f"does not hold: {expr}")
    tol = j.get("tol")
    if j["converged"] is not True:
        bad.append(f"converged is {j['converged']!r}")
    if not isinstance(tol, (int, float)) or not (j["relative_residual"] <= tol):
        bad.append(f"relative_residual {j['relative_residual']!r} > tol {tol!r}")
    if not (isinstance(j["iterations"], int) and j["iterations"] >= 0):
        bad.append(f"iterations {j['iterations']!r}")
    if not j["time_per_iter_s"] >= 0:
        bad.append(f"time_per_iter_s {j['time_per_iter_s']!r}")
    x = read_vector(x_path)
    if len(x) != ncols:
        bad.append(f"{x_path} has {len(x)} entries, the matrix {ncols} columns")
        return bad
    if not all(math.isfinite(v) for v in x):
        bad.append(f"{x_path} has NaN/Inf")
        return bad
    ax = matvec(nrows, entries, x)
    bn = norm2(b)
    rn = norm2([u - v for u, v in zip(b, ax)])
    res = rn / bn if bn > 0 else rn
    if not res <= 1.05 * tol:
        bad.append(f"recomputed ||b - Ax|| / ||b|| = {res:.3e} > tol {tol:.1e} "
                   f"(cgmodel says {j['relative_residual']:.3e})")
    elif abs(res - j["relative_residual"]) > 0.05 * tol:
        bad.append(f"recomputed residual {res:.6e} differs from the reported "
                   f"{j['relative_residual']:.6e}")
    if not b_path:
        err = math.sqrt(math.fsum((v - 1.0) ** 2 for v in x) / len(x))
        se = j.get("solution_error")
        if not isinstance(se, (int, float)) or abs(se - err) > 1e-9 * max(1.0, err):
            bad.append(f"solution_error {se!r}, RMS of x - 1 is {err!r}")
    return bad


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    try:
        if cmd == "residual" and len(argv) >= 4:
            args, rhs = argv[2:], None
            if len(args) >= 3 and args[1] == "--rhs":
                rhs, args = args[2], args[:1] + args[3:]
            if len(args) < 2:
                raise MMError("residual: no x.mtx given")
            for r in residuals(args[0], args[1:], rhs):
                print(repr(r))
        elif cmd == "vector" and len(argv) == 3:
            v = read_vector(argv[2])
            err = math.sqrt(math.fsum((x - 1.0) ** 2 for x in v) / len(v)) if v else 0.0
            print(len(v), max((abs(x) for x in v), default=0.0), repr(err))
        elif cmd == "features" and len(argv) == 3:
            print(json.dumps(features(argv[2]), indent=1))
        elif cmd == "check-info" and len(argv) >= 4:
            args, manifest = argv[2:], None
            if args[0] == "--manifest":
                manifest, args = read_manifest(args[1]), args[2:]
            if not args or len(args) % 2:
                raise MMError("check-info: give pairs of A.mtx info.json")
            ok = [check_info(args[k], args[k + 1], manifest) for k in range(0, len(args), 2)]
            return 0 if all(ok) else 1
        elif cmd == "check-solves" and len(argv) == 3:
            cache, nbad, n = {}, 0, 0
            with open(argv[2]) as f:
                for line in f:
                    t = line.rstrip("\n").split("\t")
                    if len(t) < 3:
                        continue
                    n += 1
                    try:
                        bad = check_solve(t[0], t[1], t[2], t[3] if len(t) > 3 and t[3] else None,
                                          cache, t[4] if len(t) > 4 else None)
                    except (MMError, OSError, ValueError) as e:
                        bad = [str(e)]
                    for b in bad:
                        print(f"{t[1]}: {b}")
                    nbad += bool(bad)
            if n == 0:
                print("check-solves: no solves listed")
                return 1
            return 1 if nbad else 0
        elif cmd == "write-vector" and len(argv) == 5:
            n = int(argv[3])
            with open(argv[2], "w") as f:
                f.write("%%MatrixMarket matrix array real general\n")
                f.write(f"{n} 1\n")
                for i in range(n):
                    v = eval(argv[4], {"math": math, "i": i, "n": n})
                    f.write(f"{v!r}\n" if isinstance(v, float) else f"{v}\n")
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except (MMError, OSError, ValueError) as e:
        print(f"mmtool: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
