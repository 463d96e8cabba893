#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads the stamps of a diagnostic build (-DCGMODEL_TRACE=ON, solver/cuda/trace.cuh;
multi_bench or cgmodel run with CGMODEL_TRACE_FILE=F) and prints, per solve and
device, the median time of each stage of an iteration after the update kernel's
end (us). One solve per G in the file (multi_bench, one case per file).

usage: bench/trace_timeline.py FILE"""
import sys
from statistics import median

KINDS = ["upd_in", "upd_go", "upd_end", "pack_in", "pack_end", "spa_in", "spa_end",
         "spb_in", "spb_go", "spb_end"]


def load(path):
    solves = {}
    for line in open(path):
        f = line.split()
        if len(f) < 4:
            continue
        G, g, k = int(f[0]), int(f[1]), int(f[2])
        solves.setdefault(G, {}).setdefault(g, {})[KINDS[k]] = [int(t) for t in f[4:]]
    return solves


def first_after(ts, t0, t1):
    for t in ts:  # sorted
        if t0 < t < t1:
            return t
    return None


def stages(ev):
    """Offsets from the update kernel's end to every later stamp of the same
    iteration, and to the next update's stamps."""
    anchors = sorted(ev.get("upd_end", []))
    rows = {}
    for a, b in zip(anchors, anchors[1:]):
        if b - a > 5_000_000:  # a gap between solves or batches of the host
            continue
        for k in ["pack_in", "pack_end", "spa_in", "spa_end", "spb_in", "spb_go", "spb_end",
                  "upd_in", "upd_go"]:
            t = first_after(sorted(ev.get(k, [])), a, b)
            if t is not None:
                rows.setdefault(k, []).append((t - a) / 1000.0)
        rows.setdefault("upd_end(next)", []).append((b - a) / 1000.0)
    return rows


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for G, devs in sorted(load(sys.argv[1]).items()):
        print(f"# G = {G}: us after the update kernel's end (median over iterations)")
        order = ["pack_in", "pack_end", "spa_in", "spa_end", "spb_in", "spb_go", "spb_end",
                 "upd_in", "upd_go", "upd_end(next)"]
        print("%-14s" % "stage" + "".join("%10s" % f"gpu{g}" for g in sorted(devs)))
        st = {g: stages(ev) for g, ev in devs.items()}
        for k in order:
            if not any(k in st[g] for g in st):
                continue
            print("%-14s" % k + "".join(
                "%10.2f" % median(st[g][k]) if k in st[g] else "%10s" % "-" for g in sorted(devs)))
        print()


if __name__ == "__main__":
    main()
