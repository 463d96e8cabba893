#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A GPU solve's record carries the features of the block size it runs,
# counted for its prediction (recording counts nothing more: it never slows
# the answer), equal to `info --json`'s for that block size, on a cold solve
# (nothing cached) and on a warm one (features cached).
# Exits 77 (skipped) without a GPU.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh" "$@"

"$CGM" devices 2>/dev/null | grep -q 'cuda:0' || { echo "no GPU: skipped"; exit 77; }
A=$TMP/e.mtx
run_cmd "$CGM" gen elasticity3d --n 10 -o "$A"
run_cmd "$CGM" info "$A" --json
cp "$OUT" "$TMP/info.json"
: >"$TMP/t.db" # an empty database: the solve records into it
for round in cold warm; do
  expect_exit 0 "$CGM" solve "$A" --backend cuda --block 4 --db "$TMP/t.db" --json
  python3 - "$TMP/t.db" "$TMP/info.json" "$round" <<'PY' || fail "$round: the recorded features differ from info --json's"
import json, sqlite3, sys
db, info, round_ = sys.argv[1:]
rows = sqlite3.connect(db).execute("SELECT features FROM matrices").fetchall()
assert len(rows) == 1, "%d matrices recorded" % len(rows)
rec = json.loads(rows[0][0])["blocks"]
want = json.load(open(info))["blocks"]
assert [b["N"] for b in rec] == [4], rec
for r, w in zip(rec, [b for b in want if b["N"] == 4]):
    for k, v in w.items():
        assert r[k] == v, "%s: block %d: %s %r, info %r" % (round_, w["N"], k, r[k], v)
PY
  pass
  nsolves=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM solves').fetchone()[0])" "$TMP/t.db")
  [ "$round" = cold ] && want=1 || want=2
  assert_eq "$nsolves" "$want" "$round: the solve is recorded"
done
finish
