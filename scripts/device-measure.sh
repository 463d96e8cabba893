#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Every GPU measurement the docs still wait for, in one device call (after
# scripts/device-pack.sh here, with .carry in the call's carry list):
#   scripts/device-run.sh exec scripts/device-measure.sh [--quick] [--budget S]
# Steps, each writing $OUT/measure/NN-step.out (stdout) and .log (stderr), each under its own time
# limit, the whole under --budget seconds (default 540: one device call):
#   0 on several GPUs: where NCCL's set-up stops (bench/nccl_probe, each way, 20 s each)
#   1 the GPU tests (ctest -L gpu; on several GPUs every exchange but NCCL; --no-tests: skip 1, 2)
#   2 compute-sanitizer memcheck (spmv, cg) and racecheck (spmv, cg small); on several GPUs
#     both on 2-GPU solves of every exchange but NCCL (CGMODEL_GRAPHS=0), and on a graph with
#     hubs (the long-row kernel) with the halo
#   3 calibrate --devices cuda:all (full; --quick for the quick sweep), timed; --db FILE: none,
#     validate with the calibration in a copy of FILE
#   4 validate over data/matrices and generated Poisson / elasticity (--gpus G: on 1..G GPUs;
#     --precision: single, double or both)
#   5 with --time-quick: a quick calibration into its own database, timed
#   6 on several GPUs where NCCL works: bench/multi_bench with the NCCL exchange
# The database ($OUT/measure/cal.db), validate's CSV and JSON (04-validate.out) and a summary
# come back; the pictures are drawn here from the database (gnuplot):
#   cgmodel plot calibration --db cal.db -o docs/img/calibration-h100.png
# Without $OUT (a local dry run) it writes to build/measure and, without a
# GPU, calibrates and validates the CPU instead, so the script itself is
# tested here.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
quick=""
budget=540
sanitize=1
tests=1
time_quick=0
vgpus=""
vprec=both
viters=100
usedb=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=--quick ;;
    --budget) budget=$2; shift ;;
    --no-sanitizer) sanitize=0 ;;
    --no-tests) tests=0; sanitize=0 ;;
    --time-quick) time_quick=1 ;;
    --gpus) vgpus="--gpus $2"; shift ;;
    --precision) vprec=$2; shift ;;
    --iters) viters=$2; shift ;;
    --db) usedb=$(realpath "$2"); shift ;;
    *) echo "usage: $0 [--quick] [--budget SECONDS] [--no-sanitizer] [--no-tests] [--time-quick] [--gpus G] [--precision P] [--iters K] [--db FILE]" >&2; exit 2 ;;
  esac
  shift
done
# At most 8 files come back from a device call: everything is written to a
# scratch folder and packed into $OUT/measure.tgz on the way out (also when
# a step is cut short), with summary.txt beside it.
out=${OUT:-build/measure}
if [ -n "${OUT:-}" ]; then
  out=$(mktemp -d)/measure
  trap 'tar czf "$OUT/measure.tgz" -C "$(dirname "$out")" measure; cp "$out/summary.txt" "$OUT/"' EXIT
fi
mkdir -p "$out"
cgm=$(command -v cgmodel || echo build/cli/cgmodel)
build=$(dirname "$(dirname "$cgm")")
start=$(date +%s)
summary=$out/summary.txt
: >"$summary"
left() { echo $((budget - ($(date +%s) - start))); }
# step NAME LIMIT CMD...: runs CMD under min(LIMIT, what is left), logs it
step() {
  local name=$1 limit=$2
  shift 2
  local l
  l=$(left)
  [ "$limit" -gt "$l" ] && limit=$l
  if [ "$limit" -le 5 ]; then
    echo "$name: skipped (budget spent)" | tee -a "$summary"
    return
  fi
  local t0 rc
  t0=$(date +%s)
  timeout -k 10 "$limit" "$@" >"$out/$name.out" 2>"$out/$name.log"
  rc=$?
  echo "$name: exit $rc in $(($(date +%s) - t0)) s (limit $limit s)" | tee -a "$summary"
}

gpu=0
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  gpu=$(nvidia-smi -L | wc -l)
  nvidia-smi -L >"$out/gpus.txt"
fi
echo "cgmodel: $("$cgm" version); GPUs: $gpu; budget $budget s" | tee -a "$summary"
export CGMODEL_DB=$out/cal.db

if [ "$gpu" -gt 1 ] && [ -x "$build/bench/nccl_probe" ]; then
  for mode in fresh alloc thread peers graph; do
    NCCL_DEBUG=WARN step "00-nccl-$mode" 20 "$build/bench/nccl_probe" "$mode"
  done
  # the solver itself, under its watchdog
  "$cgm" gen poisson3d --n 40 -o "$out/p40.mtx" >/dev/null 2>&1
  CGMODEL_EXCHANGE_TIMEOUT=8 step 00-nccl-solve 25 "$cgm" solve "$out/p40.mtx" --gpus 2 \
    --exchange nccl --json
  rm -f "$out/p40.mtx"
  # the tests try NCCL only where the solver's own NCCL run worked
  grep -q "00-nccl-solve: exit 0" "$summary" || export CGM_TEST_EXCHANGES=halo,p2p,host
