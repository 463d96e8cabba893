#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Formats every C, CUDA and header file git tracks with the committed
# .clang-format (clang-format 14, Debian's). --check: list the files that
# differ and exit 1, changing nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format: clang-format is not installed (apt-get install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cu')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in "${files[@]}"; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || { echo "$f"; bad=1; }
  done
  exit $bad
fi
clang-format -i "${files[@]}"
