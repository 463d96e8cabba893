/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The host side of the CUDA solver's set-up: every segment's layouts built
 * from the plan, and the halo's send lists. Plain C, in every build, so
 * that the CPU tests check what the solver builds against the plan. */
#pragma once

#include "cgmodel/plan.h"
#include "plan/partition.h"

CGM_BEGIN_DECLS

typedef struct cgm_seg_host {
  cgm_bcsr A;         /* the segment, or with the halo its interior block rows */
  cgm_bcsr B;         /* with the halo: its boundary block rows (else empty) */
  cgm_bcsr C;         /* its long block rows (cgm_plan_long_part; else empty) */
  cgm_halo h;         /* with the halo: what it reads from the others */
  int64_t v_len;      /* entries of the vector its SpMV gathers */
  int64_t v_off;      /* where its own rows start in that vector */
  int32_t halo_start; /* with the halo: the halo's first block column in it */
} cgm_seg_host;

/* Builds segment g of plan p (cgm_seg_free frees it, also after a failure). */
cgm_status cgm_seg_build(const cgm_csr *A, const cgm_plan *p, int g, cgm_seg_host *s,
                         cgm_error *err);
void cgm_seg_free(cgm_seg_host *s);

/* The halo's send list of segment j: the own-vector entries it writes into
 * its peers' halos, idx[off[k] .. off[k+1]) going to segment dst[k], into
 * its gathered vector from entry dst_at[k] on. */
typedef struct cgm_seg_sends {
  int32_t *idx;
  int64_t off[CGM_MAX_GPUS + 1];
  int dst[CGM_MAX_GPUS];
  int64_t dst_at[CGM_MAX_GPUS];
  int ndst;
} cgm_seg_sends;

/* The send list of segment j from every segment's halo (seg[0..p->nseg)). */
cgm_status cgm_seg_sends_build(const cgm_plan *p, const cgm_seg_host *seg, int j,
                               cgm_seg_sends *out, cgm_error *err);
void cgm_seg_sends_free(cgm_seg_sends *s);

CGM_END_DECLS
