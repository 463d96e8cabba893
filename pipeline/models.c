/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The database's calibrations as the tuner's device models: the newest
 * complete calibration of each device, its fits placed in the model's
 * curves with the fallbacks the refined model needs (a relative fit that
 * did not converge gives way to the average, then the maximum fit), and
 * the paper's model from the average fits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "pipeline/curves.h"
#include "pipeline/json.h"
#include "pipeline/steps.h"
#include "common/grow.h"
#include "common/timer.h"

/* The refined model times kernels with the relative fits; where one did not
 * converge it falls back to the average fit, then to the maximum fit (never
 * to a fit that did not converge). prio[] remembers what each curve holds. */
enum { WANT_PAPER = -1 }; /* the paper's model: avg fits (Sec. 6.2), else max, else rel */

typedef struct {
  cgm_tuner_device *t;
  cgm_device_model *models; /* [2], per precision: t->model or t->paper */
  int prio[2][PIPELINE_SLOTS];
  char held[2][PIPELINE_SLOTS][8]; /* the variant of the curve a slot holds ("mesh", "all", "") */
  int want; /* CGM_FIT_REL: with the fallbacks; WANT_PAPER; another kind: only that kind (the maps)
             */
} fit_ctx;

static int fit_rank(int want, int kind) {
  if (want == WANT_PAPER)
    return kind == CGM_FIT_AVG ? 3 : kind == CGM_FIT_MAX ? 2 : kind == CGM_FIT_REL ? 1 : 0;
  if (want != CGM_FIT_REL) return kind == want ? 3 : 0;
  return kind == CGM_FIT_REL ? 3 : kind == CGM_FIT_AVG ? 2 : 1;
}

static bool take(fit_ctx *c, int prec, int slot, int kind, const char *variant) {
  /* Of two SpMV curves of one rank, the refined model takes the mesh curve
   * (pipeline/calibrate.c); the paper's model keeps the "all" curve. */
  int r = 2 * fit_rank(c->want, kind) + (c->want != WANT_PAPER && !strcmp(variant, "mesh"));
  if (r < 2) return false;
  if (c->prio[prec][slot] >= r) return false;
  c->prio[prec][slot] = r;
  snprintf(c->held[prec][slot], sizeof c->held[prec][slot], "%s", variant);
  return true;
}

/* A curve's second regime (CGM_FIT_REL_HI): used past the first transaction
 * count it was fitted on, and only with the relative fits (the avg and max
 * fits span every size by themselves). */
static void take_regime(fit_ctx *c, const cgm_db_fit *f) {
  if (c->want != CGM_FIT_REL) return;
  cgm_regime *hi;
  bool *have;
  int slot;
  if (!pipeline_kernel_curve(&c->models[f->precision], f, &hi, &have, &slot)) return;
  /* only beside the relative fit of the same group */
  if (c->prio[f->precision][slot] / 2 == fit_rank(CGM_FIT_REL, CGM_FIT_REL) &&
      !strcmp(c->held[f->precision][slot], f->variant))
    *hi = (cgm_regime){{f->mu, f->sigma, f->nu}, f->m_lo, f->m_lo > 0};
}

/* FNV-1a over n bytes, continuing from h: the device's fingerprint. */
static uint64_t mix(uint64_t h, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
  return h;
}

/* A fit read, into the device's fingerprint (its values, not the padding
 * of the struct that holds them). */
static void mix_fit(cgm_tuner_device *t, const cgm_db_fit *f) {
  const double v[4] = {f->mu, f->sigma, f->nu, f->m_lo};
  const int k[4] = {f->precision, f->block, f->kind, f->converged};
  t->fingerprint = mix(t->fingerprint, f->kernel, strlen(f->kernel) + 1);
  t->fingerprint = mix(t->fingerprint, f->variant, strlen(f->variant) + 1);
  t->fingerprint = mix(mix(t->fingerprint, v, sizeof v), k, sizeof k);
}

