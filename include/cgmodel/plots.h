/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The pictures (docs/architecture.md: plots/): the paper's Figs. 5-7 (calibration
 * samples and their Eq. 3 fits), Fig. 8 (raw performance and speed-up maps)
 * and Fig. 10 / Table 6 (predicted against measured time per iteration),
 * drawn by gnuplot.
 *
 * Every picture FILE.png (or FILE.svg) comes with the data it was drawn
 * from next to it, FILE-<what>.dat, and the gnuplot script that drew it,
 * FILE.gp: its first lines name the data files and the terminal, the rest is
 * the template plots/<picture>.gp. Everything is written relative to the
 * picture's directory, so `cd DIR && gnuplot FILE.gp` draws it again.
 *
 * Library code: returns a status and an error message, prints nothing. */
#ifndef CGMODEL_PLOTS_H
#define CGMODEL_PLOTS_H

#include "cgmodel/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "cgmodel/db.h"
#include "cgmodel/model.h"
#include "cgmodel/status.h"
#include "cgmodel/tuner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default picture size in pixels (a calibration of more than six panels:
 * 1500 x 1200). */
#define CGM_PLOT_WIDTH 1200
#define CGM_PLOT_HEIGHT 800

typedef enum { CGM_PLOT_PNG = 0, CGM_PLOT_SVG = 1 } cgm_plot_format;

typedef struct cgm_plot_opts {
  const char *out;         /* FILE.png (pngcairo) or FILE.svg (svg) */
  int width, height;       /* pixels; <= 0: CGM_PLOT_WIDTH x CGM_PLOT_HEIGHT */
  const char *scripts_dir; /* where the templates are: one directory or a
                              ':'-separated list searched in order */
  const char *search_path; /* where gnuplot is looked for, as $PATH (the
                              caller passes its PATH); NULL: /usr/bin:/bin */
} cgm_plot_opts;

/* What a plot wrote, and what the caller may want to tell the user. */
typedef struct cgm_plot_files {
  char picture[1024];
  char script[1024];
  char data[6][1024];
  int ndata;
  int panels;      /* panels drawn */
  char note[1024]; /* one line for the user ("" if none): fits not drawn, panels skipped */
} cgm_plot_files;

/* The format of an output name by its extension (.png, .svg, any case);
 * CGM_EINPUT naming the file otherwise. */
CGM_API cgm_status cgm_plot_format_of(const char *path, cgm_plot_format *fmt, cgm_error *err);

/* True when drawing the picture `out` would write the file `path`: the
 * picture itself, its script FILE.gp or one of the data files a picture
 * may have, FILE-<grid, contour, isolines, isolabels, marks, samples,
 * curves, fits, solves, worst>.dat, is the same file by device and inode
 * (through a symbolic or a hard link too), or for files not there yet by
 * resolved directory and name. The temporary files the picture and these
 * are written to first are new files (mkstemp) and alias nothing. */
CGM_API bool cgm_plot_writes(const char *out, const char *path);

/* The full path of gnuplot found in search_path (':'-separated directories,
 * as $PATH; NULL or empty: /usr/bin:/bin); CGM_ERUNTIME naming gnuplot and
 * its Debian package when there is none. */
CGM_API cgm_status cgm_plot_find_gnuplot(const char *search_path, char *path, size_t size,
                                         cgm_error *err);

/* ------------------------------------------------------- calibration --- */

typedef struct cgm_calplot_opts {
  int precision; /* cgm_precision; -1: double when calibrated, else single */
  unsigned fits; /* bit (1 << cgm_fit_kind) of the fits to draw; 0: avg and max */
  int gpus;      /* the GPU count of the transfers panel; 0: the largest measured */
} cgm_calplot_opts;

