#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel gen: every generator writes a file that info reads back with the
# expected dimension and that solve --backend cpu solves; bad arguments exit 2.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

LIST=$TMP/solves.tsv
: >"$LIST"
# gen_ok KIND N DIM ARGS...: generate, read back (x = DIM, symmetric, positive
# diagonal), solve (queued for the recheck).
gen_ok() {
  local kind=$1 n=$2 dim=$3
  shift 3
  local f=$TMP/$kind.$n.mtx
  expect_exit 0 "$CGM" gen "$kind" --n "$n" -o "$f" "$@"
  last_stderr_contains "$f: $dim x $dim,"
  expect_exit 0 "$CGM" info --json "$f"
  json_check "$OUT" "j['x'] == $dim and j['symmetric'] and j['positive_diagonal']" \
    "gen $kind --n $n: info reads x = $dim, symmetric, positive diagonal"
  cp "$OUT" "$TMP/$kind.$n.info.json"
  expect_exit 0 "$CGM" solve "$f" --backend cpu --block 2 --json -o "$TMP/$kind.$n.x.mtx"
  cp "$OUT" "$TMP/$kind.$n.json"
  printf '%s\t%s\t%s\n' "$f" "$TMP/$kind.$n.json" "$TMP/$kind.$n.x.mtx" >>"$LIST"
}

gen_ok poisson2d 7 49            # n^2
gen_ok poisson3d 5 125           # n^3
gen_ok elasticity3d 3 $((3 * 3 * 4 * 4)) # 3 n (n+1)^2
gen_ok random 300 300 --avg 6 --seed 7
gen_ok random 200 200 --dist powerlaw --alpha 2.2 --maxlen 40 --avg 5 --seed 3
gen_ok mesh3d 150 450 --k 6 --seed 5                     # 3 unknowns a point
gen_ok mesh3d 151 453 --numbering random --seed 5

# mesh3d: the same graph under both numberings; the random one reads x from
# farther apart (info's x locality, fp64 at N = 1), the sorted one is
# deterministic in --seed.
expect_exit 0 "$CGM" gen mesh3d --n 400 --seed 2 -o "$TMP/ms.mtx"
expect_exit 0 "$CGM" gen mesh3d --n 400 --seed 2 --numbering random -o "$TMP/mr.mtx"
expect_exit 0 "$CGM" info --json "$TMP/ms.mtx"
cp "$OUT" "$TMP/ms.json"
expect_exit 0 "$CGM" info --json "$TMP/mr.mtx"
S="__import__('json').load(open('$TMP/ms.json'))"
json_check "$OUT" "j['nnz'] == $S['nnz'] and j['blocks'][0]['x_locality'] > 1.3 * $S['blocks'][0]['x_locality']" \
  "mesh3d --numbering random: same nonzeros, worse x locality"
expect_exit 0 "$CGM" gen mesh3d --n 400 --seed 2 -o "$TMP/ms2.mtx"
if cmp -s "$TMP/ms.mtx" "$TMP/ms2.mtx"; then pass; else fail "gen mesh3d is not deterministic in --seed"; fi

# kron: B (+) T_k of a file, k rows a row of B; SPD (solved below)
expect_exit 0 "$CGM" gen kron --with "$TMP/poisson2d.7.mtx" --k 3 -o "$TMP/kron.mtx"
last_stderr_contains "$TMP/kron.mtx: 147 x 147,"
expect_exit 0 "$CGM" info --json "$TMP/kron.mtx"
json_check "$OUT" "j['x'] == 147 and j['nnz'] == 3 * (5*49 - 4*7) + 2 * 49 * 2 and j['symmetric'] and j['positive_diagonal']" \
  "kron: 3 layers of the 5-point Laplacian joined by -1"
expect_exit 0 "$CGM" solve "$TMP/kron.mtx" --backend cpu --json -o "$TMP/kron.x.mtx"
cp "$OUT" "$TMP/kron.json"
printf '%s\t%s\t%s\n' "$TMP/kron.mtx" "$TMP/kron.json" "$TMP/kron.x.mtx" >>"$LIST"

# Stencils: the 5- and 7-point Laplacians have 5n^2-4n and 7n^3-6n^2 nonzeros.
json_check "$TMP/poisson2d.7.info.json" 'j["nnz"] == 5*49 - 4*7 and j["row_max"] == 5 and j["row_min"] == 3' \
  "poisson2d 7: 5-point stencil"
json_check "$TMP/poisson3d.5.info.json" 'j["nnz"] == 7*125 - 6*25 and j["row_max"] == 7' "poisson3d 5: 7-point stencil"
# Elasticity: 3 unknowns per node, at most 27 neighbour nodes: rows of <= 81.
json_check "$TMP/elasticity3d.3.info.json" 'j["row_max"] <= 81 and j["row_max"] > 27' "elasticity3d rows"
json_check "$TMP/random.200.info.json" 'j["row_max"] <= 40' "random --maxlen 40 caps rows"

