#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel info: the human table and the JSON features, checked against
# MANIFEST.tsv and against features recomputed independently in Python
# (tests/e2e/mmtool.py: row lengths, blocks per N, e_N, d_N, and the padded
# count of the MBR layout with the default B_y = 32 / N).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk01.mtx

# ---- human output: names the matrix, shows the N table
expect_exit 0 "$CGM" info "$A"
last_stdout_contains "matrix        $A"
last_stdout_contains "dimension x   48"
last_stdout_contains "nonzeros      400 (224 entries in the file, real, symmetric)"
last_stdout_contains "all entries present and > 0"
if grep -qE '^ *N +blocks +e_N +d_N +padded e_N' "$OUT"; then pass; else
  fail "no N table header"; show_last; fi
for n in 1 2 4 8; do
  if grep -qE "^ +$n +[0-9]+ +[0-9]+ +[01]\.[0-9]{3} +[0-9]+ +[0-9.]+% +[0-9]+ +[1248] +[0-9]+ +[0-9]+\.[0-9]{2}$" "$OUT"; then pass; else
    fail "no table row for N = $n"; show_last; fi
done
if [ -s "$ERR" ]; then fail "info wrote to stderr"; show_last; else pass; fi

# ---- JSON: keys, MANIFEST values, d_N in (0, 1]
expect_exit 0 "$CGM" info --json "$A"
cp "$OUT" "$TMP/bcsstk01.json"
J=$TMP/bcsstk01.json
json_check "$J" 'all(k in j for k in ["x","nnz","row_min","row_max","row_avg","row_cv","symmetric","positive_diagonal","blocks"])' \
  "info --json has the feature keys"
json_check "$J" 'len(j["blocks"]) == 4 and [b["N"] for b in j["blocks"]] == [1, 2, 4, 8]' "blocks are N = 1, 2, 4, 8"
json_check "$J" 'all(k in b for b in j["blocks"] for k in ["N","blocks","e_N","d_N","padded_elements"])' \
  "every block entry has N, blocks, e_N, d_N, padded_elements"
assert_eq "$(json_get "$J" x)" "$(manifest bcsstk01 rows)" "bcsstk01 x = MANIFEST rows"
assert_eq "$(json_get "$J" nnz)" "$((2 * $(manifest bcsstk01 nnz_stored) - 48))" "bcsstk01 nnz = 2*224-48"
assert_eq "$(json_get "$J" entries_in_file)" "$(manifest bcsstk01 nnz_stored)" "bcsstk01 entries_in_file"
assert_eq "$(json_get "$J" symmetric)" true "bcsstk01 symmetric"
assert_eq "$(json_get "$J" positive_diagonal)" true "bcsstk01 positive_diagonal"
json_check "$J" 'all(0 < b["d_N"] <= 1 for b in j["blocks"])' "d_N in (0, 1]"
json_check "$J" 'j["blocks"][0]["d_N"] == 1 and j["blocks"][0]["blocks"] == j["nnz"]' "N = 1: one block per nonzero"
json_check "$J" 'all(b["e_N"] == b["blocks"] * b["N"]**2 and b["padded_elements"] >= b["e_N"] for b in j["blocks"])' \
  "e_N = blocks N^2 <= padded_elements"
json_check "$J" 'all(abs(b["d_N"] - j["nnz"] / b["e_N"]) < 1e-12 for b in j["blocks"])' "d_N = nnz / e_N"
assert_eq "$(json_get "$J" matrix)" "$A" "info --json names the matrix"
# x locality (docs/model.md): the sectors of x the slices read, at least the
# minimum, their bytes, the ratio
json_check "$J" 'all(b["x_sectors"] >= b["x_sectors_min"] > 0 and b["x_bytes_moved"] == 32 * b["x_sectors"] and abs(b["x_locality"] - b["x_sectors"] / b["x_sectors_min"]) < 1e-12 and b["x_locality_single"] >= 1 for b in j["blocks"])' \
  "x_sectors, x_bytes_moved, x_locality per block size"

# ---- karate: a pattern matrix without diagonal
expect_exit 0 "$CGM" info --json "$DATA/karate.mtx"
cp "$OUT" "$TMP/karate.json"
assert_eq "$(json_get "$TMP/karate.json" positive_diagonal)" false "karate positive_diagonal"
assert_eq "$(json_get "$TMP/karate.json" field)" pattern "karate field"
assert_eq "$(json_get "$TMP/karate.json" first_bad_diagonal_row)" 1 "karate first bad diagonal row (1-based)"
expect_exit 0 "$CGM" info "$DATA/karate.mtx"
last_stdout_contains "row 1 has a missing or non-positive diagonal: not SPD"

# ---- an unsymmetric matrix is described, not rejected
expect_exit 0 "$CGM" info --json "$DATA/west0479.mtx"
assert_eq "$(json_get "$OUT" symmetric)" false "west0479 symmetric"

# ---- every real/integer/pattern matrix of data/matrices against MANIFEST.tsv
# and mmtool.py (x, entries in the file, field, symmetry; SPD ones symmetric
# with a positive diagonal; every feature recomputed). One Python process for
# all of them: Python starts slowly.
pairs=()
while IFS=$'\t' read -r name _ _ _ field _; do
  [ "$name" = name ] && continue
  if [ "$field" = complex ]; then
    expect_fail 2 "complex" "$CGM" info "$DATA/$name.mtx"
    continue
  fi
  expect_exit 0 "$CGM" info --json "$DATA/$name.mtx"
  cp "$OUT" "$TMP/$name.json"
  pairs+=("$DATA/$name.mtx" "$TMP/$name.json")
done <"$DATA/MANIFEST.tsv"
assert_py "${#pairs[@]} >= 80" "at least 40 matrices read"
if $MMTOOL check-info --manifest "$DATA/MANIFEST.tsv" "${pairs[@]}" >"$TMP/check.txt" 2>&1; then pass; else
  fail "features differ from MANIFEST.tsv or from the independent computation:"
  sed 's/^/  /' "$TMP/check.txt" >&2
fi

# ---- bad usage and bad input
expect_fail 2 "expected one matrix file" "$CGM" info
expect_fail 2 "expected one matrix file" "$CGM" info "$A" "$A"
expect_fail 2 "unknown option '--frob'" "$CGM" info --frob "$A"
expect_fail 2 "option --json takes no value" "$CGM" info --json=yes "$A"
expect_fail 2 "$TMP/none.mtx" "$CGM" info "$TMP/none.mtx"
expect_fail 2 "$MMFIX/truncated.mtx:" "$CGM" info "$MMFIX/truncated.mtx"
expect_fail 2 "not square" "$CGM" info "$MMFIX/ok_nonsquare.mtx"

# ---- a file name's control characters are shown escaped in reports, so
# that they stay on their line and cannot drive the terminal
odd=$TMP/$'odd\e[31m\tname\n.mtx'
cp "$A" "$odd"
expect_exit 0 "$CGM" info "$odd"
if grep -q $'\e' "$OUT" || [ "$(grep -c '^' "$OUT")" != "$(grep -c '^' <("$CGM" info "$A"))" ]; then
  fail "info: a control character of the file name printed as it is"
else pass; fi
last_stdout_contains 'odd\x1b[31m\tname\n.mtx'
expect_exit 0 "$CGM" devices --db "$odd.db"
last_stdout_contains 'odd\x1b[31m\tname\n.mtx.db (does not exist)'
expect_exit 0 "$CGM" gen poisson2d --n 3 -o "$odd.gen.mtx"
last_stderr_contains 'odd\x1b[31m\tname\n.mtx.gen.mtx: 9 x 9'

finish
