/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel plot calibration: the measured throughput of every kernel and its
 * Eq. 3 fits (the paper's Figs. 5, 6a and 7), one panel per kernel family. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "plots/plot_internal.h"
#include "common/grow.h"

typedef struct {
  cgm_db_fit *v;
  int n, cap;
} fvec;

static int take_sample(const cgm_db_sample *s, void *ctx) {
  return cgm_sample_vec_push(ctx, s);
}

static int take_fit(const cgm_db_fit *f, void *ctx) {
  fvec *fv = ctx;
  return !cgm_push(&fv->v, &fv->n, &fv->cap, f, sizeof *f, 64);
}

/* One plotted element: a series of samples or a fitted curve. */
typedef struct {
  bool is_sample;
  int index; /* index block in its file */
  char title[160];
  const char *color;
  int pt; /* samples */
  int dt; /* curves */
} element;

typedef struct {
  char title[160];
  int e0, e1; /* elements [e0, e1], 1-based */
} panel;

typedef struct {
  plot_job *j;
  const cgm_sample_vec *sv;
  const fvec *fv;
  int prec;
  unsigned kinds;
  FILE *fs, *fc;
  int nseries, ncurves;
  element *el;
  int nel, cap;
  panel pn[12];
  int npanels;
  int skipped_fits;
  char skipped[512];
  double mlo, mhi; /* m range of the panel being built */
} cal_build;

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                     "#9467bd", "#8c564b", "#e377c2", "#17becf"};
static const int kind_dt[] = {1, 2, 3, 3};

/* e appended to the elements; NULL when out of memory. */
static element *add_element(cal_build *B, element e) {
  return cgm_push(&B->el, &B->nel, &B->cap, &e, sizeof e, 64) ? &B->el[B->nel - 1] : NULL;
}

static bool match(const char *kernel, const char *variant, int block, int prec, const char *k,
                  const char *v, int b, int p) {
  return !strcmp(kernel, k) && !strcmp(variant, v) && block == b && prec == p;
}

/* The samples of (kernel, variant, block) as one index block; false if none. */
static cgm_status add_samples(cal_build *B, const char *kernel, const char *variant, int block,
                              const char *title, const char *color, int pt, bool *any) {
  int cnt = 0;
  for (int i = 0; i < B->sv->n; i++) {
    const cgm_sample *s = &B->sv->v[i];
    if (match(s->kernel, s->variant, s->block, s->precision, kernel, variant, block, B->prec) &&
        s->m > 0 && s->seconds > 0)
      cnt++;
  }
  *any = cnt > 0;
  if (!cnt) return CGM_OK;
  if (B->nseries) fputs("\n\n", B->fs);
  fprintf(B->fs, "# series %d: kernel %s variant %s block %d precision %s, %d samples\n",
          B->nseries, kernel, *variant ? variant : "-", block,
          cgm_precision_name((cgm_precision)B->prec), cnt);
  fprintf(B->fs, "# m bytes seconds gbps source\n");
  for (int i = 0; i < B->sv->n; i++) {
    const cgm_sample *s = &B->sv->v[i];
    if (!match(s->kernel, s->variant, s->block, s->precision, kernel, variant, block, B->prec) ||
        !(s->m > 0 && s->seconds > 0))
      continue;
    fprintf(B->fs, "%.9g %.9g %.9g %.9g %s\n", s->m, s->bytes, s->seconds, cgm_sample_gbps(s),
            s->source[0] ? s->source : "-");
    if (s->m < B->mlo) B->mlo = s->m;
    if (s->m > B->mhi) B->mhi = s->m;
  }
  element *e = add_element(B, (element){true, B->nseries++, "", color, pt, 0});
  if (!e) return CGM_ERUNTIME;
  snprintf(e->title, sizeof e->title, "%s", title);
  return CGM_OK;
}