# The same seed gives the same matrix; another seed another one.
expect_exit 0 "$CGM" gen random --n 300 --avg 6 --seed 7 -o "$TMP/again.mtx"
if cmp -s "$TMP/again.mtx" "$TMP/random.300.mtx"; then pass; else fail "gen random is not deterministic in --seed"; fi
expect_exit 0 "$CGM" gen random --n 300 --avg 6 --seed 8 -o "$TMP/other.mtx"
if cmp -s "$TMP/other.mtx" "$TMP/random.300.mtx"; then fail "--seed 8 gives the same matrix as --seed 7"; else pass; fi

# --symmetric writes the lower triangle only: the same matrix, fewer entries.
expect_exit 0 "$CGM" gen poisson2d --n 7 --symmetric -o "$TMP/sym.mtx"
assert_eq "$(head -n 1 "$TMP/sym.mtx")" "%%MatrixMarket matrix coordinate real symmetric" "--symmetric banner"
expect_exit 0 "$CGM" info --json "$TMP/sym.mtx"
json_check "$OUT" 'j["nnz"] == 5*49 - 4*7 and j["entries_in_file"] == (5*49 - 4*7 + 49) // 2' \
  "--symmetric: same nnz, lower triangle in the file"

if $MMTOOL check-solves "$LIST" >"$TMP/check.txt" 2>&1; then pass; else
  fail "solves of generated matrices do not hold up:"; sed 's/^/  /' "$TMP/check.txt" >&2; fi
if $MMTOOL check-info "$TMP/poisson2d.7.mtx" "$TMP/poisson2d.7.info.json" \
  "$TMP/elasticity3d.3.mtx" "$TMP/elasticity3d.3.info.json" \
  "$TMP/random.200.mtx" "$TMP/random.200.info.json" >"$TMP/check.txt" 2>&1; then pass; else
  fail "features of generated matrices differ:"; sed 's/^/  /' "$TMP/check.txt" >&2; fi

# ---- bad arguments: exit 2 with a message, and no file written
expect_fail 2 "unknown kind 'laplace'" "$CGM" gen laplace --n 4 -o "$TMP/bad.mtx"
expect_fail 2 "expected KIND, --n and -o" "$CGM" gen poisson2d --n 4
expect_fail 2 "expected KIND, --n and -o" "$CGM" gen poisson2d -o "$TMP/bad.mtx"
expect_fail 2 "expected KIND, --n and -o" "$CGM" gen --n 4 -o "$TMP/bad.mtx"
expect_fail 2 "expected KIND, --n and -o" "$CGM" gen
expect_fail 2 "option --n: '0'" "$CGM" gen poisson2d --n 0 -o "$TMP/bad.mtx"
expect_fail 2 "option --n: '-3'" "$CGM" gen poisson2d --n -3 -o "$TMP/bad.mtx"
expect_fail 2 "option --n: 'ten'" "$CGM" gen poisson2d --n ten -o "$TMP/bad.mtx"
expect_fail 2 "--dist: 'normal' is not uniform or powerlaw" "$CGM" gen random --n 50 --dist normal -o "$TMP/bad.mtx"
expect_fail 2 "option --alpha: '1'" "$CGM" gen random --n 50 --dist powerlaw --alpha 1 -o "$TMP/bad.mtx"
expect_fail 2 "option --avg: '0.5'" "$CGM" gen random --n 50 --avg 0.5 -o "$TMP/bad.mtx"
expect_fail 2 "average row length 8 exceeds the dimension 5" "$CGM" gen random --n 5 -o "$TMP/bad.mtx"
expect_fail 2 "unknown option '--size'" "$CGM" gen poisson2d --size 4 -o "$TMP/bad.mtx"
expect_fail 2 "--numbering: 'hilbert' is not sorted or random" "$CGM" gen mesh3d --n 50 --numbering hilbert -o "$TMP/bad.mtx"
expect_fail 2 "k = 60 neighbours" "$CGM" gen mesh3d --n 50 --k 60 -o "$TMP/bad.mtx"
expect_fail 2 "expected KIND, --with and --k and -o" "$CGM" gen kron --k 3 -o "$TMP/bad.mtx"
expect_fail 2 "$TMP/none.mtx" "$CGM" gen kron --with "$TMP/none.mtx" --k 3 -o "$TMP/bad.mtx"
assert_no_file "$TMP/bad.mtx" "no file from a refused gen"
# An output that cannot be created: exit 2, the path named, no success line.
expect_fail 2 "$TMP/nodir/a.mtx: the directory $TMP/nodir does not exist" "$CGM" gen poisson2d --n 3 -o "$TMP/nodir/a.mtx"
if grep -q "nonzeros" "$ERR"; then fail "gen reports a matrix it could not write"; show_last; else pass; fi

finish
