/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The database's calibrations as the tuner's device models: the newest complete calibration of each
 * device, its fits placed in the model's curves with the fallbacks the refined model needs (a
 * relative fit that did not converge gives way to the average, then the maximum fit), and the
 * paper's model from the average fits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "pipeline/curves.h"
#include "pipeline/steps.h"
#include "common/grow.h"
#include "common/timer.h"

/* The refined model times kernels with the relative fits; where one did not converge (or left its
 * bounds) it falls back to the samples' interpolation where the calibration made one
 * (CGM_FIT_INTERP), else to the average fit, then to the maximum fit (never to a fit that did not
 * converge). prio[] remembers what each curve holds. */
/* the paper's model: avg fits (Sec. 6.2), else max, else rel, else the interpolation's median
 * throughput */
enum { WANT_PAPER = -1 };

typedef struct {
  cgm_tuner_device *t;
  cgm_device_model *models; /* [2], per precision: t->model or t->paper */
  int prio[2][PIPELINE_SLOTS];
  char held[2][PIPELINE_SLOTS][8]; /* the variant of the curve a slot holds ("mesh", "all", "") */
  int want; /* CGM_FIT_REL: with the fallbacks; WANT_PAPER; another kind alone (the maps) */
  const cgm_sample_vec *sv; /* the calibration's samples (the interpolations'), want REL */
} fit_ctx;

static int fit_rank(int want, int kind) {
  static const int paper[] = {4, 3, 2, 0, 1}, rel[] = {2, 1, 4, 0, 3}; /* by kind */
  if (want != CGM_FIT_REL && want != WANT_PAPER) return kind == want ? 3 : 0;
  return kind >= 0 && kind <= CGM_FIT_INTERP ? (want == WANT_PAPER ? paper : rel)[kind] : 0;
}

static bool take(fit_ctx *c, int prec, int slot, int kind, const char *variant) {
  /* Of two SpMV curves of one rank, the refined model takes the mesh curve
   * (pipeline/calibrate.c); the paper's model keeps the "all" curve. */
  int r = 2 * fit_rank(c->want, kind) + (c->want != WANT_PAPER && !strcmp(variant, "mesh"));
  if (r < 2 || c->prio[prec][slot] >= r) return false;
  c->prio[prec][slot] = r;
  snprintf(c->held[prec][slot], sizeof c->held[prec][slot], "%s", variant);
  return true;
}

/* A curve's second regime (CGM_FIT_REL_HI): used past the first transaction count it was fitted on,
 * and only with the relative fits (the avg and max fits span every size by themselves). */
