/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel calibrate: sweeps -> Eq. 3 fits -> database. Groups of samples (kernel, variant,
 * precision, block) get an average and a maximum fit (Table 3). The SpMV gets two more groups:
 * "all" (dense-block and realistic matrices together) and "mesh" (those of them on Poisson grids,
 * blocked or not: short rows of local columns), the size-to-throughput curve the refined model
 * falls back on: its byte count reads x once, as a mesh's local columns do; scattered columns,
 * power-law rows and the 41-81-entry rows of elasticity run slower than any bandwidth curve over
 * bytes says, which the row-walk and band curves model (docs/model.md). Whole multi-GPU iterations
 * ("mgpu") become exchange samples ("xfer"): the iteration time minus what the single-GPU curves
 * predict for the slowest segment, over the bytes the mode moves. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/calibrate.h"
#include "common/grow.h"
#include "common/timer.h"
#include "microbench/microbench.h"
#include "pipeline/calibrate/fits.h"
#include "pipeline/curves.h"
#include "pipeline/json.h"
#include "common/parse.h"
#include "pipeline/steps.h"

/* The sweeps' sink and progress, with a clock of the stages (the report's
 * "where the time went"). The sweeps report after each measurement, so the
 * time since the previous report is the named stage's. */
typedef struct {
  cgm_sample_vec *sv;
  const cgm_calibrate_opts *o;
  cgm_calibration_report *rep;
  int ri, gpu; /* gpu: the GPU's index, its share read as each sweep starts (-1: the CPU) */
  double since;
} stage_clock;

static void stage_mark(stage_clock *c, const char *stage) {
  double now = cgm_now();
  cgm_stage_time *t = c->rep->cal[c->ri].stage;
  int *n = &c->rep->cal[c->ri].nstages, k = 0;
  while (k < *n && strcmp(t[k].name, stage)) k++;
  if (k == *n && k < CGM_MAX_STAGES) {
    snprintf(t[k].name, sizeof t[k].name, "%s", stage);
    t[k].seconds = 0;
    (*n)++;
  }
  if (k < *n) t[k].seconds += now - c->since;
  c->since = now;
}

static int clock_sink(void *ctx, const cgm_sample *s) {
  return cgm_sample_vec_push(((stage_clock *)ctx)->sv, s);
}

static void clock_progress(void *ctx, const char *stage, double done) {
  stage_clock *c = ctx;
  const int had = c->rep->cal[c->ri].nstages;
  stage_mark(c, stage); /* another process's work on the GPU may come and go: read at every sweep */
  double *share = &c->rep->cal[c->ri].gpu_share;
  if (c->gpu >= 0 && c->rep->cal[c->ri].nstages > had)
    *share = fmin(*share, cgm_mb_gpu_share(c->gpu, 0.025));
  if (c->o->progress) c->o->progress(c->o->progress_ctx, stage, done);
}

/* The test of cgm_check_cpu_timings: the median time of the 3 smallest CG4
 * sizes against the 3 largest (undisturbed, a ratio near m_small / m_large,
 * under 1e-2; disturbed, near 1). The sweep gives them by size. */
cgm_status cgm_check_cpu_timings(const cgm_sample *v, int count, cgm_error *err) {
  for (int p = 0; p < 2; p++) {
    double m[256], t[256];
    int n = 0;
    for (int i = 0; i < count && n < 256; i++)
      if (!strcmp(v[i].kernel, "cg4") && v[i].precision == p)
        m[n] = v[i].m, t[n] = v[i].seconds, n++;
    if (n < 8) continue;
    double lo[3] = {t[0], t[1], t[2]}, hi[3] = {t[n - 3], t[n - 2], t[n - 1]};
    double ts = cgm_median(lo, 3), tl = cgm_median(hi, 3);
    if (ts > 0.1 * tl) {
      char load[64] = "";
      FILE *f = fopen("/proc/loadavg", "r");
      double l1;
      if (f) {
        if (fscanf(f, "%lf", &l1) == 1) snprintf(load, sizeof load, " (load average %.2f)", l1);
        fclose(f);
      }
      return cgm_fail(err, CGM_ERUNTIME,
                      "CPU timings disturbed: CG4 on %.0f elements took %.3g ms, %.0f%% of the "
                      "%.3g ms on %.0f elements, where the time should grow with the size: other "
                      "processes compete for the cores%s",
                      m[1], 1e3 * ts, 100 * ts / tl, 1e3 * tl, m[n - 2], load);
    }
  }
  return CGM_OK;
}

