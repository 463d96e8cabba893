#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Adds `SPDX-License-Identifier: GPL-3.0-or-later` (README, Licence) to every
# C, CUDA, shell and Python source and CMakeLists.txt that lacks one: the
# first line (C, CUDA, CMake), or the line after a #! line (shell, Python).
# Running it again changes nothing. --check: list the files without one and
# exit 1, changing nothing. DIR (default: the repository) is where to look:
# the files git tracks there, or every file under it outside git.
set -euo pipefail
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
dir=${1:-"$(dirname "$0")/.."}
cd "$dir"
id='SPDX-License-Identifier: GPL-3.0-or-later'

list() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- '*.c' '*.h' '*.cu' '*.cuh' '*.sh' '*.py' 'CMakeLists.txt' '*/CMakeLists.txt'
  else
    find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.sh' \
      -o -name '*.py' -o -name CMakeLists.txt \) | sed 's|^\./||' | sort
  fi
}

missing=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  # Within the first lines only: a header, not a mention further down.
  head -n 5 "$f" | grep -q 'SPDX-License-Identifier:' && continue
  if [ $check = 1 ]; then
    echo "$f"
    missing=1
    continue
  fi
  case "$f" in
    *.c | *.h | *.cu | *.cuh) line="/* $id */" ;;
    *) line="# $id" ;;
  esac
  tmp=$(mktemp "$f.spdx.XXXXXX")
  if head -n 1 "$f" | grep -q '^#!'; then
    { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$tmp"
  else
    { echo "$line"; cat "$f"; } >"$tmp"
  fi
  chmod --reference="$f" "$tmp"
  mv "$tmp" "$f"
  echo "spdx: $f"
done < <(list)
exit $missing
