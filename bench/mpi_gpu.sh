#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The MPI solve on GPUs against one process (docs/distributed.md): for each
# Poisson grid, interleaved rounds of
#   one process, 1 GPU (our MBR kernels, graphs)   solve --gpus 1
#   one process, G GPUs, halo exchange              solve --gpus G
#   mpirun -n 1 / -n G, one GPU a rank (NCCL halo)  solve --backend cuda --mpi
#   mpirun -n G with --exchange host
# to --tol TOL, printing iterations, the median time per iteration and the
# solve's time (the low of the rounds). Needs mpirun and G GPUs.
#   scripts/device-run.sh exec bench/mpi_gpu.sh OUTDIR G ROUNDS N...
set -uo pipefail
out=$1 G=$2 R=$3
shift 3
cg=${CGM:-build-dev/cli/cgmodel}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
mkdir -p "$out"
for n in "$@"; do
  A=$out/p$n.mtx
  [ -s "$A" ] || $cg gen poisson3d --n "$n" -o "$A" >/dev/null 2>&1
  for r in $(seq "$R"); do
    for c in "one1|$cg solve $A --gpus 1" "one$G|$cg solve $A --gpus $G --exchange halo" \
      "mpi1|mpirun -n 1 $cg solve $A --backend cuda --mpi" \
      "mpi$G|mpirun -n $G $cg solve $A --backend cuda --mpi" \
      "mpi${G}host|mpirun -n $G $cg solve $A --backend cuda --mpi --exchange host"; do
      name=${c%%|*}
      # shellcheck disable=SC2086
      timeout 300 ${c#*|} --tol "${TOL:-1e-8}" --no-record --json >"$out/$n.$name.$r.json" \
        2>"$out/$n.$name.$r.err"
    done
  done
done
python3 - "$out" "$@" <<'PY'
import glob, json, sys
out = sys.argv[1]
print("%-6s %-10s %6s %10s %10s %9s %s" % ("n", "run", "iters", "us/iter", "solve_s", "resid", "device"))
for n in sys.argv[2:]:
    names = sorted({f.split(".")[1] for f in glob.glob("%s/%s.*.json" % (out, n))})
    for name in names:
        js = []
        for f in glob.glob("%s/%s.%s.*.json" % (out, n, name)):
            try:
                js.append(json.load(open(f)))
            except ValueError:
                pass
        if not js:
            print("%-6s %-10s failed" % (n, name))
            continue
        b = min(js, key=lambda j: j["time_per_iter_s"])
        print("%-6s %-10s %6d %10.1f %10.4f %9.1e %s %s" % (n, name, b["iterations"],
              1e6 * b["time_per_iter_s"], min(j["time_solve_s"] for j in js),
              b["relative_residual"], b["device"], b.get("mpi", {}).get("exchange", "")))
PY
