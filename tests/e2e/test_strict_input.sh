#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regression tests of the defects fixed on 2026-11-25 (docs/reliability.md,
# "Defects fixed on 2026-11-25"): strict parsing of ids, counts and lists;
# a solve's success checked on what it returns; values beyond single
# precision refused; messages that name the file; JSON and terminal output
# safe for any file name; a database that fails to open is a warning for
# solve. All on tiny matrices: about a second.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

W=$TMP/w
mkdir -p "$W"
cd "$W" || exit 2

# ---- 3. one strict parser: no clamping, no cutting, no empty or repeated
# items, no spaces
for id in 99999999999999999999 0 " 1" "1 " +1 1x ""; do
  expect_fail 2 "is not a calibration ID" "$CGM" db show "$id"
done
expect_fail 2 "devices: ',,' has an empty item" "$CGM" calibrate --devices ,,
expect_fail 2 "devices: 'cpu,' has an empty item" "$CGM" calibrate --devices cpu,
expect_fail 2 "devices: the list is empty" "$CGM" calibrate --devices ""
expect_fail 2 "'cpu' is given twice" "$CGM" calibrate --devices cpu,cpu
expect_fail 2 "'cuda:-1' is not cuda:K" "$CGM" calibrate --devices cuda:-1
expect_fail 2 "'cuda: 0' holds a space" "$CGM" calibrate --devices "cuda: 0"
expect_fail 2 "holds a space" "$CGM" calibrate --devices " cpu"
expect_fail 2 "holds a space" "$CGM" calibrate --devices "cpu "
long=$(python3 -c 'print(",".join(["cpu"] * 200))')
expect_fail 2 "devices: the list is longer than" "$CGM" calibrate --devices "$long"
long=$(python3 -c 'print("cuda:" + "0" * 300)')
expect_fail 2 "devices: the list is longer than" "$CGM" calibrate --devices "$long"
assert_no_file "$CGMODEL_DB" "a refused calibrate creates no database"
for v in " 5" "5 " "+5" 5x 99999999999999999999; do
  expect_fail 2 "option --maxiter: '$v' is not an integer" "$CGM" solve A.mtx --maxiter "$v"
done
# an integer out of range: the library's check, in the command line's words
expect_fail 2 "--maxiter -3: not in 0..1000000000" "$CGM" solve A.mtx --maxiter -3
expect_fail 2 "option --tol: ' 1e-3' is not a number" "$CGM" solve A.mtx --tol " 1e-3"
expect_fail 2 "option --tol: '1e-3 ' is not a number" "$CGM" solve A.mtx --tol "1e-3 "
expect_fail 2 "option --tol: '1e-400' is beyond what a double holds" "$CGM" solve A.mtx --tol 1e-400
expect_fail 2 "option --tol: 'nan' is not a number" "$CGM" solve A.mtx --tol nan
expect_fail 2 "--monitor -1: an interval of iterations" "$CGM" solve A.mtx --monitor -1
# an option that would do nothing is refused, not dropped
expect_fail 2 "--precond-block 3 is block-Jacobi's block size: with --precond block only" "$CGM" \
  solve "$DATA/bcsstk01.mtx" --no-record --precond-block 3
# an output named "" or "-" is refused before the solve (it ran, and the solution was lost)
expect_fail 2 "-o: no file name given" "$CGM" solve "$DATA/bcsstk01.mtx" --no-record -o ""
expect_fail 2 "-o -: standard output carries this command's report" "$CGM" solve \
  "$DATA/bcsstk01.mtx" --no-record -o -
assert_no_file - "-o - wrote a file named -"
# gen -o - writes the matrix to standard output, which solve - reads; redirected to a file it is
# written in place (>> keeps what was there)
"$CGM" gen poisson2d --n 5 -o - 2>/dev/null | "$CGM" solve - --no-record --json >piped.json ||
  fail "gen -o - | solve - failed"
assert_py "__import__('json').load(open('piped.json'))['converged'] is True" "gen -o - | solve -"
assert_no_file - "gen -o - wrote a file named -"
echo "kept" >appended.txt
"$CGM" gen poisson2d --n 3 -o - >>appended.txt 2>/dev/null || fail "gen -o - >> a file failed"
assert_eq "$(head -1 appended.txt) $(sed -n 2p appended.txt | cut -c1-14)" "kept %%MatrixMarket" \
  "gen -o - >> a file appends"
