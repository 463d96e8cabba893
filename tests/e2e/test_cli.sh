#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The command dispatcher: help, version, unknown commands, per-command help.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

expect_exit 0 "$CGM" --help
last_stdout_contains "usage: cgmodel <command>"
for c in info solve gen version; do last_stdout_contains "  $c "; done
last_stdout_contains "Exit codes: 0 success, 1 solve did not converge, 2 bad usage or input, 3 runtime failure."
expect_exit 0 "$CGM" -h
last_stdout_contains "usage: cgmodel"
expect_exit 0 "$CGM" help
last_stdout_contains "usage: cgmodel"

# No command: usage on stderr, exit 2 (bad usage).
expect_exit 2 "$CGM"
last_stderr_contains "usage: cgmodel"

expect_fail 2 "unknown command 'frobnicate'" "$CGM" frobnicate
last_stderr_contains "usage: cgmodel"

expect_exit 0 "$CGM" version
last_stdout_contains "cgmodel 0."
expect_exit 0 "$CGM" --version
# This tree may be CPU-only or have CUDA: the line names which, and the

# commit the tree was configured from (or "unknown"); the CUDA runtime with
# the CUDA backend; no options.
if grep -qE '^cgmodel [0-9.]+ \(commit ([0-9a-f]{7,}|unknown), (CPU-only build|CUDA backend, CUDA runtime [0-9]+\.[0-9]+)(, MPI(, METIS)?)?\)$' "$OUT"; then
  pass; else fail "--version: commit and backend"; show_last; fi
expect_fail 2 "unknown option '--bogus'" "$CGM" version --bogus
expect_fail 2 "unexpected argument 'x'" "$CGM" version x
# help COMMAND is that command's --help.
expect_exit 0 "$CGM" help solve
last_stdout_contains "usage: cgmodel solve"
last_stdout_contains "--monitor [K]"
# help of help, and help's --help, are help's options.
for h in "help help" "help --help" "help -h"; do
  expect_exit 0 "$CGM" $h
  last_stdout_contains "usage: cgmodel help [COMMAND]"
done
# The top-level usage is made of the tables: every command with its arguments
# and words (gen's kinds, db's subcommands), as the tables have them.
expect_exit 0 "$CGM" --help
for o in "info      A.mtx" "gen       poisson2d|poisson3d|elasticity3d|random|mesh3d|kron" \
  "db        list|show ID|export ID|import FILE|solves|refit ID" "plot      calibration|accuracy" \
  "cache     list|clear" "help      [COMMAND]" "calibrate" "validate" "devices" "version"; do
  last_stdout_contains "$o"
done
expect_fail 2 "unknown command 'frob'" "$CGM" help frob

# '-': the matrix from standard input, as from the file.
expect_exit 0 "$CGM" info "$DATA/bcsstk01.mtx" --json
cp "$OUT" "$TMP/info-file.json"
run_cmd bash -c "'$CGM' info - --json < '$DATA/bcsstk01.mtx'"
assert_eq "$RC" 0 "info - < file"
json_check "$OUT" "{k: v for k, v in j.items() if k != 'matrix'} == {k: v for k, v in __import__('json').load(open('$TMP/info-file.json')).items() if k != 'matrix'}" \
  "info -: the features of the file"
run_cmd bash -c "cat '$DATA/bcsstk01.mtx' | '$CGM' solve - --backend cpu --json"
assert_eq "$RC" 0 "solve - from a pipe"
json_check "$OUT" 'j["converged"] and j["matrix"] == "/dev/stdin"' "solve -: converged, named /dev/stdin"
run_cmd bash -c "echo garbage | '$CGM' solve - --backend cpu"
assert_eq "$RC" 2 "solve - with garbage: exit 2"
last_stderr_contains "/dev/stdin:1: missing Matrix Market banner"
expect_fail 2 "at most one of the matrix, --rhs and --x0 is standard input" "$CGM" solve - --rhs - --backend cpu
expect_fail 2 "at most one of the matrix, --rhs and --x0 is standard input" "$CGM" solve A.mtx --rhs - --x0 -

for c in info solve gen; do
  expect_exit 0 "$CGM" "$c" --help
  last_stdout_contains "usage: cgmodel $c"
  if [ -s "$ERR" ]; then fail "$c --help wrote to stderr"; show_last; else pass; fi
done
# The option list of solve --help names every option the command accepts.
expect_exit 0 "$CGM" solve --help
for o in --rhs --backend --block --bx --gpus --exchange --precision --tol --maxiter \
         --check-every --threads " -o " --json; do
  last_stdout_contains "$o"
done

finish
