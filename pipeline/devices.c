/* Devices: what this machine has, what the database holds for them, and the
 * record of every solve beside its prediction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "pipeline/curves.h"
#include "pipeline/json.h"
#include "common/grow.h"

cgm_status cgm_describe_cpu(cgm_db_device *d, int threads, cgm_error *err) {
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "cpu");
  snprintf(d->kind, sizeof d->kind, "cpu");
  d->threads = threads > 0 ? threads : omp_get_max_threads();
  char model[200] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (!strncmp(line, "model name", 10)) {
        char *c = strchr(line, ':');
        if (c) {
          c++;
          while (*c == ' ' || *c == '\t') c++;
          c[strcspn(c, "\n")] = 0;
          snprintf(model, sizeof model, "%s", c);
        }
        break;
      }
    fclose(f);
  }
  /* The thread count is part of the device: its curves depend on it. */
  snprintf(d->model, sizeof d->model, "%s (%d thread%s)", model, d->threads,
           d->threads == 1 ? "" : "s");
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && psize > 0) d->mem_total = (int64_t)pages * psize;
  if (gethostname(d->host, sizeof d->host) != 0) snprintf(d->host, sizeof d->host, "unknown");
  d->host[sizeof d->host - 1] = 0;
  (void)err;
  return CGM_OK;
}

cgm_status cgm_describe_cuda(int dev, cgm_db_device *d, cgm_error *err) {
  memset(d, 0, sizeof *d);
  cgm_device_info info;
  cgm_status st = cgm_cuda_device_info(dev, &info, err);
  if (st) return st;
  snprintf(d->name, sizeof d->name, "cuda:%d", dev);
  snprintf(d->kind, sizeof d->kind, "cuda");
  snprintf(d->model, sizeof d->model, "%s", info.name);
  d->cc_major = info.cc_major;
  d->cc_minor = info.cc_minor;
  d->sms = info.sms;
  d->mem_total = info.mem_total;
  d->clock_khz = info.clock_khz;
  d->mem_clock_khz = info.mem_clock_khz;
  d->bus_width_bits = info.bus_width_bits;
  d->driver_version = info.driver_version;
  d->runtime_version = info.runtime_version;
  if (gethostname(d->host, sizeof d->host) != 0) snprintf(d->host, sizeof d->host, "unknown");
  d->host[sizeof d->host - 1] = 0;
  return CGM_OK;
}

/* ------------------------------------------------ database -> models --- */

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

static int take_fit(const cgm_db_fit *f, void *ctx) {
  fit_ctx *c = ctx;
  cgm_tuner_device *t = c->t;
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
  t->gpus = 1;
  cgm_calibration_cg(c->options, t->is_cpu, t->cg, sizeof t->cg);
  cJSON *j = cJSON_Parse(c->options);
  const cJSON *g = j ? cJSON_GetObjectItemCaseSensitive(j, "gpus") : NULL;
  if (cJSON_IsNumber(g) && g->valueint >= 1) t->gpus = g->valueint;
  cJSON_Delete(j);
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
  cgm_status st = cgm_db_calibration_get(db, cal_id, &c, err);
  if (!st) st = cgm_db_device_get(db, c.device_id, &d, err);
  if (st) return st;
  fill_device(&c, &d, dev);
  return load_fits(db, dev, fit_kind, err);
}

int cgm_find_device(const cgm_tuner_device *devs, int count, bool cpu, const char *model) {
  for (int i = 0; i < count; i++)
    if (devs[i].is_cpu == cpu && !strcmp(devs[i].name, model)) return i;
  return -1;
}

cgm_status cgm_predict_config(const cgm_csr *A, const cgm_features *f, const cgm_tuner_device *dev,
                              const cgm_solve_opts *o, double *seconds, cgm_error *err) {
  *seconds = NAN;
  const int pr = o->precision;
  if (!dev->have[pr]) return CGM_OK;
  if (o->backend == CGM_BACKEND_CUSPARSE) {
    *seconds = cgm_refined_cusparse_time(&dev->model[pr], f->nnz, f->x);
    return CGM_OK;
  }
  cgm_plan plan;
  cgm_status st = cgm_solve_plan(A, o, &plan, err);
  if (st) return st;
  *seconds = cgm_refined_time(&dev->model[pr], &plan);
  return CGM_OK;
}

cgm_status cgm_record_solve(cgm_db *db, const char *matrix_name, const char *path,
                            int64_t file_bytes, const cgm_features *f, const cgm_solve_opts *o,
                            const cgm_solve_result *r, double predicted, int64_t calibration_id,
                            cgm_error *err) {
  cgm_db_matrix m;
  memset(&m, 0, sizeof m);
  snprintf(m.name, sizeof m.name, "%s", matrix_name);
  snprintf(m.path, sizeof m.path, "%s", path ? path : "");
  m.file_bytes = file_bytes;
  m.x = f->x;
  m.nnz = f->nnz;
  cJSON *j = cgm_features_json(f, NULL);
  char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
  snprintf(m.features, sizeof m.features, "%s", txt ? txt : "{}");
  cJSON_free(txt);
  cJSON_Delete(j);
  cgm_status st = cgm_db_matrix_get_or_add(db, &m, err);
  if (st) return st;
  cgm_db_solve s;
  memset(&s, 0, sizeof s);
  s.matrix_id = m.id;
  s.calibration_id = calibration_id > 0 ? calibration_id : 0;
  snprintf(s.backend, sizeof s.backend, "%s", cgm_backend_name(o->backend));
  snprintf(s.precision, sizeof s.precision, "%s", cgm_precision_name(o->precision));
  snprintf(s.exchange, sizeof s.exchange, "%s",
           o->backend == CGM_BACKEND_CUDA && o->gpus > 1 ? cgm_exchange_name(o->exchange) : "");
  if (o->backend == CGM_BACKEND_CPU)
    snprintf(s.devices, sizeof s.devices, "cpu");
  else if (o->gpus > 1)
    snprintf(s.devices, sizeof s.devices, "cuda:0-%d", o->gpus - 1);
  else
    snprintf(s.devices, sizeof s.devices, "cuda:0");
  s.block = o->layout.n;
  s.bx = o->layout.bx;
  s.gpus = o->backend == CGM_BACKEND_CPU ? 0 : o->gpus;
  s.iterations = r->iterations;
  s.converged = r->converged;
  s.relative_residual = r->relative_residual;
  s.time_per_iter_s = r->time_per_iter_s;
  s.predicted_time_per_iter_s = predicted;
  snprintf(s.model, sizeof s.model, "refined");
  cJSON *oj = cgm_solve_opts_json(o);
  char *otxt = oj ? cJSON_PrintUnformatted(oj) : NULL;
  snprintf(s.options, sizeof s.options, "%s", otxt ? otxt : "{}");
  cJSON_free(otxt);
  cJSON_Delete(oj);
  return cgm_db_solve_add(db, &s, err);
}