expect_fail 2 "--fits: 'avg,,max' has an empty item" "$CGM" plot calibration --fits avg,,max -o p.png
expect_fail 2 "--fits: 'avg' is given twice" "$CGM" plot calibration --fits avg,avg -o p.png
expect_fail 2 "--fits: the list is empty" "$CGM" plot calibration --fits "" -o p.png
expect_fail 2 "option --size: ' 300x200' is not WIDTHxHEIGHT" "$CGM" map --size " 300x200" -o p.png
expect_fail 2 "is not WIDTHxHEIGHT" "$CGM" map --size 300x99999999999999999999 -o p.png
expect_fail 2 "CGMODEL_FAULT_CUDA=x" env CGMODEL_FAULT_CUDA=x "$CGM" solve A.mtx

# ---- 2. success is checked on the x returned: 1e308 / 1e-308 overflows
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e-308\n' >tiny.mtx
printf '%%%%MatrixMarket matrix array real general\n1 1\n1e308\n' >huge.mtx
expect_exit 1 "$CGM" solve tiny.mtx --rhs huge.mtx --backend cpu --no-record --json -o x.mtx
json_check "$OUT" 'j["converged"] is False' "x = Inf is not converged"
last_stderr_contains "the solution is not representable in double precision"
assert_no_file x.mtx "no solution written when x overflows"
# an ordinary scaled system still converges, its residual recomputed as given
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e-300\n2 2 2e-300\n' >small.mtx
printf '%%%%MatrixMarket matrix array real general\n2 1\n1e-10\n4e-10\n' >small_b.mtx
expect_exit 0 "$CGM" solve small.mtx --rhs small_b.mtx --backend cpu --no-record --json
json_check "$OUT" 'j["converged"] is True and j["relative_residual"] <= j["tol"]' "1e-300 scale converges"

# values outside single precision's range are refused, naming the entry and the file
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e39\n' >big.mtx
expect_fail 2 "big.mtx: matrix entry (2, 2) = " "$CGM" solve big.mtx \
  --backend cpu --precision single --no-record
last_stderr_contains "beyond single precision's range"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e-50\n2 2 1\n' >under.mtx
expect_fail 2 "under.mtx: matrix entry (1, 1) = 1e-50 is below single precision's range" \
  "$CGM" solve under.mtx --backend cpu --precision single --no-record
expect_exit 0 "$CGM" solve big.mtx --backend cpu --precision double --no-record

# ---- 4. one iteration count in a breakdown's message
# A = [1 2; 2 1] (eigenvalues 3 and -1), b = e1: p'Ap < 0 in the second iteration
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 2\n2 2 1\n' >indef.mtx
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n0\n' >e1.mtx
expect_exit 1 "$CGM" solve indef.mtx --rhs e1.mtx --backend cpu --no-record
line=$(grep -a "converged" "$OUT")
if [[ $line =~ NO\ after\ ([0-9]+)\ iterations?:\ CG\ breakdown\ after\ ([0-9]+)\ iterations? ]] &&
  [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then pass; else
  fail "breakdown: one iteration count: '$line'"
fi

# every file error names the file
printf '%%%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n' >rect.mtx
expect_fail 2 "rect.mtx: matrix is 2 x 3" "$CGM" info rect.mtx
expect_fail 2 "rect.mtx:2: matrix is 2 x 3" "$CGM" solve rect.mtx --backend cpu --no-record

# JSON of a file name with invalid UTF-8 and a control character is valid
# UTF-8 JSON (the bad byte replaced by U+FFFD, the control escaped)
bad=$(printf 'bad\377\001.mtx')
cp small.mtx "$bad"
expect_exit 0 "$CGM" info "$bad" --json
if python3 -c '
import json, sys
j = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
sys.exit(0 if j["matrix"] == "bad\ufffd\x01.mtx" else 1)' "$OUT"; then pass; else
  fail "info --json of a name with invalid UTF-8 is not valid UTF-8 JSON"
  show_last
fi
# a terminal message never carries the raw control characters of a name
esc=$(printf 'esc\033[31m.mtx')
cp rect.mtx "$esc"
expect_exit 2 "$CGM" info "$esc"
if grep -q $'\033' "$ERR"; then fail "raw ESC on stderr"; else pass; fi
last_stderr_contains 'esc\x1b[31m.mtx'

# a database that does not open is a warning for solve, its exit code kept
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t (x)'); c.commit()" other.db
cp other.db other.db.orig
expect_exit 0 "$CGM" solve small.mtx --rhs small_b.mtx --backend cpu --db other.db
last_stderr_contains "cgmodel solve: warning: the solve will not be recorded: other.db: not a cgmodel database"
if cmp -s other.db other.db.orig; then pass; else fail "solve changed another program's database"; fi

finish
