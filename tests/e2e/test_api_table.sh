#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# docs/architecture.md's table of the public C API is the one
# scripts/api_table.py generates from include/cgmodel/*.h: a function added,
# removed, renamed or documented anew in a public header without
# `scripts/api_table.py --write docs/architecture.md` fails here.
source "$(dirname "$0")/lib.sh" "$@"

run_cmd python3 "$REPO/scripts/api_table.py" --check "$REPO/docs/architecture.md"
if [ "$RC" -eq 0 ]; then pass; else
  fail "the API table of docs/architecture.md is stale"
  show_last
fi

# Every public header yields rows, and exactly its CGM_API declarations.
run_cmd python3 "$REPO/scripts/api_table.py"
for h in "$REPO"/include/cgmodel/*.h; do
  n=$(grep -c '^CGM_API' "$h")
  got=$(grep -c "^| \`cgmodel/$(basename "$h")\` |" "$OUT")
  [ "$n" -eq "$got" ] && pass || fail "$(basename "$h"): $n CGM_API declarations, $got rows"
done

# Which comment a declaration gets, on a header made for it: its own, the
# group's across a blank-free run, not a struct member's, a trailing one
# first; the first sentence ends at a period that is not "Eq." or "..".
mkdir -p "$TMP/inc"
cat >"$TMP/inc/fix.h" <<'H'
/* Opens A. More text. */
CGM_API int fix_open(const char *a,
                     int b);
/* Shared: Eq. 3 over 0 .. n - 1. Rest. */
CGM_API void fix_a(void);
CGM_API void fix_b(void);

/* The thing. */
typedef struct fix_t {
  /* a member's comment */
  int x; /* another */
} fix_t;
CGM_API fix_t fix_make(void);

typedef struct fix_u {
  /* only a member's comment */
  int y;
} fix_u;
CGM_API fix_u fix_bare(void);
/* Above a variable. */
CGM_API extern const int fix_sizes[4]; /* 1, 2, 4, 8 | tabs */
H
cat >"$TMP/want.md" <<'W'
| header | function | what it does |
| --- | --- | --- |
| `cgmodel/fix.h` | `fix_open` | Opens A. |
| `cgmodel/fix.h` | `fix_a` | Shared: Eq. 3 over 0 .. n - 1. |
| `cgmodel/fix.h` | `fix_b` | Shared: Eq. 3 over 0 .. n - 1. |
| `cgmodel/fix.h` | `fix_make` | The thing. |
| `cgmodel/fix.h` | `fix_bare` | (no comment) |
| `cgmodel/fix.h` | `fix_sizes` | 1, 2, 4, 8 \| tabs |
W
run_cmd python3 "$REPO/scripts/api_table.py" --headers "$TMP/inc"
if diff -u "$TMP/want.md" "$OUT" >"$TMP/diff"; then pass; else
  fail "the table of a fixture header differs from the expected one:"
  cat "$TMP/diff" >&2
fi

# The check must see a change: a copy of the page with one row dropped, and
# one without the markers, are refused.
row=$(grep -m1 '^| `cgmodel/' "$REPO/docs/architecture.md")
grep -vF -- "$row" "$REPO/docs/architecture.md" >"$TMP/dropped.md"
expect_exit 1 python3 "$REPO/scripts/api_table.py" --check "$TMP/dropped.md"
grep -v 'api-table' "$REPO/docs/architecture.md" >"$TMP/nomarks.md"
expect_stderr_contains markers python3 "$REPO/scripts/api_table.py" --check "$TMP/nomarks.md"
[ "$RC" -eq 2 ] && pass || fail "a page without the markers: exit $RC, not 2"
finish
