#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Portable calibrations and what-ifs on a machine without the GPU: a GPU's
# calibration written as `db export` writes it, brought in with `db import`
# (refused again, and a file that is no export refused), exported back the
# same; then `predict --gpus 4` on a Poisson grid and a bundled matrix gives
# 4-GPU rows marked what-if with the profile that priced them (the built-in
# pcie-host unless another is named), their speed-ups over the 1-GPU row,
# and an exchange that costs what the profile says; one GPU's measured
# host-staged profile prices its what-ifs instead, unless --interconnect
# pcie-host is given or this machine measured several GPUs, and its fits
# are the link its samples say; `map --gpus 4` draws the what-if.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

DB=$TMP/what-if.db
X=$TMP/h200.json
# A GPU calibrated on one GPU of another machine: the curves the refined
# model needs, in double precision (relative fits), and one sample.
python3 - "$X" <<'PY'
import json, sys
fit = lambda k, v, b, mu, nu: {"kernel": k, "variant": v, "precision": "double", "block": b,
    "kind": "rel", "mu": mu, "sigma": 1.6, "nu": nu, "se_mu": 0.1, "se_sigma": 0.01,
    "se_nu": 10, "r2": 0.99, "rms": 1, "n": 20, "converged": True}
json.dump({"id": 7, "created": "2026-11-29T10:00:00.000Z", "tool_version": "0.2.4",
    "seconds": 300, "complete": True,
    "options": {"device": "cuda:0", "gpus": 1, "quick": True, "cg": "cgg"},
    "device": {"id": 3, "kind": "cuda", "name": "cuda:0", "model": "Test H200",
               "host": "gpu-node", "compute_capability": "9.0", "sms": 132,
               "memory_bytes": 150000000000},
    "fits": [fit("cg4", "", 0, 21.5, 4000), fit("cg5", "", 0, 19.5, 4300)] +
            [fit("spmv", "mesh", b, 21.5, 3500) for b in (1, 2, 4, 8)],
    "samples": [{"kernel": "cg4", "variant": "", "precision": "double", "block": 0, "m": 1e6,
                 "bytes": 8e6, "seconds": 2.5e-5, "gbps": 320}],
    "coefficients": [{"name": "x_sector", "precision": "double", "value": 0.5, "rms": 0.1, "n": 5}]},
    open(sys.argv[1], "w"))
PY

# ---- db import: added once, refused again, the export back the same
expect_exit 0 "$CGM" db import "$X" --db "$DB"
last_stdout_contains "calibration 1 imported from $X"
expect_fail 2 "is calibration 1 of $DB already: nothing imported" "$CGM" db import "$X" --db "$DB"
echo '{"device": {"kind": "cuda"}}' >"$TMP/no.json"
expect_fail 2 "$TMP/no.json: not a calibration as 'cgmodel db export' writes it" "$CGM" db import "$TMP/no.json" --db "$DB"
printf '{\n  "fits": [\n' >"$TMP/cut.json"
expect_fail 2 "$TMP/cut.json:3: not JSON" "$CGM" db import "$TMP/cut.json" --db "$DB"
expect_fail 2 "that is the database, not an export" "$CGM" db import "$DB" --db "$DB"
expect_fail 2 "db import needs the FILE" "$CGM" db import --db "$DB"
expect_exit 0 "$CGM" db list --db "$DB"
assert_eq "$(grep -c 'Test H200' "$OUT")" 1 "one calibration after the refused imports"
expect_exit 0 "$CGM" db export 1 -o "$TMP/back.json" --db "$DB"
python3 - "$X" "$TMP/back.json" <<'PY' && pass || fail "the export of the import is not the file imported"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for o in (a, b, a["device"], b["device"]):
    o.pop("id")
assert a == b, (a, b)
PY

