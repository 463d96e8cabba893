/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Text that came from outside (a file name, a file's content, a database
 * field) printed on a terminal: its control characters escaped, so that an
 * escape sequence cannot move the cursor or recolour the terminal and a
 * line break in a name cannot start a line of its own. */
#ifndef CGM_COMMON_ESCAPE_H
#define CGM_COMMON_ESCAPE_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes s to f with a line break and a tab as \n and \t and any other
 * control character (below 0x20, and 0x7f) as \xNN; with `keep_breaks`
 * line breaks and tabs are written as they are (a message's own). */
void cgm_fput_escaped(FILE *f, const char *s, bool keep_breaks);

#ifdef __cplusplus
}
#endif

#endif
