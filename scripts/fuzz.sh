#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs the libFuzzer harnesses of tests/fuzz (docs/reliability.md, "Fuzzing")
# for SECONDS each (default 60), all at once, one process each, with
# the seed corpus (tests/fuzz/corpus; tests/fuzz/corpus-cli for fuzz_cli) copied to a scratch directory (the repo
# is not modified). Installs clang and libomp when missing, builds a
# CPU-only clang tree with ASan + UBSan + libFuzzer coverage in
# ${FUZZ_BUILD_DIR:-build-fuzz}, and exits non-zero if any harness finds a
# crash, leak, sanitizer report, timeout (10 s) or out-of-memory (2 GB); the
# input that did it is kept in $FUZZ_BUILD_DIR/artifacts/. Prints
# executions, exec/s and coverage (cov = edges, ft = features) at the end.
#
# Usage: scripts/fuzz.sh [SECONDS]
#   FUZZ_HARNESSES="fuzz_mm"  only these harnesses
#   FUZZ_KEEP=DIR             keep each harness's grown corpus in DIR/<harness>
# Reproduce a crash: build-fuzz/tests/fuzz/fuzz_mm build-fuzz/artifacts/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
bdir=${FUZZ_BUILD_DIR:-build-fuzz}
harnesses=(${FUZZ_HARNESSES:-fuzz_mm fuzz_pipeline fuzz_cli})

if ! command -v clang >/dev/null 2>&1; then scripts/deps.sh; fi
if ! dpkg-query -W -f='${Status}' libomp-dev 2>/dev/null | grep -q "install ok installed"; then
  # OpenMP with clang needs LLVM's runtime
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "fuzz: installing libomp-dev" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libomp-dev >/dev/null
fi

cmake -S . -B "$bdir" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCGMODEL_CUDA=OFF -DCGMODEL_FUZZ=ON -DCGMODEL_SANITIZE=ON -DCGMODEL_TESTS=OFF >/dev/null
cmake --build "$bdir" -j "$(nproc)" --target "${harnesses[@]}"

export OMP_NUM_THREADS=1 # one core per harness; OpenMP threads only add noise here
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$bdir/artifacts"
art=$(cd "$bdir/artifacts" && pwd)
bin=$(cd "$bdir/tests/fuzz" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cgm-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The harnesses run at once, one process each: 3 x SECONDS of one core would
# be most of CI's time on 2 cores, and each harness's budget is its own.
pids=()
for h in "${harnesses[@]}"; do
  mkdir -p "$work/$h"
  # the reader's harnesses share the Matrix Market corpus and dictionary;
  # the command line's has its own (argument vectors), and its error
  # messages on stderr are closed (the sanitizers' reports still come)
  corpus=tests/fuzz/corpus dict="$PWD/tests/fuzz/mm.dict" extra=()
  if [ "$h" = fuzz_cli ]; then
    corpus=tests/fuzz/corpus-cli dict="$PWD/tests/fuzz/cli.dict" extra=(-close_fd_mask=2)
  fi
  cp -r "$corpus/." "$work/$h/"
  echo "fuzz: $h for ${secs} s ..." >&2
  # run from the scratch dir: libFuzzer writes nothing into the repo
  (cd "$work" && rc=0 && "$bin/$h" -max_total_time="$secs" -max_len=65536 -timeout=10 \
     -rss_limit_mb=2048 -dict="$dict" -print_final_stats=1 \
     -artifact_prefix="$art/$h-" "${extra[@]}" "$work/$h" >"$work/$h.log" 2>&1 || rc=$?
   echo "$rc" >"$work/$h.rc") &
  pids+=($!)
done
wait "${pids[@]}"

failed=0
summary=()
for h in "${harnesses[@]}"; do
  log="$work/$h.log"
  rc=$(cat "$work/$h.rc" 2>/dev/null || echo 255)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  units=$(find "$work/$h" -type f | wc -l)
  if [ "$rc" -ne 0 ]; then
    failed=1
    echo "fuzz: $h FAILED (exit $rc); the log's end:" >&2
    tail -60 "$log" >&2
    summary+=("$h: FAILED (exit $rc), ${runs:-?} runs, ${cov:-no coverage line}; inputs in $art")
  else
    summary+=("$h: ${secs} s, ${runs:-?} runs, ${eps:-?} exec/s, ${cov:-?}, corpus ${units} files")
  fi
  if [ -n "${FUZZ_KEEP:-}" ]; then
    mkdir -p "$FUZZ_KEEP/$h" && cp -r "$work/$h/." "$FUZZ_KEEP/$h/" && cp "$log" "$FUZZ_KEEP/$h.log"
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
  echo "fuzz: FAILED" >&2
  exit 1
fi
echo "fuzz: no crashes"