# ---- predict on 4 GPUs, none of them here: what-ifs
expect_exit 0 "$CGM" gen poisson3d --n 40 -o "$TMP/grid.mtx"
for M in "$TMP/grid.mtx" "$DATA/bcsstk16.mtx"; do
  expect_exit 0 "$CGM" predict "$M" --gpus 4 --exchange all --json --db "$DB"
  cp "$OUT" "$TMP/p.json"
  json_check "$TMP/p.json" 'sorted({c["gpus"] for c in j["candidates"]}) == [1, 2, 3, 4]' "$M: rows on 1 to 4 GPUs"
  json_check "$TMP/p.json" 'all(c["what_if"] for c in j["candidates"] if c["backend"] == "cuda")' "$M: every GPU row a what-if (no Test H200 here)"
  json_check "$TMP/p.json" 'all(c["interconnect"] == "pcie-host" for c in j["candidates"] if c["gpus"] > 1)' "$M: priced by the built-in pcie-host"
  json_check "$TMP/p.json" 'all(abs(c["speedup"] - o["time_per_iter_s"] / c["time_per_iter_s"]) < 1e-9 * c["speedup"] for c in j["candidates"] for o in j["candidates"] if o["gpus"] == 1 and (o["block"], o["precision"]) == (c["block"], c["precision"]))' "$M: the speed-ups over the 1-GPU row"
  # p2p and host move the whole vector from the same segments: their times
  # differ by the profile's copy of the bytes they differ by, 55 GB/s
  json_check "$TMP/p.json" 'all(abs((h["time_per_iter_s"] - p["time_per_iter_s"]) - (h["exchange_bytes"] - p["exchange_bytes"]) / 55e9) < 1e-9 * h["time_per_iter_s"] for h in j["candidates"] for p in j["candidates"] if (h.get("exchange"), p.get("exchange")) == ("host", "p2p") and (h["gpus"], h["block"], h["precision"]) == (p["gpus"], p["block"], p["precision"]))' "$M: the exchange as the profile prices it"
  json_check "$TMP/p.json" 'j["request"]["gpus"] == 4 and j["choice"]["what_if"]' "$M: the choice is a what-if"
done
expect_exit 0 "$CGM" predict "$TMP/grid.mtx" --gpus 4 --db "$DB"
last_stdout_contains "(what-if: pcie-host)"
last_stdout_contains " 4 halo "
last_stdout_contains "(what-if)"
expect_fail 2 "interconnect 'nvlink:none': no calibration in $DB measured it" "$CGM" predict "$TMP/grid.mtx" --gpus 4 --interconnect nvlink:none --db "$DB"

# ---- one GPU's measured host-staged profile (its calibration's xfer/host
# fits for 2..8 GPUs): the default of its what-ifs. A link of 20 GB/s after
# 100 us (sigma = 1 / ln 2: t = 100 us + b / 20 GB/s), slower than
# pcie-host's 55 GB/s after 32 us: every exchange costs the difference.
S=$TMP/staged.json
SDB=$TMP/staged.db
python3 - "$X" "$S" <<'PY'
import json, math, socket, sys
c = json.load(open(sys.argv[1]))
c["interconnect"] = "pcie-host:Test H200"
c["device"]["host"] = socket.gethostname()  # this machine's, as calibrate records it
lat, nu = 100e-6, 20.0
c["fits"] += [dict(c["fits"][0], kernel="xfer", variant="host", block=G, sigma=1 / math.log(2),
                   mu=math.log2(lat * nu * 1e9 / 8), nu=nu) for G in range(2, 9)]
