/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel map: the paper's Fig. 8 for one calibrated device. Predicted raw
 * performance (Eqs. 6-7) on one device and on G, and the speed-up T_1 / T_G,
 * over the matrix dimension x and the stored elements e; the contour S = 1
 * is traced here (marching squares) so the picture and its data agree. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/plan.h"
#include "plots/plot_internal.h"
#include "common/grow.h"

static int map_grid_nx(void) {
  return (int)lround(log10(CGM_MAP_X_HI / CGM_MAP_X_LO)) * CGM_MAP_PER_DECADE + 1;
}
static int map_grid_ne(void) {
  return (int)lround(log10(CGM_MAP_E_HI / CGM_MAP_E_LO)) * CGM_MAP_PER_DECADE + 1;
}

/* The meaningful region in log10 space: diagonal (e = x) .. dense (e = x^2). */
static double in1(double lx, double le) {
  return le - lx;
} /* >= 0 */
static double in2(double lx, double le) {
  return 2 * lx - le;
} /* >= 0 */
static bool inside(double lx, double le) {
  return in1(lx, le) >= -1e-9 && in2(lx, le) >= -1e-9;
}

/* Clips segment p-q to the half-plane g >= 0 (g linear); false if nothing is left. */
static bool clip(double p[2], double q[2], double (*g)(double, double)) {
  double a = g(p[0], p[1]), b = g(q[0], q[1]);
  if (a < 0 && b < 0) return false;
  if (a >= 0 && b >= 0) return true;
  double t = a / (a - b);
  double r[2] = {p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])};
  if (a < 0)
    p[0] = r[0], p[1] = r[1];
  else
    q[0] = r[0], q[1] = r[1];
  return true;
}

typedef struct {
  double (*seg)[4];
  int n, cap;
} segs;

static int seg_add(segs *S, const double p[2], const double q[2]) {
  double(*nv)[4] = cgm_grow(S->seg, S->n, &S->cap, sizeof *nv, 256);
  if (!nv) return 1;
  S->seg = nv;
  S->seg[S->n][0] = p[0];
  S->seg[S->n][1] = p[1];
  S->seg[S->n][2] = q[0];
  S->seg[S->n][3] = q[1];
  S->n++;
  return 0;
}

/* Marching squares for the level `lev` of v (nx x ne, v[i * ne + j] at
 * (lx[i], le[j])), cells with a NaN corner skipped; log-interpolated along
 * the edges (S spans decades); clipped to the meaningful region. */
