/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Control characters escaped for a terminal (escape.h). */
#include "common/escape.h"

void cgm_fput_escaped(FILE *f, const char *s, bool keep_breaks) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (keep_breaks && (*p == '\n' || *p == '\t'))
      fputc(*p, f);
    else if (*p == '\n' || *p == '\t')
      fputs(*p == '\n' ? "\\n" : "\\t", f);
    else if (*p < 0x20 || *p == 0x7f)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}
