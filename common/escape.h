/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Text from outside (a file name or content, a database field) printed on a terminal with its
 * control characters escaped: no escape sequence acts, no line break in a name starts a line. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* Writes s to f with \n, \t and \xNN for the control characters (but line
 * breaks and tabs as they are with `keep_breaks`: a message's own). */
void cgm_fput_escaped(FILE *f, const char *s, bool keep_breaks);
