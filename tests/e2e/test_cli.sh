#!/usr/bin/env bash
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
# This tree may be CPU-only or have CUDA: the line names which.
if grep -qE '\((CPU-only build|CUDA backend)\)' "$OUT"; then pass; else
  fail "version does not say which backend it has"; show_last; fi

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
