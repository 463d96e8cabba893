#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The matrix cache through the command line: the default directory, a hit
# that solves exactly as the parse did, entries that must not be trusted
# (source touched, a byte flipped, cut short), two writers at once, the
# size limit, --no-cache, `cache list` and `cache clear`; the input file is
# never written.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

CDIR=$XDG_CACHE_HOME/cgmodel # lib.sh points XDG_CACHE_HOME into $TMP
A=$TMP/p.mtx
expect_exit 0 "$CGM" gen poisson3d --n 14 -o "$A"
touch -d '1 minute ago' "$A" # a file modified within the last second is not cached
sum_before=$(sha256sum <"$A")
mtime_before=$(stat -c %Y "$A")
SOLVE=("$CGM" solve "$A" --backend cpu --threads 1 --no-record --json)
outcome() { json_get "$OUT" cache.outcome; }

# ---- --no-cache writes nothing
expect_exit 0 "${SOLVE[@]}" --no-cache
assert_eq "$(outcome)" off "--no-cache: outcome"
assert_no_file "$CDIR" "--no-cache: no cache directory"

# ---- a miss stores the entry in the default directory; the hit solves the same
expect_exit 0 "${SOLVE[@]}" -o "$TMP/x1.mtx"
json_check "$OUT" 'j["cache"]["outcome"] == "miss" and j["cache"]["stored"]' "first read: miss, stored"
json_check "$OUT" 'all(k in j for k in ("time_read_s", "time_layout_s", "time_upload_s", "time_setup_s"))' "setup split in --json"
entry=$(json_get "$OUT" cache.entry)
case "$entry" in "$CDIR"/*.csr) pass ;; *) fail "entry $entry not in $CDIR" ;; esac
iters=$(json_get "$OUT" iterations)
expect_exit 0 "${SOLVE[@]}" -o "$TMP/x2.mtx"
assert_eq "$(outcome)" hit "second read"
assert_eq "$(json_get "$OUT" iterations)" "$iters" "hit: same iterations"
if cmp -s "$TMP/x1.mtx" "$TMP/x2.mtx"; then pass; else fail "hit: solution differs from the parse's"; fi
expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record
last_stdout_contains "matrix cache: hit"

# ---- cache list
expect_exit 0 "$CGM" cache list --json
json_check "$OUT" 'len(j["entries"]) == 1 and j["entries"][0]["source"] == "'"$(realpath "$A")"'" and j["entries"][0]["source_current"] and j["entries"][0]["nrows"] == 2744' "cache list --json"
expect_exit 0 "$CGM" cache list
last_stdout_contains "1 entry,"

# ---- a touched source: stale, rewritten
touch -d '30 seconds ago' "$A"
expect_exit 0 "${SOLVE[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "rejected" and "stale" in j["cache"]["note"] and j["cache"]["stored"]' "touched source"
expect_exit 0 "${SOLVE[@]}"
assert_eq "$(outcome)" hit "after the rewrite"
mtime_before=$(stat -c %Y "$A")

# ---- one byte flipped in the middle of the entry: detected, rewritten
python3 - "$entry" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0, 2); n = f.tell(); f.seek(n // 2); b = f.read(1); f.seek(n // 2)
    f.write(bytes([b[0] ^ 0x01]))
PY
expect_exit 0 "${SOLVE[@]}" -o "$TMP/x3.mtx"
json_check "$OUT" 'j["cache"]["outcome"] == "rejected" and "checksum" in j["cache"]["note"]' "flipped byte"
if cmp -s "$TMP/x1.mtx" "$TMP/x3.mtx"; then pass; else fail "flipped byte: solution differs"; fi
expect_exit 0 "${SOLVE[@]}"
assert_eq "$(outcome)" hit "after the flipped byte"

# ---- cut short
truncate -s -1000 "$entry"
expect_exit 0 "${SOLVE[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "rejected" and "truncated" in j["cache"]["note"]' "truncated entry"
expect_exit 0 "${SOLVE[@]}"
assert_eq "$(outcome)" hit "after the truncation"

# ---- the features kept beside the entry: computed once, then read back
# (--reorder rcm needs them; no database), stale with their entry
FEAT=("$CGM" solve "$A" --backend cpu --threads 1 --no-record --reorder rcm --json)
expect_exit 0 "${FEAT[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "hit" and not j["cache"]["features"]' "features: computed at first"
assert_file_exists "$entry-features" "features beside the entry"
iters=$(json_get "$OUT" iterations)
expect_exit 0 "${FEAT[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "hit" and j["cache"]["features"]' "features: from the cache"
assert_eq "$(json_get "$OUT" iterations)" "$iters" "features from the cache: same solve"
# a solve reads the features of the block size it runs: another block
# size's are computed and kept beside the first's
expect_exit 0 "${FEAT[@]}" --block 2
json_check "$OUT" 'not j["cache"]["features"]' "features: another block size's computed"
expect_exit 0 "${FEAT[@]}" --block 2
json_check "$OUT" 'j["cache"]["features"]' "features: both block sizes kept"
expect_exit 0 "${FEAT[@]}"
json_check "$OUT" 'j["cache"]["features"]' "features: the first block size's still kept"
printf 'garbage' >>"$entry-features"
expect_exit 0 "${FEAT[@]}"
json_check "$OUT" 'not j["cache"]["features"]' "features: a damaged extra is recomputed"
touch -d '20 seconds ago' "$A"
mtime_before=$(stat -c %Y "$A")
expect_exit 0 "${FEAT[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "rejected" and not j["cache"]["features"]' "features: stale with the entry"
expect_exit 0 "${FEAT[@]}"
json_check "$OUT" 'j["cache"]["features"]' "features: kept with the new entry"
expect_exit 0 "$CGM" cache clear
assert_no_file "$entry-features" "cache clear removes the features"

# ---- the matrix's checks, passed once, kept beside the entry: a hit skips
# them; a damaged extra is not trusted; a refused matrix never gets one
expect_exit 0 "${SOLVE[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "miss" and not j["cache"]["check"]' "checks: run on a miss"
entry=$(json_get "$OUT" cache.entry)
assert_file_exists "$entry-checked" "checks: kept beside the entry"
expect_exit 0 "${SOLVE[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "hit" and j["cache"]["check"] and j["converged"]' \
  "checks: a hit skips them"
assert_eq "$(json_get "$OUT" iterations)" "$iters" "checks skipped: same solve"
printf 'garbage' >>"$entry-checked"
expect_exit 0 "${SOLVE[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "hit" and not j["cache"]["check"]' \
  "checks: a damaged extra is not trusted"
U=$TMP/u.mtx
python3 - "$U" <<'PY'
import sys
n = 900  # a 1D Laplacian in general format, one entry off its mirror
e = [(i, i, 2.0) for i in range(n)] + [(i, i + 1, -1.0) for i in range(n - 1)]
e += [(i + 1, i, -1.0 if i != 400 else -1.5) for i in range(n - 1)]
with open(sys.argv[1], "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, len(e)))
    f.writelines("%d %d %.17g\n" % (i + 1, j + 1, v) for i, j, v in e)
PY
touch -d '1 minute ago' "$U"
for k in 1 2; do
  expect_exit 2 "$CGM" solve "$U" --backend cpu --threads 1 --no-record
  last_stderr_contains "not symmetric"
done
if ls "$CDIR"/*-checked 2>/dev/null | grep -qv "^$entry-checked\$"; then
  fail "a refused matrix got a checked extra"
else
  pass
fi
# symmetric, one diagonal entry negative: stored in the cache, refused by the
# checks (exit 1) on the miss and again on the hit, never marked checked
N=$TMP/n.mtx
python3 - "$N" <<'PY'
import sys
n = 900  # a 1D Laplacian in symmetric format, diagonal entry 401 negative
e = [(i, i, 2.0 if i != 400 else -1.0) for i in range(n)] + [(i + 1, i, -1.0) for i in range(n - 1)]
with open(sys.argv[1], "w") as f:
    f.write("%%%%MatrixMarket matrix coordinate real symmetric\n%d %d %d\n" % (n, n, len(e)))
    f.writelines("%d %d %.17g\n" % (i + 1, j + 1, v) for i, j, v in e)
PY
touch -d '1 minute ago' "$N"
expect_exit 1 "$CGM" solve "$N" --backend cpu --threads 1 --no-record --json
last_stderr_contains "not positive definite"
json_check "$OUT" 'j["cache"]["outcome"] == "miss" and j["cache"]["stored"] and not j["cache"]["check"]' \
  "refused: stored on the miss, not checked"
entryN=$(json_get "$OUT" cache.entry)
assert_file_exists "$entryN" "refused: the entry exists"
[ -e "$entryN-checked" ] && fail "a refused matrix got a checked extra" || pass
expect_exit 1 "$CGM" solve "$N" --backend cpu --threads 1 --no-record --json
last_stderr_contains "not positive definite"
json_check "$OUT" 'j["cache"]["outcome"] == "hit" and not j["cache"]["check"]' \
  "refused: the hit checks again"

# ---- two writers at once leave one valid entry and no temporary file
expect_exit 0 "$CGM" cache clear
"${SOLVE[@]}" >"$TMP/w1.json" 2>&1 &
p1=$!
"${SOLVE[@]}" >"$TMP/w2.json" 2>&1 &
p2=$!
wait $p1 && wait $p2 && pass || fail "concurrent writers failed"
json_check "$TMP/w1.json" 'j["cache"]["outcome"] in ("miss", "hit")' "writer 1"
json_check "$TMP/w2.json" 'j["cache"]["outcome"] in ("miss", "hit")' "writer 2"
assert_eq "$(find "$CDIR" -type f -name '*.csr' | wc -l)" 1 "one entry after two writers"
assert_eq "$(find "$CDIR" -type f -name '*tmp*' | wc -l)" 0 "no temporary file after two writers"
expect_exit 0 "${SOLVE[@]}"
assert_eq "$(outcome)" hit "the entry two writers left"

# ---- the size limit: the least recently used entry goes
B=$TMP/q.mtx
expect_exit 0 "$CGM" gen poisson3d --n 12 -o "$B"
touch -d '1 minute ago' "$B"
bytes=$(stat -c %s "$entry")
touch -a -d '1 hour ago' "$entry" # p.mtx's entry: the least recently used
expect_exit 0 "$CGM" solve "$B" --backend cpu --no-record --json --cache-max $((bytes + 1000))
json_check "$OUT" 'j["cache"]["stored"] and j["cache"]["evicted"] == 1' "--cache-max evicts one"
assert_no_file "$entry" "evicted entry"
expect_exit 0 "$CGM" cache list --json
json_check "$OUT" 'len(j["entries"]) == 1 and j["entries"][0]["source"].endswith("/q.mtx")' "the newer entry stays"
# an entry larger than the limit is not written
expect_exit 0 "${SOLVE[@]}" --cache-max 1000
json_check "$OUT" 'not j["cache"]["stored"] and "exceeds" in j["cache"]["note"]' "entry over the limit"

# ---- the limit counts every file of an entry: a limit that holds both
# entries but not with the features and checks kept beside them
RCM=(--backend cpu --threads 1 --no-record --reorder rcm --json)
expect_exit 0 "$CGM" cache clear
both=0
for m in "$A" "$B"; do
  expect_exit 0 "$CGM" solve "$m" "${RCM[@]}"
  both=$((both + $(stat -c %s "$(json_get "$OUT" cache.entry)")))
done
limit=$((both + 100))
expect_exit 0 "$CGM" cache clear
for m in "$A" "$B" "$A"; do
  expect_exit 0 "$CGM" solve "$m" "${RCM[@]}" --cache-max "$limit"
  held=$(find "$CDIR" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  [ "$held" -le "$limit" ] && pass || fail "--cache-max $limit: the cache holds $held bytes"
done
expect_exit 0 "$CGM" cache list --json
json_check "$OUT" 'sum(e["bytes"] for e in j["entries"]) == '"$held" "cache list: the bytes with the extras"

# ---- a FIFO at the entry's name (nobody writing it) does not block a solve:
# rejected, then replaced by the entry; cache list skips it
expect_exit 0 "$CGM" cache clear
expect_exit 0 "${SOLVE[@]}"
entry=$(json_get "$OUT" cache.entry)
rm -f "$entry"
mkfifo "$entry"
expect_exit 0 "$CGM" cache list
last_stdout_contains "0 entries"
expect_exit 0 timeout 60 "${SOLVE[@]}"
json_check "$OUT" 'j["cache"]["outcome"] == "rejected" and "not a regular file" in j["cache"]["note"] and j["cache"]["stored"]' "FIFO at the entry's name"
[ -f "$entry" ] && pass || fail "the FIFO was not replaced by the entry"

# ---- cache list prints a source's control characters escaped, on one line
E=$TMP/$'esc\e[31m\nname.mtx'
cp "$A" "$E"
touch -d '1 minute ago' "$E"
expect_exit 0 "$CGM" solve "$E" --backend cpu --threads 1 --no-record
expect_exit 0 "$CGM" cache list
last_stdout_contains 'esc\x1b[31m\nname.mtx'
if grep -q $'\e' "$OUT"; then fail "cache list printed an escape character"; else pass; fi
assert_eq "$(wc -l <"$OUT")" 3 "cache list: one line an entry"
rm -f "$E"

# ---- --cache-dir, and clear leaving other files alone
D=$TMP/other-cache
expect_exit 0 "${SOLVE[@]}" --cache-dir "$D"
assert_eq "$(find "$D" -name '*.csr' | wc -l)" 1 "--cache-dir"
echo keep >"$D/notes.txt"
echo mine >"$D/0123456789abcdef.csr" # named as an entry is, but no entry
echo mine >"$D/0123456789abcdef.csr-features"
expect_exit 0 "$CGM" cache clear --cache-dir "$D"
last_stdout_contains "2 files removed" # the entry and its checked extra
assert_file_exists "$D/notes.txt" "clear keeps other files"
assert_file_exists "$D/0123456789abcdef.csr" "clear keeps a file that is no entry by its name alone"
assert_file_exists "$D/0123456789abcdef.csr-features" "clear keeps a file that is no extra"
expect_exit 0 "$CGM" cache list --json --cache-dir "$D"
json_check "$OUT" '[e["valid_header"] for e in j["entries"]] == [False]' "no entry after clear, the look-alike listed as none"
expect_exit 0 "$CGM" cache list --cache-dir "$TMP/none"
last_stdout_contains "0 entries"

# ---- usage errors
expect_fail 2 "expected list or clear" "$CGM" cache frobnicate
expect_fail 2 "--cache-max" "$CGM" solve "$A" --cache-max -5
expect_fail 2 "--cache-max" "$CGM" solve "$A" --cache-max lots

# ---- the input was never written
assert_eq "$(sha256sum <"$A")" "$sum_before" "input unchanged"
assert_eq "$(stat -c %Y "$A")" "$mtime_before" "input's time unchanged"
finish
