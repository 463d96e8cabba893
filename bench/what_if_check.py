#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What-if accuracy on a node with 2 GPUs (docs/accuracy.md, "What-if"): the node's
GPUs calibrated together (its measured peer profile, exported), then GPU 0 alone
(CUDA_VISIBLE_DEVICES=0) into a database holding that profile; `predict --gpus 2`
from the one-GPU calibration (what-if rows, the peer profile; then the one GPU's
own host-staged profile) and from the two-GPU one (direct), against `solve` on 1
and 2 GPUs (400 iterations, tol 1e-300, the low of 2 rounds).
usage (on the GPU machine, repository root): scripts/device-run.sh exec python3 bench/what_if_check.py
Writes $OUT/whatif.json, whatif_log.txt, wi_json.tgz; bench/what_if_table.py prints the table."""
import json, os, subprocess, sys, tempfile, time
O = os.environ.get("OUT", "."); D = tempfile.mkdtemp()
log = open(f"{O}/whatif_log.txt", "w")
def sh(cmd, env=None, check=False):
    t = time.time()
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True, env=e)
    log.write(f"$ {cmd}  [{time.time()-t:.1f}s rc {p.returncode}]\n{p.stdout[-3000:]}\n{p.stderr[-2000:]}\n"); log.flush()
    return p
sh("nvidia-smi topo -m; nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv")
mats = {"poisson128": "gen poisson3d --n 128", "poisson256": "gen poisson3d --n 256 --symmetric",
        "powerlaw1M": "gen random --n 1000000 --dist powerlaw --avg 8",
        "powerlaw4M": "gen random --n 4000000 --dist powerlaw --avg 8 --symmetric",
        "mesh3d": "gen mesh3d --n 1000000"}
for k, g in mats.items():
    sh(f"cgmodel {g} -o {D}/{k}.mtx")
# 1. the node: both GPUs calibrated together (its measured peer profile)
sh(f"cgmodel calibrate --quick --devices cuda:all --db {D}/two.db --json > {D}/two.json")
p = sh(f"cgmodel db list --db {D}/two.db")
ids = [l.split()[0] for l in p.stdout.splitlines() if l.strip() and l.split()[0].isdigit()]
sh(f"cgmodel db export {ids[-1]} -o {D}/two_export.json --db {D}/two.db")
# 2. one GPU: the profile imported first, then one GPU calibrated (newest)
sh(f"cgmodel db import {D}/two_export.json --db {D}/one.db")
one = {"CUDA_VISIBLE_DEVICES": "0"}
sh(f"cgmodel calibrate --quick --devices cuda:0 --db {D}/one.db", env=one)
p = sh(f"cgmodel db list --db {D}/one.db")
prof = [l for l in p.stdout.splitlines()]
res = {}
for k in mats:
    M = f"{D}/{k}.mtx"
    for tag, db, env, extra in (("whatif", "one.db", one, ""), ("whatif_pciehost", "one.db", one, None), ("direct", "two.db", None, "")):
        if extra is None:
            extra = "--interconnect 'pcie-host:NVIDIA H200'"
        p = sh(f"cgmodel predict {M} --gpus 2 --db {D}/{db} --json --precision double,single --tol 1e-3 --exchange halo {extra}", env=env)
        try: res[f"{k}/{tag}"] = json.loads(p.stdout)["candidates"]
        except Exception as ex: res[f"{k}/{tag}"] = str(ex)
    # measured: the product's solve, fixed iterations, rounds interleaved
    for r in range(2):
        for G in (1, 2):
            for prec in ("double", "single"):
                for N in ((1, 2) if k == "mesh3d" else (1,)):
                    p = sh(f"cgmodel solve {M} --backend cuda --gpus {G} --exchange halo --precision {prec} --block {N} "
                           f"--tol 1e-300 --maxiter 400 --no-record --json --db {D}/two.db")
                    try:
                        j = json.loads(p.stdout)
                        res.setdefault(f"{k}/measured", []).append(dict(G=G, prec=prec, N=N, r=r, t=j["time_per_iter_s"],
                            it=j["iterations"], pred=j.get("predicted_time_per_iter_s"), ex=j.get("exchange_bytes")))
                    except Exception as ex:
                        res.setdefault(f"{k}/measured", []).append(dict(G=G, prec=prec, N=N, err=str(ex)))
    json.dump(res, open(f"{O}/whatif.json", "w"), indent=1)
subprocess.run(f"cd {D} && tar czf {O}/wi_json.tgz *.json", shell=True)
