/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scatter of a segment's longest block row (cgm_row_scatter), from the block pattern's columns
 * or, where the plan was made without them, from the matrix's rows. */
#pragma once

#include "cgmodel/plan.h"

/* Block row `brow` of A at block size n: its block columns gathered from the n rows (merged,
 * ascending, distinct), then cgm_row_scatter. CGM_ERUNTIME when out of memory. */
cgm_status plan_row_scatter_csr(const cgm_csr *A, int n, int32_t brow,
                                double out[CGM_NSECTOR_WIDTHS], cgm_error *err);

/* Adds the distinct 32-byte sectors of x that block columns bcol[0 .. len)
 * read (ascending) at both element widths to out. */
void plan_row_sectors(const int32_t *bcol, int32_t len, int n, int64_t out[CGM_NSECTOR_WIDTHS]);

/* The longest of the block rows [b0, b1) of lengths len (its number, the first of its length; -1
 * when there is none), and cgm_warp_share of them at each element width in out (their 32 longest
 * found in the same pass); 0 where the longest is read by threads of its own: longer than long_row
 * blocks (<= 0: no row is). */
int32_t plan_longest_rows(const int32_t *len, int32_t b0, int32_t b1, int n, int bx,
                          int32_t long_row, double out[CGM_NSECTOR_WIDTHS]);
