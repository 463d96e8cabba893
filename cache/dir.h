/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cache directory: an entry and its extras counted and removed as one. */
#pragma once

#include <stdint.h>

/* Removes the least recently used entries with their extras until the
 * rest hold at most max_bytes (keep: never removed), and killed writers'
 * temporary files. The entries removed; *left (may be NULL): bytes kept. */
int cgm_cache_evict(const char *dir, int64_t max_bytes, const char *keep, int64_t *left);