static int take_fit(const cgm_db_fit *f, void *ctx) {
  fit_ctx *c = ctx;
  cgm_tuner_device *t = c->t;
  mix_fit(t, f);
  if (!f->converged || f->precision < 0 || f->precision > 1) return 0;
  if (f->kind == CGM_FIT_REL_HI) {
    take_regime(c, f);
    return 0;
  }
  const int pr = f->precision;
  cgm_device_model *m = &c->models[pr];
  cgm_sigmoid s = {f->mu, f->sigma, f->nu};
  cgm_exchange ex;
  cgm_regime *hi;
  bool *have;
  int slot;
  cgm_sigmoid *curve = pipeline_kernel_curve(m, f, &hi, &have, &slot);
  if (curve) {
    if (take(c, pr, slot, f->kind, f->variant)) {
      *curve = s;
      *hi = (cgm_regime){0}; /* a regime of another group does not apply */
      if (have) *have = true;
    }
  } else if (!strcmp(f->kernel, "red")) {
    if (take(c, pr, PIPELINE_SLOT_RED, f->kind, f->variant)) m->red = s, m->have_red = true;
  } else if (!strcmp(f->kernel, "cusparse")) {
    if (take(c, pr, PIPELINE_SLOT_CUSPARSE, f->kind, f->variant))
      m->cusparse = s, m->have_cusparse = true;
  } else if (!strcmp(f->kernel, "xfer") && cgm_exchange_parse(f->variant, &ex) && f->block >= 2 &&
             f->block <= 8) {
    if (take(c, pr, PIPELINE_SLOT_XFER + 8 * (int)ex + f->block, f->kind, f->variant))
      m->xfer[ex][f->block] = s, m->have_xfer[ex][f->block] = true;
  }
  t->have[pr] = true;
  return 0;
}

typedef struct {
  cgm_db *db;
  const char *kind;
  cgm_tuner_device *v;
  int n, cap;
  int64_t seen[64]; /* device ids already taken (newest calibration first) */
  int nseen;
  cgm_status st;
  cgm_error *err;
} load_ctx;

/* The device record and calibration as the tuner's device, without curves. */
static void fill_device(const cgm_db_calibration *c, const cgm_db_device *d, cgm_tuner_device *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", d->model);
  t->is_cpu = !strcmp(d->kind, "cpu");
  t->mem_bytes = t->is_cpu ? 0 : d->mem_total;
  t->calibration_id = c->id;
  t->fingerprint = mix(1469598103934665603ull, &c->id, sizeof c->id);
  cgm_calibration_cg(c->options, t->is_cpu, t->cg, sizeof t->cg);
  t->gpus = pipeline_calibration_gpus(c->options);
  for (int p = 0; p < 2; p++) t->model[p].width = t->paper[p].width = p == CGM_PREC_SINGLE ? 4 : 8;
}

void cgm_calibration_cg(const char *options_json, bool is_cpu, char *out, size_t n) {
  if (n == 0) return;
  out[0] = '\0';
  if (is_cpu) return;
  cJSON *j = cJSON_Parse(options_json ? options_json : "");
  const cJSON *cg = j ? cJSON_GetObjectItemCaseSensitive(j, "cg") : NULL;
  const char *v = cJSON_IsString(cg) && cg->valuestring ? cg->valuestring : "classic";
  snprintf(out, n, "%s", !strcmp(v, "cgg") || !strcmp(v, "classic") ? v : "unknown");
  cJSON_Delete(j);
}

bool cgm_calibration_cg_stale(const cgm_tuner_device *d, const cgm_gpu_opts *gpu, char *msg,
                              size_t n) {
  const char *now = cgm_cg_variant_name(gpu->cg);
  if (d->is_cpu || !strcmp(d->cg, now)) return false;
  snprintf(msg, n,
           "calibration %lld of %s timed the %s CG, the solver now runs the %s CG "
           "(CGMODEL_CG): its GPU predictions are off by the difference; recalibrate, or set "
           "CGMODEL_CG=%s",
           (long long)d->calibration_id, d->name, d->cg, now, d->cg);
  return true;
}

/* The feet of a CPU's curves (cgm_device_model.spmv_foot): per precision
 * and group, the smallest size its samples timed and the median of their
 * times there. The SpMV's groups are those of its curves: "mesh" (the
 * samples on Poisson grids, pipeline/calibrate.c) and "all". */
