#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Nsight Compute summary of our SpMV and vector kernels on one case (GPU
# machine): DRAM bytes, duration, achieved bandwidth, occupancy, top stalls.
#   scripts/device-run.sh exec bench/profile_spmv.sh CASE [OUTDIR]
set -euo pipefail
case=${1:-poisson3d:192}
out=${2:-.}
bin=${CG_BENCH:-build-dev/bench/cg_bench}
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,\
smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,\
smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__inst_executed.sum
ncu --clock-control none --metrics "$metrics" -k 'regex:spmv_mbr|cg4|cg5' --launch-skip 40 \
    --launch-count 6 --csv "$bin" --precision double --iters 64 --reps 5 "$case" > "$out/ncu.csv" 2>"$out/ncu.err" || true
python3 - "$out/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
ki, mi, vi = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
idi = hdr.index("ID")
d = collections.OrderedDict()
for r in rows:
    d.setdefault((r[idi], r[ki][:60]), {})[r[mi]] = r[vi].replace(",", "")
for (i, k), m in d.items():
    t = float(m["gpu__time_duration.sum"]) * 1e-9
    rd, wr = float(m["dram__bytes_read.sum"]), float(m["dram__bytes_write.sum"])
    print(f"{k:60s} {t*1e6:8.1f} us  dram rd {rd/1e6:8.1f} MB wr {wr/1e6:8.1f} MB  {(rd+wr)/t/1e9:7.0f} GB/s"
          f"  warps {float(m['sm__warps_active.avg.pct_of_peak_sustained_active']):5.1f}%  regs {m['launch__registers_per_thread']}"
          f"  longsb {float(m['smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio']):6.1f}"
          f"  lgthr {float(m['smsp__average_warp_latency_issue_stalled_lg_throttle.ratio']):6.1f}")
PY
