/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What recorded solves teach the tuner (docs/model.md, "Time to a solution"): each device's setup
 * model fitted on its measured setups, the ratio of mixed to double precision iterations, and the
 * iteration count of a matrix solved before at the same tolerance. A database that cannot be read
 * leaves the defaults: this refines predictions, it never fails them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "common/grow.h"
#include "common/timer.h"
#include "pipeline/steps.h"

/* The tolerance a solve ran with (its options JSON), 0 when not said. */
static double solve_tol(const cgm_db_solve *s) {
  cJSON *j = cJSON_Parse(s->options);
  const cJSON *t = j ? cJSON_GetObjectItemCaseSensitive(j, "tol") : NULL;
  const double tol = cJSON_IsNumber(t) ? t->valuedouble : 0.0;
  cJSON_Delete(j);
  return tol;
}

typedef struct history {
  cgm_db_solve *v;
  int n, cap;
  bool oom;
} history;

static int take(const cgm_db_solve *s, void *ctx) {
  history *h = ctx;
  if (s->disturbed) return 0; /* other work held it up: it teaches nothing */
  h->oom = !cgm_push(&h->v, &h->n, &h->cap, s, sizeof *s, 64);
  return h->oom;
}

/* The tuner predicts Jacobi-PCG: block-Jacobi's iteration counts and
 * set-up (the inverses) teach it nothing about that. */
static bool jacobi(const cgm_db_solve *s) {
  return !s->precond[0] || !strcmp(s->precond, "jacobi");
}

static bool same_tol(double a, double b) {
  return a > 0 && b > 0 && fabs(a - b) <= 1e-6 * b;
}

/* Median of mixed / double iterations over matrices solved both ways at
 * the same tolerance; 0 when there is no such pair. */
static double mixed_ratio(const history *h) {
  double *r = malloc(((size_t)h->n + 1) * sizeof *r);
  int nr = 0;
  for (int i = 0; r && i < h->n; i++) {
    const cgm_db_solve *m = &h->v[i];
    if (!m->converged || strcmp(m->precision, "mixed") || m->iterations <= 0 || !jacobi(m))
      continue;
    for (int j = 0; j < h->n; j++) {
      const cgm_db_solve *d = &h->v[j];
      if (d->converged && d->matrix_id == m->matrix_id && !strcmp(d->precision, "double") &&
          jacobi(d) && d->iterations > 0 && same_tol(solve_tol(d), solve_tol(m))) {
        r[nr++] = (double)m->iterations / d->iterations;
        break;
      }
    }
  }
  double out = 0;
  if (nr > 0) {
    qsort(r, (size_t)nr, sizeof *r, cgm_cmp_double);
    out = r[nr / 2];
  }
  free(r);
  return out;
}

/* Measured setups, as the setup fit takes them. */
typedef struct {
  double *bytes, *secs;
  int n, bcap, scap;
  bool oom; /* a sample could not be kept: fit none rather than a part */
} setups;

static bool setups_add(setups *u, double bytes, double secs) {
  int n = u->n; /* counted by the second push alone */
  return cgm_push(&u->bytes, &n, &u->bcap, &bytes, sizeof bytes, 256) &&
         cgm_push(&u->secs, &u->n, &u->scap, &secs, sizeof secs, 256);
}

/* A GPU's setups come in two kinds, each fitted on its own: the host builds the layout and it
 * crosses (u[0]), or the CSR crosses and the GPU builds it (u[1], cgm_gpu_opts.device_layout): a
 * 49M-nonzero layout took the host 0.11-0.14 s and the device milliseconds. A calibration's sample
 * says so by its variant "device", a recorded solve by layout_on_device. */

/* A calibration's timed setups: its iteration sweeps' solves (kernel "setup"), and a GPU's start
 * (kernel "start"). */
typedef struct {
  setups *u; /* [2]: built on the host, on the device */
  bool gpu;
  double start_s;
} setup_sink;

static int take_setup(const cgm_db_sample *s, void *ctx) {
  setup_sink *k = ctx;
  if (!strcmp(s->kernel, "start")) k->start_s = s->seconds;
  if (strcmp(s->kernel, "setup")) return 0;
  setups *u = &k->u[k->gpu && !strcmp(s->variant, "device")];
  if (setups_add(u, s->bytes, s->seconds)) return 0;
  u->oom = true;
  return 1;
}