fi
if [ "$gpu" -gt 0 ]; then
  [ $tests = 1 ] && step 01-gpu-tests 200 ctest --test-dir "$build" -L gpu --output-on-failure
  if [ $sanitize = 1 ] && { command -v compute-sanitizer >/dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; }; then
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    export CGM_GPU_TEST_SMALL=1
    step 02-memcheck-spmv 60 "$cs" --tool memcheck --leak-check full --error-exitcode 1 "$build/tests/gpu/test_cuda_spmv"
    step 02-memcheck-cg 90 "$cs" --tool memcheck --leak-check full --error-exitcode 1 "$build/tests/gpu/test_cuda_cg"
    step 02-racecheck-cg 90 "$cs" --tool racecheck --error-exitcode 1 "$build/tests/gpu/test_cuda_cg"
    unset CGM_GPU_TEST_SMALL
    if [ "$gpu" -gt 1 ]; then
      # two GPUs, every exchange but NCCL, batches enqueued without graphs
      # (racecheck cannot follow graphs that span devices); a hang ends by
      # the device watchdog (half the exchange timeout)
      "$cgm" gen poisson3d --n 20 -o "$out/p20.mtx" >/dev/null 2>&1
      for ex in halo p2p host; do
        for tool in racecheck memcheck; do
          CGMODEL_GRAPHS=0 CGMODEL_EXCHANGE_TIMEOUT=60 CUDA_VISIBLE_DEVICES=0,1 \
            step "02-$tool-2gpu-$ex" 120 "$cs" --tool "$tool" --error-exitcode 1 "$cgm" solve \
            "$out/p20.mtx" --gpus 2 --exchange "$ex" --no-record --json
        done
      done
      # a graph whose hubs the halo mode reads with the long-row kernel
      "$cgm" gen random --n 20000 --dist powerlaw --alpha 2.0 --maxlen 6000 -o "$out/hubs.mtx" \
        >/dev/null 2>&1
      for tool in racecheck memcheck; do
        CGMODEL_GRAPHS=0 CGMODEL_EXCHANGE_TIMEOUT=60 CUDA_VISIBLE_DEVICES=0,1 \
          step "02-$tool-2gpu-halo-hubs" 120 "$cs" --tool "$tool" --error-exitcode 1 "$cgm" solve \
          "$out/hubs.mtx" --gpus 2 --exchange halo --no-record --json
      done
      rm -f "$out/p20.mtx" "$out/hubs.mtx"
    fi
  fi
  devices=cuda:all
else
  devices=cpu
fi

if [ -n "$usedb" ]; then
  cp "$usedb" "$CGMODEL_DB"
  echo "03-calibrate: none, the calibration of $usedb" | tee -a "$summary"
else
  step 03-calibrate 330 "$cgm" calibrate --devices "$devices" --precision both $quick --json
fi
if [ -z "$usedb" ] && ! grep -q "exit 0" <(tail -1 "$summary") && [ -z "$quick" ]; then
  # the full sweep did not finish in time: the quick one, so validate has a model
  rm -f "$CGMODEL_DB"
  step 03-calibrate-quick 150 "$cgm" calibrate --devices "$devices" --precision both --quick --json
fi
[ -n "$usedb" ] || grep -E '"(seconds|samples|fits|fits_failed)"' "$out"/03-calibrate*.out | tr -d '\t' >>"$summary"

# Matrices: the bundled SPD ones (validate skips the others), and generated
# Poisson 3D and elasticity of several sizes (in and out of the caches).
list=$out/matrices.txt
ls data/matrices/*.mtx >"$list"
gen=$out/gen
mkdir -p "$gen"
for k in 32 64 128; do
  "$cgm" gen poisson3d --n "$k" -o "$gen/poisson3d-$k.mtx" >/dev/null 2>&1 && echo "$gen/poisson3d-$k.mtx" >>"$list"
done
for k in 16 32; do
  "$cgm" gen elasticity3d --n "$k" -o "$gen/elasticity3d-$k.mtx" >/dev/null 2>&1 && echo "$gen/elasticity3d-$k.mtx" >>"$list"
done
# shellcheck disable=SC2086 # $vgpus is "--gpus G" or empty
step 04-validate 240 "$cgm" validate "$list" --precision "$vprec" $vgpus --iters "$viters" --csv "$out/validate.csv" --json
rm -rf "$gen" # large, and regenerated by the commands above
if [ $time_quick = 1 ]; then
  CGMODEL_DB=$out/quick.db step 05-calibrate-quick 120 "$cgm" calibrate --devices "$devices" --precision both --quick --json
  grep -E '"(seconds|samples|fits|fits_failed)"' "$out"/05-calibrate-quick.out | tr -d '\t' >>"$summary"
fi
if [ "$gpu" -gt 1 ] && grep -q "00-nccl-solve: exit 0" "$summary"; then
  # the NCCL all-gather beside the halo exchange, on the large grids
  step 06-multi-nccl 150 "$build/bench/multi_bench" --iters 96 --exchange nccl \
    --csv "$out/multi_nccl.csv" poisson3d:128 poisson3d:256
fi
echo "total $(($(date +%s) - start)) s" | tee -a "$summary"
