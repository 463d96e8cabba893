#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel solve --rhs and -o: a right-hand side read from a file (array and
# coordinate), the solution written and read back, the all-zero right-hand
# side, and right-hand sides that must be refused.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk01.mtx # 48 x 48 SPD
N=48
LIST=$TMP/solves.tsv
: >"$LIST"

# ---- an array right-hand side: converges, x has N entries, A x = b rechecked
$MMTOOL write-vector "$TMP/b.mtx" $N 'math.sin(i + 1) * 1e3'
expect_exit 0 "$CGM" solve "$A" --backend cpu --rhs "$TMP/b.mtx" -o "$TMP/x.mtx" --json
cp "$OUT" "$TMP/b.json"
printf '%s\t%s\t%s\t%s\t%s\n' "$A" "$TMP/b.json" "$TMP/x.mtx" "$TMP/b.mtx" \
  '"solution_error" not in j and j["iterations"] > 0' >>"$LIST"
# The written x is an `array real general` N x 1 file that cgmodel reads back
# as a right-hand side too (round trip of the vector format).
assert_eq "$(head -n 2 "$TMP/x.mtx" | tr '\n' '|')" "%%MatrixMarket matrix array real general|$N 1|" "x.mtx header"
assert_eq "$(grep -vc '^%' "$TMP/x.mtx")" "$((N + 1))" "x.mtx: size line and N values"
expect_exit 0 "$CGM" solve "$A" --backend cpu --rhs "$TMP/x.mtx" --maxiter 100000 --json
json_check "$OUT" 'j["converged"] is True' "x.mtx read back as a right-hand side"

# ---- the same b in single precision and with N = 8 (48 = 6 blocks of 8)
expect_exit 0 "$CGM" solve "$A" --backend cpu --rhs "$TMP/b.mtx" -o "$TMP/x8.mtx" --json --block 8
cp "$OUT" "$TMP/b8.json"
printf '%s\t%s\t%s\t%s\t%s\n' "$A" "$TMP/b8.json" "$TMP/x8.mtx" "$TMP/b.mtx" 'j["block"] == 8' >>"$LIST"

# ---- a coordinate n x 1 right-hand side with entries left out (they are 0)
{
  echo "%%MatrixMarket matrix coordinate real general"
  echo "% b = e_1 + 2 e_48"
  echo "$N 1 2"
  echo "1 1 1.0"
  echo "$N 1 2.0"
} >"$TMP/bc.mtx"
expect_exit 0 "$CGM" solve "$A" --backend cpu --rhs "$TMP/bc.mtx" -o "$TMP/xc.mtx" --json
cp "$OUT" "$TMP/bc.json"
printf '%s\t%s\t%s\t%s\n' "$A" "$TMP/bc.json" "$TMP/xc.mtx" "$TMP/bc.mtx" >>"$LIST"

# ---- a dimension that is not a multiple of N: LFAT5 (14) with N = 4 and 8
$MMTOOL write-vector "$TMP/b14.mtx" 14 '(-1.0) ** i * (i + 1)'
for n in 4 8; do
  expect_exit 0 "$CGM" solve "$DATA/LFAT5.mtx" --backend cpu --block $n --rhs "$TMP/b14.mtx" \
    -o "$TMP/x14_$n.mtx" --json
  cp "$OUT" "$TMP/b14_$n.json"
  printf '%s\t%s\t%s\t%s\n' "$DATA/LFAT5.mtx" "$TMP/b14_$n.json" "$TMP/x14_$n.mtx" "$TMP/b14.mtx" >>"$LIST"
done

# ---- 1 x 1 and 3 x 3: every block size pads with identity rows
printf '%%%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 2.5\n' >"$TMP/one.mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 2 4\n3 3 4\n2 1 1\n3 2 1\n' >"$TMP/three.mtx"
for m in one three; do
  for n in 1 2 4 8; do
    for p in double single mixed; do
      expect_exit 0 "$CGM" solve "$TMP/$m.mtx" --backend cpu --block $n --precision $p --tol 1e-7 \
        --json -o "$TMP/$m.$n.$p.x.mtx"
      cp "$OUT" "$TMP/$m.$n.$p.json"
      printf '%s\t%s\t%s\t\t%s\n' "$TMP/$m.mtx" "$TMP/$m.$n.$p.json" "$TMP/$m.$n.$p.x.mtx" \
        "j['block'] == $n and j['precision'] == '$p'" >>"$LIST"
    done
  done
