#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The model per matrix family: one calibration (OUTDIR/v.db, a full one
# unless it exists), then `cgmodel validate` over generated families at
# several sizes (Poisson 3D, elasticity, random geometric meshes numbered
# sorted and at random, Kronecker sums of a bundled matrix, power-law and
# uniform random rows, P1 tetrahedra where SciPy is present) and the bundled
# SPD matrices. Prints, per family and per block size x
# precision, the average |error| and the mean signed error of the refined
# model's time per iteration, and the tuner's regret. The model is not fitted
# to any of these matrices: the calibration sweeps its own.
# Run on a GPU machine from the repository root (after scripts/device-run.sh):
#   bench/validate_families.sh BUILD_DIR OUTDIR [--quick] [--small|--medium|--heldout]
# --medium: the largest size of each family left out (one device call);
# --small: only the sizes below 5M nonzeros (a CPU dry run);
# --heldout: other sizes, seeds and families than these (P1 tetrahedra of seed 7, a random geometric
# graph, meshes of 12 neighbours and of stiffness jumps, wider uniform rows, elasticity 40^3) beside
# Poisson 96^3, no bundled matrices: a check of a model change on matrices it was not developed on.
# Environment: VALIDATE_TIMEOUT (seconds, default none), VALIDATE_ARGS (more
# options for validate, e.g. "--backend cuda").
set -euo pipefail
build=$1 out=$2
shift 2
quick="" small=0
for a in "$@"; do
  case "$a" in
    --quick) quick=--quick ;;
    --small) small=1 ;;
    --medium) small=2 ;;
    --heldout) small=3 ;;
    *) echo "usage: $0 BUILD_DIR OUTDIR [--quick] [--small|--medium|--heldout]" >&2; exit 2 ;;
  esac
done
cg=$build/cli/cgmodel
mkdir -p "$out/m"
db=$out/v.db
if [ ! -e "$db" ]; then
  t0=$(date +%s.%N)
  "$cg" calibrate $quick --precision both --db "$db" --json >"$out/calibrate.json" 2>"$out/calibrate.err"
  echo "calibration ${quick:-full}: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
fi
list=$out/list.txt
: >"$list"
# family:kind:n[:extra options]; sizes from ~0.1M to >= 20M nonzeros
specs=(poisson3d:poisson3d:48 poisson3d:poisson3d:96 poisson3d:poisson3d:160
  elasticity:elasticity3d:16 elasticity:elasticity3d:32 elasticity:elasticity3d:56
  mesh-sorted:mesh3d:20000 mesh-sorted:mesh3d:200000 mesh-sorted:mesh3d:400000
  mesh-random:mesh3d:20000:--numbering=random mesh-random:mesh3d:200000:--numbering=random
  mesh-random:mesh3d:400000:--numbering=random
  powerlaw:random:100000:--dist=powerlaw powerlaw:random:1000000:--dist=powerlaw
  powerlaw:random:3000000:--dist=powerlaw
  uniform:random:250000:--dist=uniform uniform:random:1000000:--dist=uniform
  uniform:random:3000000:--dist=uniform)
[ $small = 2 ] && specs=(poisson3d:poisson3d:48 poisson3d:poisson3d:96 elasticity:elasticity3d:16
  elasticity:elasticity3d:32 mesh-sorted:mesh3d:20000 mesh-sorted:mesh3d:200000
  mesh-random:mesh3d:20000:--numbering=random mesh-random:mesh3d:200000:--numbering=random
  powerlaw:random:100000:--dist=powerlaw)
[ $small = 3 ] && specs=(poisson3d:poisson3d:96 elasticity:elasticity3d:40
  "mesh12-random:mesh3d:100000:--numbering=random --k=12 --seed=7"
  "mesh-contrast:mesh3d:50000:--contrast=100 --seed=7" "uniform12:random:500000:--avg=12 --seed=7")
[ $small = 1 ] && specs=(poisson3d:poisson3d:24 elasticity:elasticity3d:10 mesh-sorted:mesh3d:5000
  mesh-random:mesh3d:5000:--numbering=random powerlaw:random:20000:--dist=powerlaw)
for spec in "${specs[@]}"; do
  IFS=: read -r fam kind n extra <<<"$spec"
  f=$out/m/${fam}_$n.mtx
  # shellcheck disable=SC2086 # extra is options or none
  [ -e "$f" ] || "$cg" gen "$kind" --n "$n" ${extra:+$extra} --symmetric -o "$f" 2>/dev/null
  echo "$f" >>"$list"