void pipeline_learn_history(cgm_db *db, cgm_tuner_device *devs, int ndev) {
  for (int d = 0; d < ndev; d++)
    devs[d].setup = devs[d].setup_dev = cgm_setup_model_default(!devs[d].is_cpu);
  history h = {0};
  cgm_error e = {0};
  if (!db || cgm_db_solves_of(db, 0, 0, take, &h, &e) || h.oom) {
    free(h.v);
    return;
  }
  for (int d = 0; d < ndev; d++) {
    const bool gpu = !devs[d].is_cpu;
    setups u[2] = {{0}, {0}};
    setup_sink sink = {u, gpu, 0};
    bool ok = devs[d].calibration_id <= 0 ||
              (cgm_db_samples(db, devs[d].calibration_id, take_setup, &sink, &e) == CGM_OK &&
               !u[0].oom && !u[1].oom);
    for (int i = 0; ok && i < h.n; i++) {
      const cgm_db_solve *s = &h.v[i];
      /* this device's own backend (cuSPARSE builds no layout) */
      const bool cpu = !strcmp(s->backend, "cpu");
      if (s->calibration_id != devs[d].calibration_id || cpu != devs[d].is_cpu ||
          !strcmp(s->backend, "cusparse") || s->layout_bytes <= 0 || !isfinite(s->time_setup_s) ||
          !jacobi(s))
        continue;
      ok = setups_add(&u[gpu && s->layout_on_device], (double)s->layout_bytes, s->time_setup_s);
    }
    if (ok) {
      devs[d].setup = cgm_setup_fit(u[0].bytes, u[0].secs, u[0].n, gpu);
      devs[d].setup_dev = cgm_setup_fit(u[1].bytes, u[1].secs, u[1].n, gpu);
      devs[d].start_s = sink.start_s;
    }
    CGM_FREE(u[0].bytes, u[0].secs, u[1].bytes, u[1].secs);
  }
  const double ratio = mixed_ratio(&h);
  for (int d = 0; d < ndev && ratio > 0; d++) devs[d].mixed_ratio = ratio;
  free(h.v);
}

/* K grows with log(1 / tol) (cgm_iterations_estimate): a count recorded at
 * tol_rec, taken to tol. */
static double scale_tol(double k, double tol_rec, double tol) {
  return same_tol(tol_rec, tol) ? k : k * log(2.0 / tol) / log(2.0 / tol_rec); /* no 300.0000001 */
}

/* Whether solve s is of matrix m: by content where both know it, else by
 * the id its name, size and counts found. */
static bool of_matrix(const cgm_db_solve *s, const cgm_db_matrix *m) {
  if (m->content_id && s->matrix_content) return s->matrix_content == m->content_id;
  return m->id > 0 && s->matrix_id == m->id;
}

pipeline_known pipeline_known_iterations(cgm_db *db, const cgm_db_matrix *matrix, double tol) {
  pipeline_known out = {0};
  cgm_db_matrix m = *matrix;
  history h = {0};
  cgm_error e = {0};
  /* the matrix's id, without adding it: the solves name it by id, or by content */
  m.id = db && cgm_db_matrix_find(db, &m, &e) == CGM_OK ? m.id : 0;
  if (!db || cgm_db_solves_of(db, m.id, m.content_id, take, &h, &e) || h.oom) {
    free(h.v);
    return out;
  }
  /* per precision (double and single alike; mixed): the count at the
   * nearest recorded tolerance (exact when equal), the least of equals */
  double best[2] = {0, 0}, dist[2] = {INFINITY, INFINITY}, at[2] = {0, 0};
  for (int i = 0; i < h.n; i++) {
    const cgm_db_solve *s = &h.v[i];
    const double ts = solve_tol(s);
    if (!of_matrix(s, &m) || !s->converged || s->iterations <= 0 || !(ts > 0) || !jacobi(s))
      continue;
    const int p = !strcmp(s->precision, "mixed");
    const double d = fabs(log(ts / tol));
    if (d < dist[p] - 1e-9 || (d <= dist[p] + 1e-9 && s->iterations < best[p]))
      best[p] = s->iterations, dist[p] = d, at[p] = ts;
  }
  free(h.v);
  /* both recorded: their ratio, each count taken to tol where their tolerances differ */
  const double ratio = best[0] > 0 && best[1] > 0
                           ? scale_tol(best[1], at[1], tol) / scale_tol(best[0], at[0], tol)
                           : 0;
  out.mixed_ratio = ratio;
  if (best[0] > 0) {
    out.k = ceil(scale_tol(best[0], at[0], tol));
    out.exact = same_tol(at[0], tol);
  } else if (best[1] > 0) { /* mixed alone: double's by the ratio learned elsewhere */
    history all = {0};
    const double r = cgm_db_solves_of(db, 0, 0, take, &all, &e) || all.oom ? 0 : mixed_ratio(&all);
    free(all.v);
    out.mixed_ratio = r > 0 ? r : 1.0; /* mixed's own count, as recorded */
    out.mixed_alone = true;
    out.k = ceil(scale_tol(best[1], at[1], tol) / out.mixed_ratio);
  }
  return out;
}