json.dump(c, open(sys.argv[2], "w"))
PY
expect_exit 0 "$CGM" db import "$S" --db "$SDB"
expect_exit 0 "$CGM" db list --db "$SDB"
last_stdout_contains "pcie-host:Test H200"
expect_exit 0 "$CGM" predict "$TMP/grid.mtx" --gpus 4 --exchange all --json --db "$SDB"
cp "$OUT" "$TMP/measured.json"
expect_exit 0 "$CGM" predict "$TMP/grid.mtx" --gpus 4 --exchange all --json --interconnect pcie-host --db "$SDB"
cp "$OUT" "$TMP/builtin.json"
json_check "$TMP/measured.json" 'all(c["interconnect"] == "pcie-host:Test H200" and c["what_if"] for c in j["candidates"] if c["gpus"] > 1) and any(c["gpus"] == 4 for c in j["candidates"])' "the measured profile prices 2-4 GPUs"
json_check "$TMP/builtin.json" 'all(c["interconnect"] == "pcie-host" for c in j["candidates"] if c["gpus"] > 1)' "--interconnect pcie-host: the built-in"
python3 - "$TMP/measured.json" "$TMP/builtin.json" <<'PY' && pass || fail "the exchange is not priced by the measured profile"
import json, sys
m, b = (json.load(open(p))["candidates"] for p in sys.argv[1:])
key = lambda c: (c["gpus"], c.get("exchange"), c["block"], c["precision"], c["backend"])
b = {key(c): c for c in b}
assert len(m) == len(b)
for c in m:
    o = b[key(c)]
    # every mode's bytes through the measured link instead of the built-in one
    want = 0.0 if c["gpus"] == 1 else (100e-6 + c["exchange_bytes"] / 20e9) - (32e-6 + c["exchange_bytes"] / 55e9)
    got = c["time_per_iter_s"] - o["time_per_iter_s"]
    assert abs(got - want) <= 1e-9 * c["time_per_iter_s"], (key(c), got, want)
    assert c["gpus"] == 1 or got > 0, key(c)
PY
# Its fits come from its samples: host-staged exchanges of 2..8 GPUs timed
# as 60 us + 50 GB/s, refitted (as a calibration fits them), give that link.
python3 - "$S" "$TMP/samples.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["samples"] = [{"kernel": "xfer", "variant": "host", "precision": "double", "block": G,
                 "m": G * 2.0**e, "bytes": G * 2.0**e * 8, "seconds": 60e-6 + G * 2.0**e * 8 / 50e9}
                for e in range(8, 23, 2) for G in range(2, 9)]
json.dump(c, open(sys.argv[2], "w"))
PY
expect_exit 0 "$CGM" db import "$TMP/samples.json" --db "$TMP/samples.db"
expect_exit 0 "$CGM" db refit 1 --db "$TMP/samples.db"
python3 - "$TMP/samples.db" <<'PY' && pass || fail "the host-staged samples' fits are not their link"
import math, sqlite3, sys
f = sqlite3.connect(sys.argv[1]).execute("SELECT block, mu, sigma, nu FROM fits WHERE kernel = "
                                         "'xfer' AND variant = 'host' AND kind = 2 AND converged")
f = {G: (mu, sigma, nu) for G, mu, sigma, nu in f}
assert sorted(f) == list(range(2, 9)), f
for G, (mu, sigma, nu) in f.items():
    m = G * 256.0
    t = 8 * m / (nu * 1e9 / (1 + math.exp(-(math.log2(m) - mu) / sigma)))
    assert abs(nu - 50) < 1 and abs(t - (60e-6 + m * 8 / 50e9)) < 3e-6, (G, nu, t)
PY
# A profile of several GPUs measured on this machine comes first: an older
# calibration of 4 GPUs of the same device, peer access at 300 GB/s.
python3 - "$S" "$TMP/peer.json" <<'PY'
import json, math, sys
c = json.load(open(sys.argv[1]))
c["interconnect"], c["created"], c["options"]["gpus"] = "peer:Test H200", "2026-11-28T10:00:00.000Z", 4
c["fits"] = [f for f in c["fits"] if f["kernel"] != "xfer"] + [
    dict(f, variant=v, nu=300.0) for f in c["fits"] if f["kernel"] == "xfer" and f["block"] <= 4
    for v in ("host", "p2p", "nccl", "halo")]
json.dump(c, open(sys.argv[2], "w"))
PY
expect_exit 0 "$CGM" db import "$TMP/peer.json" --db "$SDB"
expect_exit 0 "$CGM" predict "$TMP/grid.mtx" --gpus 4 --json --db "$SDB"
json_check "$OUT" 'all(c["interconnect"] == "peer:Test H200" for c in j["candidates"] if c["gpus"] > 1)' "a profile of several GPUs before one GPU's"

# ---- map on 4 GPUs: the what-if in the title
if command -v gnuplot >/dev/null 2>&1; then
  expect_exit 0 "$CGM" map --gpus 4 -o "$TMP/map.svg" --db "$DB"
  if grep -q "what-if: pcie-host" "$TMP/map.gp"; then pass; else fail "map.gp: no what-if in the title"; fi
fi
finish
