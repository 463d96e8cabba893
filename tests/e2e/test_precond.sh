#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel solve --precond: block-Jacobi converges to the tolerance with
# "precond" and "precond_block" in its JSON; its block is the matrix's point
# block (3 for elasticity) at every --block, with fewer iterations than
# Jacobi; --precond-block 1 takes Jacobi's iterations; a diagonal block that
# is not SPD is refused naming its rows (exit 1), and what cannot run
# block-Jacobi says so (exit 2: a bad value, cusparse, --auto without a
# point block).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

# shellcheck disable=SC2317 # called through expect_exit / expect_fail
solve() { "$CGM" solve --backend cpu --no-record "$@"; }

E=$TMP/el.mtx
expect_exit 0 "$CGM" gen elasticity3d --n 5 -o "$E"
expect_exit 0 solve "$E" --json
cp "$OUT" "$TMP/jacobi.json"
json_check "$TMP/jacobi.json" 'j["precond"] == "jacobi" and j["converged"]'
for n in 1 2 4 8; do
  expect_exit 0 solve "$E" --json --precond block --block "$n"
  cp "$OUT" "$TMP/block$n.json"
  json_check "$TMP/block$n.json" \
    "j['precond'] == 'block' and j['precond_block'] == 3 and j['block'] == $n and j['converged'] and j['relative_residual'] <= 1e-8"
done
it_j=$(json_get "$TMP/jacobi.json" iterations)
it_b1=$(json_get "$TMP/block1.json" iterations)
for n in 2 4 8; do
  assert_eq "$(json_get "$TMP/block$n.json" iterations)" "$it_b1" "point-block iterations at N=$n against N=1"
done
[ "$it_b1" -lt "$it_j" ] || fail "point-block Jacobi took $it_b1 iterations, Jacobi $it_j"
expect_exit 0 solve "$E" --json --precond block --precond-block 1 --block 2
json_check "$OUT" "j['precond_block'] == 1 and j['iterations'] == $it_j"
expect_exit 0 solve "$E" --json --precond block --precond-block 6 --block 4
json_check "$OUT" "j['precond_block'] == 6 and j['converged'] and j['relative_residual'] <= 1e-8"
expect_exit 0 solve "$E" --precond block --block 4
last_stdout_contains "block-Jacobi preconditioner"

# rows 3 and 4 hold [1 2; 2 1]: a positive diagonal, an indefinite 2 x 2 block
B=$TMP/badblock.mtx
cat >"$B" <<'MTX'
%%MatrixMarket matrix coordinate real symmetric
6 6 8
1 1 4
2 1 1
2 2 4
3 3 1
4 3 2
4 4 1
5 5 3
6 6 3
MTX
expect_exit 1 solve "$B" --precond block --block 2
last_stderr_contains "not positive definite: its diagonal block of rows 3 to 4"
expect_exit 1 solve "$B" --precond block --block 2 --json
json_check "$OUT" '"rows 3 to 4" in j["stop_reason"] and j["iterations"] == 0 and j["precond"] == "block"'

expect_fail 2 "--precond: 'blocks' is not jacobi or block" solve "$E" --precond blocks
expect_fail 2 "block-Jacobi" "$CGM" solve "$E" --backend cusparse --precond block --no-record
expect_fail 2 "--precond-block 9: not in 0..8" solve "$E" --precond block --precond-block 9
P=$TMP/p.mtx
expect_exit 0 "$CGM" gen poisson3d --n 5 -o "$P"
expect_fail 2 "no point block" "$CGM" solve "$P" --auto --precond block --db "$TMP/none.db"
finish