done
# a Kronecker sum of a bundled 2D mesh with a 1D Laplacian (an extruded mesh)
k=$out/m/kron_bcsstk08_64.mtx
[ $small != 0 ] || { [ -e "$k" ] || "$cg" gen kron --with data/matrices/bcsstk08.mtx --k 64 -o "$k" 2>/dev/null; } &&
  [ -e "$k" ] && echo "$k" >>"$list"
# P1 finite elements on Delaunay tetrahedra (bench/p1_mesh.py, SciPy): partly filled blocks at N = 2, 4
p1=(p1-laplace:laplace:150000:morton:1 p1-laplace:laplace:150000:random:1
  p1-elasticity:elasticity:100000:random:1)
[ $small = 3 ] && p1=(p1-laplace:laplace:200000:morton:7 p1-laplace:laplace:100000:random:7
  p1-elasticity:elasticity:60000:morton:7 p1-laplace:laplace:150000:morton:1)
if [ $small != 1 ] && python3 -c "import scipy.spatial" 2>/dev/null; then
  for spec in "${p1[@]}"; do
    IFS=: read -r fam kind n numbering seed <<<"$spec"
    f=$out/m/${fam}_${n}_${numbering}_s$seed.mtx
    [ -e "$f" ] || timeout 200 python3 bench/p1_mesh.py "$kind" "$n" "$numbering" "$f" "$seed" 2>/dev/null ||
      rm -f "$f"
    [ -e "$f" ] && echo "$f" >>"$list"
  done
  # a random geometric graph's Laplacian in 3D: 300k points, 14 neighbours on average
  f=$out/m/rgg3d_300000.mtx
  [ $small != 3 ] || [ -e "$f" ] || timeout 100 python3 -c "import sys; sys.path.insert(0, 'bench/k_probe')
import gen, scipy.io, scipy.sparse as sp
A = gen.rgg(300000, 3, 14, 1e-3, 7)
scipy.io.mmwrite(sys.argv[1], sp.tril(sp.csr_matrix(A)).tocoo(), symmetry='symmetric')" "$f" || rm -f "$f"
  [ -e "$f" ] && echo "$f" >>"$list"
fi
[ $small = 3 ] || awk -F'\t' '$7 == "yes" {print "data/matrices/" $1 ".mtx"}' data/matrices/MANIFEST.tsv >>"$list"
# VALIDATE_TIMEOUT=S: stop validate after S seconds (what it measured by then is summarised)
timeout "${VALIDATE_TIMEOUT:-0}" "$cg" validate "$list" --precision both --iters 100 --repeat 3 --db "$db" \
  ${VALIDATE_ARGS:-} --csv "$out/validate.csv" --json >"$out/validate.json" 2>"$out/validate.err" || true
[ -s "$out/validate.csv" ] || { echo "validate measured nothing (see $out/validate.err)" >&2; exit 1; }
python3 - "$out/validate.csv" "$out/validate.json" <<'PY'
import csv, json, re, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
def family(m):
    m = re.sub(r"\.mtx$", "", m)
    g = re.match(r"(poisson3d|elasticity|mesh-sorted|mesh-random|mesh12-random|mesh-contrast|powerlaw|uniform12|uniform|kron|p1-laplace|p1-elasticity|rgg3d)_", m)
    return g.group(1) if g else "bundled"
groups = defaultdict(list)
for r in rows:
    p, t = float(r["predicted_s"]), float(r["measured_s"])
    if t > 0:
        e = (p - t) / t
        groups[(family(r["matrix"]), "all")].append(e)
        groups[("all", "%s %s N=%s" % (r["backend"], r["precision"], r["block"]))].append(e)
print("%-12s %-26s %5s %10s %12s" % ("family", "configurations", "n", "avg |err|", "mean signed"))
for (fam, cfg), es in sorted(groups.items()):
    print("%-12s %-26s %5d %9.1f%% %+11.1f%%" % (fam, cfg, len(es), 100 * sum(abs(e) for e in es) / len(es),
          100 * sum(es) / len(es)))
try:
    t = json.load(open(sys.argv[2]))["tuner"]
    print("tuner: mean regret %.3f, max %.3f, within 5%%: %.0f%%, within 10%%: %.0f%%" % (
        t["mean_regret"], t["max_regret"], 100 * t["within_5_percent"], 100 * t["within_10_percent"]))
except Exception as e:  # validate failed: its stderr says why
    print("tuner: no report (%s)" % e)
PY
