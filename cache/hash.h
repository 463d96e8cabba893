/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The checksums of cache entries: a 64-bit hash of byte ranges, computed
 * in chunks on every core so that checking a warm entry runs near memory
 * bandwidth. */
#ifndef CGM_CACHE_HASH_H
#define CGM_CACHE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash an entry was written with (stored in its header: an entry of
 * another algorithm, from another version, is rewritten, never trusted). */
enum { CGM_HASH_XXH64 = 1 };

/* The algorithm of this build. */
int cgm_hash_algorithm(void);

/* This build's hash of one byte range. */
uint64_t cgm_hash_bytes(const void *p, size_t n, uint64_t seed);

/* XXH64, the reference algorithm (our own implementation). */
uint64_t cgm_xxh64(const void *p, size_t n, uint64_t seed);

/* Called on bytes [off, off + len) of range r just before they are hashed,
 * while the chunk is hot: a read of an entry's file into them, or their
 * write to it; nonzero: failed. */
typedef int (*cgm_hash_visit_fn)(void *ctx, int r, size_t off, size_t len);

/* The checksum of a list of byte ranges: each range in chunks of
 * CGM_HASH_CHUNK bytes, each chunk (visited first, when visit is not NULL) hashed in parallel, then
 * the hash of the chunk hashes. -> 0 with *out set, -1 when out of memory, -2 when a visit failed.
 */
#define CGM_HASH_CHUNK ((size_t)4 << 20)
int cgm_hash_ranges(void *const *p, const size_t *n, int count, cgm_hash_visit_fn visit, void *ctx,
                    uint64_t *out);

#endif
