#!/usr/bin/env python3
"""Independent checks for the e2e tests: a small Matrix Market reader and the
quantities the tests compare with what cgmodel prints. Standard library only
(python3 is on every machine the tests run on, CI included).

  mmtool.py residual A.mtx [--rhs b.mtx] x.mtx...
                                           ||b - A x|| / ||b|| for each x, one a line
                                           (b = A * ones without --rhs)
  mmtool.py vector x.mtx                   length, max |x_i|, RMS of x - 1 (one line)
  mmtool.py features A.mtx                 the features `cgmodel info --json` reports, as JSON
  mmtool.py check-info A.mtx info.json     compares the two; prints mismatches, exit 1 if any
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
    bn = math.sqrt(math.fsum(bi * bi for bi in b))
    out = []
    for x_path in x_paths:
        x = read_vector(x_path)
        if len(x) != ncols:
            raise MMError(f"{x_path}: {len(x)} entries, the matrix has {ncols} columns")
        ax = matvec(nrows, entries, x)
        rn = math.sqrt(math.fsum((bi - yi) ** 2 for bi, yi in zip(b, ax)))
        out.append(rn / bn if bn > 0 else rn)
    return out


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
        # MBR with the default parameters: B_x = 1, B_y = 32 / N; block rows
        # sorted by length, longest first (stable); every block row of a slice
        # padded to the longest one of its slice, empty slots included.
        by = 32 // n
        order = sorted(range(nbr), key=lambda b: -blen[b])
        padded = sum(blen[order[k]] * by for k in range(0, nbr, by))
        nb = sum(blen)
        blocks.append({
            "N": n, "blocks": nb, "e_N": nb * n * n,
            "d_N": len(entries) / (nb * n * n) if nb else 0.0,
            "padded_blocks": padded, "padded_elements": padded * n * n,
            "max_blocks_per_row": max(blen) if blen else 0,
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


def check_info(a_path, info_path):
    want = features(a_path)
    with open(info_path) as f:
        got = json.load(f)
    bad = []
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
        elif cmd == "check-info" and len(argv) == 4:
            return 0 if check_info(argv[2], argv[3]) else 1
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
