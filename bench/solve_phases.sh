#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the wall time of one `cgmodel solve` goes: runs the solve of FILE
# REPS times (the first may be a cache miss, the rest hit the matrix cache)
# and prints, a line a run, the whole command's wall clock beside the
# phases `solve --json` reports (read, analyse, check, setup = layout +
# upload, solve, finish; docs/cli.md) and how the cache served it (`cache`:
# miss or hit; `skip`: the matrix's checks skipped on a verified hit).
# Usage: bench/solve_phases.sh BUILD_DIR FILE [REPS] [solve options...]
set -euo pipefail
usage="usage: $0 BUILD_DIR FILE [REPS] [solve options...]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
build=$1 file=$2 reps=4
shift 2
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then
  reps=$1
  shift
fi
cg=$build/cli/cgmodel
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-3s %6s %5s %5s | %5s %7s %5s %5s %6s %6s %5s %6s | %6s\n" run wall cache skip \
  read analyse check setup layout upload solve finish total
for ((i = 0; i < reps; i++)); do
  t0=$(date +%s.%N)
  "$cg" solve "$file" --json "$@" >"$tmp/out.json" 2>"$tmp/err.txt" || true
  t1=$(date +%s.%N)
  python3 - "$i" "$t0" "$t1" "$tmp/out.json" "$tmp/err.txt" <<'PY'
import json, sys
i, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
try:
    j = json.load(open(sys.argv[4]))
except ValueError:
    err = open(sys.argv[5]).read().strip().splitlines()
    print(f"{i:<3} {t1 - t0:6.3f} no JSON: {err[0] if err else 'no message'}")
    sys.exit(0)
c = j.get("cache", {})
t = lambda k: j.get("time_" + k + "_s", float("nan"))
print(f"{i:<3} {t1 - t0:6.3f} {c.get('outcome', '-'):>5} {str(c.get('check', '-')):>5} | "
      f"{t('read'):5.3f} {t('analyse'):7.3f} {t('check'):5.3f} {t('setup'):5.3f} {t('layout'):6.3f} "
      f"{t('upload'):6.3f} {t('solve'):5.3f} {t('finish'):6.3f} | {t('total'):6.3f}")
PY
done
