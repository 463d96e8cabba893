#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the wall time of one `cgmodel solve` goes: runs the solve of FILE
# REPS times (the first may be a cache miss, the rest hit the matrix cache)
# and prints, a line a run, the whole command's wall clock beside the
# phases `solve --json` reports (read, analyse, check, setup = layout +
# upload, solve, finish; docs/cli.md) and how the cache served it.
# Usage: bench/solve_phases.sh BUILD_DIR FILE [REPS] [solve options...]
set -euo pipefail
build=$1 file=$2 reps=${3:-4}
shift 2
shift || true
cg=$build/cli/cgmodel
printf "%-3s %6s %5s %5s | %5s %7s %5s %5s %6s %6s %5s %6s | %6s\n" run wall cache check \
  read analyse check setup layout upload solve finish total
for ((i = 0; i < reps; i++)); do
  t0=$(date +%s.%N)
  j=$("$cg" solve "$file" --json "$@" 2>/dev/null || true)
  t1=$(date +%s.%N)
  python3 - "$i" "$t0" "$t1" "$j" <<'PY'
import json, sys
i, t0, t1, text = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
try:
    j = json.loads(text)
except ValueError:
    print(f"{i:<3} {t1 - t0:6.3f} the solve printed no JSON")
    sys.exit(0)
c = j.get("cache", {})
t = lambda k: j.get("time_" + k + "_s", float("nan"))
print(f"{i:<3} {t1 - t0:6.3f} {c.get('outcome', '-'):>5} {str(c.get('check', '-')):>5} | "
      f"{t('read'):5.3f} {t('analyse'):7.3f} {t('check'):5.3f} {t('setup'):5.3f} {t('layout'):6.3f} "
      f"{t('upload'):6.3f} {t('solve'):5.3f} {t('finish'):6.3f} | {t('total'):6.3f}")
PY
done
