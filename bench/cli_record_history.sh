#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What recording costs `cgmodel solve` as its database grows: each build's recorded solve against its
# --no-record one, interleaved, ROUNDS times each, the least and the median of each (seconds, the
# command's wall clock), first on a copy of DB with a few solves of MATRIX, then after HISTORY more
# solves (bench/python_record_history.py's copies of the newest, spread over every matrix).
#
# usage: bench/cli_record_history.sh OLD_CGMODEL NEW_CGMODEL DB MATRIX [ROUNDS] [HISTORY] [SOLVE OPTIONS...]
set -euo pipefail
export LC_ALL=C # $EPOCHREALTIME's decimal point
old=$1 new=$2 src=$3 mtx=$4 rounds=${5:-7} history=${6:-100000}
shift $(($# < 6 ? $# : 6))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db=$work/cal.db
cp "$src" "$db"
export CGMODEL_CACHE_DIR=$work/cache
for _ in 1 2 3; do "$new" solve "$mtx" --db "$db" "$@" >/dev/null 2>&1; done
stats() { sort -g | awk '{v[NR] = $1} END {printf "least %.4f median %.4f", v[1], v[int((NR + 1) / 2)]}'; }
run() {
  for b in old new; do for how in recorded no-record; do : >"$work/$b.$how"; done; done
  for _ in $(seq "$rounds"); do
    for b in old new; do
      exe=$old
      [ "$b" = new ] && exe=$new
      for how in recorded no-record; do
        flag=()
        [ "$how" = no-record ] && flag=(--no-record)
        t0=$EPOCHREALTIME
        "$exe" solve "$mtx" --db "$db" "${flag[@]}" "$@" >/dev/null 2>&1
        t1=$EPOCHREALTIME
        awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}' >>"$work/$b.$how"
      done
    done
  done
  for b in old new; do
    for how in recorded no-record; do echo "  $b $how: $(stats <"$work/$b.$how") s"; done
  done
}
echo "$(basename "$mtx"), $rounds rounds, options: $*"
echo " the database with a few solves, $(du -k "$db" | cut -f1) KB:"
run
here=$(cd "$(dirname "$0")" && pwd)
added=$(python3 -c "import sys; sys.path.insert(0, '$here'); import python_record_history as h; print(h.grow('$db', $history))")
echo " after $added more solves, $(du -k "$db" | cut -f1) KB:"
run