/* The other piece of a piecewise curve (rel-hi for rel, rel for rel-hi). */
static const cgm_db_fit *other_piece(const cal_build *B, const cgm_db_fit *f) {
  for (int i = 0; i < B->fv->n; i++) {
    const cgm_db_fit *g = &B->fv->v[i];
    if (g != f && g->kind >= CGM_FIT_REL && g->kind != f->kind && g->converged &&
        match(g->kernel, g->variant, g->block, g->precision, f->kernel, f->variant, f->block,
              f->precision))
      return g;
  }
  return NULL;
}

static cgm_status add_fits(cal_build *B, const char *kernel, const char *variant, int block,
                           const char *prefix, const char *color, int *drawn) {
  *drawn = 0;
  for (int kind = 0; kind < 4; kind++) {
    /* rel-hi is the second piece of rel: drawn with it */
    if (!(B->kinds & (1u << (kind == CGM_FIT_REL_HI ? CGM_FIT_REL : kind)))) continue;
    for (int i = 0; i < B->fv->n; i++) {
      const cgm_db_fit *f = &B->fv->v[i];
      if (f->kind != kind ||
          !match(f->kernel, f->variant, f->block, f->precision, kernel, variant, block, B->prec))
        continue;
      if (!f->converged || !(f->nu > 0) || !(f->sigma > 0) || !isfinite(f->mu)) {
        B->skipped_fits++;
        size_t l = strlen(B->skipped);
        if (l < sizeof B->skipped - 64) {
          char nb[16] = "";
          if (block) snprintf(nb, sizeof nb, "/N=%d", block);
          snprintf(B->skipped + l, sizeof B->skipped - l, "%s%s%s%s%s/%s", l ? ", " : "", kernel,
                   *variant ? "/" : "", variant, nb, cgm_fit_kind_name(kind));
        }
        continue;
      }
      double lo = B->mlo < B->mhi ? log2(B->mlo) - 1 : f->mu - 6 * f->sigma;
      double hi = B->mlo < B->mhi ? log2(B->mhi) + 1 : f->mu + 6 * f->sigma;
      /* A piecewise curve: rel up to where rel-hi takes over (its m_lo),
       * rel-hi from there, as the model uses them. */
      const cgm_db_fit *other = kind >= CGM_FIT_REL ? other_piece(B, f) : NULL;
      if (other && kind == CGM_FIT_REL && other->m_lo > 0) hi = fmin(hi, log2(other->m_lo));
      if (other && kind == CGM_FIT_REL_HI && f->m_lo > 0) lo = fmax(lo, log2(f->m_lo));
      if (B->ncurves) fputs("\n\n", B->fc);
      fprintf(B->fc,
              "# curve %d: kernel %s variant %s block %d precision %s, %s fit: mu %.6g sigma %.6g "
              "nu %.6g GB/s\n",
              B->ncurves, kernel, *variant ? variant : "-", block,
              cgm_precision_name((cgm_precision)B->prec), cgm_fit_kind_name(kind), f->mu, f->sigma,
              f->nu);
      fprintf(B->fc, "# m gbps (Eq. 3)\n");
      cgm_sigmoid sg = {f->mu, f->sigma, f->nu};
      const int np = 160;
      for (int k = 0; k < np; k++) {
        double m = exp2(lo + (hi - lo) * k / (np - 1));
        fprintf(B->fc, "%.9g %.9g\n", m, cgm_sigmoid_eval(&sg, m));
      }
      element *e = add_element(B, (element){false, B->ncurves++, "", color, 0, kind_dt[kind]});
      if (!e) return CGM_ERUNTIME;
      snprintf(e->title, sizeof e->title, "%s%s μ=%.2f σ=%.2f ν=%.4g", prefix,
               cgm_fit_kind_name(kind), f->mu, f->sigma, f->nu);
      (*drawn)++;
    }
  }
  return CGM_OK;
}

static void panel_begin(cal_build *B, const char *title) {
  snprintf(B->pn[B->npanels].title, sizeof B->pn[0].title, "%s", title);
  B->pn[B->npanels].e0 = B->nel + 1;
  B->mlo = INFINITY;
  B->mhi = 0;
}

