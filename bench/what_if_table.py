#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The table of bench/what_if_check.py's whatif.json: per matrix, GPUs, precision
and N the measured time per iteration (us) and each prediction with its error.
usage: what_if_table.py whatif.json"""
import json, sys
r = json.load(open(sys.argv[1]))
mats = sorted({k.split('/')[0] for k in r})
for m in mats:
    best = {}
    for e in r.get(f"{m}/measured", []):
        if 't' not in e: print(m, e); continue
        best.setdefault((e['G'], e['prec'], e['N']), []).append(e['t'])
    for key in sorted(best):
        G, prec, N = key
        t = min(best[key])
        row = f"{m:11s} G{G} {prec:6s} N{N} meas {t*1e6:8.1f}"
        for tag in ("whatif", "whatif_pciehost", "direct"):
            c = r.get(f"{m}/{tag}")
            if not isinstance(c, list): row += f" | {tag}:?"; continue
            p = [x for x in c if x.get('backend') == 'cuda' and x.get('gpus') == G and x.get('precision') == prec and x.get('block') == N]
            if p and p[0]['time_per_iter_s']:
                pt = p[0]['time_per_iter_s']
                row += f" | {tag[:9]} {pt*1e6:7.1f} {(pt-t)/t*100:+6.1f}%{'W' if p[0].get('what_if') else ' '}"
        print(row)