/* The probe: Jacobi CG in double on the CPU from x0 = 0 with b = A * ones, one run of budget / nnz
 * steps (PROBE_MIN to PROBE_MAX), its residual watched at every step. A run that converges knows K
 * exactly: the small matrices, where CG's rate changes most along the way. Otherwise the rate of
 * the run's second half (the least residual so far, least squares; the whole run's where that half
 * is a plateau) is extrapolated to tol, but not past PROBE_REACH times the run. Only where cheap
 * (nnz <= PROBE_NNZ). */
enum { PROBE_MIN = 50, PROBE_MAX = 3000, PROBE_REACH = 20 };
#define PROBE_NNZ 2000000

static void probe_watch(void *ctx, int iteration, double relative_residual) {
  pipeline_probe *h = ctx;
  if (iteration < 0 || iteration >= h->cap) return;
  h->r[iteration] = relative_residual;
  if (iteration + 1 > h->n) h->n = iteration + 1;
}

/* K extrapolated from the watched steps 0 .. n-1 (n > 10); 0: none. */
static double probe_extrapolate(const pipeline_probe *h, double tol) {
  const int z = h->n - 1, a = h->n / 2;
  double least = INFINITY, sx = 0, sy = 0, sxx = 0, sxy = 0, first = NAN;
  int m = 0;
  for (int i = 0; i <= z; i++) {
    if (h->r[i] > 0 && h->r[i] < least) least = h->r[i];
    if (i == 0) first = least;
    if (i >= a && isfinite(least)) {
      const double y = log(least);
      sx += i, sy += y, sxx += (double)i * i, sxy += i * y, m++;
    }
  }
  if (!isfinite(least) || m < 2) return 0;
  double rate = (m * sxy - sx * sy) / (m * sxx - sx * sx);
  if (!(rate < 0)) rate = first > least ? log(least / first) / z : 0;
  if (!(rate < 0)) return 0;
  const double k = z + log(tol / least) / rate;
  return k > (double)PROBE_REACH * h->n ? 0 : (k > z ? k : z);
}

double pipeline_probe_k(const pipeline_probe *h, double tol) {
  for (int i = 0; i < h->n; i++) /* reached within the run: K is known */
    if (h->r[i] > 0 && h->r[i] <= tol) return i;
  const double k = h->n > 10 ? probe_extrapolate(h, tol) : 0;
  return k > 0 && isfinite(k) ? ceil(k) : 0;
}

bool pipeline_probe_run(const cgm_csr *A, double tol, double budget, cgm_precision prec,
                        pipeline_probe *h) {
  memset(h, 0, sizeof *h);
  if (A->nnz > PROBE_NNZ || A->nrows < 1 || A->nrows != A->ncols || A->nnz < 1) return false;
  double steps = budget / (double)A->nnz;
  const int M = steps > PROBE_MAX ? PROBE_MAX : (steps < PROBE_MIN ? PROBE_MIN : (int)steps);
  double *ones = malloc(((size_t)A->nrows + 1) * sizeof *ones);
  double *b = malloc(((size_t)A->nrows + 1) * sizeof *b);
  double *x = calloc((size_t)A->nrows + 1, sizeof *x);
  h->r = calloc((size_t)M + 2, sizeof(double));
  h->cap = M + 2;
  bool ran = false;
  if (ones && b && x && h->r) {
    for (int32_t i = 0; i < A->nrows; i++) ones[i] = 1.0;
    cgm_csr_spmv(A, ones, b);
    cgm_solve_opts o = cgm_solve_opts_default();
    o.backend = CGM_BACKEND_CPU;
    o.precision = prec;
    o.tol = tol;
    o.maxiter = M;
    o.monitor = probe_watch;
    o.monitor_ctx = h;
    o.monitor_every = 1;
    cgm_solve_result r;
    cgm_error e = {0};
    const cgm_status st = cgm_solve(A, b, x, &o, &r, &e);
    /* a run that stopped early (not converged, not at the cap) says nothing */
    ran = st == CGM_OK || (st == CGM_ENOCONV && r.iterations == M);
    if (st == CGM_OK && h->n < h->cap) h->r[h->n - 1] = fmin(h->r[h->n - 1], r.relative_residual);
  }
  free(ones), free(b), free(x);
  if (!ran) {
    free(h->r);
    memset(h, 0, sizeof *h);
  }
  return ran;
}

double pipeline_probe_iterations(const cgm_csr *A, double tol, double budget, cgm_precision prec) {
  pipeline_probe h;
  const double k = pipeline_probe_run(A, tol, budget, prec, &h) ? pipeline_probe_k(&h, tol) : 0;
  free(h.r);
  return k;
}
