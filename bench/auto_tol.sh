#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# solve --auto against solve --precision double at tolerances 1e-6..1e-12
# over bundled and generated SPD matrices: the tolerance is a requirement,
# so --auto may exit 1 only where double does too. Wall clock of each whole
# command (read, setup, solve). Run on a GPU machine from the repository
# root (after scripts/device-run.sh has linked the tree):
#   bench/auto_tol.sh BUILD_DIR OUTDIR [TOLS]
set -euo pipefail
build=$1 out=$2 tols=${3:-"1e-6 1e-8 1e-10 1e-12"}
cg=$build/cli/cgmodel
mkdir -p "$out/m"
db=$out/auto.db
[ -e "$db" ] || "$cg" calibrate --quick --db "$db" >"$out/calibrate.txt" 2>&1
gen() { [ -e "$out/m/$1.mtx" ] || "$cg" gen "${@:2}" -o "$out/m/$1.mtx" 2>/dev/null; echo "$out/m/$1.mtx"; }
mats=(
  "$(gen poisson2d_1000 poisson2d --n 1000)"
  "$(gen poisson3d_64 poisson3d --n 64)"
  "$(gen poisson3d_128 poisson3d --n ${BIG3D:-128})"
  "$(gen elasticity3d_24 elasticity3d --n 24)"
  "$(gen elasticity3d_40 elasticity3d --n 40)"
  "$(gen random_200k random --n 200000 --avg 16)"
)
for f in data/matrices/*.mtx; do
  # the SPD ones (the manifest says which)
  awk -F'\t' -v n="$(basename "$f" .mtx)" '$1 == n && $7 == "yes" {ok = 1} END {exit !ok}' \
    data/matrices/MANIFEST.tsv && mats+=("$f")
done
run() { # label tol args... -> one JSON line with exit and wall seconds
  local t0 t1 rc=0 j
  t0=$(date +%s.%N)
  j=$("$cg" solve "$@" --db "$db" --no-record --json 2>/dev/null) || rc=$?
  t1=$(date +%s.%N)
  python3 - "$rc" "$t0" "$t1" "$j" <<'PY'
import json, sys
rc, t0, t1, j = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
try:
    d = json.loads(j)
except Exception:
    d = {}
print(json.dumps({"rc": rc, "wall": t1 - t0, "prec": d.get("precision", "-"),
                  "res": d.get("relative_residual", float("nan")), "it": d.get("iterations", 0),
                  "backend": d.get("backend", "-"), "block": d.get("block", 0)}))
PY
}
printf "%-22s %6s | %4s %9s %7s | %4s %-7s %-6s %9s %7s %6s\n" matrix tol rc residual wall rc auto backend residual wall ratio
bad=0 n=0
for m in "${mats[@]}"; do
  for tol in $tols; do
    d=$(run "$m" --precision double --tol "$tol")
    a=$(run "$m" --auto --tol "$tol")
    line=$(python3 - "$m" "$tol" "$d" "$a" <<'PY'
import json, os, sys
m, tol, d, a = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
bad = int(d["rc"] == 0 and a["rc"] != 0)
print(bad, "%-22s %6s | %4d %9.2e %7.2f | %4d %-7s %-6s %9.2e %7.2f %6.2f" % (
    os.path.basename(m)[:22], tol, d["rc"], d["res"], d["wall"], a["rc"], a["prec"], a["backend"],
    a["res"], a["wall"], a["wall"] / d["wall"]))
PY
)
    bad=$((bad + ${line%% *})); n=$((n + 1))
    echo "${line#* }"
  done
done
echo "auto exited non-zero where double converged: $bad of $n"
