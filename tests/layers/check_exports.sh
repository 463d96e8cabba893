#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# libcgmodel.so exports exactly the functions its public headers declare
# with CGM_API: every dynamic symbol it defines is a cgm_ name declared in
# include/cgmodel/, and every CGM_API name there is exported.
# usage: check_exports.sh LIBCGMODEL_SO SOURCE_DIR [HEADER...]
# The HEADERs (file names in include/cgmodel/) are left out: those of an
# optional part the library was built without (dist_mpi.h without MPI).
set -euo pipefail
lib=$1 src=$2
shift 2
headers=()
for h in "$src"/include/cgmodel/*.h; do
  skip=0
  for x in "$@"; do [ "$(basename "$h")" = "$x" ] && skip=1; done
  [ $skip -eq 1 ] || headers+=("$h")
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' |
  grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' |
  # AddressSanitizer adds one-definition-rule indicators for exported data
  grep -v -E '^__odr_asan[._]' | sort -u >"$tmp/exported"
grep -h -o -E 'CGM_API [^;{]*\bcgm_[a-z0-9_]+ *(\(|\[)' "${headers[@]}" |
  grep -o -E 'cgm_[a-z0-9_]+ *(\(|\[)' | tr -d '([ ' | sort -u >"$tmp/declared"
bad=0
if comm -23 "$tmp/exported" "$tmp/declared" | grep -q .; then
  echo "exported but not declared CGM_API in a public header:"
  comm -23 "$tmp/exported" "$tmp/declared" | head -40
  bad=1
fi
if comm -13 "$tmp/exported" "$tmp/declared" | grep -q .; then
  echo "declared CGM_API but not exported:"
  comm -13 "$tmp/exported" "$tmp/declared" | head -40
  bad=1
fi
echo "$(wc -l <"$tmp/exported") symbols exported, $(wc -l <"$tmp/declared") declared"
exit $bad
