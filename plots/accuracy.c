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
} solves;

static int take_solve(const cgm_db_solve *s, void *ctx) {
  solves *S = ctx;
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

cgm_status cgm_plot_accuracy(cgm_db *db, const cgm_plot_opts *o, cgm_plot_files *files,
                             cgm_error *err) {
  plot_job J;
  cgm_status st = plot_begin(&J, o, "accuracy.gp", files, err);
  if (st) return st;
  solves S = {0};
  FILE *fd = NULL, *gp = NULL;
  char rd[600];
  if ((st = cgm_db_solves(db, take_solve, &S, err))) goto out;
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
  fprintf(fd, "# relative error = |predicted - measured| / measured\n");
  /* Group by group: index block, title, style. */
  int ng = 0;
  double sum_all = 0, lo = INFINITY, hi = 0;
  char(*title)[160] = calloc((size_t)S.n, sizeof *title);
  int *color = calloc((size_t)S.n, sizeof *color), *pt = calloc((size_t)S.n, sizeof *pt);
  if (!title || !color || !pt) {
    free(title);
    free(color);
    free(pt);
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    goto out;
  }
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
    fprintf(fd, "# measured_s predicted_s rel_error block gpus solve_id matrix_id\n");
    for (int q = i; q < k; q++) {
      const cgm_db_solve *s = &S.v[q];
      fprintf(fd, "%.9g %.9g %.6g %d %d %lld %lld\n", s->time_per_iter_s,
              s->predicted_time_per_iter_s, rel_err(s), s->block, s->gpus, (long long)s->id,
              (long long)s->matrix_id);
      const double v[2] = {s->time_per_iter_s, s->predicted_time_per_iter_s};
      for (int c = 0; c < 2; c++) {
        if (v[c] < lo) lo = v[c];
        if (v[c] > hi) hi = v[c];
      }
    }
    char who[64];
    if (!strcmp(g->backend, "cpu"))
      snprintf(who, sizeof who, "CPU");
    else if (!strcmp(g->backend, "cuda"))
      snprintf(who, sizeof who, "%d GPU%s", g->gpus, g->gpus > 1 ? "s" : "");
    else
      snprintf(who, sizeof who, "%s%s", g->backend, g->gpus > 1 ? " (several GPUs)" : "");
    snprintf(title[ng], sizeof title[ng], "%s%s%s, %d×%d: %d solve%s, %.1f%%", who,
             one_prec ? "" : ", ", one_prec ? "" : g->precision, g->block, g->block, k - i,
             k - i > 1 ? "s" : "", 100 * sum / (k - i));
    /* colour: block size; point: backend and GPU count */
    int bi = cgm_block_index(g->block);
    color[ng] = bi < 0 ? 4 : bi;
    pt[ng] = !strcmp(g->backend, "cpu")        ? 7
             : !strcmp(g->backend, "cusparse") ? 3
             : g->gpus <= 1                    ? 5
             : g->gpus == 2                    ? 9
             : g->gpus <= 4                    ? 13
                                               : 11;
    sum_all += sum;
    ng++;
    i = k;
  }
  st = plot_data_close(&J, fd, rd, err);
  fd = NULL;
  if (!st && !(gp = plot_script_open(&J, "cgmodel plot accuracy", err)))
    st = err && err->code ? err->code : CGM_ERUNTIME;
  if (!st) {
    static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#7f7f7f"};
    gp_var(gp, "solves", rd);
    char t[300];
    snprintf(t, sizeof t,
             "predicted against measured time per iteration: %d solve%s, average relative "
             "error %.1f%%",
             S.n, S.n > 1 ? "s" : "", 100 * sum_all / S.n);
    fprintf(gp, "plot_title = ");
    gp_string(gp, t);
    fprintf(gp, "\nlo = %.6g; hi = %.6g\nngroups = %d\n", lo / 1.6, hi * 1.6, ng);
    fprintf(gp, "array gtitle[%d]\narray gcolor[%d]\narray gpt[%d]\n", ng, ng, ng);
    for (int g = 0; g < ng; g++) {
      fprintf(gp, "gtitle[%d] = ", g + 1);
      gp_string(gp, title[g]);
      fprintf(gp, "; gcolor[%d] = '%s'; gpt[%d] = %d\n", g + 1, colors[color[g]], g + 1, pt[g]);
    }
    st = plot_script_finish(&J, gp, err); /* closes gp */
    gp = NULL;
  }
  files->panels = 1;
  free(title);
  free(color);
  free(pt);
  if (!st) st = plot_run(&J, err);
out:
  if (fd) fclose(fd);
  if (gp) fclose(gp);
  free(S.v);
  return st;
}
