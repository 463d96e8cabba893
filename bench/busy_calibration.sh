#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Calibration on a busy machine (docs/calibration.md, "Timing on a busy
# machine"): `calibrate --devices cpu --quick` RUNS times on the machine as
# it is ("quiet") and RUNS times beside two `yes > /dev/null` that this
# script starts and stops ("loaded"), each in a database of its own: exit
# code, seconds, unsettled samples, warning. Then `validate` of a few bundled
# matrices (CPU, double) with every quiet and every loaded calibration that
# succeeded, all run without the load: each block size's average error,
# averaged over the calibrations of a mode, and their ratio.
# With CPUS (a CPU list, e.g. CPUS=0,1) the calibrations, the `yes` loops and
# the validations all run on those CPUs (taskset -c): a 2-core machine on a
# larger one. The last lines say the loaded over quiet median seconds and
# the loaded over quiet validation error, each on a line of its own.
# With LOAD=gpu the same for GPU 0: `calibrate --devices cuda:0 --quick`,
# loaded beside a second process that keeps the GPU busy (the build's
# bench/cg_bench on Poisson 128^3 in a loop: LOAD_ITERS iterations a run, 20
# runs a configuration; the default 20000 keeps the GPU busy 95% of the time,
# 2000 with 5 runs makes its host side, the matrix and layouts built by 16
# threads, most of its time), and `validate --backend cuda` of the same
# matrices and Poisson 64^3 and 96^3.
# With KEEP=DIR the calibrations' databases and JSON are copied into DIR at the end.
# usage: [CPUS=LIST] [LOAD=cpu|gpu [LOAD_ITERS=K]] [KEEP=DIR] bench/busy_calibration.sh [BUILD_DIR] [RUNS]   (the table on stdout)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
on=()
if [ -n "${CPUS:-}" ]; then on=(taskset -c "$CPUS"); fi
cg=$build/cli/cgmodel
[ -x "$cg" ] || { echo "no $cg: build first (scripts/build.sh $build)" >&2; exit 2; }
load=${LOAD:-cpu}
case $load in
  cpu) device=cpu backend=cpu what="two yes > /dev/null" ;;
  gpu) device=cuda:0 backend=cuda iters=${LOAD_ITERS:-20000} reps=$((${LOAD_ITERS:-20000} >= 20000 ? 20 : 5))
    what="a second process's CG on GPU 0 (cg_bench, $iters iterations, $reps runs, in a loop)" ;;
  *) echo "LOAD=$load: cpu or gpu" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
hogs=()
stop_hogs() {
  for p in "${hogs[@]}"; do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${hogs[@]}"; do wait "$p" 2>/dev/null || true; done
  hogs=()
}
trap 'stop_hogs; [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP"; cp "$tmp"/*.db "$tmp"/*.json "$KEEP"/; }; rm -rf "$tmp"' EXIT

# One calibration in its own database: a line of the table.
calibrate() { # MODE RUN
  local name=$1$2 t0 rc
  t0=$(date +%s.%N)
  set +e
  "${on[@]}" "$cg" calibrate --devices "$device" --quick --db "$tmp/$name.db" --json >"$tmp/$name.json" \
    2>"$tmp/$name.err"
  rc=$?
  set -e
  python3 - "$tmp/$name" "$1" "$2" "$rc" "$t0" "$(date +%s.%N)" <<'PY'
import json, sys
base, mode, run, rc, t0, t1 = sys.argv[1:]
secs = float(t1) - float(t0)
open(base + ".rc", "w").write(f"{rc} {secs}\n")
try:
    c = json.load(open(base + ".json"))["calibrations"][0]
    st = " ".join(f"{k} {v:.1f}" for k, v in c.get("stages", {}).items() if v >= 0.05)
    share = f' gpu_share {c["gpu_share"]:.2f}' if "gpu_share" in c else ""
    extra = f'{c["unsettled"]:4d}/{c["samples"]:<4d}  [{st}]{share} {c.get("warning", "")[:70]}'
except Exception:
    extra = "   -/-     (nothing stored)"
print(f"{run:>3}  {mode:6}  {rc:>4}  {secs:7.1f}  {extra}")
PY
}

echo "# $(date -u +%F), $("${on[@]}" nproc) cores${CPUS:+ (CPUs $CPUS)}, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start," \
  "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# calibrate --devices $device --quick, $runs runs as the machine is, $runs beside $what"
echo "run  mode    exit  seconds  unsettled/samples  warning"
for i in $(seq 1 "$runs"); do calibrate quiet "$i"; done
if [ "$load" = gpu ]; then
  (while true; do "$build/bench/cg_bench" --iters "$iters" --reps "$reps" --precision double poisson3d:128 \
    >/dev/null 2>&1 || exit; done) &
  hogs+=($!)
  sleep 5 # the loop's first matrix made, its CG running
