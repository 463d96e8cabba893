#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# solve --storage (docs/cli.md, docs/perf.md "Storage formats") on the CPU:
# the --json storage fields consistent with the format (dict: no value
# bytes; f32: half of full's), dict taking full's iterations exactly, f32
# not exact converging within 10% of full's iterations; and the refusals.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

P=$TMP/p.mtx
"$CGM" gen poisson3d --n 16 -o "$P" >/dev/null 2>&1
solve() { "$CGM" solve --backend cpu --no-record --json "$@"; }

for s in full compact auto; do
  expect_exit 0 solve "$P" --storage $s
  cp "$OUT" "$TMP/p_$s.json"
done
json_check "$TMP/p_full.json" \
  'j["storage"] == {"format": "full", "exact": True, "value_bytes": 2 * j["storage"]["index_bytes"], "index_bytes": j["storage"]["index_bytes"], "bytes_per_iteration": j["storage"]["bytes_per_iteration"]} and j["storage"]["index_bytes"] >= 4 * 27136' \
  "poisson full: the storage fields, 8 value bytes to 4 index bytes"
json_check "$TMP/p_compact.json" \
  'j["converged"] and j["relative_residual"] <= j["tol"] and j["storage"]["format"] == "dict" and j["storage"]["exact"] and j["storage"]["value_bytes"] == 0' \
  "poisson compact: dict, no value bytes, converged"
json_check "$TMP/p_auto.json" 'j["converged"] and j["storage"]["format"] == "full"' \
  "poisson 16^3 auto: full (its 0.3 MB of values sit in a cache, where dict costs more)"
"$CGM" gen poisson3d --n 72 -o "$TMP/p72.mtx" >/dev/null 2>&1
expect_exit 0 solve "$TMP/p72.mtx" --tol 0.1
json_check "$OUT" 'j["storage"]["format"] == "dict"' \
  "poisson 72^3 auto: dict (2.6M nonzeros, 31 MB of full values and columns)"

python3 - "$TMP/p_full.json" "$TMP/p_compact.json" >"$TMP/cmp" <<'PY'
import json, sys
f, c = (json.load(open(a)) for a in sys.argv[1:3])
ok = (c["iterations"] == f["iterations"] and c["storage"]["index_bytes"] == f["storage"]["index_bytes"]
      and c["storage"]["bytes_per_iteration"] == f["storage"]["bytes_per_iteration"] - f["storage"]["value_bytes"])
print("ok" if ok else f"full {f['iterations']} {f['storage']}, dict {c['iterations']} {c['storage']}")
PY
if [ "$(cat "$TMP/cmp")" = ok ]; then pass; else fail "dict against full: $(cat "$TMP/cmp")"; fi

K=$DATA/bcsstk15.mtx
expect_exit 0 solve "$K" --storage full
cp "$OUT" "$TMP/k_full.json"
expect_exit 0 solve "$K" --storage compact
KF=$(json_get "$TMP/k_full.json" iterations)
json_check "$OUT" \
  "j['converged'] and j['relative_residual'] <= j['tol'] and j['storage']['format'] == 'f32' and not j['storage']['exact'] and j['iterations'] <= 1.1 * $KF" \
  "bcsstk15 compact: f32, not exact, converged within 10% of full's $KF iterations"
expect_exit 0 solve "$K"
json_check "$OUT" 'j["storage"]["format"] == "full" and j["storage"]["exact"]' \
  "bcsstk15 auto: full (f32 would not be exact)"

expect_fail 2 "storage" "$CGM" solve --backend cpu "$P" --storage bogus
last_stderr_contains "auto, full or compact"
expect_fail 2 "storage compact" "$CGM" solve --backend cpu "$P" --storage compact --precision single
last_stderr_contains "precision is single"
expect_exit 0 solve "$P" --precision mixed
json_check "$OUT" 'j["storage"]["format"] == "full"' "mixed precision: auto is full"
finish
