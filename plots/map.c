/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel map: the paper's Fig. 8 for one calibrated device (plots.h); the contour S = 1 is traced
 * here (marching squares) so the picture and its data agree. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "cgmodel/plan.h"
#include "plots/plot_internal.h"
#include "common/grow.h"
#include "common/timer.h"

/* The region in log10 space, diagonal (e = x) .. dense (e = x^2): both >= 0. */
static double in1(double lx, double le) {
  return le - lx;
}
static double in2(double lx, double le) {
  return 2 * lx - le;
}
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
  const double s[4] = {p[0], p[1], q[0], q[1]};
  return !cgm_push(&S->seg, &S->n, &S->cap, s, sizeof s, 256);
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
        /* a saddle is decided by the centre: where c0 joins c2, c1 and c3
         * are cut off (the pairs as found), else c0 and c2 */
        int pairs[2][2] = {{0, 1}, {2, 3}};
        const double centre = (log(c[0]) + log(c[1]) + log(c[2]) + log(c[3])) / 4 - L;
        if (np == 4 && (centre >= 0) != (log(c[0]) - L >= 0))
          pairs[0][1] = 3, pairs[1][0] = 1, pairs[1][1] = 2;
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

/* Where a line's label goes: the middle of the segment at the median x. */
static void label_pos(const segs *C, double *x, double *y) {
  *x = *y = NAN;
  const int n = C->n;
  double *mx = n > 0 ? malloc(sizeof(double) * n) : NULL;
  if (!mx) return;
  for (int k = 0; k < n; k++) mx[k] = 0.5 * (C->seg[k][0] + C->seg[k][2]);
  qsort(mx, n, sizeof *mx, cgm_cmp_double);
  double med = mx[n / 2], best = INFINITY;
  free(mx);
  for (int k = 0; k < n; k++) {
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
      label_pos(&C, &x, &y);
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

/* The predicted time of the map's matrix (cgm_plan_uniform) on `gpus` GPUs; NaN where the model has
 * no curve for it, and where the configuration does not fit in a GPU's memory (*fits false: the
 * plan's footprint, as predict counts it, over the calibrated device's memory). */
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

/* The grid: S and GFLOPS on one device and on G, their ranges in the region. */
typedef struct {
  const cgm_tuner_device *dev;
  const cgm_map_opts *mo;
  const char *fits;
  bool multi;
  int nx, ne;
  double *lx, *le, *S, *G1, *GG;
  double gmin, gmax, smin, smax;
  int nofit_in;
  segs C; /* S = 1 */
} map_data;

/* The panels to draw (multi: the G-GPU panel and the speed-up), after the
 * options are checked; a note says why a panel is left out. */
static cgm_status map_panels(map_data *D, cgm_plot_files *files, cgm_error *err) {
  const cgm_tuner_device *dev = D->dev;
  const cgm_map_opts *mo = D->mo;
  const int bi = cgm_block_index(mo->block), pr = mo->precision, G = mo->gpus;
  if (bi < 0) return cgm_fail(err, CGM_EINPUT, "block size %d is not 1, 2, 4 or 8", mo->block);
  if (pr < 0 || pr > 1) return cgm_fail(err, CGM_EINPUT, "unknown precision %d", pr);
  if (G < 1 || G > 8) return cgm_fail(err, CGM_EINPUT, "gpus %d: not in 1..8", G);
  if (mo->exchange < 0 || mo->exchange >= CGM_NEXCHANGES)
    return cgm_fail(err, CGM_EINPUT, "unknown exchange %d", mo->exchange);
  const cgm_device_model *m = &dev->model[pr];
  if (!dev->have[pr] || !m->have_spmv[bi] || !m->have_vec)
    return cgm_fail(err, CGM_EINPUT,
                    "calibration %lld (%s) has no converged %s fits of %s%s%s in %s precision: "
                    "nothing to map (see 'cgmodel db show %lld')",
                    (long long)dev->calibration_id, dev->name, D->fits,
                    m->have_spmv[bi] ? "" : "the SpMV with this block size",
                    !m->have_spmv[bi] && !m->have_vec ? " and " : "",
                    m->have_vec ? "" : "CG4 and CG5", cgm_precision_name((cgm_precision)pr),
                    (long long)dev->calibration_id);
  D->multi = false;
  if (dev->is_cpu)
    plot_note(files,
              "%s is a CPU calibration (one device, no GPUs): the speed-up panel is not "
              "meaningful, only the one-device panel is drawn",
              dev->name);
  else if (G > 1 && !m->have_xfer[mo->exchange][G])
    plot_note(files,
              "calibration %lld has no %s fit of the %s exchange on %d GPUs: only the "
              "one-device panel is drawn, no speed-up",
              (long long)dev->calibration_id, D->fits,
              cgm_exchange_name((cgm_exchange)mo->exchange), G);
  else if (G == 1)
    plot_note(files, "1 GPU: only the one-device panel is drawn, no speed-up (gpus=G for G > 1)");
  else
    D->multi = true;
  return CGM_OK;
}

/* The header of FILE-grid.dat: what the columns are. */
static void grid_header(FILE *fg, const map_data *D) {
  const cgm_tuner_device *dev = D->dev;
  const cgm_map_opts *mo = D->mo;
  const char *prec = cgm_precision_name((cgm_precision)mo->precision);
  fprintf(fg, "# cgmodel map: %s (calibration %lld), %s precision, %dx%d blocks, %s fits, ",
          dev->name, (long long)dev->calibration_id, prec, mo->block, mo->block, D->fits);
  if (D->multi)
    fprintf(fg, "1 and %d GPUs, %s exchange\n", mo->gpus,
            cgm_exchange_name((cgm_exchange)mo->exchange));
  else
    fprintf(fg, "one device\n");
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
}

static void widen(double v, double *lo, double *hi) {
  if (!(isfinite(v) && v > 0)) return;
  if (v < *lo) *lo = v;
  if (v > *hi) *hi = v;
}

/* Every grid point's prediction, written to FILE-grid.dat as it is made. */
static cgm_status map_grid(plot_job *J, map_data *D, cgm_error *err) {
  FILE *fg;
  cgm_status st = plot_data_open(J, "grid", &fg, err);
  if (st) return st;
  grid_header(fg, D);
  const int ne = D->ne, pr = D->mo->precision;
  int finite_in = 0;
  D->gmin = D->smin = INFINITY;
  D->gmax = D->smax = 0;
  for (int i = 0; i < D->nx; i++) {
    for (int j = 0; j < ne; j++) {
      const double lx = D->lx[i], le = D->le[j], x = pow(10, lx), e = pow(10, le);
      const bool in = inside(lx, le);
      bool fit1 = true, fitg = true;
      const double t1 = map_time(D->dev, pr, D->mo, 1, x, e, &fit1);
      const double tg = D->multi ? map_time(D->dev, pr, D->mo, D->mo->gpus, x, e, &fitg) : NAN;
      const double F = cgm_paper_flops(x, e);
      const double g1 = t1 > 0 ? F / t1 * 1e-9 : NAN, gg = tg > 0 ? F / tg * 1e-9 : NAN;
      const double s = t1 > 0 && tg > 0 ? t1 / tg : NAN;
      D->S[i * ne + j] = s;
      D->G1[i * ne + j] = g1;
      D->GG[i * ne + j] = gg;
      if (in) {
        D->nofit_in += !fit1 || !fitg;
        finite_in += isfinite(g1);
        widen(g1, &D->gmin, &D->gmax);
        widen(gg, &D->gmin, &D->gmax);
        widen(s, &D->smin, &D->smax);
      }
      fprintf(fg, "%.4f %.4f %.6g %.6g %d ", lx, le, x, e, in ? 1 : 0);
      const double col[5] = {t1, tg, in ? g1 : NAN, in ? gg : NAN, in ? s : NAN};
      for (int k = 0; k < 5; k++) {
        gp_num(fg, col[k]);
        fputc(' ', fg);
      }
      fprintf(fg, "%d %d\n", fit1 ? 1 : 0, fitg ? 1 : 0);
    }
    fputc('\n', fg); /* gnuplot's grid: a blank line after every x */
  }
  if ((st = plot_file_close(J, fg, err))) return st;
  if (finite_in == 0)
    return cgm_fail(err, CGM_EINPUT,
                    "the model predicts no time anywhere on the map for calibration %lld",
                    (long long)D->dev->calibration_id);
  return CGM_OK;
}

/* FILE-contour.dat (S = 1), FILE-isolines.dat and FILE-isolabels.dat (the
 * iso-GFLOPS lines of both panels on the shared colour scale's levels). */
static cgm_status map_lines(plot_job *J, map_data *D, cgm_error *err) {
  const int G = D->mo->gpus;
  if (D->multi && contour(D->S, D->lx, D->le, D->nx, D->ne, 1.0, &D->C))
    return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  FILE *fc, *fi, *fl;
  cgm_status st = plot_data_open(J, "contour", &fc, err);
  if (st) return st;
  if (D->multi)
    fprintf(fc, "# cgmodel map: the contour S = T_1 / T_%d = 1 inside the region, as segments\n",
            G);
  else
    fprintf(fc, "# cgmodel map: one device, no speed-up: no S = 1 contour\n");
  fprintf(fc, "# log10x log10e (a NaN line after every segment)\n");
  for (int k = 0; k < D->C.n; k++)
    fprintf(fc, "%.5f %.5f\n%.5f %.5f\nNaN NaN\n", D->C.seg[k][0], D->C.seg[k][1], D->C.seg[k][2],
            D->C.seg[k][3]);
  if ((st = plot_file_close(J, fc, err)) || (st = plot_data_open(J, "isolines", &fi, err)) ||
      (st = plot_data_open(J, "isolabels", &fl, err)))
    return st;
  if (isolines(fi, fl, 0, D->G1, D->lx, D->le, D->nx, D->ne, D->gmin, D->gmax) ||
      isolines(fi, fl, 1, D->multi ? D->GG : NULL, D->lx, D->le, D->multi ? D->nx : 0, D->ne,
               D->gmin, D->gmax))
    return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if ((st = plot_file_close(J, fi, err))) return st;
  return plot_file_close(J, fl, err);
}

/* FILE-marks.dat: the --mark matrices. */
static cgm_status map_marks(plot_job *J, const cgm_map_opts *mo, cgm_plot_files *files,
                            cgm_error *err) {
  FILE *fm;
  cgm_status st = plot_data_open(J, "marks", &fm, err);
  if (st) return st;
  fprintf(fm, "# cgmodel map: matrices (--mark)\n# log10x log10e x e_N name\n");
  int outside = 0;
  for (int k = 0; k < mo->nmarks; k++) {
    const cgm_map_mark *mk = &mo->marks[k];
    fprintf(fm, "%.5f %.5f %.9g %.9g ", log10(mk->x), log10(mk->e), mk->x, mk->e);
    gp_string(fm, mk->name);
    fputc('\n', fm);
    outside += mk->x < CGM_MAP_X_LO || mk->x > CGM_MAP_X_HI || mk->e < CGM_MAP_E_LO ||
               mk->e > CGM_MAP_E_HI;
  }
  if (outside)
    plot_note(files, "%d marked matri%s outside the map (x 1e2..1e8, e 1e3..1e10)", outside,
              outside > 1 ? "ces lie" : "x lies");
  return plot_file_close(J, fm, err);
}

/* FILE.gp: the data files, the titles and the colour scales. */
static cgm_status map_script(plot_job *J, map_data *D, cgm_plot_files *files, cgm_error *err) {
  const cgm_tuner_device *dev = D->dev;
  const cgm_map_opts *mo = D->mo;
  FILE *gp;
  cgm_status st = plot_script_open(J, "cgmodel map", &gp, err);
  if (st) return st;
  static const char *const data[] = {"grid", "contour", "isolines", "isolabels", "marks"};
  for (int k = 0; k < 5; k++) plot_data_var(gp, J, data[k], k < 4 || mo->nmarks > 0);
  fprintf(gp, "nmarks = %d\n", mo->nmarks);
  char t[900], w[300] = ""; /* a what-if: more GPUs than here or than calibrated */
  if (dev->what_if_from > 0 && mo->gpus >= dev->what_if_from)
    snprintf(w, sizeof w, " (what-if%s%.280s)", D->multi ? ": " : "",
             D->multi ? dev->interconnect : "");
  snprintf(t, sizeof t, "%s%s, %s precision, %d×%d blocks, %s fits", dev->name, w,
           cgm_precision_name((cgm_precision)mo->precision), mo->block, mo->block, D->fits);
  gp_var(gp, "plot_title", t);
  gp_var(gp, "device", dev->is_cpu ? "CPU" : "GPU");
  fprintf(gp, "gpus = %d\nmulti = %d\n", mo->gpus, D->multi ? 1 : 0);
  fprintf(gp, "exchange = '%s'\n", cgm_exchange_name((cgm_exchange)mo->exchange));
  fprintf(gp, "lxlo = %g; lxhi = %g; lelo = %g; lehi = %g\n", log10(CGM_MAP_X_LO),
          log10(CGM_MAP_X_HI), log10(CGM_MAP_E_LO), log10(CGM_MAP_E_HI));
  /* Colour ranges: GFLOPS shared by both panels, S symmetric around 1 in log. */
  double gmin = D->gmin, gmax = D->gmax, r = 1.25;
  if (!(gmax > 0)) gmin = 0.1, gmax = 1;
  if (gmax < gmin * 1.01) gmax = gmin * 1.01;
  if (isfinite(D->smin) && D->smax > 0) r = fmax(r, fmax(D->smax, 1 / D->smin));
  r = fmin(r, 100);
  fprintf(gp, "gmin = %.6g; gmax = %.6g; smin = %.6g; smax = %.6g\n", gmin, gmax, 1 / r, r);
  cb_tics(gp, "gflops_tics", gmin, gmax, false);
  cb_tics(gp, "speedup_tics", 1 / r, r, true);
  const double gib = dev->mem_bytes / 1073741824.0;
  fprintf(gp, "nofit = %d; mem_gib = %.1f\n", D->nofit_in > 0 ? 1 : 0, gib);
  if (D->nofit_in)
    plot_note(files, "grey: matrices whose configuration does not fit in the %.1f GiB of a GPU",
              gib);
  double labx, laby;
  label_pos(&D->C, &labx, &laby);
  fprintf(gp, "have_s1 = %d; s1x = ", D->C.n > 0 ? 1 : 0);
  gp_num(gp, labx);
  fprintf(gp, "; s1y = ");
  gp_num(gp, laby);
  fprintf(gp, "\n");
  return plot_script_finish(J, gp, err);
}

cgm_status cgm_plot_map(const cgm_tuner_device *dev, const cgm_map_opts *mo, const cgm_plot_opts *o,
                        cgm_plot_files *files, cgm_error *err) {
  plot_job J;
  cgm_status st = plot_begin(&J, o, "map.gp", files, err);
  map_data D = {.dev = dev, .mo = mo, .fits = mo->fits ? mo->fits : "avg"};
  if (st || (st = map_panels(&D, files, err))) return st;
  D.nx = (int)lround(log10(CGM_MAP_X_HI / CGM_MAP_X_LO)) * CGM_MAP_PER_DECADE + 1;
  D.ne = (int)lround(log10(CGM_MAP_E_HI / CGM_MAP_E_LO)) * CGM_MAP_PER_DECADE + 1;
  const size_t n = (size_t)D.nx * D.ne;
  double *mem = malloc(sizeof(double) * (D.nx + D.ne + 3 * n)); /* lx, le, S, G1, GG */
  if (!mem)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  else
    D.lx = mem, D.le = D.lx + D.nx, D.S = D.le + D.ne, D.G1 = D.S + n, D.GG = D.G1 + n;
  for (int i = 0; !st && i < D.nx; i++)
    D.lx[i] = log10(CGM_MAP_X_LO) + (double)i / CGM_MAP_PER_DECADE;
  for (int j = 0; !st && j < D.ne; j++)
    D.le[j] = log10(CGM_MAP_E_LO) + (double)j / CGM_MAP_PER_DECADE;
  if (!st) st = map_grid(&J, &D, err);
  if (!st) st = map_lines(&J, &D, err);
  if (!st && mo->nmarks > 0) st = map_marks(&J, mo, files, err);
  files->panels = D.multi ? 3 : 1;
  if (!st) st = map_script(&J, &D, files, err);
  if (!st) st = plot_run(&J, err);
  plot_end(&J);
  CGM_FREE(D.C.seg, mem);
  return st;
}