enum {
  FOOT_MESH = 0,
  FOOT_ALL = 4,
  FOOT_CG4 = 8,
  FOOT_CG5 = 9,
  FOOT_ITER = 10, /* a GPU's whole iterations on meshes, per block size */
  FOOT_ROW = 14,  /* and on arrows (the row curve) */
  FOOT_GROUPS = 18,
  FOOT_MAX = 32
};
enum { ITER_MAX = 8 * CGM_ITER_POINTS }; /* a CPU's iteration samples kept a block size */
typedef struct {
  double m[2][FOOT_GROUPS];
  double t[2][FOOT_GROUPS][FOOT_MAX];
  int n[2][FOOT_GROUPS];
  /* the iterations timed through the solver ("iter"/"cpu"), as they come */
  double im[2][CGM_NBLOCKSIZES][ITER_MAX], it[2][CGM_NBLOCKSIZES][ITER_MAX];
  int ni[2][CGM_NBLOCKSIZES];
} foot_ctx;

/* One pass: a smaller size than the group's so far starts its times anew. */
static void foot_add(foot_ctx *c, int p, int g, const cgm_db_sample *s) {
  if (c->m[p][g] == 0 || s->m < c->m[p][g]) c->m[p][g] = s->m, c->n[p][g] = 0;
  if (s->m == c->m[p][g] && c->n[p][g] < FOOT_MAX && s->seconds > 0)
    c->t[p][g][c->n[p][g]++] = s->seconds;
}

static int take_foot(const cgm_db_sample *s, void *ctx) {
  foot_ctx *c = ctx;
  const int p = s->precision, bi = cgm_block_index(s->block);
  if (p < 0 || p > 1 || !(s->m > 0)) return 0;
  if (!strcmp(s->kernel, "spmv") && bi >= 0) {
    foot_add(c, p, FOOT_ALL + bi, s);
    if (pipeline_on_mesh(s->source)) foot_add(c, p, FOOT_MESH + bi, s);
  } else if (!strcmp(s->kernel, "cg4")) {
    foot_add(c, p, FOOT_CG4, s);
  } else if (!strcmp(s->kernel, "cg5")) {
    foot_add(c, p, FOOT_CG5, s);
  } else if (!strcmp(s->kernel, "iter") && !strcmp(s->variant, "mesh") && bi >= 0) {
    foot_add(c, p, FOOT_ITER + bi, s);
  } else if (!strcmp(s->kernel, "iter") && !strcmp(s->variant, "row") && bi >= 0) {
    foot_add(c, p, FOOT_ROW + bi, s);
  } else if (!strcmp(s->kernel, "iter") && !strcmp(s->variant, "cpu") && bi >= 0 &&
             s->seconds > 0 && c->ni[p][bi] < ITER_MAX) {
    c->im[p][bi][c->ni[p][bi]] = s->m;
    c->it[p][bi][c->ni[p][bi]++] = s->seconds;
  }
  return 0;
}

/* The points of a CPU's timed iterations: by size ascending, the median of
 * the times at each (a repeated size), at most CGM_ITER_POINTS sizes. */
static cgm_iter_points iter_points(const double *m, const double *t, int n) {
  cgm_iter_points P = {0};
  bool used[ITER_MAX] = {0};
  double ts[ITER_MAX];
  if (n > ITER_MAX) n = ITER_MAX;
  while (P.n < CGM_ITER_POINTS) {
    double lo = INFINITY;
    for (int i = 0; i < n; i++)
      if (!used[i] && m[i] < lo) lo = m[i];
    if (!isfinite(lo)) break;
    int k = 0;
    for (int i = 0; i < n; i++)
      if (!used[i] && m[i] == lo) used[i] = true, ts[k++] = t[i];
    P.m[P.n] = lo;
    P.t[P.n++] = cgm_median(ts, k);
  }
  return P;
}

static cgm_foot foot_of(foot_ctx *c, int p, int g) {
  cgm_foot f = {0.0, 0.0};
  if (c->n[p][g] > 0) f = (cgm_foot){c->m[p][g], cgm_median(c->t[p][g], c->n[p][g])};
  return f;
}

