#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# One device call's round of checks and measurements on one GPU, from the
# repository root after scripts/device-run.sh has linked the tree:
#   scripts/device-run.sh exec bench/device_round.sh OLD_BIN_DIR [STEP...]
# STEP (default all): tests (ctest -L gpu), bench (cg_bench of the old build
# in OLD_BIN_DIR and of this one, alternating, both precisions), auto (a
# quick calibration, then bench/auto_bench.py over generated matrices of at
# least 1M nonzeros and bundled ones). Everything goes to $OUT/round.tgz,
# with summary.txt (the tables) beside it.
set -uo pipefail
old=$1
shift
steps=("${@:-tests bench auto}")
steps=(${steps[@]})
out=$(mktemp -d)/round
mkdir -p "$out"
# (the matrices and the matrix cache stay behind: only what was measured comes back)
trap 'rm -rf "$out"/auto/cache "$out"/auto/*.mtx; tar czf "${OUT:-.}/round.tgz" -C "$(dirname "$out")" round; cp "$out/summary.txt" "${OUT:-.}/" 2>/dev/null' EXIT
new=build-dev
cg=$new/cli/cgmodel
summary=$out/summary.txt
say() { echo "$@" | tee -a "$summary"; }
say "device round $(date -u +%FT%TZ): $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores"
for s in "${steps[@]}"; do
  case $s in
    tests)
      say "== ctest -L gpu"
      t0=$(date +%s)
      (cd $new && timeout 300 ctest -L gpu --output-on-failure) >"$out/gpu_tests.log" 2>&1
      say "rc $? in $(($(date +%s) - t0)) s: $(grep -E 'tests passed|tests failed' "$out/gpu_tests.log")"
      grep -E '\*\*\*Failed|Timeout' "$out/gpu_tests.log" | tee -a "$summary"
      ;;
    bench)
      say "== cg_bench, old then new, twice (us per iteration)"
      for round in 1 2; do
        for v in old new; do
          b=$old/cg_bench
          [ $v = new ] && b=$new/bench/cg_bench
          timeout 200 "$b" --precision both --iters 320 --reps 20 poisson3d:32 poisson3d:192 \
            >"$out/cg_bench_${v}_$round.txt" 2>&1
          say "-- $v round $round"
          grep -E "^(poisson|case|  *N|.*cusparse)" "$out/cg_bench_${v}_$round.txt" | head -30 >>"$summary"
        done
      done
      ;;
    auto)
      export CGMODEL_DB=$out/cal.db
      for k in 1 2; do
        say "== calibrate --devices cuda:0 --quick ($k)"
        t0=$(date +%s)
        timeout 120 "$cg" calibrate --devices cuda:0 --quick --db "$out/cal$k.db" >"$out/calibrate$k.txt" 2>&1
        say "rc $?, $(($(date +%s) - t0)) s; $(grep -c 'not converged' "$out/calibrate$k.txt") lines of fits not converged"
      done
      cp "$out/cal1.db" "$CGMODEL_DB"
      say "== auto_bench"
      timeout 420 python3 bench/auto_bench.py "$cg" "$out/auto" --rounds 3 --db "$CGMODEL_DB" \
        poisson3d:128 poisson3d:192 elasticity3d:48 mesh3d:400000 \
        data/matrices/bcsstk16.mtx data/matrices/bcsstk15.mtx 2>&1 | tee -a "$summary"
      ;;
  esac
done