else
  "${on[@]}" yes >/dev/null &
  hogs+=($!)
  "${on[@]}" yes >/dev/null &
  hogs+=($!)
fi
for i in $(seq 1 "$runs"); do calibrate loaded "$i"; done
stop_hogs

python3 - "$tmp" "$runs" <<'PY'
import statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def runs_of(mode):
    return [tuple(map(float, open(f"{tmp}/{mode}{i}.rc").read().split())) for i in range(1, runs + 1)]
q, l = runs_of("quiet"), runs_of("loaded")
mq, ml = statistics.median(t for _, t in q), statistics.median(t for _, t in l)
print(f"# exit 0: quiet {sum(rc == 0 for rc, _ in q)}/{runs}, loaded {sum(rc == 0 for rc, _ in l)}/{runs};"
      f" median seconds quiet {mq:.1f}, loaded {ml:.1f} ({ml / mq:.2f}x), slowest loaded"
      f" {max(t for _, t in l):.1f} ({max(t for _, t in l) / mq:.2f}x)")
print(f"seconds ratio (loaded / quiet median): {ml / mq:.2f}")
PY

list=$tmp/matrices.txt
for m in bcsstk16 bcsstk13 bcsstk15 dwt_2680 1138_bus gr_30_30 msc00726 bcsstk08; do
  echo "$PWD/data/matrices/$m.mtx"
done >"$list"
if [ "$load" = gpu ]; then
  for n in 64 96; do
    "$cg" gen poisson3d --n "$n" -o "$tmp/poisson3d_$n.mtx" >/dev/null 2>&1 && echo "$tmp/poisson3d_$n.mtx"
  done >>"$list"
fi
# every calibration that succeeded, validated (one alone varies: 8-38% in one mode)
for mode in quiet loaded; do
  for i in $(seq 1 "$runs"); do
    [ "$(cut -d' ' -f1 "$tmp/$mode$i.rc")" = 0 ] || continue
    "${on[@]}" "$cg" validate "$list" --backend "$backend" --precision double --iters 100 --json \
      --db "$tmp/$mode$i.db" >"$tmp/val_$mode$i.json" 2>"$tmp/val_$mode$i.err" || true
  done
done
echo "# validate ($backend, double, 100 iterations, median of 3) of $(wc -l <"$list") matrices"
echo "# with every quiet and every loaded calibration, all run without the load: each block size's"
echo "# average error, averaged over the calibrations of a mode"
python3 - "$tmp" "$runs" <<'PY'
import json, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def load(mode):
    out = []
    for i in range(1, runs + 1):
        try:
            out.append(json.load(open(f"{tmp}/val_{mode}{i}.json")))
        except (OSError, ValueError):
            pass
    return out
q, l = load("quiet"), load("loaded")
if not q or not l:
    print("# validate: no calibration of each mode to compare")
    sys.exit(1)
def per_n(vs):
    acc = {}
    for v in vs:
        for g in v["groups"]:
            acc.setdefault(g["block"], []).append(g["avg_rel_error"])
    return {n: sum(e) / len(e) for n, e in acc.items()}
def run_means(vs):
    return " ".join(f"{100 * sum(g['avg_rel_error'] for g in v['groups']) / len(v['groups']):.1f}%"
                    for v in vs)
gq, gl = per_n(q), per_n(l)
print(f"# each calibration's mean: quiet {run_means(q)}; loaded {run_means(l)}")
print("   N  avg err quiet  avg err loaded  ratio")
rs = []
for n in sorted(gq):
    if n not in gl:
        continue
    a, b = gq[n], gl[n]
    rs.append((a, b))
    print(f"{n:4d}  {100 * a:12.1f}%  {100 * b:13.1f}%  {b / a:5.2f}")
mq, ml = sum(a for a, _ in rs) / len(rs), sum(b for _, b in rs) / len(rs)
print(f"mean  {100 * mq:12.1f}%  {100 * ml:13.1f}%  {ml / mq:5.2f}")
print(f"validate error ratio (loaded / quiet mean): {ml / mq:.2f}")
reg = lambda vs, k: sum(v["tuner"][k] for v in vs) / len(vs)
print(f"# regret (mean over calibrations): quiet mean {reg(q, 'mean_regret'):.3f} worst"
      f" {reg(q, 'max_regret'):.3f}; loaded mean {reg(l, 'mean_regret'):.3f} worst"
      f" {reg(l, 'max_regret'):.3f}; disturbed runs left out: quiet"
      f" {sum(v['disturbed'] for v in q)}, loaded {sum(v['disturbed'] for v in l)}")
PY