/* A CPU's feet, matched to the SpMV curve each block size holds. */
static cgm_status load_feet(cgm_db *db, cgm_tuner_device *t, char held[2][PIPELINE_SLOTS][8],
                            cgm_error *err) {
  foot_ctx *c = calloc(1, sizeof *c);
  if (!c) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  cgm_status st = cgm_db_samples(db, t->calibration_id, take_foot, c, err);
  for (int p = 0; p < 2 && !st; p++) {
    cgm_device_model *m = &t->model[p];
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      /* a GPU's iteration curve, where it holds one */
      if (!t->is_cpu && m->have_iter[b]) m->iter_foot[b] = foot_of(c, p, FOOT_ITER + b);
      if (!t->is_cpu && m->have_row[b]) m->row_foot[b] = foot_of(c, p, FOOT_ROW + b);
      if (!t->is_cpu) continue;
      const bool mesh = !strcmp(held[p][PIPELINE_SLOT_SPMV + b], "mesh");
      m->spmv_foot[b] = foot_of(c, p, (mesh ? FOOT_MESH : FOOT_ALL) + b);
      m->cpu_iter[b] = iter_points(c->im[p][b], c->it[p][b], c->ni[p][b]);
    }
    if (!t->is_cpu) continue;
    m->cg4_foot = foot_of(c, p, FOOT_CG4);
    m->cg5_foot = foot_of(c, p, FOOT_CG5);
  }
  free(c);
  return st;
}

/* Reads the device's curves into t->model: CGM_FIT_REL with the fallbacks
 * above, any other kind alone; and the paper's (avg, else max) into
 * t->paper. */
static cgm_status load_fits(cgm_db *db, cgm_tuner_device *t, int fit_kind, cgm_error *err) {
  cgm_status st = CGM_OK;
  for (int pass = 0; pass < 2 && !st; pass++) {
    fit_ctx fc;
    memset(&fc, 0, sizeof fc);
    fc.t = t;
    fc.want = pass ? WANT_PAPER : fit_kind;
    fc.models = pass ? t->paper : t->model;
    st = cgm_db_fits(db, t->calibration_id, take_fit, &fc, err);
    for (int p = 0; p < 2; p++) {
      cgm_device_model *m = &fc.models[p];
      m->have_vec = m->cg4.nu > 0 && m->cg5.nu > 0;
    }
    /* the refined model's feet (t->model, pass 0): a CPU's curves', a
     * GPU's iteration curves' */
    if (!st && pass == 0 && fit_kind == CGM_FIT_REL) st = load_feet(db, t, fc.held, err);
  }
  /* The locality term of the refined model, where the locality sweep
   * fitted it (absent: the contiguous model of older calibrations). */
  for (int p = 0; p < 2 && !st; p++) {
    cgm_db_coef c;
    bool found = false;
    st = cgm_db_coef_get(db, t->calibration_id, CGM_DB_COEF_X_SECTOR, p, &c, &found, err);
    if (found) t->fingerprint = mix(t->fingerprint, &c.value, sizeof c.value);
    if (!st && found && isfinite(c.value) && c.value >= 0) {
      t->model[p].x_coef = c.value;
      t->model[p].have_x_coef = true;
    }
    /* the gather rate, where the gather sweep fitted it */
    found = false;
    if (!st) st = cgm_db_coef_get(db, t->calibration_id, CGM_DB_COEF_GATHER, p, &c, &found, err);
    if (found) t->fingerprint = mix(t->fingerprint, &c.value, sizeof c.value);
    if (!st && found && isfinite(c.value) && c.value > 0) {
      t->model[p].gather_bw = c.value;
      t->model[p].have_gather_bw = true;
    }
    /* and on the sweep's smaller matrix (calibrations from 0.2.3 on) */
    found = false;
    if (!st)
      st = cgm_db_coef_get(db, t->calibration_id, CGM_DB_COEF_GATHER_SMALL, p, &c, &found, err);
    if (found) t->fingerprint = mix(t->fingerprint, &c.value, sizeof c.value);
    if (!st && found && isfinite(c.value) && c.value > 0) {
      t->model[p].gather_bw_small = c.value;
      t->model[p].have_gather_small = true;
    }
    /* the band-load fractions, where the band-load sweep fitted them */
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      char name[32];
      snprintf(name, sizeof name, "%s%d", CGM_DB_COEF_BAND_LOAD, cgm_block_sizes[b]);
      found = false;
      st = cgm_db_coef_get(db, t->calibration_id, name, p, &c, &found, err);
      if (found) t->fingerprint = mix(t->fingerprint, &c.value, sizeof c.value);
      if (st || !found || !isfinite(c.value) || c.value < 0) continue;
      t->model[p].band_load[b] = c.value;
      t->model[p].have_band_load[b] = true;
    }
    /* the row-scatter terms, where the scatter sweep fitted them */
    for (int band = 0; band < 2; band++)
      for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d",
                 band ? CGM_DB_COEF_BAND_SCATTER : CGM_DB_COEF_ROW_SCATTER, cgm_block_sizes[b]);
        found = false;
        st = cgm_db_coef_get(db, t->calibration_id, name, p, &c, &found, err);
        if (found) t->fingerprint = mix(t->fingerprint, &c.value, sizeof c.value);
        if (st || !found || !isfinite(c.value) || c.value < 0) continue;
        cgm_device_model *dm = &t->model[p];
        (band ? dm->band_scatter_coef : dm->scatter_coef)[b] = c.value;
        (band ? dm->have_band_scatter_coef : dm->have_scatter_coef)[b] = true;
      }
  }
  return st;
}