/* The samples of calibration `cal_id` (throughput bytes / seconds in GB/s
 * over m) and their converged Eq. 3 fits, one panel per kernel family: plain
 * loads (fixed grid, variable grid), the CG vector kernels (cg4, cg5, red,
 * the cuSPARSE iteration), the SpMV per block size (samples of the dense and
 * real variants, the "all" fits), the transfers (whole multi-GPU iterations
 * and the fitted exchange cost). Panels without data are left out.
 * Data: FILE-samples.dat (one index block per series), FILE-curves.dat (the
 * fitted curves, one index block each), FILE-fits.dat (every fit of the
 * calibration, converged or not). CGM_EINPUT when the calibration has no
 * samples of the precision. */
CGM_API cgm_status cgm_plot_calibration(cgm_db *db, int64_t cal_id, const cgm_calplot_opts *co,
                                        const cgm_plot_opts *o, cgm_plot_files *files,
                                        cgm_error *err);

/* -------------------------------------------------------------- map --- */

/* The grid of the maps: log-spaced, `per_decade` points a decade. */
#define CGM_MAP_X_LO 1e2
#define CGM_MAP_X_HI 1e8
#define CGM_MAP_E_LO 1e3
#define CGM_MAP_E_HI 1e10
#define CGM_MAP_PER_DECADE 10

typedef struct cgm_map_mark {
  char name[128];
  double x, e; /* dimension and stored elements e_N */
} cgm_map_mark;

typedef struct cgm_map_opts {
  int block;        /* N = 1, 2, 4, 8 */
  int gpus;         /* G >= 1 (1: the one-device panel only) */
  int precision;    /* cgm_precision */
  int exchange;     /* cgm_exchange (halo: of a band matrix, cgm_plan_uniform) */
  const char *fits; /* the fits' name for the title ("max", "avg (relative)") */
  const cgm_map_mark *marks;
  int nmarks;
} cgm_map_opts;

/* Fig. 8 for one calibrated device: predicted raw performance (Eqs. 6-7,
 * (2e + 15x) / T, T the refined model's on cgm_plan_uniform) on one device
 * and on G, and the
 * speed-up T_1 / T_G, over the dimension x (10^2..10^8) and the stored
 * elements e (10^3..10^10), only between the diagonal (e = x) and dense
 * (e = x^2) matrices; the contour S = 1 drawn thick. Grid points where a
 * curve is missing are left empty. With G = 1, or without the curves for G,
 * only the one-device panel (files->note says why).
 * Data: FILE-grid.dat (every grid point: log10 x, log10 e, x, e, inside,
 * T_1, T_G, GFLOPS_1, GFLOPS_G, S; NaN where masked or missing; a blank line
 * after every x), FILE-contour.dat (the segments of S = 1), FILE-isolines.dat
 * and FILE-isolabels.dat (iso-GFLOPS lines and their labels), FILE-marks.dat.
 * CGM_EINPUT when the device has no curves for the block size and precision. */
CGM_API cgm_status cgm_plot_map(const cgm_tuner_device *dev, const cgm_map_opts *mo,
                                const cgm_plot_opts *o, cgm_plot_files *files, cgm_error *err);

/* --------------------------------------------------------- accuracy --- */

typedef struct cgm_accplot_opts {
  int64_t calibration_id; /* > 0: only the solves predicted from this calibration */
  int label_worst;        /* label the K points of largest relative error with their matrix */
} cgm_accplot_opts;

/* Predicted against measured time per iteration of every solve stored in
 * the database that has a finite prediction (and a measurement), log-log,
 * with y = x: one colour per block size, one marker per backend and
 * precision (and GPU count); the key says which, with the count and average
 * relative error |pred - meas| / meas of each, the title that of all.
 * Data: FILE-solves.dat (one index block per group of backend, precision,
 * GPU count and block size), FILE-worst.dat (the labelled points).
 * CGM_EINPUT when no solve has a prediction (of that calibration). ao may
 * be NULL (every solve, no labels). */
CGM_API cgm_status cgm_plot_accuracy(cgm_db *db, const cgm_accplot_opts *ao, const cgm_plot_opts *o,
                                     cgm_plot_files *files, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
