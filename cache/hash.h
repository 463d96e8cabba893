/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The checksums of cache entries: a 64-bit hash of byte ranges, computed in chunks on every core so
 * that checking a warm entry runs near memory bandwidth. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The hash an entry was written with (stored in its header: an entry of
 * another algorithm, from another version, is rewritten, never trusted). */
enum { CGM_HASH_XXH64 = 1 };

/* XXH64 (our own implementation), the hash of every entry. */
uint64_t cgm_xxh64(const void *p, size_t n, uint64_t seed);

/* Called on bytes [off, off + len) of range r just before they are hashed, while the chunk is hot:
 * a read of an entry's file into them, or their write to it; nonzero: failed. */
typedef int (*cgm_hash_visit_fn)(void *ctx, int r, size_t off, size_t len);

/* The checksum of byte ranges: the hash of the hashes of their chunks of
 * CGM_HASH_CHUNK bytes, each visited (visit not NULL) and hashed in
 * parallel. 0 with *out set, -1 out of memory, -2 a visit failed. */
#define CGM_HASH_CHUNK ((size_t)4 << 20)
int cgm_hash_ranges(void *const *p, const size_t *n, int count, cgm_hash_visit_fn visit, void *ctx,
                    uint64_t *out);