const cgm_coef_family cgm_coef_families[CGM_COEF_FAMILIES] = {
    {CGM_DB_COEF_X_SECTOR, "x_coef", "locality coefficient", 1},
    {CGM_DB_COEF_BAND_LOAD, "band_load", "band load, the wide bands' extra walk (fraction)", 1},
    {CGM_DB_COEF_GATHER, "gather_bw", "gather rate, GB/s of x's sectors", 1e-9},
    {CGM_DB_COEF_GATHER_SMALL, "gather_bw_small", "gather rate at the smaller matrix, GB/s", 1e-9},
    {CGM_DB_COEF_ROW_SCATTER, "scatter_coef", "row-scatter, us a step alone", 1e6},
    {CGM_DB_COEF_BAND_SCATTER, "band_scatter_coef", "row-scatter, us a step in a full warp", 1e6}};

const char *cgm_coef_of(const cgm_db_coef *c, const char *family) {
  const size_t l = strlen(family);
  const char *tail = c->name + l;
  return strncmp(c->name, family, l) || (family[l - 1] == '_') != (*tail != '\0') ? NULL : tail;
}

double cgm_calibrate_cpu_share(int threads) {
  return cgm_mb_cpu_share(threads, 0.05);
}

/* One device: sweeps, fits, one transaction. */
static cgm_status calibrate_one(cgm_db *db, const cgm_calibrate_opts *o, const char *device,
                                int gpus, cgm_calibration_report *rep, cgm_error *err) {
  if (rep->count >= CGM_MAX_CALIBRATED) return cgm_fail(err, CGM_EINPUT, "too many devices");
  int ri = rep->count++;
  snprintf(rep->cal[ri].device, sizeof rep->cal[ri].device, "%s", device);
  rep->cal[ri].gpus = gpus;
  cgm_db_device dev;
  const bool cpu = strcmp(device, "cpu") == 0;
  const int gpu = cpu ? -1 : atoi(device + 5); /* "cuda:K" */
  const double t_describe = cgm_now();
  cgm_status st = cpu ? cgm_describe_cpu(&dev, o->threads, err) : cgm_describe_cuda(gpu, &dev, err);
  if (st) return st;
  /* A GPU's start, the driver's and its context's (describing it makes the context): what a solve
   * on it pays before its first kernel and one on the CPU does not (the tuner's CPU first) */
  const cgm_db_sample start = {
      .kernel = "start", .seconds = cpu ? 0 : cgm_cuda_driver_start_s() + cgm_now() - t_describe};
  snprintf(rep->cal[ri].model, sizeof rep->cal[ri].model, "%s", dev.model);
  double t0 = cgm_now();
  cgm_sample_vec sv = {0};
  /* A CPU shared with other work gives the sweeps a share of its time: a quick calibration then
   * leaves out the samples the model can do without, to keep to its time (docs/calibration.md) */
  const double share = !cpu               ? 0
                       : o->cpu_share > 0 ? o->cpu_share
                                          : cgm_calibrate_cpu_share(o->threads);
  const bool busy = o->quick && !o->strict && cpu && share < CGM_BUSY_SHARE; /* strict: all */
  rep->cal[ri].cpu_share = share;
  /* a GPU another process keeps busy: the two take turns, and a timing longer than a turn waits */
  rep->cal[ri].gpu_share = cpu ? 0 : cgm_mb_gpu_share(gpu, 0.05);
  /* the share over every kernel sweep's replays: bursts the readings at the start miss */
  double watched = 1.0;
  cgm_mb_opts mo = {"", gpus, o->quick, o->precisions, o->threads, o->gpu, busy, &watched};
  snprintf(mo.device, sizeof mo.device, "%s", device);
  stage_clock clk = {&sv, o, rep, ri, gpu, t0};
  st = cgm_mb_run(&mo, clock_sink, clock_progress, &clk, err);
  if (!cpu) rep->cal[ri].gpu_share = fmin(rep->cal[ri].gpu_share, watched);
  if (!st && o->progress) o->progress(o->progress_ctx, "fits", 1.0);
  cgm_db_fit *fits = NULL;
  int nfits = 0;
  const int measured = sv.n; /* the fits derive exchange samples after these */
  if (!st) st = calibrate_fit_all(&sv, o->precisions, &o->gpu, &fits, &nfits, rep, ri, err);
  /* Disturbed timings are stored, flagged in the options (a solve far from their prediction is then
   * not taken for a disturbed one), and said; --strict refuses them. */
  cgm_error why = {0};
  for (int i = 0; i < sv.n; i++) rep->cal[ri].unsettled += sv.v[i].unsettled;
  char *warn = rep->cal[ri].warning;
  if (!st && busy)
    snprintf(warn, sizeof rep->cal[ri].warning,
             "the CPU was busy (its threads had %.0f%% of their CPUs' time): left out the gather "
             "sweep, the SpMV's dense-block matrices past 2^16 elements and the largest grid; "
             "calibrate again when it is quiet for them",
             100 * share);
  else if (!st && !cpu &&
           (rep->cal[ri].gpu_share < CGM_BUSY_SHARE || watched < CGM_GPU_SHARED_BELOW))
    snprintf(warn, sizeof rep->cal[ri].warning,
             "%s was shared with another process (its kernels had %.0f%% of its time): the "
             "timings longer than its turns are held up; calibrate again when it is free",
             device, 100 * rep->cal[ri].gpu_share);
  if (!st && cpu && cgm_check_cpu_timings(sv.v, sv.n, &why)) /* after the busy note, if any */
    snprintf(warn + strlen(warn), sizeof rep->cal[ri].warning - strlen(warn), "%s%s",
             *warn ? "; " : "", why.msg);
  else if (!st && !*warn && rep->cal[ri].unsettled * 10 > sv.n)
    snprintf(rep->cal[ri].warning, sizeof rep->cal[ri].warning,
             "%d of %d samples' timings unsettled, other work holding them up",
             rep->cal[ri].unsettled, sv.n);
  if (!st && o->strict && rep->cal[ri].warning[0])
    st = cgm_fail(err, CGM_ERUNTIME,
                  "%s. Nothing was stored (strict); calibrate on an idle machine, or with "
                  "threads= below the idle cores",
                  rep->cal[ri].warning);
  stage_mark(&clk, "fits");
  const calibrate_fits F = {fits, nfits, &sv};
  cgm_db_coef *coef = rep->cal[ri].coef; /* 3 + 3 per block size, a precision */
  int ncoef = 0;                         /* rep->cal[ri].ncoef, once stored */
  if (!st) st = calibrate_fit_locality(o, device, &F, coef, &ncoef, err);
  stage_mark(&clk, "locality");
  const bool walks = !cpu; /* a CPU's model has no walk */
  if (!st && walks) st = calibrate_fit_scatter(o, &F, coef, &ncoef, err);
  if (walks) stage_mark(&clk, "scatter");
  if (!st && !busy) st = calibrate_fit_gather(o, device, &F, coef, &ncoef, err);
  stage_mark(&clk, "gather");
  if (!st && walks) st = calibrate_fit_band_load(o, &F, coef, &ncoef, err);
  if (walks) stage_mark(&clk, "band-load");
  /* Store: device, calibration, samples, fits and coefficients in one transaction. */
  if (!st) st = cgm_db_begin(db, err);
  if (!st) {
    cgm_db_calibration cal = {0};
    if (!(st = cgm_db_device_get_or_add(db, &dev, err))) {
      cal.device_id = dev.id;
      /* its exchange fits' profile: peer access, or one GPU's host-staged */
      for (int i = 0; i < nfits; i++)
        if (fits[i].converged && !strcmp(fits[i].kernel, "xfer"))
          snprintf(cal.interconnect, sizeof cal.interconnect, "%s:%s",
                   gpus > 1 ? "peer" : CGM_PCIE_HOST, dev.model);
      snprintf(cal.tool_version, sizeof cal.tool_version, "%s", cgm_version());
      cJSON *j = cgm_calibration_options_json(device, gpus, o);
      if (rep->cal[ri].warning[0]) cJSON_AddBoolToObject(j, "disturbed", true);
      if (busy) cJSON_AddNumberToObject(j, "cpu_share", round(100 * share) / 100); /* thinned */
      if (!cpu) cJSON_AddNumberToObject(j, "gpu_share", round(100 * rep->cal[ri].gpu_share) / 100);
      char *txt = cJSON_PrintUnformatted(j);
      snprintf(cal.options, sizeof cal.options, "%s", txt ? txt : "{}");
      cJSON_free(txt);
      cJSON_Delete(j);
      st = cgm_db_calibration_add(db, &cal, err);
    }
    for (int i = 0; i < measured && !st; i++) st = cgm_db_sample_add(db, cal.id, &sv.v[i], err);
    if (!st && start.seconds > 0) st = cgm_db_sample_add(db, cal.id, &start, err);
    for (int i = 0; i < nfits && !st; i++) st = cgm_db_fit_add(db, cal.id, &fits[i], err);
    for (int i = 0; i < ncoef && !st; i++) st = cgm_db_coef_add(db, cal.id, &coef[i], err);
    double secs = cgm_now() - t0;
    stage_mark(&clk, "store");
    if (!st) st = cgm_db_calibration_finish(db, cal.id, secs, err);
    st = cgm_db_end(db, st, err);
    rep->cal[ri].id = cal.id;
    rep->cal[ri].seconds = secs;
    rep->cal[ri].samples = sv.n;
    rep->cal[ri].fits = nfits;
    rep->cal[ri].ncoef = ncoef;
  }
  CGM_FREE(sv.v, fits);
  return st;
}