/* Keeps the panel if it holds samples. */
static void panel_end(cal_build *B, bool any) {
  if (!any) return; /* its elements stay in the files but no panel shows them */
  B->pn[B->npanels].e1 = B->nel;
  B->npanels++;
}

static bool has_samples(const cal_build *B, const char *kernel, const char *variant, int block) {
  for (int i = 0; i < B->sv->n; i++) {
    const cgm_sample *s = &B->sv->v[i];
    if (match(s->kernel, s->variant, s->block, s->precision, kernel, variant, block, B->prec))
      return true;
  }
  return false;
}

/* One kernel's samples and its fits (fit_variant of fit_kernel) in one colour. In a crowded panel
 * (compact) the samples get no key entry of their own when a fit names them. */
static cgm_status add_group(cal_build *B, const char *kernel, const char *variant, int block,
                            const char *fit_kernel, const char *fit_variant, const char *title,
                            const char *prefix, const char *color, bool compact, bool *any) {
  cgm_status st = add_samples(B, kernel, variant, block, title, color, 7, any);
  if (st || !*any) return st;
  int si = B->nel - 1, drawn = 0;
  st = add_fits(B, fit_kernel, fit_variant, block, prefix, color, &drawn);
  if (!st && compact && drawn) B->el[si].title[0] = 0;
  if (!st && !drawn) {
    size_t l = strlen(B->el[si].title);
    snprintf(B->el[si].title + l, sizeof B->el[si].title - l, " (no fit drawn)");
  }
  return st;
}

/* A panel of one kernel and variant by size (1, 2, 4, 8: vector counts, or
 * block sizes), a colour each, compact where more than two have samples. */
static cgm_status size_panel(cal_build *B, const char *title, const char *kernel,
                             const char *variant, bool blocks, bool compact) {
  panel_begin(B, title);
  bool some = false, any;
  int groups = 0;
  for (int b = 0; b < CGM_NBLOCKSIZES; b++)
    groups += has_samples(B, kernel, variant, cgm_block_sizes[b]);
  cgm_status st = CGM_OK;
  for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
    const int n = cgm_block_sizes[b];
    char t[64], pre[32];
    if (blocks)
      snprintf(t, sizeof t, "%d×%d blocks", n, n);
    else
      snprintf(t, sizeof t, "n = %d vector%s", n, n > 1 ? "s" : "");
    snprintf(pre, sizeof pre, blocks ? "N=%d " : "n=%d ", n);
    st = add_group(B, kernel, variant, n, kernel, variant, t, pre, colors[b], compact || groups > 2,
                   &any);
    some |= any;
  }
  panel_end(B, some);
  return st;
}

