#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Matrix Market input that once broke the reader or the checks after it
# (docs/reliability.md, "Adversarial input"): each must give a clean verdict,
# never a signal, a hang or unbounded memory.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

# An explicit zero with no mirror is symmetric (A = A^T as matrices, as SciPy
# sees it): solved, not refused as "not symmetric".
Z=$TMP/zero.mtx
printf '%s\n' '%%MatrixMarket matrix coordinate real general' '3 3 6' '1 1 4' '2 2 4' '3 3 4' \
  '1 2 -1' '2 1 -1' '1 3 0' >"$Z"
expect_exit 0 "$CGM" solve "$Z" --backend cpu --json
json_check "$OUT" 'j["converged"]' "an explicit zero with no mirror: solved"
expect_exit 0 "$CGM" info "$Z" --json
json_check "$OUT" 'j["symmetric"] is True' "info: symmetric by value"

# Where a matrix file is expected, a FIFO is refused at once, not waited on
# (it blocked forever).
mkfifo "$TMP/fifo.mtx"
expect_fail 2 "$TMP/fifo.mtx: not a regular file (a FIFO)" timeout 30 "$CGM" info "$TMP/fifo.mtx"

# Streams are parsed as they flow. Two entries declared, then "1 1 1"
# without end on standard input: stopped at line 5 (it grew without end),
# within a memory limit where cgmodel runs at all.
head='%%MatrixMarket matrix coordinate real general'
endless() { printf '%s\n' "$head" '2 2 2'; yes '1 1 1'; }
LIMIT=(bash -c 'ulimit -v 1000000 && exec "$@"' _)
run_cmd "${LIMIT[@]}" "$CGM" info "$Z"
[ "$RC" -eq 0 ] || LIMIT=() # a build that needs more address space (CUDA): no limit
expect_fail 2 "/dev/stdin:5: more entries than the 2 declared on line 2" \
  "${LIMIT[@]}" timeout 60 "$CGM" info - < <(endless)
# rows that the entries cannot fill: refused at the size line, the endless
# text after it not read
rows() { printf '%s\n' "$head" '200000000 200000000 2'; yes '% a comment'; }
expect_fail 2 "/dev/stdin:2: matrix 200000000 x 200000000 has too many rows for its 2 entries" \
  "${LIMIT[@]}" timeout 60 "$CGM" info - < <(rows)
# 40 MB of comments around a 2 x 2 matrix, gzip'ed: read (it was held whole)
if command -v gzip >/dev/null; then
  { printf '%s\n' "$head"; yes '% a comment line of the header' | head -n 600000
    printf '%s\n' '2 2 2'; yes '% and one of the body' | head -n 800000
    printf '%s\n' '1 1 2' '2 2 3'; } | gzip -1 >"$TMP/comments.mtx.gz"
  expect_exit 0 "${LIMIT[@]}" timeout 120 "$CGM" info "$TMP/comments.mtx.gz" --json
  json_check "$OUT" 'j["x"] == 2 and j["nnz"] == 2' "40 MB of gzip'ed comments around a 2 x 2 matrix"
fi

# A file truncated, or another copied over it, while it is read: a clean
# error ("the file changed while it was read", or the error of the shorter
# file when the change came before the read), never a signal (SIGBUS, exit
# 135). The delays span the read of this 24 MB file.
expect_exit 0 "$CGM" gen poisson3d --n 60 -o "$TMP/big.mtx"
expect_exit 0 "$CGM" gen poisson3d --n 20 -o "$TMP/small.mtx"
hits=0
for how in truncate copy; do
  for d in 0 0.005 0.01 0.02 0.03 0.05 0.08 0.12; do
    cp "$TMP/big.mtx" "$TMP/c.mtx"
    "$CGM" info "$TMP/c.mtx" >"$OUT" 2>"$ERR" &
    pid=$!
    sleep "$d"
    if [ $how = truncate ]; then truncate -s 2000 "$TMP/c.mtx"; else cp "$TMP/small.mtx" "$TMP/c.mtx"; fi
    wait $pid
    RC=$?
    LAST_CMD="cgmodel info, $how after $d s"
    if [ "$RC" -eq 0 ] || { [ "$RC" -eq 2 ] && [ -s "$ERR" ]; }; then pass; else
      fail "a file changed while it was read: exit $RC"
      show_last
    fi
    grep -q "changed while it was read" "$ERR" && hits=$((hits + 1))
  done
done
echo "test_mm_input: $hits of 16 changes seen while the file was read"

finish