static int take_calibration(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  load_ctx *L = ctx;
  if (!c->complete || (L->kind && strcmp(L->kind, d->kind))) return 0;
  for (int i = 0; i < L->nseen; i++)
    if (L->seen[i] == d->id) return 0;
  if (L->nseen < 64) L->seen[L->nseen++] = d->id;
  cgm_tuner_device *nv = cgm_grow(L->v, L->n, &L->cap, sizeof *nv, 8);
  if (!nv) {
    L->st = cgm_fail(L->err, CGM_ERUNTIME, "out of memory");
    return 1;
  }
  L->v = nv;
  fill_device(c, d, &L->v[L->n]);
  L->n++; /* its fits are read after the listing ends */
  return 0;
}

cgm_status cgm_load_devices_kind(cgm_db *db, const char *kind, int fit_kind,
                                 cgm_tuner_device **devs, int *count, cgm_error *err) {
  load_ctx L;
  memset(&L, 0, sizeof L);
  L.db = db;
  L.kind = kind;
  L.err = err;
  *devs = NULL;
  *count = 0;
  cgm_status st = cgm_db_calibrations(db, take_calibration, &L, err);
  if (!st) st = L.st;
  for (int i = 0; i < L.n && !st; i++) st = load_fits(db, &L.v[i], fit_kind, err);
  if (st) {
    free(L.v);
    return st;
  }
  pipeline_learn_history(db, L.v, L.n);
  *devs = L.v;
  *count = L.n;
  return CGM_OK;
}

cgm_status cgm_load_devices(cgm_db *db, const char *kind, cgm_tuner_device **devs, int *count,
                            cgm_error *err) {
  return cgm_load_devices_kind(db, kind, CGM_FIT_REL, devs, count, err);
}

cgm_status cgm_load_calibration(cgm_db *db, int64_t cal_id, int fit_kind, cgm_tuner_device *dev,
                                cgm_error *err) {
  cgm_db_calibration c;
  cgm_db_device d;
  cgm_status st = pipeline_calibration_get(db, cal_id, &c, &d, err);
  if (st) return st;
  fill_device(&c, &d, dev);
  pipeline_learn_history(db, dev, 1);
  return load_fits(db, dev, fit_kind, err);
}

int pipeline_calibration_gpus(const char *options_json) {
  cJSON *j = cJSON_Parse(options_json ? options_json : "");
  const cJSON *g = j ? cJSON_GetObjectItemCaseSensitive(j, "gpus") : NULL;
  const int gpus = cJSON_IsNumber(g) && g->valueint >= 1 ? g->valueint : 1;
  cJSON_Delete(j);
  return gpus;
}
