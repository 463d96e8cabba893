#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel solve on what it must refuse or cannot solve: every case checks the
# exit code (docs/cli.md, "Exit codes": 1 not converged / not SPD, 2 bad usage
# or input, 3 runtime failure) AND the message, and that nothing looking like a
# result is printed for exit 2 and 3.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk01.mtx
# shellcheck disable=SC2317 # called through expect_exit / expect_fail
solve() { "$CGM" solve --backend cpu "$@"; }

# ---- unsymmetric matrices: bad input
for m in west0479 orsirr_1 sherman5 arc130 cryg2500 bayer10; do
  expect_fail 2 "not symmetric" solve "$DATA/$m.mtx"
  expect_fail 2 "not symmetric" solve "$DATA/$m.mtx" --json
done
# ---- complex: refused by the reader, naming the file and the line
expect_fail 2 "$DATA/young1c.mtx:1: complex" solve "$DATA/young1c.mtx"

# ---- symmetric but not SPD: a non-positive or missing diagonal -> exit 1
expect_exit 1 solve "$DATA/hangGlider_2.mtx"
last_stderr_contains "not positive definite: diagonal entry (10, 10) is -5.30108"
last_stdout_contains "converged   NO"
expect_exit 1 solve "$DATA/zenios.mtx" --json
last_stderr_contains "not positive definite: diagonal entry (1, 1) is missing or 0"
json_check "$OUT" 'j["converged"] is False and j["iterations"] == 0 and "not positive definite" in j["stop_reason"]' \
  "zenios --json: converged false, stop_reason"

# ---- pattern matrices (all values 1): a clear answer, never a wrong success
LIST=$TMP/solves.tsv
: >"$LIST"
for m in karate dwt_878 dwt_2680 can_1072; do
  rm -f "$TMP/$m.x.mtx"
  run_cmd solve "$DATA/$m.mtx" --json -o "$TMP/$m.x.mtx"
  case $RC in
    0) # converged: the recheck must confirm it
      cp "$OUT" "$TMP/$m.json"
      printf '%s\t%s\t%s\n' "$DATA/$m.mtx" "$TMP/$m.json" "$TMP/$m.x.mtx" >>"$LIST"
      pass ;;
    1)
      pass
      json_check "$OUT" 'j["converged"] is False and len(j["stop_reason"]) > 0' "$m: converged false and why"
      last_stderr_matches "not positive definite|breakdown"
      assert_no_file "$TMP/$m.x.mtx" "$m: no x written for a failed solve" ;;
    2)
      pass
      last_stderr_contains "error:" ;;
    *) fail "$m: exit $RC"; show_last ;;
  esac
done
# karate has no diagonal at all: known to be refused before iterating.
expect_exit 1 solve "$DATA/karate.mtx"
last_stderr_contains "diagonal entry (1, 1) is missing or 0"
# dwt_878: positive diagonal, indefinite: CG breaks down, and says so.
expect_exit 1 solve "$DATA/dwt_878.mtx" --block 4
last_stderr_matches "CG breakdown after [0-9]+ iterations: p'Ap = .* <= 0, the matrix is not positive definite"
if [ -s "$LIST" ]; then
  if $MMTOOL check-solves "$LIST" >"$TMP/check.txt" 2>&1; then pass; else
    fail "a pattern matrix 'converged' to a wrong answer:"; sed 's/^/  /' "$TMP/check.txt" >&2; fi
fi

# ---- files that are not there or not Matrix Market
expect_fail 2 "$TMP/no_such.mtx: cannot open" solve "$TMP/no_such.mtx"
expect_fail 2 "$MMFIX/col_big.mtx:3: column index 4 out of range" solve "$MMFIX/col_big.mtx"
expect_fail 2 "$MMFIX/integer_frac.mtx:4: non-integer value" solve "$MMFIX/integer_frac.mtx"
expect_fail 2 "$MMFIX/truncated.mtx:" solve "$MMFIX/truncated.mtx" --json
last_stderr_matches "truncated\.mtx:[0-9]+: "
expect_fail 2 "$MMFIX/value_nan.mtx:4: NaN/Inf" solve "$MMFIX/value_nan.mtx"
# a gzip file is read as its text (2 x 2, row 2 empty: not SPD); a build
# without zlib refuses it at line 1, saying why
if "$CGM" info "$MMFIX/gzip.mtx.gz" >/dev/null 2>&1; then
  expect_fail 1 "diagonal entry (2, 2) is missing" solve "$MMFIX/gzip.mtx.gz"
else
  expect_fail 2 "$MMFIX/gzip.mtx.gz:1: compressed file (gzip): this build cannot read gzip" solve "$MMFIX/gzip.mtx.gz"
fi
expect_fail 2 "CG needs a square matrix" solve "$MMFIX/ok_nonsquare.mtx"
expect_fail 2 "$MMFIX/size_zero.mtx:2: empty matrix" solve "$MMFIX/size_zero.mtx"
expect_fail 2 "$TMP: cannot read" solve "$TMP"  # a directory

