/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Strict numbers and lists (parse.h). */
#include "common/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cgm_parse_int(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  if (!s) return false;
  const char *p = s + (*s == '-');
  if (!isdigit((unsigned char)*p)) return false; /* also refuses " 1", "+1", "" */
  for (const char *q = p; *q; q++)
    if (!isdigit((unsigned char)*q)) return false; /* "1 ", "1x", "1.0" */
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno == ERANGE || *end || v < lo || v > hi) return false;
  *out = (int64_t)v;
  return true;
}

bool cgm_parse_real(const char *s, double lo, double hi, double *out) {
  if (!s || !*s || isspace((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || errno == ERANGE || !isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool cgm_item_is(cgm_item it, const char *w) {
  return strlen(w) == it.n && !memcmp(it.s, w, it.n);
}

int cgm_parse_list(const char *s, cgm_item *items, int max, char *why, size_t nwhy) {
  if (!s || !*s) return snprintf(why, nwhy, "the list is empty"), -1;
  int n = 0;
  const char *p = s;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == 0) return snprintf(why, nwhy, "'%s' has an empty item", s), -1;
    for (size_t k = 0; k < len; k++)
      if (isspace((unsigned char)p[k]) || iscntrl((unsigned char)p[k]))
        return snprintf(why, nwhy, "'%.*s' holds a space or control character",
                        (int)(len < 64 ? len : 64), p),
               -1;
    for (int k = 0; k < n; k++)
      if (items[k].n == len && !memcmp(items[k].s, p, len))
        return snprintf(why, nwhy, "'%.*s' is given twice", (int)(len < 64 ? len : 64), p), -1;
    if (n == max) return snprintf(why, nwhy, "more than %d items", max), -1;
    items[n].s = p;
    items[n].n = len;
    n++;
    if (!e) break;
    p = e + 1;
  }
  return n;
}

int cgm_parse_name(const char *s, const char *const *table, int n) {
  for (int i = 0; s && i < n; i++)
    if (strcmp(s, table[i]) == 0) return i;
  return -1;
}
