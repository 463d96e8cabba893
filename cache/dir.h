/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cache directory as a whole: an entry and its extras are one unit,
 * counted and removed together (dir.c). */
#ifndef CGM_CACHE_DIR_H
#define CGM_CACHE_DIR_H

#include <stdint.h>

/* Removes the least recently used entries, with their extras, until those
 * left hold at most max_bytes with their extras (keep: an entry name never
 * removed), and temporary files left over an hour ago by killed writers.
 * -> entries removed; *left (NULL: not wanted): the bytes that stay. */
int cgm_cache_evict(const char *dir, int64_t max_bytes, const char *keep, int64_t *left);

#endif