static void take_regime(fit_ctx *c, const cgm_db_fit *f) {
  if (c->want != CGM_FIT_REL) return;
  cgm_regime *hi;
  bool *have;
  int slot;
  if (!pipeline_kernel_curve(&c->models[f->precision], f, &hi, &have, &slot)) return;
  /* only beside the relative fit of the same group */
  if (c->prio[f->precision][slot] / 2 == fit_rank(CGM_FIT_REL, CGM_FIT_REL) &&
      !strcmp(c->held[f->precision][slot], f->variant))
    *hi = (cgm_regime){.hi = {f->mu, f->sigma, f->nu}, .split_m = f->m_lo, .have = f->m_lo > 0};
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
  if (f->precision < 0 || f->precision > 1) return 0;
  cgm_regime *hi;
  bool *have;
  int slot;
  if (f->kind == CGM_FIT_INTERP && (c->want == CGM_FIT_REL || c->want == WANT_PAPER) &&
      pipeline_kernel_curve(&c->models[f->precision], f, &hi, &have, &slot) &&
      take(c, f->precision, slot, f->kind, f->variant)) {
    pipeline_place_interp(&c->models[f->precision], f, c->sv->v, c->sv->n);
    t->have[f->precision] = true;
  }
  if (!f->converged) return 0;
  if (f->kind == CGM_FIT_REL_HI) {
    take_regime(c, f);
    return 0;
  }
  const int pr = f->precision;
  cgm_device_model *m = &c->models[pr];
  cgm_sigmoid s = {f->mu, f->sigma, f->nu};
  cgm_exchange ex;
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
  t->threads = t->is_cpu ? d->threads : 0;
  t->mem_bytes = t->is_cpu ? 0 : d->mem_total;
  t->calibration_id = c->id;
  t->fingerprint = mix(1469598103934665603ull, &c->id, sizeof c->id);
  cgm_calibration_cg(c->options, t->is_cpu, t->cg, sizeof t->cg);
  t->gpus = pipeline_calibration_gpus(c->options);
  snprintf(t->interconnect, sizeof t->interconnect, "%s", c->interconnect);
  for (int p = 0; p < 2; p++) {
    t->model[p].width = t->paper[p].width = p == CGM_PREC_SINGLE ? 4 : 8;
    t->model[p].sms = t->is_cpu ? 0 : d->sms;
  }
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

/* A curve's foot (cgm_device_model.spmv_foot, iter_foot, ...): the smallest size its group's
 * samples timed and the median of their times there (m = 0: none). */
static cgm_foot foot_of(const cgm_sample_vec *sv, const char *kernel, const char *variant, int p,
                        int block) {
  cgm_foot f = {0.0, 0.0};
  double t[32];
  int k = 0;
  for (int i = 0; i < sv->n; i++) {
    const cgm_sample *s = &sv->v[i];
    if (!pipeline_in_group(s, kernel, variant, p, block) || !(s->m > 0) || !(s->seconds > 0))
      continue;
    if (f.m == 0 || s->m < f.m) f.m = s->m, k = 0;
    if (s->m == f.m && k < 32) t[k++] = s->seconds;
  }
  if (k) f.t = cgm_median(t, k);
  return f;
}

enum { ITER_MAX = 8 * CGM_ITER_POINTS }; /* a CPU's iteration samples kept a block size */

/* The points of a CPU's timed iterations: by size ascending, the median of
 * the times at each (a repeated size), at most CGM_ITER_POINTS sizes. */
static cgm_iter_points iter_points(const double *m, const double *t, const double *r, int n) {
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
      if (!used[i] && m[i] == lo) used[i] = true, ts[k++] = t[i], P.r[P.n] = r[i];
    P.m[P.n] = lo;
    P.t[P.n++] = cgm_median(ts, k);
  }
  return P;
}

/* A CPU's feet, matched to the SpMV curve each block size holds, and its
 * timed iterations; a GPU's iteration and row curves' feet. */
static void load_feet(const cgm_sample_vec *sv, cgm_tuner_device *t,
                      char held[2][PIPELINE_SLOTS][8]) {
  for (int p = 0; p < 2; p++) {
    cgm_device_model *m = &t->model[p];
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      const int n = cgm_block_sizes[b];
      if (!t->is_cpu) { /* where it holds the curve */
        if (m->have_iter[b]) m->iter_foot[b] = foot_of(sv, "iter", "mesh", p, n);
        if (m->have_iterc[b]) m->iterc_foot[b] = foot_of(sv, "iter", "meshc", p, n);
        if (m->have_row[b]) m->row_foot[b] = foot_of(sv, "iter", "row", p, n);
        continue;
      }
      m->spmv_foot[b] = foot_of(sv, "spmv", held[p][PIPELINE_SLOT_SPMV + b], p, n);
      double im[ITER_MAX], it[ITER_MAX], ir[ITER_MAX];
      int k = 0, dim, g;
      for (int i = 0; i < sv->n && k < ITER_MAX; i++)
        if (pipeline_in_group(&sv->v[i], "iter", "cpu", p, n) && sv->v[i].seconds > 0 &&
            !sv->v[i].unsettled) {
          /* the grid's rows, from its source (mb_grid_make's "poissonDd:N") */
          const bool grid = sscanf(sv->v[i].source, "poisson%dd:%d", &dim, &g) == 2;
          ir[k] = grid && dim >= 1 && dim <= 3 && g > 0 ? pow(g, dim) : 0.0;
          im[k] = sv->v[i].m, it[k++] = sv->v[i].seconds;
        }
      m->cpu_iter[b] = iter_points(im, it, ir, k);
    }
    if (!t->is_cpu) continue;
    m->gather_cached = true;
    m->cg4_foot = foot_of(sv, "cg4", "", p, 0);
    m->cg5_foot = foot_of(sv, "cg5", "", p, 0);
  }
}

