/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The memory a configuration needs on each device, counted from what the
 * backends allocate (kernels/cuda_dev.cu, the CPU's layout and vectors,
 * cuSPARSE's CSR and vectors), checked before anything is allocated. */
#include "cgmodel/plan.h"

int64_t cgm_vec_len(int64_t n) {
  return (n + CGM_VEC_ALIGN - 1) / CGM_VEC_ALIGN * CGM_VEC_ALIGN;
}

/* An uploaded MBR layout: values, block columns, result rows, slice offsets. */
static int64_t layout_bytes(const cgm_plan_layout *L, const cgm_bcsr_params *p, int64_t w) {
  const int by = L->long_rows ? 1 : p->by; /* long rows: a row a slice */
  return L->blocks_padded * ((int64_t)p->n * p->n * w + 4) + (int64_t)L->nslices * by * 4 +
         ((int64_t)L->nslices + 1) * 8;
}

/* Mixed precision's second copy of the values: the true residual is
 * computed with the matrix in double. */
static int64_t double_values(const cgm_plan_layout *L, const cgm_bcsr_params *p) {
  return L->blocks_padded * p->n * p->n * 8;
}

/* f32 values that are not A's: one GPU keeps a double copy beside them for
 * the reliable updates (cg_cuda.cu) */
static bool f32_inexact(const cgm_plan *p) {
  return p->o.values == CGM_VALUES_F32 && !(p->o.value_class & CGM_CAN_F32);
}

static int64_t segment_bytes(const cgm_plan *p, const cgm_plan_segment *s) {
  const cgm_precision prec = p->o.precision;
  const int64_t w = cgm_precision_width(prec);
  const bool mixed = prec == CGM_PREC_MIXED;
  switch (p->o.backend) {
  case CGM_BACKEND_CUSPARSE: /* CSR (value and 32-bit column, row offsets) and six vectors */
    return p->nnz * (w + 4) + 4 * ((int64_t)p->nrows + 1) + 6 * (int64_t)p->nrows * w;
  case CGM_BACKEND_CPU: /* the layout in double (and a copy in single), six vectors (x, r, p,
                           q, z, D^-1); mixed: the solution and two residuals in double */
    return layout_bytes(&s->part[0], &p->o.layout, 8) +
           (w == 4 ? s->part[0].blocks_padded * p->o.layout.n * p->o.layout.n * 4 : 0) +
           6 * s->rows * w + (mixed ? 3 * s->rows * 8 : 0);
  case CGM_BACKEND_CUDA:
    break;
  }
  /* x, r, u, D^-1, s of the own rows, v (the gathered vector), b for the
   * residual replacement (double but in single precision); mixed: the
   * solution and A x in double, and the values in double */
  const int64_t own = cgm_vec_len(s->rows);
  const int64_t gathered = cgm_vec_len(s->v_len > s->rows ? s->v_len : s->rows);
  int64_t b =
      (5 * own + gathered) * w + own * (prec == CGM_PREC_SINGLE ? 4 : 8) + CGM_DEVICE_SCRATCH_BYTES;
  for (int k = 0; k < s->nparts; k++) b += layout_bytes(&s->part[k], &p->o.layout, w);
  if (mixed) /* one GPU: the MBR layout, and the long rows' where split */
    for (int k = 0; k < s->nparts; k++) b += double_values(&s->part[k], &p->o.layout);
  if (mixed) b += 2 * own * 8;
  if (f32_inexact(p))
    for (int k = 0; k < s->nparts; k++) /* floats beside the double values the updates read */
      if (!s->part[k].long_rows) b += double_values(&s->part[k], &p->o.layout) / 2;
  return b + s->sends * 4; /* the halo's send list */
}

void cgm_plan_set_precision(cgm_plan *p, cgm_precision prec) {
  p->o.precision = prec;
  p->o.values = cgm_values_pick(p->o.value_class, p->nnz, p->o.layout.n, p->o.storage, prec);
  if (p->nseg > 1 && f32_inexact(p)) p->o.values = CGM_VALUES_FULL; /* updates: one GPU */
  p->device_bytes = 0;
  for (int g = 0; g < p->nseg; g++) {
    p->seg[g].device_bytes = segment_bytes(p, &p->seg[g]);
    if (p->seg[g].device_bytes > p->device_bytes) p->device_bytes = p->seg[g].device_bytes;
  }
}

bool cgm_plan_layout_on_device(const cgm_plan *p) {
  return p->nseg == 1 && p->o.layout.n == 1; /* long rows apart there too */
}