done

if $MMTOOL check-solves "$LIST" >"$TMP/check.txt" 2>&1; then pass; else
  fail "solves with --rhs do not hold up when rechecked:"; sed 's/^/  /' "$TMP/check.txt" >&2; fi

# ---- b = 0: x = 0 exactly, no iteration, exit 0 (also in single precision)
$MMTOOL write-vector "$TMP/zero.mtx" $N '0'
for p in double single; do
  rm -f "$TMP/x0.mtx"
  expect_exit 0 "$CGM" solve "$A" --backend cpu --precision $p --rhs "$TMP/zero.mtx" -o "$TMP/x0.mtx" --json
  json_check "$OUT" 'j["converged"] is True and j["iterations"] == 0 and j["relative_residual"] == 0' \
    "b = 0 ($p): converged in 0 iterations"
  assert_eq "$($MMTOOL vector "$TMP/x0.mtx" | cut -d' ' -f1,2)" "$N 0.0" "b = 0 ($p): x has $N entries, all 0"
done
# Human output says it too.
expect_exit 0 "$CGM" solve "$A" --backend cpu --rhs "$TMP/zero.mtx"
last_stdout_contains "converged   yes, 0 iterations"

# ---- right-hand sides that are refused (exit 2, the file named)
$MMTOOL write-vector "$TMP/short.mtx" $((N - 1)) '1.0'
expect_fail 2 "$TMP/short.mtx has $((N - 1)) entries but $A has $N rows" \
  "$CGM" solve "$A" --backend cpu --rhs "$TMP/short.mtx"
$MMTOOL write-vector "$TMP/long.mtx" $((N + 1)) '1.0'
expect_fail 2 "has $((N + 1)) entries" "$CGM" solve "$A" --backend cpu --rhs "$TMP/long.mtx" --json
$MMTOOL write-vector "$TMP/nan.mtx" $N 'float("nan") if i == 7 else 1.0'
expect_fail 2 "$TMP/nan.mtx:10:" "$CGM" solve "$A" --backend cpu --rhs "$TMP/nan.mtx"
last_stderr_contains "NaN/Inf"
$MMTOOL write-vector "$TMP/inf.mtx" $N 'float("inf") if i == 0 else 1.0'
expect_fail 2 "NaN/Inf" "$CGM" solve "$A" --backend cpu --rhs "$TMP/inf.mtx"
# A value that overflows a double is refused too, not read as Inf.
{ echo "%%MatrixMarket matrix array real general"; echo "$N 1"; for i in $(seq $N); do
    [ "$i" = 5 ] && echo "1e999" || echo "1"; done; } >"$TMP/ovf.mtx"
expect_fail 2 "$TMP/ovf.mtx:7:" "$CGM" solve "$A" --backend cpu --rhs "$TMP/ovf.mtx"
expect_fail 2 "$TMP/missing_b.mtx" "$CGM" solve "$A" --backend cpu --rhs "$TMP/missing_b.mtx"
expect_fail 2 "$MMFIX/vec_two_cols.mtx:" "$CGM" solve "$A" --backend cpu --rhs "$MMFIX/vec_two_cols.mtx"
expect_fail 2 "$MMFIX/vec_truncated.mtx:" "$CGM" solve "$A" --backend cpu --rhs "$MMFIX/vec_truncated.mtx"
expect_fail 2 "option --rhs needs a value" "$CGM" solve "$A" --backend cpu --rhs

# ---- -o into a directory that does not exist: refused before the solve
# (exit 2, the path named), not after it with the solution lost.
expect_exit 2 "$CGM" solve "$A" --backend cpu -o "$TMP/nodir/x.mtx"
last_stderr_contains "$TMP/nodir/x.mtx: the directory $TMP/nodir does not exist"
assert_eq "$(cat "$OUT")" "" "nothing solved: no report"

finish