static int contour(const double *v, const double *lx, const double *le, int nx, int ne, double lev,
                   segs *S) {
  const double L = log(lev);
  for (int i = 0; i + 1 < nx; i++)
    for (int j = 0; j + 1 < ne; j++) {
      /* corners counter-clockwise: (i,j) (i+1,j) (i+1,j+1) (i,j+1) */
      const double c[4] = {v[i * ne + j], v[(i + 1) * ne + j], v[(i + 1) * ne + j + 1],
                           v[i * ne + j + 1]};
      const double cx[4] = {lx[i], lx[i + 1], lx[i + 1], lx[i]};
      const double cy[4] = {le[j], le[j], le[j + 1], le[j + 1]};
      bool ok = true;
      for (int k = 0; k < 4; k++) ok &= isfinite(c[k]) && c[k] > 0;
      if (!ok) continue;
      double px[4], py[4];
      int np = 0;
      for (int k = 0; k < 4; k++) {
        int k2 = (k + 1) % 4;
        double a = log(c[k]) - L, b = log(c[k2]) - L;
        if ((a >= 0) == (b >= 0)) continue;
        double t = a / (a - b);
        px[np] = cx[k] + t * (cx[k2] - cx[k]);
        py[np] = cy[k] + t * (cy[k2] - cy[k]);
        np++;
      }
      if (np == 2 || np == 4) {
        int pairs[2][2] = {{0, 1}, {2, 3}};
        if (np == 4) { /* saddle: decide by the centre */
          double centre = (log(c[0]) + log(c[1]) + log(c[2]) + log(c[3])) / 4 - L;
          bool c0 = log(c[0]) - L >= 0;
          if ((centre >= 0) == c0) { /* c0 joins c2: cut off c1 and c3 */
            pairs[0][0] = 0, pairs[0][1] = 1, pairs[1][0] = 2, pairs[1][1] = 3;
          } else { /* cut off c0 and c2 */
            pairs[0][0] = 0, pairs[0][1] = 3, pairs[1][0] = 1, pairs[1][1] = 2;
          }
        }
        for (int s = 0; s < np / 2; s++) {
          double p[2] = {px[pairs[s][0]], py[pairs[s][0]]},
                 q[2] = {px[pairs[s][1]], py[pairs[s][1]]};
          if (clip(p, q, in1) && clip(p, q, in2) && (p[0] != q[0] || p[1] != q[1]))
            if (seg_add(S, p, q)) return 1;
        }
      }
    }
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Where a line's label goes: the middle of the segment at the median x. */
static void label_pos(const segs *C, int from, double *x, double *y) {
  *x = *y = NAN;
  int n = C->n - from;
  if (n <= 0) return;
  double *mx = malloc(sizeof(double) * n);
  if (!mx) return;
  for (int k = 0; k < n; k++) mx[k] = 0.5 * (C->seg[from + k][0] + C->seg[from + k][2]);
  qsort(mx, n, sizeof *mx, cmp_double);
  double med = mx[n / 2], best = INFINITY;
  free(mx);
  for (int k = from; k < C->n; k++) {
    double d = fabs(0.5 * (C->seg[k][0] + C->seg[k][2]) - med);
    if (d < best) {
      best = d;
      *x = 0.5 * (C->seg[k][0] + C->seg[k][2]);
      *y = 0.5 * (C->seg[k][1] + C->seg[k][3]);
    }
  }
}

/* Iso-GFLOPS lines of v at 1-2-5 levels inside (lo, hi), as index block
 * `block` of fi (segments with their level) and fl (label positions). */
static int isolines(FILE *fi, FILE *fl, int block, const double *v, const double *lx,
                    const double *le, int nx, int ne, double lo, double hi) {
  if (block) {
    fputs("\n\n", fi);
    fputs("\n\n", fl);
  }
  fprintf(fi,
          "# block %d: iso-GFLOPS lines of GFLOPS_%s: log10x log10e GFLOPS (a NaN line after every "
          "segment)\n",
          block, block ? "G" : "1");
  fprintf(
      fl,
      "# block %d: label positions of the iso-GFLOPS lines of GFLOPS_%s: log10x log10e GFLOPS\n",
      block, block ? "G" : "1");
  int written = 0;
  if (lo > 0 && hi > lo) {
    double lev[64];
    int nl = 0;
    for (int k = (int)floor(log10(lo)); k <= (int)ceil(log10(hi)) && nl < 60; k++)
      for (int m = 0; m < 3; m++) {
        double L = (m == 0 ? 1 : m == 1 ? 2 : 5) * pow(10, k);
        if (L > lo * 1.05 && L < hi / 1.05) lev[nl++] = L;
      }
    if (nl > 8) { /* only the decades */
      int k = 0;
      for (int i = 0; i < nl; i++) {
        double r = log10(lev[i]);
        if (fabs(r - round(r)) < 1e-9) lev[k++] = lev[i];
      }
      nl = k;
    }
    for (int i = 0; i < nl; i++) {
      segs C = {0};
      if (contour(v, lx, le, nx, ne, lev[i], &C)) {
        free(C.seg);
        return 1;
      }
      for (int k = 0; k < C.n; k++)
        fprintf(fi, "%.5f %.5f %g\n%.5f %.5f %g\nNaN NaN NaN\n", C.seg[k][0], C.seg[k][1], lev[i],
                C.seg[k][2], C.seg[k][3], lev[i]);
      double x, y;
      label_pos(&C, 0, &x, &y);
      if (isfinite(x)) fprintf(fl, "%.5f %.5f %g\n", x, y, lev[i]), written++;
      free(C.seg);
    }
  }
  if (!written) { /* keep the block: gnuplot's index counts blocks */
    fprintf(fi, "NaN NaN NaN\n");
    fprintf(fl, "NaN NaN NaN\n");
  }
  return 0;
}

/* The predicted time of the map's matrix (cgm_plan_uniform) on `gpus`
 * GPUs; NaN where the model has no curve for it, and where the
 * configuration does not fit in a GPU's memory (*fits false: the plan's
 * footprint, as predict counts it, over the calibrated device's memory). */
static double map_time(const cgm_tuner_device *dev, int pr, const cgm_map_opts *mo, int gpus,
                       double x, double e, bool *fits) {
  cgm_plan_opts po = cgm_plan_opts_default();
  po.backend = CGM_BACKEND_CUDA;
  po.precision = (cgm_precision)pr;
  po.layout.n = mo->block;
  po.gpus = gpus;
  po.exchange = (cgm_exchange)mo->exchange;
  cgm_plan plan;
  cgm_error e2 = {0};
  *fits = true;
  if (cgm_plan_uniform(x, e, &po, &plan, &e2)) return NAN;
  if (!dev->is_cpu && dev->mem_bytes > 0 && plan.device_bytes > dev->mem_bytes) {
    *fits = false;
    return NAN;
  }
  return cgm_refined_time(&dev->model[pr], &plan);
}

/* `var = "set cbtics (...)"`: the tics of plot_log_tics. */
static void cb_tics(FILE *gp, const char *var, double lo, double hi, bool split) {
  double v[PLOT_MAX_TICS];
  const int n = plot_log_tics(lo, hi, split, v), d = plot_tic_digits(v, n);
  fprintf(gp, "%s = \"set cbtics (", var);
  for (int i = 0; i < n; i++) fprintf(gp, "%s'%.*g' %.9g", i ? ", " : "", d, v[i], v[i]);
  fprintf(gp, ")\"\n");
}

cgm_status cgm_plot_map(const cgm_tuner_device *dev, const cgm_map_opts *mo, const cgm_plot_opts *o,
                        cgm_plot_files *files, cgm_error *err) {
  plot_job J;
  cgm_status st = plot_begin(&J, o, "map.gp", files, err);
  if (st) return st;
  const int bi = cgm_block_index(mo->block), pr = mo->precision;
  if (bi < 0) return cgm_fail(err, CGM_EINPUT, "block size %d is not 1, 2, 4 or 8", mo->block);
  if (pr < 0 || pr > 1) return cgm_fail(err, CGM_EINPUT, "unknown precision %d", pr);
  if (mo->gpus < 1 || mo->gpus > 8)
    return cgm_fail(err, CGM_EINPUT, "gpus %d: not in 1..8", mo->gpus);
  if (mo->exchange < 0 || mo->exchange >= CGM_NEXCHANGES)
    return cgm_fail(err, CGM_EINPUT, "unknown exchange %d", mo->exchange);
  const cgm_device_model *m = &dev->model[pr];
  const char *fits = mo->fits ? mo->fits : "avg";
  if (!dev->have[pr] || !m->have_spmv[bi] || !m->have_vec)
    return cgm_fail(err, CGM_EINPUT,
                    "calibration %lld (%s) has no converged %s fits of %s%s%s in %s precision: "
                    "nothing to map (see 'cgmodel db show %lld')",
                    (long long)dev->calibration_id, dev->name, fits,
                    m->have_spmv[bi] ? "" : "the SpMV with this block size",
                    !m->have_spmv[bi] && !m->have_vec ? " and " : "",
                    m->have_vec ? "" : "CG4 and CG5", cgm_precision_name((cgm_precision)pr),
                    (long long)dev->calibration_id);
  int G = mo->gpus;
  bool multi = G > 1;
  if (dev->is_cpu) {
    plot_note(files,
              "%s is a CPU calibration (one device, no GPUs): the speed-up panel is not "
              "meaningful, only the one-device panel is drawn",
              dev->name);
    multi = false;
  } else if (multi && !m->have_xfer[mo->exchange][G]) {
    plot_note(files,
              "calibration %lld has no %s fit of the %s exchange on %d GPUs: only the "
              "one-device panel is drawn, no speed-up",
              (long long)dev->calibration_id, fits, cgm_exchange_name((cgm_exchange)mo->exchange),
              G);
    multi = false;
  } else if (!multi) {
    plot_note(files, "1 GPU: only the one-device panel is drawn, no speed-up (gpus=G for G > 1)");
  }
  const int nx = map_grid_nx(), ne = map_grid_ne();
  double *lx = malloc(sizeof(double) * nx), *le = malloc(sizeof(double) * ne);
  double *S = malloc(sizeof(double) * nx * ne), *G1 = malloc(sizeof(double) * nx * ne),
         *GG = malloc(sizeof(double) * nx * ne);
  segs C = {0};
  FILE *fg = NULL, *fc = NULL, *fm = NULL, *fi = NULL, *fl = NULL, *gp = NULL;
  char rg[600], rc[600], rm[600] = "", ri[600], rl[600];
  if (!lx || !le || !S || !G1 || !GG) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    goto out;
  }
  for (int i = 0; i < nx; i++) lx[i] = log10(CGM_MAP_X_LO) + (double)i / CGM_MAP_PER_DECADE;
  for (int j = 0; j < ne; j++) le[j] = log10(CGM_MAP_E_LO) + (double)j / CGM_MAP_PER_DECADE;
  if (!(fg = plot_data_open(&J, "grid.dat", rg, sizeof rg, err))) {
    st = err && err->code ? err->code : CGM_ERUNTIME;
    goto out;
  }
  if (multi)
    fprintf(fg,
            "# cgmodel map: %s (calibration %lld), %s precision, %dx%d blocks, %s fits, 1 and %d "
            "GPUs, %s exchange\n",
            dev->name, (long long)dev->calibration_id, cgm_precision_name((cgm_precision)pr),
            mo->block, mo->block, fits, G, cgm_exchange_name((cgm_exchange)mo->exchange));
  else
    fprintf(
        fg,
        "# cgmodel map: %s (calibration %lld), %s precision, %dx%d blocks, %s fits, one device\n",
        dev->name, (long long)dev->calibration_id, cgm_precision_name((cgm_precision)pr), mo->block,
        mo->block, fits);
  fprintf(
      fg,
      "# x: dimension, e: stored elements (dense %dx%d blocks); inside = 1 between the diagonal "
      "(e = x) and dense (e = x^2) matrices\n",
      mo->block, mo->block);
  fprintf(fg, "# T: predicted time per iteration (s); GFLOPS = (2e + 15x) / T / 1e9 (Eqs. 6-7); "
              "S = T_1 / T_G; GFLOPS and S are NaN outside\n");
  if (!dev->is_cpu && dev->mem_bytes > 0)
    fprintf(fg,
            "# fits_1, fits_G: 0 where the configuration does not fit in the %.1f GiB of a GPU "
            "(its T, GFLOPS and S are NaN)\n",
            dev->mem_bytes / 1073741824.0);
  fprintf(fg, "# log10x log10e x e inside T_1 T_G GFLOPS_1 GFLOPS_G S fits_1 fits_G\n");
  double gmin = INFINITY, gmax = 0, smin = INFINITY, smax = 0;
  int finite_in = 0, nofit_in = 0;
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < ne; j++) {
      double x = pow(10, lx[i]), e = pow(10, le[j]);
      bool in = inside(lx[i], le[j]);
      bool fit1 = true, fitg = true;
      double t1 = map_time(dev, pr, mo, 1, x, e, &fit1);
      double tg = multi ? map_time(dev, pr, mo, G, x, e, &fitg) : NAN;
      if (in && (!fit1 || !fitg)) nofit_in++;
      double F = cgm_paper_flops(x, e);
      double g1 = t1 > 0 ? F / t1 * 1e-9 : NAN, gg = tg > 0 ? F / tg * 1e-9 : NAN;
      double s = t1 > 0 && tg > 0 ? t1 / tg : NAN;
      S[i * ne + j] = s;
      G1[i * ne + j] = g1;
      GG[i * ne + j] = gg;
      if (in) {
        if (isfinite(g1)) finite_in++;
        const double gv[2] = {g1, gg};
        for (int k = 0; k < 2; k++)
          if (isfinite(gv[k]) && gv[k] > 0) {
            if (gv[k] < gmin) gmin = gv[k];
            if (gv[k] > gmax) gmax = gv[k];
          }
        if (isfinite(s) && s > 0) {
          if (s < smin) smin = s;
          if (s > smax) smax = s;
        }
      }
      fprintf(fg, "%.4f %.4f %.6g %.6g %d ", lx[i], le[j], x, e, in ? 1 : 0);
      const double col[5] = {t1, tg, in ? g1 : NAN, in ? gg : NAN, in ? s : NAN};
      for (int k = 0; k < 5; k++) {
        gp_num(fg, col[k]);
        fputc(' ', fg);
      }
      fprintf(fg, "%d %d\n", fit1 ? 1 : 0, fitg ? 1 : 0);
    }
    fputc('\n', fg); /* gnuplot's grid: a blank line after every x */
  }
  if ((st = plot_data_close(&J, fg, rg, err))) {
    fg = NULL;
    goto out;
  }
  fg = NULL;
  if (finite_in == 0) {
    st = cgm_fail(err, CGM_EINPUT,
                  "the model predicts no time anywhere on the map for calibration %lld",
                  (long long)dev->calibration_id);
    goto out;
  }
  /* S = 1 */
  double labx = NAN, laby = NAN;
  if (multi && contour(S, lx, le, nx, ne, 1.0, &C)) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    goto out;
  }
  if (!(fc = plot_data_open(&J, "contour.dat", rc, sizeof rc, err))) {
    st = err && err->code ? err->code : CGM_ERUNTIME;
    goto out;
  }
  if (multi)
    fprintf(fc, "# cgmodel map: the contour S = T_1 / T_%d = 1 inside the region, as segments\n",
            G);
  else
    fprintf(fc, "# cgmodel map: one device, no speed-up: no S = 1 contour\n");
  fprintf(fc, "# log10x log10e (a NaN line after every segment)\n");
  for (int k = 0; k < C.n; k++)
    fprintf(fc, "%.5f %.5f\n%.5f %.5f\nNaN NaN\n", C.seg[k][0], C.seg[k][1], C.seg[k][2],
            C.seg[k][3]);
  label_pos(&C, 0, &labx, &laby);
  if ((st = plot_data_close(&J, fc, rc, err))) {
    fc = NULL;
    goto out;
  }
  fc = NULL;
  /* Iso-GFLOPS lines of both panels, on the shared colour scale's levels. */
  if (!(fi = plot_data_open(&J, "isolines.dat", ri, sizeof ri, err)) ||
      !(fl = plot_data_open(&J, "isolabels.dat", rl, sizeof rl, err))) {
    st = err && err->code ? err->code : CGM_ERUNTIME;
    goto out;
  }
  if (isolines(fi, fl, 0, G1, lx, le, nx, ne, gmin, gmax) ||
      isolines(fi, fl, 1, multi ? GG : NULL, lx, le, multi ? nx : 0, ne, gmin, gmax)) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    goto out;
  }
  st = plot_data_close(&J, fi, ri, err);
  fi = NULL;
  if (!st) st = plot_data_close(&J, fl, rl, err);
  fl = NULL;
  if (st) goto out;
  if (mo->nmarks > 0) {
    if (!(fm = plot_data_open(&J, "marks.dat", rm, sizeof rm, err))) {
      st = err && err->code ? err->code : CGM_ERUNTIME;
      goto out;
    }
    fprintf(fm, "# cgmodel map: matrices (--mark)\n# log10x log10e x e_N name\n");
    int outside = 0;
    for (int k = 0; k < mo->nmarks; k++) {
      const cgm_map_mark *mk = &mo->marks[k];
      double mlx = log10(mk->x), mle = log10(mk->e);
      fprintf(fm, "%.5f %.5f %.9g %.9g ", mlx, mle, mk->x, mk->e);
      gp_string(fm, mk->name);
      fputc('\n', fm);
      if (mk->x < CGM_MAP_X_LO || mk->x > CGM_MAP_X_HI || mk->e < CGM_MAP_E_LO ||
          mk->e > CGM_MAP_E_HI)
        outside++;
    }
    if (outside)
      plot_note(files, "%d marked matri%s outside the map (x 1e2..1e8, e 1e3..1e10)", outside,
                outside > 1 ? "ces lie" : "x lies");
    if ((st = plot_data_close(&J, fm, rm, err))) {
      fm = NULL;
      goto out;
    }
    fm = NULL;
  }
  files->panels = multi ? 3 : 1;
  if (!(gp = plot_script_open(&J, "cgmodel map", err))) {
    st = err && err->code ? err->code : CGM_ERUNTIME;
    goto out;
  }
  gp_var(gp, "grid", rg);
  gp_var(gp, "contour", rc);
  gp_var(gp, "isolines", ri);
  gp_var(gp, "isolabels", rl);
  gp_var(gp, "marks", rm);
  fprintf(gp, "nmarks = %d\n", mo->nmarks);
  char t[600];
  snprintf(t, sizeof t, "%s, %s precision, %d×%d blocks, %s fits", dev->name,
           cgm_precision_name((cgm_precision)pr), mo->block, mo->block, fits);
  fprintf(gp, "plot_title = ");
  gp_string(gp, t);
  fprintf(gp, "\ndevice = ");
  gp_string(gp, dev->is_cpu ? "CPU" : "GPU");
  fprintf(gp, "\ngpus = %d\nmulti = %d\n", G, multi ? 1 : 0);
  fprintf(gp, "exchange = '%s'\n", cgm_exchange_name((cgm_exchange)mo->exchange));
  fprintf(gp, "lxlo = %g; lxhi = %g; lelo = %g; lehi = %g\n", log10(CGM_MAP_X_LO),
          log10(CGM_MAP_X_HI), log10(CGM_MAP_E_LO), log10(CGM_MAP_E_HI));
  /* Colour ranges: GFLOPS shared by both panels, S symmetric around 1 in log. */
  if (!(gmax > 0)) gmin = 0.1, gmax = 1;
  if (gmax < gmin * 1.01) gmax = gmin * 1.01;
  double r = 1.25;
  if (isfinite(smin) && smax > 0) {
    if (smax > r) r = smax;
    if (1 / smin > r) r = 1 / smin;
  }
  if (r > 100) r = 100;
  fprintf(gp, "gmin = %.6g; gmax = %.6g; smin = %.6g; smax = %.6g\n", gmin, gmax, 1 / r, r);
  cb_tics(gp, "gflops_tics", gmin, gmax, false);
  cb_tics(gp, "speedup_tics", 1 / r, r, true);
  fprintf(gp, "nofit = %d; mem_gib = %.1f\n", nofit_in > 0 ? 1 : 0, dev->mem_bytes / 1073741824.0);
  if (nofit_in)
    plot_note(files, "grey: matrices whose configuration does not fit in the %.1f GiB of a GPU",
              dev->mem_bytes / 1073741824.0);
  fprintf(gp, "have_s1 = %d; s1x = ", C.n > 0 ? 1 : 0);
  gp_num(gp, labx);
  fprintf(gp, "; s1y = ");
  gp_num(gp, laby);
  fprintf(gp, "\n");
  if ((st = plot_script_finish(&J, gp, err))) {
    gp = NULL;
    goto out;
  }
  gp = NULL;
  st = plot_run(&J, err);
out:
  if (fg) fclose(fg);
  if (fc) fclose(fc);
  if (fm) fclose(fm);
  if (gp) fclose(gp);
  free(C.seg);
  free(lx);
  free(le);
  free(S);
  free(G1);
  free(GG);
  if (fi) fclose(fi);
  if (fl) fclose(fl);
  return st;
}
