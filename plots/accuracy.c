/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel plot accuracy (plots.h; the paper's Fig. 10 and Table 6). */
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
  return !cgm_push(&S->v, &S->n, &S->cap, s, sizeof *s, 64);
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

/* Distance from y = x on the log-log picture: a prediction 100 times too
   small (-99%) lies farther off than one 2.4 times too large (+139%). */
static double log_off(const cgm_db_solve *s) {
  return fabs(log(s->predicted_time_per_iter_s / s->time_per_iter_s));
}

/* Farthest from y = x first. */
static int cmp_worst(const void *pa, const void *pb) {
  const double a = log_off(*(const cgm_db_solve *const *)pa),
               b = log_off(*(const cgm_db_solve *const *)pb);
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

/* err counted in the entry titled `title`, added with `style` where none is (k is zeroed). */
static void key_add(key_entry *k, int *nk, const char *title, int style, double err) {
  int i = 0;
  while (i < *nk && strcmp(k[i].title, title)) i++;
  if (i == *nk) {
    snprintf(k[i].title, sizeof k[i].title, "%s", title);
    k[(*nk)++].style = style;
  }
  k[i].n++;
  k[i].sum += err;
}

/* The solves and what the picture shows of them. */
typedef struct {
  solves S;
  int ng, *color, *pt;        /* groups: colour (block size) and point type (marker) */
  key_entry *keys;            /* the block sizes' (S.n at most), then the markers' */
  int nblock_keys, nkeys;     /* (the markers' count) */
  double sum_all, lo, hi;     /* the sum of the relative errors; the range of both axes */
  const cgm_db_solve **worst; /* the nworst largest relative errors first */
  int nworst;
} acc_build;

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#7f7f7f"};

/* One group's key titles and styles: colour by block size, marker by
 * backend, precision and GPU count (in order of appearance). */
static void acc_group_keys(acc_build *B, int i, int k) {
  static const int marker_pts[] = {7, 5, 9, 13, 11, 6, 4, 8, 12, 10, 1, 2, 3};
  const cgm_db_solve *g = &B->S.v[i];
  key_entry *block_keys = B->keys, *marker_keys = B->keys + B->S.n;
  char who[64];
  if (!strcmp(g->backend, "cpu"))
    snprintf(who, sizeof who, "CPU, %s", g->precision);
  else if (!strcmp(g->backend, "cuda"))
    snprintf(who, sizeof who, "%s, %s, %d GPU%s", g->backend, g->precision, g->gpus,
             g->gpus > 1 ? "s" : "");
  else
    snprintf(who, sizeof who, "%s, %s%s", g->backend, g->precision,
             g->gpus > 1 ? " (several GPUs)" : "");
  const int bi = cgm_block_index(g->block);
  B->color[B->ng] = bi < 0 ? 4 : bi;
  int mk = 0;
  while (mk < B->nkeys && strcmp(marker_keys[mk].title, who)) mk++;
  B->pt[B->ng] = marker_pts[mk % (int)(sizeof marker_pts / sizeof *marker_pts)];
  char bt[32];
  snprintf(bt, sizeof bt, "%d×%d", g->block, g->block);
  for (int q = i; q < k; q++) {
    key_add(block_keys, &B->nblock_keys, bt, B->color[B->ng], rel_err(&B->S.v[q]));
    key_add(marker_keys, &B->nkeys, who, B->pt[B->ng], rel_err(&B->S.v[q]));
  }
}

/* FILE-solves.dat: one index block a group (backend, precision, GPU count,
 * block size), and the groups' styles and key entries. */
static cgm_status acc_solves(plot_job *J, acc_build *B, const char *db_path, cgm_error *err) {
  solves *S = &B->S;
  B->color = calloc((size_t)S->n, sizeof *B->color);
  B->pt = calloc((size_t)S->n, sizeof *B->pt);
  B->keys = calloc((size_t)2 * S->n, sizeof *B->keys);
  if (!B->color || !B->pt || !B->keys) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  FILE *fd;
  cgm_status st = plot_data_open(J, "solves", &fd, err);
  if (st) return st;
  fprintf(
      fd,
      "# cgmodel plot accuracy: every solve of %s with a prediction, one index block per group\n",
      db_path);
  if (S->calibration_id > 0)
    fprintf(fd, "# only the solves predicted from calibration %lld\n",
            (long long)S->calibration_id);
  fprintf(fd, "# relative error = |predicted - measured| / measured\n");
  B->lo = INFINITY;
  B->hi = 0;
  for (int i = 0; i < S->n;) {
    int k = i;
    double sum = 0;
    while (k < S->n && same_group(&S->v[k], &S->v[i])) sum += rel_err(&S->v[k++]);
    const cgm_db_solve *g = &S->v[i];
    if (B->ng) fputs("\n\n", fd);
    fprintf(fd,
            "# group %d: backend %s precision %s block %d gpus %d: %d solves, average relative "
            "error %.4f\n",
            B->ng, g->backend, g->precision, g->block, g->gpus, k - i, sum / (k - i));
    fprintf(fd, "# measured_s predicted_s rel_error block gpus solve_id matrix_id matrix\n");
    for (int q = i; q < k; q++) {
      const cgm_db_solve *s = &S->v[q];
      fprintf(fd, "%.9g %.9g %.6g %d %d %lld %lld ", s->time_per_iter_s,
              s->predicted_time_per_iter_s, rel_err(s), s->block, s->gpus, (long long)s->id,
              (long long)s->matrix_id);
      gp_string(fd, s->matrix);
      fputc('\n', fd);
      B->lo = fmin(B->lo, fmin(s->time_per_iter_s, s->predicted_time_per_iter_s));
      B->hi = fmax(B->hi, fmax(s->time_per_iter_s, s->predicted_time_per_iter_s));
    }
    acc_group_keys(B, i, k);
    B->sum_all += sum;
    B->ng++;
    i = k;
  }
  B->lo /= 1.6; /* room around the points */
  B->hi *= 1.6;
  return plot_file_close(J, fd, err);
}

/* Where the worst points' labels go (y, log10 seconds): beside their point, each moved down a line
 * at a time while it would cover a label placed before it (the same matrix twice, close points).
 * The plot's side in pixels is estimated from the picture's size (the key takes the right of it), a
 * line and a character from the labels' font. */
static void place_labels(const plot_job *J, const acc_build *B, char (*label)[200], double *ly) {
  const double side = fmin(J->height - 110.0, J->width * 0.62);
  const double per_px = log10(B->hi / B->lo) / (side > 100 ? side : 100); /* decades a pixel */
  const double font_px = (plot_font_size(J) - 2) * 4.0 / 3.0;
  const double line = 1.25 * font_px * per_px, ch = 0.6 * font_px * per_px;
  for (int i = 0; i < B->nworst; i++) {
    const double x = log10(B->worst[i]->time_per_iter_s), w = ch * (double)strlen(label[i]);
    ly[i] = log10(B->worst[i]->predicted_time_per_iter_s);
    for (bool moved = true; moved;) {
      moved = false;
      for (int k = 0; k < i; k++) {
        const double xk = log10(B->worst[k]->time_per_iter_s), wk = ch * (double)strlen(label[k]);
        if (x < xk + wk && xk < x + w && fabs(ly[i] - ly[k]) < line * 0.999) {
          ly[i] = ly[k] - line; /* below it: each move goes down, so this ends */
          moved = true;
        }
      }
    }
  }
}

/* FILE-worst.dat: the nworst points farthest from y = x, named. */
static cgm_status acc_worst(plot_job *J, acc_build *B, cgm_error *err) {
  const solves *S = &B->S;
  B->worst = malloc(sizeof *B->worst * (size_t)S->n);
  char(*label)[200] = malloc(sizeof *label * (size_t)B->nworst);
  double *ly = malloc(sizeof *ly * (size_t)B->nworst);
  FILE *fw = NULL;
  cgm_status st = !B->worst || !label || !ly ? cgm_fail(err, CGM_ERUNTIME, "out of memory")
                                             : plot_data_open(J, "worst", &fw, err);
  if (!st) {
    for (int i = 0; i < S->n; i++) B->worst[i] = &S->v[i];
    qsort(B->worst, (size_t)S->n, sizeof *B->worst, cmp_worst);
    for (int i = 0; i < B->nworst; i++) {
      const cgm_db_solve *w = B->worst[i];
      snprintf(label[i], sizeof label[i], "%s (%d×%d, %+.0f%%)", w->matrix[0] ? w->matrix : "?",
               w->block, w->block, 100 * (w->predicted_time_per_iter_s / w->time_per_iter_s - 1));
    }
    place_labels(J, B, label, ly);
    fprintf(fw, "# cgmodel plot accuracy: the %d solve%s farthest from y = x\n", B->nworst,
            B->nworst > 1 ? "s" : "");
    fprintf(fw, "# measured_s predicted_s rel_error solve_id label label_y_s (where the label "
                "goes: below another one it would cover)\n");
    for (int i = 0; i < B->nworst; i++) {
      const cgm_db_solve *w = B->worst[i];
      fprintf(fw, "%.9g %.9g %.6g %lld ", w->time_per_iter_s, w->predicted_time_per_iter_s,
              rel_err(w), (long long)w->id);
      gp_string(fw, label[i]);
      fprintf(fw, " %.9g\n", pow(10, ly[i]));
    }
    st = plot_file_close(J, fw, err);
  }
  CGM_FREE(label, ly);
  return st;
}

/* FILE.gp: the title, the range, the groups' styles and the key (the block sizes, smallest first,
 * then the markers; each with its count and average relative error). */
static cgm_status acc_script(plot_job *J, acc_build *B, cgm_error *err) {
  FILE *gp;
  cgm_status st = plot_script_open(J, "cgmodel plot accuracy", &gp, err);
  if (st) return st;
  plot_data_var(gp, J, "solves", true);
  plot_data_var(gp, J, "worst", B->nworst > 0);
  const int n = B->S.n;
  char t[300];
  int k = snprintf(t, sizeof t,
                   "predicted against measured time per iteration: %d solve%s, average relative "
                   "error %.1f%%",
                   n, n > 1 ? "s" : "", 100 * B->sum_all / n);
  if (B->S.calibration_id > 0 && k > 0 && (size_t)k < sizeof t)
    snprintf(t + k, sizeof t - k, " (calibration %lld)", (long long)B->S.calibration_id);
  gp_var(gp, "plot_title", t);
  fprintf(gp, "lo = %.6g; hi = %.6g\nngroups = %d\nnworst = %d\n", B->lo, B->hi, B->ng, B->nworst);
  fprintf(gp, "array gcolor[%d]\narray gpt[%d]\n", B->ng, B->ng);
  for (int g = 0; g < B->ng; g++)
    fprintf(gp, "gcolor[%d] = '%s'; gpt[%d] = %d\n", g + 1, colors[B->color[g]], g + 1, B->pt[g]);
  key_entry *block_keys = B->keys, *marker_keys = B->keys + n;
  qsort(block_keys, (size_t)B->nblock_keys, sizeof *block_keys, cmp_block_key);
  const int nk = B->nblock_keys + B->nkeys;
  fprintf(gp, "nkeys = %d; nblockkeys = %d\narray ktitle[%d]\narray kcolor[%d]\narray kpt[%d]\n",
          nk, B->nblock_keys, nk, nk, nk);
  for (int q = 0; q < nk; q++) {
    const bool blk = q < B->nblock_keys;
    const key_entry *e = blk ? &block_keys[q] : &marker_keys[q - B->nblock_keys];
    char kt[240];
    snprintf(kt, sizeof kt, "%s: %d solve%s, %.1f%%", e->title, e->n, e->n > 1 ? "s" : "",
             100 * e->sum / e->n);
    fprintf(gp, "ktitle[%d] = ", q + 1);
    gp_string(gp, kt);
    /* a block size's entry is a swatch of its colour (kpt 0), a marker's its point */
    fprintf(gp, "; kcolor[%d] = '%s'; kpt[%d] = %d\n", q + 1, blk ? colors[e->style] : "#222222",
            q + 1, blk ? 0 : e->style);
  }
  return plot_script_finish(J, gp, err);
}

cgm_status cgm_plot_accuracy(cgm_db *db, const cgm_accplot_opts *ao, const cgm_plot_opts *o,
                             cgm_plot_files *files, cgm_error *err) {
  plot_job J;
  cgm_status st = plot_begin(&J, o, "accuracy.gp", files, err);
  if (st) return st;
  acc_build B = {0};
  B.S.calibration_id = ao ? ao->calibration_id : 0;
  if ((st = cgm_db_solves(db, take_solve, &B.S, err))) goto out;
  if (B.S.n == 0) {
    if (B.S.calibration_id > 0)
      st = cgm_fail(err, CGM_EINPUT,
                    "no solve in %s has a prediction from calibration %lld (see 'cgmodel db "
                    "solves --json': calibration_id)",
                    cgm_db_path(db), (long long)B.S.calibration_id);
    else
      st = cgm_fail(err, CGM_EINPUT,
                    "no solve in %s has a prediction: run 'cgmodel calibrate', then 'cgmodel "
                    "solve' (or 'cgmodel validate')",
                    cgm_db_path(db));
    goto out;
  }
  qsort(B.S.v, B.S.n, sizeof *B.S.v, cmp_solve);
  /* --label-worst K: the K points farthest from y = x, named. */
  const int label_worst = ao && ao->label_worst > 0 ? ao->label_worst : 0;
  B.nworst = label_worst < B.S.n ? label_worst : B.S.n;
  files->panels = 1;
  if (!(st = acc_solves(&J, &B, cgm_db_path(db), err)) &&
      !(st = B.nworst > 0 ? acc_worst(&J, &B, err) : CGM_OK) && !(st = acc_script(&J, &B, err)))
    st = plot_run(&J, err);
out:
  plot_end(&J);
  CGM_FREE(B.color, B.pt, B.keys, B.worst, B.S.v);
  return st;
}
