/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Filling the pinned staging buffers of an upload on every core (C, so
 * that OpenMP compiles; the CUDA files are not built with it). */
#ifndef CGM_KERNELS_STAGE_H
#define CGM_KERNELS_STAGE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* dst[0..count) = src[0..count): doubles as floats when to_single, else
 * bytes (count bytes). */
void cgm_stage_fill(void *dst, const void *src, size_t count, int to_single);

#ifdef __cplusplus
}
#endif
#endif
