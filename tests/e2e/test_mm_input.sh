#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Matrix Market input that once broke the reader or the checks after it
# (docs/reliability.md, "Adversarial input"): each must give a clean verdict,
# never a signal, a hang or unbounded memory.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

# An explicit zero with no mirror is symmetric (A = A^T as matrices, as SciPy
# sees it): solved, not refused as "not symmetric".
Z=$TMP/zero.mtx
printf '%s\n' '%%MatrixMarket matrix coordinate real general' '3 3 6' '1 1 4' '2 2 4' '3 3 4' \
  '1 2 -1' '2 1 -1' '1 3 0' >"$Z"
expect_exit 0 "$CGM" solve "$Z" --backend cpu --json
json_check "$OUT" 'j["converged"]' "an explicit zero with no mirror: solved"
expect_exit 0 "$CGM" info "$Z" --json
json_check "$OUT" 'j["symmetric"] is True' "info: symmetric by value"

finish
