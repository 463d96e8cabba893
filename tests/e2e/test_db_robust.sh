#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The database survives what users' machines do to it: calibrate killed
# with SIGKILL at random points (12 times), a calibration and predictions
# running at once on one file, a read-only database, and a full disk. After
# each: PRAGMA integrity_check is ok, every earlier calibration is intact,
# and the next calibrate works.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

A=$DATA/bcsstk16.mtx
CAL=("$CGM" calibrate --devices cpu --quick --precision single --threads 1)

# integrity_check, and the complete calibrations, through Python's sqlite3
# (independent of cgmodel's reader).
db_state() {
  python3 - "$1" <<'EOF'
import sqlite3, sys
c = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
ic = c.execute("PRAGMA integrity_check").fetchone()[0]
done = c.execute("SELECT COUNT(*) FROM calibrations WHERE complete = 1").fetchone()[0]
fits = c.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
print(ic, done, fits)
EOF
}

expect_exit 0 "${CAL[@]}"
read -r ic0 n0 fits0 <<<"$(db_state "$CGMODEL_DB")"
assert_eq "$ic0" ok "integrity after the first calibration"
assert_eq "$n0" 1 "one complete calibration"

# ---- SIGKILL at random points, 12 times (4 in a sanitized build, there for memory safety)
kills=12
if [ -n "${CGM_TEST_SANITIZED:-}" ]; then kills=4; fi
for i in $(seq 1 "$kills"); do
  "${CAL[@]}" >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c "import random; print(round(random.uniform(0.05, 2.5), 2))")"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  read -r ic n fits <<<"$(db_state "$CGMODEL_DB")"
  if [ "$ic" != ok ]; then fail "integrity_check after kill $i: $ic"; else pass; fi
  # A kill leaves either nothing or a whole calibration (one transaction).
  if [ "$n" -lt 1 ] || [ "$fits" -lt "$fits0" ]; then fail "earlier calibration damaged after kill $i ($n, $fits)"; else pass; fi
done
expect_exit 0 "$CGM" db list --json
json_check "$OUT" 'all(c["complete"] for c in j["calibrations"])' "only complete calibrations after the kills"
expect_exit 0 "$CGM" predict "$A" --json

# ---- a calibration and predictions on one file at once (the calibration after the kills: it works)
"${CAL[@]}" >"$TMP/cal.out" 2>"$TMP/cal.err" &
cal=$!
bad=0
for i in $(seq 1 15); do
  "$CGM" predict "$A" --json >/dev/null 2>"$TMP/pred.err" || bad=$((bad + 1))
  "$CGM" solve "$A" --backend cpu --block 2 --json >/dev/null 2>>"$TMP/pred.err" || bad=$((bad + 1))
done
wait "$cal"
rc=$?
assert_eq "$rc" 0 "calibrate beside predictions and solves (stderr: $(head -c 300 "$TMP/cal.err"))"
assert_eq "$bad" 0 "predictions and solves beside a calibration ($(head -c 300 "$TMP/pred.err"))"
read -r ic n fits <<<"$(db_state "$CGMODEL_DB")"
assert_eq "$ic" ok "integrity after concurrent use"

# ---- a read-only database: reading works, writing says so, nothing changes
cp "$CGMODEL_DB" "$TMP/ro.db"
sum0=$(cksum < "$TMP/ro.db")
export CGMODEL_DB_READONLY=1
expect_exit 0 "$CGM" predict "$A" --db "$TMP/ro.db" --json
expect_fail 2 "read-only" "${CAL[@]}" --db "$TMP/ro.db"
expect_exit 0 "$CGM" solve "$A" --backend cpu --db "$TMP/ro.db" --json
last_stderr_contains "not recorded"
expect_exit 0 "$CGM" devices --db "$TMP/ro.db" --json
expect_exit 0 "$CGM" db list --db "$TMP/ro.db"
unset CGMODEL_DB_READONLY
assert_eq "$(cksum < "$TMP/ro.db")" "$sum0" "read-only database unchanged"

# ---- a full disk: a file-size limit makes the writes fail; the error is
# clear and nothing stored before is lost (SIGXFSZ ignored, so writes
# return EFBIG the way a full disk returns ENOSPC).
cp "$CGMODEL_DB" "$TMP/full.db"
rm -f "$TMP/full.db-wal" "$TMP/full.db-shm"
read -r ic_f n_f fits_f <<<"$(db_state "$TMP/full.db")"
# The limit is per file: the WAL, where SQLite writes the transaction, may
# grow to 16 KiB, less than a calibration's pages.
limit=16
run_cmd bash -c "trap '' XFSZ; ulimit -f $limit; exec \"\$@\"" _ "${CAL[@]}" --db "$TMP/full.db"
if [ "$RC" -ne 0 ]; then pass; else fail "calibrate into a full disk succeeded"; show_last; fi
if grep -qiE "full|too large|I/O" "$ERR"; then pass; else fail "no clear disk-full error"; show_last; fi
read -r ic n fits <<<"$(db_state "$TMP/full.db")"
assert_eq "$ic" ok "integrity after the full disk"
assert_eq "$n $fits" "$n_f $fits_f" "nothing lost or half-written on the full disk"
finish