static cgm_status build(cal_build *B, int gpus) {
  cgm_status st = CGM_OK;
  bool any, some;
  char title[160];
  /* Plain loads (CUDA): one panel per grid kind, one colour per vector count. */
  static const char *const grids[] = {"fixed", "variable"};
  for (int g = 0; g < 2 && !st; g++) {
    snprintf(title, sizeof title, "plain loads, %s grid", grids[g]);
    st = size_panel(B, title, "load", grids[g], false, false);
  }
  /* The CG vector kernels and the cuSPARSE baseline's whole iteration. */
  static const char *const vec[] = {"cg4", "cg5", "red", "cusparse"};
  static const char *const vec_title[] = {"CG4 (x, r update, r·r)", "CG5 (v update)", "Red (dot)",
                                          "cuSPARSE CSR iteration"};
  panel_begin(B, "CG vector kernels");
  some = false;
  int vgroups = 0;
  for (int v = 0; v < 4; v++) vgroups += has_samples(B, vec[v], "", 0);
  for (int v = 0; v < 4 && !st; v++) {
    char pre[32];
    snprintf(pre, sizeof pre, "%s ", vec[v]);
    st = add_group(B, vec[v], "", 0, vec[v], "", vec_title[v], pre, colors[v], vgroups > 2, &any);
    some |= any;
  }
  panel_end(B, some);
  /* SpMV, one panel per block size. */
  for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
    const int n = cgm_block_sizes[b];
    snprintf(title, sizeof title, "SpMV, %d×%d blocks", n, n);
    panel_begin(B, title);
    bool d = false, r = false;
    st = add_samples(B, "spmv", "dense", n, "dense-block matrices", colors[b], 7, &d);
    if (!st) st = add_samples(B, "spmv", "real", n, "real matrices", colors[b], 9, &r);
    int drawn = 0;
    /* The mesh curve is the one the refined model uses (docs/model.md);
     * a database from before it has the "all" curve. */
    const char *var = "all", *pre = "";
    for (int i = 0; i < B->fv->n; i++) {
      const cgm_db_fit *f = &B->fv->v[i];
      if (!strcmp(f->kernel, "spmv") && !strcmp(f->variant, "mesh") && f->block == n &&
          f->precision == B->prec)
        var = "mesh", pre = "mesh ";
    }
    if (!st && (d || r)) st = add_fits(B, "spmv", var, n, pre, colors[b], &drawn);
    panel_end(B, d || r);
  }
  /* Our solver's whole iterations (the refined model's curves): over the
   * iteration's bytes on meshes, and over the longest row's elements; a
   * CPU's, timed through its solver (points the model interpolates). */
  static const char *const iv[] = {"mesh", "row", "band", "cpu"};
  static const char *const iv_title[] = {
      "whole CG iterations, 3D meshes", "whole CG iterations, one long row (arrow)",
      "whole CG iterations, every row long (band)", "whole CG iterations of the CPU, meshes"};
  for (int v = 0; v < 4 && !st; v++) st = size_panel(B, iv_title[v], "iter", iv[v], true, true);
  /* Transfers: whole multi-GPU iterations and the fitted exchange cost. */
  if (!st) {
    int G = gpus;
    if (G <= 0)
      for (int i = 0; i < B->sv->n; i++)
        if (!strcmp(B->sv->v[i].kernel, "mgpu") && B->sv->v[i].precision == B->prec &&
            B->sv->v[i].block > G)
          G = B->sv->v[i].block;
    if (G >= 2) {
      snprintf(title, sizeof title, "exchange on %d GPUs (points: whole iterations)", G);
      panel_begin(B, title);
      some = false;
      static const cgm_exchange modes[] = {CGM_EXCHANGE_HALO, CGM_EXCHANGE_P2P, CGM_EXCHANGE_HOST,
                                           CGM_EXCHANGE_NCCL};
      int groups = 0;
      for (int k = 0; k < 4; k++) groups += has_samples(B, "mgpu", cgm_exchange_name(modes[k]), G);
      for (int k = 0; k < 4 && !st; k++) {
        const char *mode = cgm_exchange_name(modes[k]);
        char pre[32];
        snprintf(pre, sizeof pre, "%s ", mode);
        st = add_group(B, "mgpu", mode, G, "xfer", mode, mode, pre, colors[k], groups > 2, &any);
        some |= any;
      }
      panel_end(B, some);
    }
  }
  return st;
}

/* FILE-fits.dat: every fit of the calibration, drawn or not. */
static void write_fits(FILE *ff, int64_t cal_id, const cgm_db_device *dev, const fvec *fv) {
  fprintf(ff,
          "# cgmodel calibration %lld (%s %s): every Eq. 3 fit; kind avg = least squares, max = "
          "envelope, rel = relative least squares (the model's), rel-hi = its piece past a CPU's "
          "cache peak\n",
          (long long)cal_id, dev->kind, dev->model);
  fprintf(ff, "# kernel variant precision block kind mu sigma nu se_mu se_sigma se_nu r2 rms n "
              "converged\n");
  for (int i = 0; i < fv->n; i++) {
    const cgm_db_fit *f = &fv->v[i];
    fprintf(ff, "%s %s %s %d %s ", f->kernel, f->variant[0] ? f->variant : "-",
            cgm_precision_name((cgm_precision)f->precision), f->block, cgm_fit_kind_name(f->kind));
    const double v[] = {f->mu, f->sigma, f->nu, f->se_mu, f->se_sigma, f->se_nu, f->r2, f->rms};
    for (int k = 0; k < 8; k++) {
      gp_num(ff, v[k]);
      fputc(' ', ff);
    }
    fprintf(ff, "%d %d\n", f->n, f->converged);
  }
}