cgm_status cgm_refit(cgm_db *db, int64_t cal_id, cgm_calibration_report *rep, cgm_error *err) {
  memset(rep, 0, sizeof *rep);
  cgm_db_calibration cal;
  cgm_db_device dev;
  cgm_status st = pipeline_calibration_get(db, cal_id, &cal, &dev, err);
  if (st) return st;
  if (!cal.complete)
    return cgm_fail(err, CGM_EINPUT, "calibration %lld was not completed: nothing to refit",
                    (long long)cal_id);
  rep->count = 1;
  rep->cal[0].id = cal_id;
  snprintf(rep->cal[0].device, sizeof rep->cal[0].device, "%.31s", dev.name);
  snprintf(rep->cal[0].model, sizeof rep->cal[0].model, "%s", dev.model);
  rep->cal[0].gpus = pipeline_calibration_gpus(cal.options);
  cJSON *j = cJSON_Parse(cal.options);
  /* the solver options the sweeps ran with (the defaults where not recorded) */
  cgm_gpu_opts gpu = cgm_gpu_opts_from_json(j ? cJSON_GetObjectItemCaseSensitive(j, "gpu") : NULL);
  cJSON_Delete(j);
  double t0 = cgm_now();
  cgm_sample_vec sv = {0};
  st = cgm_db_samples(db, cal_id, pipeline_collect_sample, &sv, err);
  unsigned precisions = 0;
  for (int i = 0; i < sv.n; i++)
    if (sv.v[i].precision >= 0 && sv.v[i].precision < 2) precisions |= 1u << sv.v[i].precision;
  if (!st && !precisions)
    st = cgm_fail(err, CGM_EINPUT, "calibration %lld holds no samples", (long long)cal_id);
  cgm_db_fit *fits = NULL;
  int nfits = 0;
  if (!st) st = calibrate_fit_all(&sv, precisions, &gpu, &fits, &nfits, rep, 0, err);
  /* Old fits out, new ones in: one transaction, so a failure keeps the old. */
  if (!st) st = cgm_db_begin(db, err);
  if (!st) {
    st = cgm_db_fits_delete(db, cal_id, err);
    for (int i = 0; i < nfits && !st; i++) st = cgm_db_fit_add(db, cal_id, &fits[i], err);
    st = cgm_db_end(db, st, err);
  }
  rep->cal[0].samples = sv.n;
  rep->cal[0].fits = nfits;
  rep->cal[0].seconds = cgm_now() - t0;
  CGM_FREE(sv.v, fits);
  return st;
}

