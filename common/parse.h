/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one parser of numbers and lists that come from users: strict, so
 * that a typo is an error and never a different value (no spaces, no '+',
 * no clamping, no empty or repeated items, nothing cut). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A decimal integer ("-"? digits) in [lo, hi]; false for anything else. */
bool cgm_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* A finite number (strtod's syntax, the whole string) in [lo, hi]. */
bool cgm_parse_real(const char *s, double lo, double hi, double *out);

/* One item of a list: s[0..n), not NUL-terminated. */
typedef struct cgm_item {
  const char *s;
  size_t n;
} cgm_item;
/* Splits the comma-separated list s into at most max items (pointing into
 * s); the count, or -1 with the reason in why (naming the item). */
int cgm_parse_list(const char *s, cgm_item *items, int max, char *why, size_t nwhy);
/* True when the item is the word w. */
bool cgm_item_is(cgm_item it, const char *w);

/* The index of s in table (n names), -1 when it is not there. */
int cgm_parse_name(const char *s, const char *const *table, int n);
/* cgm_WHAT_name and the parse function `parse` of a table of names: a choice's spellings. */
#define CGM_NAMES(what, type, table, parse)                                                        \
  const char *cgm_##what##_name(type v) {                                                          \
    const int n = (int)(sizeof table / sizeof *table);                                             \
    return (int)v >= 0 && (int)v < n ? table[v] : "unknown";                                       \
  }                                                                                                \
  parse(const char *s, type *out) {                                                                \
    const int i = cgm_parse_name(s, table, (int)(sizeof table / sizeof *table));                   \
    if (i >= 0) *out = (type)i;                                                                    \
    return i >= 0;                                                                                 \
  }
