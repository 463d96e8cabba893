#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel solve --monitor [K]: the relative residual on stderr at iteration 0,
# every K iterations and the last; --json's residual_history holds the same
# pairs, its last value the solver's residual; nothing of it without
# --monitor; bad K refused (2).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk01.mtx # 48 x 48 SPD

# history_check K: stderr's lines and residual_history of the last run agree
# and follow iteration 0, K, 2K, ..., the last iteration.
history_check() {
  local msg
  if msg=$(python3 - "$OUT" "$ERR" "$1" 2>&1 <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
k = int(sys.argv[3])
lines = [re.fullmatch(r"cgmodel solve: iteration (\d+) relative residual (\S+)", l.strip())
         for l in open(sys.argv[2]) if "iteration" in l]
assert lines and all(lines), "stderr lines: %r" % open(sys.argv[2]).read()[:300]
err = [(int(m.group(1)), float(m.group(2))) for m in lines]
h = j["residual_history"]
assert len(h) == len(err), (len(h), len(err))
n = j["iterations"]
its = [int(i) for i, _ in h]
want = list(range(0, n, k)) + [n]
assert its == want, (its[:8], want[:8])
assert [i for i, _ in err] == its
for (_, a), (_, b) in zip(h, err):
    assert abs(a - b) <= 1e-6 * a, (a, b)
assert h[-1][1] == j["solver_residual"], (h[-1], j["solver_residual"])
assert abs(h[0][1] - 1.0) < 1e-6, h[0]  # x0 = 0: r0 = b (in the precision of the solve)
assert h[-1][1] <= j["tol"] < h[0][1]
PY
  ); then pass; else fail "--monitor $1: $msg"; show_last; fi
}

expect_exit 0 "$CGM" solve "$A" --backend cpu --monitor 5 --json
history_check 5
expect_exit 0 "$CGM" solve "$A" --backend cpu --json --monitor=3
history_check 3
# No K before the matrix path: every iteration.
expect_exit 0 "$CGM" solve --monitor "$A" --backend cpu --json
history_check 1
expect_exit 0 "$CGM" solve "$A" --backend cpu --precision single --tol 1e-5 --monitor 4 --json
history_check 4
# The human report too; without --monitor nothing of it.
expect_exit 0 "$CGM" solve "$A" --backend cpu --monitor 10
last_stderr_contains "cgmodel solve: iteration 0 relative residual 1.000000e+00"
last_stdout_contains "converged   yes"
expect_exit 0 "$CGM" solve "$A" --backend cpu --json
json_check "$OUT" '"residual_history" not in j' "no residual_history without --monitor"
assert_eq "$(grep -c iteration "$ERR")" 0 "no residual lines without --monitor"
expect_exit 0 "$CGM" solve "$A" --backend cpu --monitor 0
assert_eq "$(grep -c iteration "$ERR")" 0 "--monitor 0: none"
expect_fail 2 "--monitor -1: an interval of iterations" "$CGM" solve "$A" --backend cpu --monitor=-1
expect_fail 2 "option --monitor: 'x' is not an integer" "$CGM" solve "$A" --backend cpu --monitor=x
finish