cgm_status cgm_calibrate_plan(const char *devices, cgm_calibrate_plan_t *plan, cgm_error *err) {
  memset(plan, 0, sizeof *plan);
  /* Strict (common/parse.h): an empty item, a space, a repeated item or an
   * out-of-range number is an error, never skipped, cut or clamped. */
  enum { MAX_ITEMS = 64 };
  cgm_item it[MAX_ITEMS];
  char why[160];
  const char *list = devices ? devices : "cpu";
  int nit = cgm_parse_list(list, it, MAX_ITEMS, why, sizeof why);
  if (nit < 0) return cgm_fail(err, CGM_EINPUT, "devices: %s", why);
  const int ndev = cgm_cuda_device_count();
  for (int i = 0; i < nit;) {
    if (it[i].n > 64)
      return cgm_fail(err, CGM_EINPUT, "devices: '%.64s...' is not a device", it[i].s);
    char tok[80];
    snprintf(tok, sizeof tok, "%.*s", (int)(it[i].n < 64 ? it[i].n : 64), it[i].s);
    if (plan->count == CGM_MAX_CALIBRATED)
      return cgm_fail(err, CGM_EINPUT, "devices: more than %d devices", CGM_MAX_CALIBRATED);
    char *name = plan->device[plan->count];
    int *gpus = &plan->gpus[plan->count];
    i++;
    if (!strcmp(tok, "cpu")) {
      snprintf(name, 32, "cpu");
      *gpus = 1;
    } else if (!strcmp(tok, "cuda:all") || !strcmp(tok, "cuda")) {
      if (ndev < 1)
        return cgm_fail(err, CGM_EINPUT, "devices %s: no CUDA device is present%s", tok,
                        cgm_have_cuda_build() ? "" : " (this build has no CUDA backend)");
      /* GPUs of one model share a calibration; the count sizes the multi-GPU sweeps. */
      snprintf(name, 32, "cuda:0");
      *gpus = ndev;
    } else if (!strncmp(tok, "cuda:", 5)) {
      /* "cuda:K": one GPU; "cuda:0,1,2": GPUs 0..K-1 of the node (the
       * multi-GPU sweeps run on the first K; GPU 0 is measured alone). */
      int64_t first, k;
      int count = 1;
      if (!cgm_parse_int(tok + 5, 0, 1023, &first))
        return cgm_fail(err, CGM_EINPUT, "devices: '%s' is not cuda:K (K a GPU number, 0 or more)",
                        tok);
      while (i < nit && it[i].s[0] >= '0' && it[i].s[0] <= '9') {
        if (it[i].n > 64)
          return cgm_fail(err, CGM_EINPUT, "devices: '%.64s...' is not a GPU number", it[i].s);
        char num[80];
        snprintf(num, sizeof num, "%.*s", (int)(it[i].n < 64 ? it[i].n : 64), it[i].s);
        if (!cgm_parse_int(num, 0, 1023, &k) || k != first + count)
          return cgm_fail(err, CGM_EINPUT,
                          "devices: '%s' after cuda:%lld: list consecutive GPUs (cuda:0,1,2)", num,
                          (long long)first);
        count++;
        i++;
      }
      if (first != 0 && count > 1)
        return cgm_fail(err, CGM_EINPUT,
                        "devices: cuda:%lld,...: several GPUs start at cuda:0 (the "
                        "multi-GPU sweeps use GPUs 0..K-1)",
                        (long long)first);
      if (first + count > ndev)
        return cgm_fail(err, CGM_EINPUT, "devices: CUDA device %lld does not exist (%d present)",
                        (long long)(first + count - 1), ndev);
      snprintf(name, 32, "cuda:%lld", (long long)first);
      *gpus = count;
    } else {
      return cgm_fail(err, CGM_EINPUT, "devices: '%s' is not cpu, cuda:all or cuda:0[,1...]", tok);
    }
    for (int k = 0; k < plan->count; k++) /* cuda and cuda:0 are one device */
      if (!strcmp(plan->device[k], name))
        return cgm_fail(err, CGM_EINPUT, "devices: %s is named twice", name);
    plan->count++;
  }
  return CGM_OK;
}

cgm_status cgm_calibrate(cgm_db *db, const cgm_calibrate_opts *o, cgm_calibration_report *rep,
                         cgm_error *err) {
  memset(rep, 0, sizeof *rep);
  cgm_calibrate_plan_t plan;
  cgm_status st = cgm_calibrate_plan(o->devices, &plan, err);
  for (int i = 0; i < plan.count && !st; i++)
    st = calibrate_one(db, o, plan.device[i], plan.gpus[i], rep, err);
  return st;
}