static int take_coef(const cgm_db_coef *c, void *ctx) {
  cgm_tuner_device *t = ctx;
  t->fingerprint = mix(t->fingerprint, &c->value, sizeof c->value);
  if (c->precision >= 0 && c->precision < 2) pipeline_place_coef(&t->model[c->precision], c);
  return 0;
}

/* Reads the device's curves into t->model: CGM_FIT_REL with the fallbacks above, any other kind
 * alone; and the paper's (avg, else max) into t->paper. */
static cgm_status load_fits(cgm_db *db, cgm_tuner_device *t, int fit_kind, cgm_error *err) {
  /* the samples: the refined model's interpolations and feet */
  cgm_sample_vec sv = {0};
  const bool samples = !(fit_kind & CGM_NO_SAMPLES);
  fit_kind &= ~(CGM_NO_HISTORY | CGM_NO_SAMPLES);
  cgm_status st = fit_kind == CGM_FIT_REL && samples
                      ? cgm_db_samples(db, t->calibration_id, pipeline_collect_sample, &sv, err)
                      : CGM_OK;
  for (int pass = 0; pass < 2 && !st; pass++) {
    fit_ctx fc = {.t = t,
                  .models = pass ? t->paper : t->model,
                  .want = pass ? WANT_PAPER : fit_kind,
                  .sv = &sv};
    st = cgm_db_fits(db, t->calibration_id, take_fit, &fc, err);
    for (cgm_device_model *m = fc.models; m < fc.models + 2; m++)
      m->have_vec = m->cg4.nu > 0 && m->cg5.nu > 0;
    /* An exchange one precision lacks (its fit did not converge: single's
     * halo on 2 H200s) is the other's at the same bytes: the links move
     * bytes. Its mu, in elements, moves by the widths' ratio. */
    for (int ex = 0; ex < CGM_NEXCHANGES; ex++)
      for (int g = 2; g <= CGM_MAX_GPUS; g++)
        for (int p = 0; p < 2; p++) {
          cgm_device_model *a = &fc.models[p], *b = &fc.models[1 - p];
          if (a->have_xfer[ex][g] || !b->have_xfer[ex][g]) continue;
          a->xfer[ex][g] = b->xfer[ex][g];
          a->xfer[ex][g].mu += log2(b->width / a->width);
          a->have_xfer[ex][g] = true;
        }
    /* the refined model's feet (t->model, pass 0): a CPU's curves', a GPU's iteration curves' */
    if (!st && pass == 0 && fit_kind == CGM_FIT_REL) load_feet(&sv, t, fc.held);
  }
  free(sv.v);
  /* The coefficients the calibration's own sweeps fitted (absent: the
   * model without their terms, as older calibrations have it). */
  return st ? st : cgm_db_coefs(db, t->calibration_id, take_coef, t, err);
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
  load_ctx L = {.kind = kind, .err = err};
  *devs = NULL;
  *count = 0;
  cgm_status st = cgm_db_calibrations(db, take_calibration, &L, err);
  if (!st) st = L.st;
  for (int i = 0; i < L.n && !st; i++) st = load_fits(db, &L.v[i], fit_kind, err);
  if (st) {
    free(L.v);
    return st;
  }
  pipeline_learn_history(fit_kind & CGM_NO_HISTORY ? NULL : db, L.v, L.n); /* NULL: the defaults */
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