# ---- the iteration cap: exit 1, the message, JSON converged false, no x
rm -f "$TMP/x.mtx"
expect_exit 1 solve "$A" --maxiter 2 --json -o "$TMP/x.mtx"
last_stderr_contains "maximum of 2 iterations reached"
json_check "$OUT" 'j["converged"] is False and j["iterations"] == 2 and j["maxiter"] == 2 and j["relative_residual"] > j["tol"]' \
  "--maxiter 2 --json: converged false after 2 iterations"
json_check "$OUT" '"maximum of 2 iterations" in j["stop_reason"]' "--maxiter 2: stop_reason"
assert_no_file "$TMP/x.mtx" "--maxiter 2: no x written when not converged"
expect_exit 1 solve "$A" --maxiter 2
last_stdout_contains "converged   NO after 2 iterations: maximum of 2 iterations reached"
expect_exit 1 solve "$A" --maxiter 1
last_stdout_contains "converged   NO after 1 iteration: "
expect_exit 1 solve "$A" --maxiter 2 --precision single --block 2
last_stderr_contains "maximum of 2 iterations"

# ---- bad usage: exit 2 and a message naming the problem
expect_fail 2 "expected one matrix file" "$CGM" solve
expect_fail 2 "expected one matrix file" solve "$A" "$A"
expect_fail 2 "unknown option '--frobnicate'" solve "$A" --frobnicate
expect_fail 2 "unknown option '-x'" solve "$A" -x
expect_fail 2 "block 3: the block size is 1, 2, 4 or 8" solve "$A" --block 3
expect_fail 2 "--block 16: the block size is 1, 2, 4 or 8" solve "$A" --block 16
expect_fail 2 "option --block: 'two'" solve "$A" --block two
expect_fail 2 "--precision: 'half' is not double, mixed or single" solve "$A" --precision half
expect_fail 2 "--backend: 'gpu' is not cpu, cuda or cusparse" solve "$A" --backend gpu
expect_fail 2 "--exchange: 'mpi'" solve "$A" --exchange mpi
# Ranges are the library's (the settle of a solve's options), named by the flags;
# 0 is the default of tol, maxiter and threads, as in a request.
expect_fail 2 "--tol 2: the relative residual to reach is a number in (0, 1]" solve "$A" --tol 2
expect_fail 2 "--tol -1: " solve "$A" --tol -1
expect_fail 2 "option --tol: 'nan' is not a number" solve "$A" --tol nan
expect_fail 2 "--maxiter -5: not in 0..1000000000" solve "$A" --maxiter -5
expect_fail 2 "--threads -1: not in 0..4096" solve "$A" --threads -1
expect_fail 2 "--gpus 9: not in 1..8" solve "$A" --gpus 9
expect_exit 0 solve "$A" --tol 0 --maxiter 0 --threads 0 --json
json_check "$OUT" 'j["tol"] == 1e-8 and j["request"]["tol"] == 1e-8 and j["maxiter"] == 1000' \
  "--tol 0 --maxiter 0: the defaults"
expect_fail 2 "option --maxiter needs a value" solve "$A" --maxiter
expect_fail 2 "option --json takes no value" solve "$A" --json=1
expect_fail 2 "--gpus 2: several GPUs need --backend cuda" solve "$A" --gpus 2
expect_fail 2 "needs more than 1024 threads per slice" solve "$A" --block 8 --bx 1024

# ---- the CUDA backends in a CPU-only build: runtime failure, said plainly
if "$CGM" version | grep -q "CPU-only build"; then
  expect_fail 3 "this build of cgmodel has no CUDA backend" solve "$A" --backend cuda
  last_stderr_contains "cpu or rebuild"
  expect_fail 3 "no CUDA backend" solve "$A" --backend cusparse --json
  # Without --backend the CPU is used when there is no GPU.
  expect_exit 0 "$CGM" solve "$A" --json
  json_check "$OUT" 'j["backend"] == "cpu"' "default backend without a GPU is cpu"
elif ! nvidia-smi -L >/dev/null 2>&1; then
  # A CUDA build on a machine without a GPU: the CUDA runtime's answer, exit 3.
  expect_fail 3 "no CUDA device is present" solve "$A" --backend cuda
  expect_fail 3 "no CUDA device" solve "$A" --backend cusparse --json
  expect_exit 0 "$CGM" solve "$A" --json
  json_check "$OUT" 'j["backend"] == "cpu"' "default backend without a GPU is cpu"
fi

# An output that cannot be written is refused before the solve (the
# solution would be lost after it): no folder, or a folder as the output.
expect_fail 2 "the directory /nonexistent/dir does not exist" solve "$A" --backend cpu --no-record \
  -o /nonexistent/dir/x.mtx
expect_fail 2 "is a directory: name a file" solve "$A" --backend cpu --no-record -o "$TMP"
# /proc takes no new file, not even root's (whom access() lets through)
expect_fail 2 "the directory /proc is not writable" solve "$A" --backend cpu --no-record \
  -o /proc/x.mtx
# a target that is there and no regular file is written in place
expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record -o /dev/null
finish
