#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel devices: the machine without a GPU (a CPU-only build or machine),
# the database's newest calibration of each device, stale or current, and
# a database that is missing (never created) or not a database.
source "$(dirname "$0")/lib.sh" "$@"

json() { python3 -c "import json,sys; d=json.load(open('$OUT')); print($1)"; }

# ---- no database: the hardware, and the command that calibrates
DB=$TMP/dev.db
expect_exit 0 "$CGM" devices --db "$DB"
last_stdout_contains "calibration none: cgmodel calibrate --devices cpu --db $DB"
# the mpi line says what `version` says of the build
if "$CGM" version | grep -q ", MPI"; then HAVE_MPI=True; else HAVE_MPI=False; fi
if [ $HAVE_MPI = True ]; then last_stdout_contains "mpi         built in (mpirun -n P cgmodel solve"
else last_stdout_contains "mpi         not built"; fi
[ ! -e "$DB" ] && pass || fail "devices created the database"
# how OpenMP's threads wait, as the process started: the user's setting (these tests sleep), else
# OpenMP's default (only a calibration on a busy CPU starts again spinning less: test_calibrate)
last_stdout_contains "(OpenMP, OMP_WAIT_POLICY=$OMP_WAIT_POLICY)"
expect_exit 0 env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$CGM" devices --db "$DB"
last_stdout_contains "(OpenMP, OpenMP's default)"
expect_exit 0 env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=77 "$CGM" devices --db "$DB"
last_stdout_contains "(OpenMP, GOMP_SPINCOUNT=77)"
expect_exit 0 "$CGM" devices --db "$DB" --json
CPUDEV=$(json 'd["cpu"]["device"]')
[ "$(json 'd["cpu"]["cores"] >= 1 and d["cpu"]["threads"] >= 1')" = True ] && pass || fail "cpu cores"
[ "$(json 'd["build"]["mpi"], d["database_present"], "id" in d["cpu"]["calibration"]')" = "$HAVE_MPI False False" ] &&
  pass || fail "mpi, database, calibration: $(cat "$OUT")"
if [ "$("$CGM" version | grep -c CPU-only)" = 1 ]; then
  [ "$(json 'd["gpus"], d["peer_access"], d["build"]["nccl"], d["gpus_present"]')" = "[] [] False 0" ] &&
    pass || fail "gpus of a CPU-only build: $(cat "$OUT")"
  [ "$(json '"CPU-only" in d["build"]["nccl_note"]')" = True ] && pass || fail "nccl note: $(cat "$OUT")"
  expect_exit 0 "$CGM" devices --db "$DB"
  last_stdout_contains "gpus        none (this build has no CUDA backend)"
  last_stdout_contains "nccl        not built (CPU-only build)"
else # a CUDA build: NCCL opens where the toolkit's libraries are, else says why
  [ "$(json 'd["build"]["nccl"] or "libnccl" in d["build"]["nccl_note"]')" = True ] && pass ||
    fail "nccl: $(cat "$OUT")"
fi
expect_fail 2 "unexpected argument 'x'" "$CGM" devices x
expect_fail 2 "--frob" "$CGM" devices --frob

# ---- a calibration of this CPU: current, then made by another version (stale)
run_cmd "$CGM" calibrate --devices cpu --quick --precision single --threads 1 --db "$DB"
if [ "$RC" -eq 3 ] && grep -q "disturbed" "$ERR"; then
  echo "calibration disturbed by other work: its checks skipped" >&2
elif [ "$RC" -ne 0 ]; then
  fail "calibrate: exit $RC"
  show_last
else
  # --threads 1 names the device "... (1 thread)": rename it to the default
  # thread count's, which is what devices (and solve) look for
  python3 - "$DB" "$CPUDEV" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE devices SET model = ? WHERE kind = 'cpu'", (sys.argv[2],))
c.commit()
PY
  expect_exit 0 "$CGM" devices --db "$DB" --json
  [ "$(json 'd["cpu"]["calibration"]["id"], d["cpu"]["calibration"]["stale"], d["database_present"]')" = "1 False True" ] &&
    pass || fail "current calibration: $(cat "$OUT")"
  expect_exit 0 "$CGM" devices --db "$DB"
  last_stdout_contains "calibration 1, "
  last_stdout_contains ": current (refresh: cgmodel calibrate --devices cpu --db $DB)"
  python3 - "$DB" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("UPDATE calibrations SET tool_version = '0.0.1'")
c.commit()
PY
  expect_exit 0 "$CGM" devices --db "$DB"
  last_stdout_contains "STALE (made by cgmodel 0.0.1, this build is"
  expect_exit 0 "$CGM" devices --db "$DB" --json
  [ "$(json 'd["cpu"]["calibration"]["stale"], d["cpu"]["calibration"]["tool_version"]')" = "True 0.0.1" ] &&
    pass || fail "stale calibration: $(cat "$OUT")"
fi

# ---- a file that is not a database: said, and the hardware still described
echo "not a database" >"$TMP/bad.db"
expect_exit 0 "$CGM" devices --db "$TMP/bad.db"
last_stdout_contains "database    $TMP/bad.db: "
last_stdout_contains "cpu         "
finish
