#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# `cgmodel predict` of one matrix file by two builds, interleaved: cold (the matrix cache cleared and a
# fresh copy of the database before each call) and warm (the cache kept), ROUNDS of each; prints
# each call's wall clock and the lowest per build and state, then what the new build's last warm
# call found kept beside the entry (predict --json's cache).
#   usage: bench/predict_warm.sh OLD_CGMODEL NEW_CGMODEL DB ROUNDS MATRIX [predict options...]
set -euo pipefail
old=$1 new=$2 db=$3 rounds=$4 mtx=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # build state round
  local bin=$1 tag=$2 state=$3
  shift 3
  [ "$state" = cold ] && rm -rf "$tmp/c_$tag" && cp "$db" "$tmp/$tag.db"
  [ -f "$tmp/$tag.db" ] || cp "$db" "$tmp/$tag.db"
  local s=$EPOCHREALTIME
  "$bin" predict "$mtx" --db "$tmp/$tag.db" --cache-dir "$tmp/c_$tag" --json "$@" > "$tmp/$tag.json" || true
  awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.4f", e - s }'
}
declare -A best
for state in cold warm; do
  for r in $(seq "$rounds"); do
    for tag in old new; do
      bin=$old
      [ $tag = new ] && bin=$new
      t=$(run "$bin" $tag $state "$@")
      printf '%s %s round %d: %.3f s\n' $state $tag "$r" "$t"
      k=$state.$tag
      best[$k]=$(awk -v a="${best[$k]:-1e9}" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
    done
  done
done
for state in cold warm; do
  printf '%s: old %.3f s, new %.3f s, new/old %.2f (the least of %d)\n' $state "${best[$state.old]}" \
    "${best[$state.new]}" "$(awk -v a="${best[$state.new]}" -v b="${best[$state.old]}" 'BEGIN { print a / b }')" "$rounds"
done
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('new, last warm call: cache', j.get('cache'))" "$tmp/new.json"