/* The data files: samples and curves as the panels are built, and fits. */
static cgm_status cal_data(cal_build *B, int64_t cal_id, const cgm_db_calibration *cal,
                           const cgm_db_device *dev, int gpus, cgm_error *err) {
  FILE *ff;
  cgm_status st;
  if ((st = plot_data_open(B->j, "samples", &B->fs, err)) ||
      (st = plot_data_open(B->j, "curves", &B->fc, err)) ||
      (st = plot_data_open(B->j, "fits", &ff, err)))
    return st;
  fprintf(
      B->fs,
      "# cgmodel calibration %lld (%s %s, %s): measured throughput, GB/s = bytes / seconds / 1e9\n",
      (long long)cal_id, dev->kind, dev->model, cal->created);
  fprintf(B->fc,
          "# cgmodel calibration %lld: Eq. 3, B(m) = nu / (1 + exp(-(log2 m - mu) / sigma)) GB/s\n",
          (long long)cal_id);
  if ((st = build(B, gpus))) return err->msg[0] ? st : cgm_fail(err, st, "out of memory");
  write_fits(ff, cal_id, dev, B->fv);
  if ((st = plot_file_close(B->j, B->fs, err)) || (st = plot_file_close(B->j, B->fc, err)))
    return st;
  return plot_file_close(B->j, ff, err);
}

/* FILE.gp: the panels on a grid (a larger picture for many unless a size
 * was asked for), each element's file, index block, title and style. */
static cgm_status cal_script(cal_build *B, const char *title, bool sized, cgm_error *err) {
  plot_job *J = B->j;
  int cols = B->npanels <= 3 ? B->npanels : B->npanels == 4 ? 2 : 3;
  int rows = (B->npanels + cols - 1) / cols;
  /* Room below each panel for its longest key, so that none is squeezed. */
  int keyrows = 1;
  for (int p = 0; p < B->npanels; p++) {
    int entries = 0;
    for (int k = B->pn[p].e0; k <= B->pn[p].e1; k++) entries += B->el[k - 1].title[0] != 0;
    if (entries > keyrows) keyrows = entries;
  }
  /* Many panels: tall enough for every row's panel (about 250 px) and key (16 px a line), its font
   * that of 1500 x 1200 (one key line fits a third of the width). */
  if (!sized && rows > 2) {
    J->width = 1500;
    J->height = rows * (380 + 16 * keyrows) + 120;
    if (J->height < 1200) J->height = 1200;
    J->font_height = 1200;
  }
  FILE *gp;
  cgm_status st = plot_script_open(J, "cgmodel plot calibration", &gp, err);
  if (st) return st;
  static const char *const data[] = {"samples", "curves", "fits"};
  for (int k = 0; k < 3; k++) plot_data_var(gp, J, data[k], true);
  gp_var(gp, "plot_title", title);
  fprintf(gp, "rows = %d\ncols = %d\nnpanels = %d\n", rows, cols, B->npanels);
  fprintf(gp, "array ptitle[%d]\narray e0[%d]\narray e1[%d]\n", B->npanels, B->npanels, B->npanels);
  for (int p = 0; p < B->npanels; p++) {
    fprintf(gp, "ptitle[%d] = ", p + 1);
    gp_string(gp, B->pn[p].title);
    fprintf(gp, "; e0[%d] = %d; e1[%d] = %d\n", p + 1, B->pn[p].e0, p + 1, B->pn[p].e1);
  }
  fprintf(gp, "keyrows = %d\n", keyrows);
  /* Element k: file, index block, key title, and line style 100 + k. */
  int ne = B->nel > 0 ? B->nel : 1;
  fprintf(gp, "array efile[%d]\narray eindex[%d]\narray ecol[%d]\narray etitle[%d]\n", ne, ne, ne,
          ne);
  for (int k = 0; k < B->nel; k++) {
    const element *e = &B->el[k];
    fprintf(gp, "efile[%d] = %s; eindex[%d] = %d; ecol[%d] = %d; etitle[%d] = ", k + 1,
            e->is_sample ? "samples" : "curves", k + 1, e->index, k + 1, e->is_sample ? 4 : 2,
            k + 1);
    gp_string(gp, e->title);
    if (e->is_sample)
      fprintf(gp, "\nset style line %d lt nodraw lc rgb '%s' pt %d ps %.2f\n", 100 + k + 1,
              e->color, e->pt, J->fmt == CGM_PLOT_SVG ? 0.7 : 0.9);
    else
      fprintf(gp, "\nset style line %d lc rgb '%s' lw 2 dt %d pt -1\n", 100 + k + 1, e->color,
              e->dt);
  }
  return plot_script_finish(J, gp, err);
}

