/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel plot accuracy: predicted against measured time per iteration of
 * every solve in the database (the idea of the paper's Fig. 10 and Table 6). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plots/plot_internal.h"
#include "common/grow.h"

typedef struct {
  cgm_db_solve *v;
  int n, cap;
  int64_t calibration_id; /* > 0: only its solves */
} solves;

/* Solves with a prediction and a measurement (a refused solve has none). */
static int take_solve(const cgm_db_solve *s, void *ctx) {
  solves *S = ctx;
  if (S->calibration_id > 0 && s->calibration_id != S->calibration_id) return 0;
  if (!(isfinite(s->predicted_time_per_iter_s) && s->predicted_time_per_iter_s > 0 &&
        isfinite(s->time_per_iter_s) && s->time_per_iter_s > 0))
    return 0;
  cgm_db_solve *nv = cgm_grow(S->v, S->n, &S->cap, sizeof *nv, 64);
  if (!nv) return 1;
  S->v = nv;
  S->v[S->n++] = *s;
  return 0;
}

static int backend_rank(const char *b) {
  return !strcmp(b, "cpu") ? 0 : !strcmp(b, "cuda") ? 1 : !strcmp(b, "cusparse") ? 2 : 3;
}

/* Groups: backend, precision, GPU count, block size. */
static int cmp_solve(const void *pa, const void *pb) {
  const cgm_db_solve *a = pa, *b = pb;
  int d = backend_rank(a->backend) - backend_rank(b->backend);
  if (!d) d = strcmp(a->backend, b->backend);
  if (!d) d = strcmp(a->precision, b->precision);
  if (!d) d = a->gpus - b->gpus;
  if (!d) d = a->block - b->block;
  if (!d) d = (a->id > b->id) - (a->id < b->id);
  return d;
}

static bool same_group(const cgm_db_solve *a, const cgm_db_solve *b) {
  return !strcmp(a->backend, b->backend) && !strcmp(a->precision, b->precision) &&
         a->gpus == b->gpus && a->block == b->block;
}

static double rel_err(const cgm_db_solve *s) {
  return fabs(s->predicted_time_per_iter_s - s->time_per_iter_s) / s->time_per_iter_s;
}

/* Largest relative error first. */
static int cmp_worst(const void *pa, const void *pb) {
  const double a = rel_err(*(const cgm_db_solve *const *)pa),
               b = rel_err(*(const cgm_db_solve *const *)pb);
  return (a < b) - (a > b);
}

/* Key entries: one per block size (colour), one per marker. */
typedef struct {
  char title[160];
  int n;
  double sum;
  int style; /* colour index or point type */
} key_entry;

static int cmp_block_key(const void *pa, const void *pb) {
  return atoi(((const key_entry *)pa)->title) - atoi(((const key_entry *)pb)->title);
}

static void key_add(key_entry *k, int *nk, const char *title, int style, double err) {
  for (int i = 0; i < *nk; i++)
    if (!strcmp(k[i].title, title)) {
      k[i].n++;
      k[i].sum += err;
      return;
    }
  snprintf(k[*nk].title, sizeof k[*nk].title, "%s", title);
  k[*nk].n = 1;
  k[*nk].sum = err;
  k[*nk].style = style;
  (*nk)++;
}

cgm_status cgm_plot_accuracy(cgm_db *db, const cgm_accplot_opts *ao, const cgm_plot_opts *o,
                             cgm_plot_files *files, cgm_error *err) {
  plot_job J;
  cgm_status st = plot_begin(&J, o, "accuracy.gp", files, err);
  if (st) return st;
  solves S = {0};
  S.calibration_id = ao ? ao->calibration_id : 0;
  const int label_worst = ao && ao->label_worst > 0 ? ao->label_worst : 0;
  FILE *fd = NULL, *fw = NULL, *gp = NULL;
  char rd[600], rw[600] = "";
  key_entry *keys = NULL;
  const cgm_db_solve **worst = NULL;
  int nkeys = 0;
  if ((st = cgm_db_solves(db, take_solve, &S, err))) goto out;
  if (S.n == 0 && S.calibration_id > 0) {
    st = cgm_fail(err, CGM_EINPUT,
                  "no solve in %s has a prediction from calibration %lld (see 'cgmodel db solves "
                  "--json': calibration_id)",
                  cgm_db_path(db), (long long)S.calibration_id);
    goto out;
  }
  if (S.n == 0) {
    st = cgm_fail(err, CGM_EINPUT,
                  "no solve in %s has a prediction: run 'cgmodel calibrate', then 'cgmodel solve' "
                  "(or 'cgmodel validate')",
                  cgm_db_path(db));
    goto out;
  }
  qsort(S.v, S.n, sizeof *S.v, cmp_solve);
  bool one_prec = true;
  for (int i = 1; i < S.n; i++) one_prec &= !strcmp(S.v[i].precision, S.v[0].precision);
  if (!(fd = plot_data_open(&J, "solves.dat", rd, sizeof rd, err))) {
    st = err && err->code ? err->code : CGM_ERUNTIME;
    goto out;
  }
  fprintf(
      fd,
      "# cgmodel plot accuracy: every solve of %s with a prediction, one index block per group\n",
      cgm_db_path(db));
  if (S.calibration_id > 0)
    fprintf(fd, "# only the solves predicted from calibration %lld\n", (long long)S.calibration_id);
  fprintf(fd, "# relative error = |predicted - measured| / measured\n");
  /* Group by group: index block, title, style. */
  int ng = 0;
  double sum_all = 0, lo = INFINITY, hi = 0;
  int *color = calloc((size_t)S.n, sizeof *color), *pt = calloc((size_t)S.n, sizeof *pt);
  keys = calloc((size_t)2 * S.n, sizeof *keys);
  if (!color || !pt || !keys) {
    free(color);
    free(pt);
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    goto out;
  }
  /* Markers: one per (backend, precision, GPU count), in order of appearance. */
  static const int marker_pts[] = {7, 5, 9, 13, 11, 6, 4, 8, 12, 10, 1, 2, 3};
  static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#7f7f7f"};
  key_entry *block_keys = keys, *marker_keys = keys + S.n;
  int nblock_keys = 0;
  for (int i = 0; i < S.n;) {
    int k = i;
    double sum = 0;
    while (k < S.n && same_group(&S.v[k], &S.v[i])) sum += rel_err(&S.v[k++]);
    const cgm_db_solve *g = &S.v[i];
    if (ng) fputs("\n\n", fd);
    fprintf(fd,
            "# group %d: backend %s precision %s block %d gpus %d: %d solves, average relative "
            "error %.4f\n",
            ng, g->backend, g->precision, g->block, g->gpus, k - i, sum / (k - i));
    fprintf(fd, "# measured_s predicted_s rel_error block gpus solve_id matrix_id matrix\n");
    for (int q = i; q < k; q++) {
      const cgm_db_solve *s = &S.v[q];
      fprintf(fd, "%.9g %.9g %.6g %d %d %lld %lld ", s->time_per_iter_s,
              s->predicted_time_per_iter_s, rel_err(s), s->block, s->gpus, (long long)s->id,
              (long long)s->matrix_id);
      gp_string(fd, s->matrix);
      fputc('\n', fd);
      const double v[2] = {s->time_per_iter_s, s->predicted_time_per_iter_s};
      for (int c = 0; c < 2; c++) {
        if (v[c] < lo) lo = v[c];
        if (v[c] > hi) hi = v[c];
      }
    }
    char who[64];
    if (!strcmp(g->backend, "cpu"))
      snprintf(who, sizeof who, "CPU, %s", g->precision);
    else if (!strcmp(g->backend, "cuda"))
      snprintf(who, sizeof who, "%s, %s, %d GPU%s", g->backend, g->precision, g->gpus,
               g->gpus > 1 ? "s" : "");
    else
      snprintf(who, sizeof who, "%s, %s%s", g->backend, g->precision,
               g->gpus > 1 ? " (several GPUs)" : "");
    /* colour: block size; marker: backend, precision and GPU count */
    int bi = cgm_block_index(g->block);
    color[ng] = bi < 0 ? 4 : bi;
    int mk = 0;
    while (mk < nkeys && strcmp(marker_keys[mk].title, who)) mk++;
    pt[ng] = marker_pts[mk % (int)(sizeof marker_pts / sizeof *marker_pts)];
    char bt[32];
    snprintf(bt, sizeof bt, "%d×%d", g->block, g->block);
    for (int q = i; q < k; q++) {
      key_add(block_keys, &nblock_keys, bt, color[ng], rel_err(&S.v[q]));
      key_add(marker_keys, &nkeys, who, pt[ng], rel_err(&S.v[q]));
    }
    sum_all += sum;
    ng++;
    i = k;
  }
  st = plot_data_close(&J, fd, rd, err);
  fd = NULL;
  /* --label-worst K: the K points farthest from y = x, named. */
  const int nworst = label_worst < S.n ? label_worst : S.n;
  if (!st && nworst > 0) {
    worst = malloc(sizeof *worst * (size_t)S.n);
    if (!worst) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    for (int i = 0; !st && i < S.n; i++) worst[i] = &S.v[i];
    if (!st) qsort(worst, (size_t)S.n, sizeof *worst, cmp_worst);
    if (!st && !(fw = plot_data_open(&J, "worst.dat", rw, sizeof rw, err)))
      st = err && err->code ? err->code : CGM_ERUNTIME;
    if (!st) {
      fprintf(fw, "# cgmodel plot accuracy: the %d solve%s of largest relative error\n", nworst,
              nworst > 1 ? "s" : "");
      fprintf(fw, "# measured_s predicted_s rel_error solve_id label\n");
      for (int i = 0; i < nworst; i++) {
        const cgm_db_solve *w = worst[i];
        char label[200];
        snprintf(label, sizeof label, "%s (%d×%d, %+.0f%%)", w->matrix[0] ? w->matrix : "?",
                 w->block, w->block, 100 * (w->predicted_time_per_iter_s / w->time_per_iter_s - 1));
        fprintf(fw, "%.9g %.9g %.6g %lld ", w->time_per_iter_s, w->predicted_time_per_iter_s,
                rel_err(w), (long long)w->id);
        gp_string(fw, label);
        fputc('\n', fw);
      }
      st = plot_data_close(&J, fw, rw, err);
      fw = NULL;
    }
  }
  if (!st && !(gp = plot_script_open(&J, "cgmodel plot accuracy", err)))
    st = err && err->code ? err->code : CGM_ERUNTIME;
  if (!st) {
    gp_var(gp, "solves", rd);
    gp_var(gp, "worst", rw);
    char t[300];
    snprintf(t, sizeof t,
             "predicted against measured time per iteration: %d solve%s, average relative "
             "error %.1f%%",
             S.n, S.n > 1 ? "s" : "", 100 * sum_all / S.n);
    if (S.calibration_id > 0)
      snprintf(t + strlen(t), sizeof t - strlen(t), " (calibration %lld)",
               (long long)S.calibration_id);
    fprintf(gp, "plot_title = ");
    gp_string(gp, t);
    fprintf(gp, "\nlo = %.6g; hi = %.6g\nngroups = %d\nnworst = %d\n", lo / 1.6, hi * 1.6, ng,
            nworst);
    fprintf(gp, "array gcolor[%d]\narray gpt[%d]\n", ng, ng);
    for (int g = 0; g < ng; g++)
      fprintf(gp, "gcolor[%d] = '%s'; gpt[%d] = %d\n", g + 1, colors[color[g]], g + 1, pt[g]);
    /* The key: the block sizes (colour, smallest first), then the markers;
     * each with its count and average relative error. */
    qsort(block_keys, (size_t)nblock_keys, sizeof *block_keys, cmp_block_key);
    const int nk = nblock_keys + nkeys;
    fprintf(gp, "nkeys = %d; nblockkeys = %d\narray ktitle[%d]\narray kcolor[%d]\narray kpt[%d]\n",
            nk, nblock_keys, nk, nk, nk);
    for (int q = 0; q < nk; q++) {
      const bool blk = q < nblock_keys;
      const key_entry *e = blk ? &block_keys[q] : &marker_keys[q - nblock_keys];
      char kt[240];
      snprintf(kt, sizeof kt, "%s: %d solve%s, %.1f%%", e->title, e->n, e->n > 1 ? "s" : "",
               100 * e->sum / e->n);
      fprintf(gp, "ktitle[%d] = ", q + 1);
      gp_string(gp, kt);
      /* a block size's entry is a swatch of its colour (kpt 0), a marker's its point */
      fprintf(gp, "; kcolor[%d] = '%s'; kpt[%d] = %d\n", q + 1, blk ? colors[e->style] : "#222222",
              q + 1, blk ? 0 : e->style);
    }
    st = plot_script_finish(&J, gp, err); /* closes gp */
    gp = NULL;
  }
  files->panels = 1;
  free(color);
  free(pt);
  if (!st) st = plot_run(&J, err);
out:
  if (fd) fclose(fd);
  if (fw) fclose(fw);
  if (gp) fclose(gp);
  free(keys);
  free(worst);
  free(S.v);
  return st;
}