cgm_status cgm_plot_calibration(cgm_db *db, int64_t cal_id, const cgm_calplot_opts *co,
                                const cgm_plot_opts *o, cgm_plot_files *files, cgm_error *err) {
  plot_job J;
  cgm_status st = plot_begin(&J, o, "calibration.gp", files, err);
  cgm_db_calibration cal;
  cgm_db_device dev;
  if (st || (st = cgm_db_calibration_get(db, cal_id, &cal, err)) ||
      (st = cgm_db_device_get(db, cal.device_id, &dev, err)))
    return st;
  cgm_sample_vec sv = {0};
  fvec fv = {0};
  cal_build B = {0};
  if ((st = cgm_db_samples(db, cal_id, take_sample, &sv, err)) ||
      (st = cgm_db_fits(db, cal_id, take_fit, &fv, err)))
    goto out;
  int prec = co && co->precision >= 0 ? co->precision : -1;
  for (int i = 0; prec < 0 && i < sv.n; i++)
    if (sv.v[i].precision == CGM_PREC_DOUBLE) prec = CGM_PREC_DOUBLE;
  if (prec < 0) prec = CGM_PREC_SINGLE;
  int have = 0;
  for (int i = 0; i < sv.n; i++) have += sv.v[i].precision == prec;
  if (!have) {
    st = cgm_fail(err, CGM_EINPUT, "calibration %lld holds no %s-precision samples",
                  (long long)cal_id, cgm_precision_name((cgm_precision)prec));
    goto out;
  }
  B.j = &J;
  B.sv = &sv;
  B.fv = &fv;
  B.prec = prec;
  /* by default the paper's average fits and the refined model's relative ones */
  B.kinds = co && co->fits ? co->fits : (1u << CGM_FIT_AVG) | (1u << CGM_FIT_REL);
  if ((st = cal_data(&B, cal_id, &cal, &dev, co ? co->gpus : 0, err))) goto out;
  if (B.npanels == 0) {
    st = cgm_fail(err, CGM_EINPUT, "calibration %lld has no samples of a kernel that is plotted",
                  (long long)cal_id);
    goto out;
  }
  files->panels = B.npanels;
  if (B.skipped_fits)
    plot_note(files, "%d fit%s did not converge and %s not drawn: %s", B.skipped_fits,
              B.skipped_fits > 1 ? "s" : "", B.skipped_fits > 1 ? "are" : "is", B.skipped);
  char ttl[600];
  snprintf(ttl, sizeof ttl, "calibration %lld: %s (%s), %s precision, %s", (long long)cal_id,
           dev.model, dev.kind, cgm_precision_name((cgm_precision)prec), cal.created);
  if (!(st = cal_script(&B, ttl, o->width > 0, err))) st = plot_run(&J, err);
out:
  plot_end(&J);
  CGM_FREE(B.el, sv.v, fv.v);
  return st;
}
