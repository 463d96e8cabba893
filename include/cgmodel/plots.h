/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The pictures, drawn by gnuplot: the paper's Figs. 5-7 (calibration samples and fits), Fig. 8
 * (performance and speed-up maps) and Fig. 10 / Table 6 (predicted against measured time per
 * iteration). Every picture FILE.png (or .svg) comes with its data, FILE-<what>.dat, and the script
 * that drew it, FILE.gp (variables, then the template plots/<picture>.gp): `cd DIR && gnuplot
 * FILE.gp` draws it again. */
#pragma once

#include "cgmodel/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "cgmodel/db.h"
#include "cgmodel/model.h"
#include "cgmodel/status.h"
#include "cgmodel/tuner.h"

CGM_BEGIN_DECLS

/* Default picture size in pixels (larger for many calibration panels). */
#define CGM_PLOT_WIDTH 1200
#define CGM_PLOT_HEIGHT 800

typedef enum { CGM_PLOT_PNG = 0, CGM_PLOT_SVG = 1 } cgm_plot_format;

typedef struct cgm_plot_opts {
  const char *out;         /* FILE.png (pngcairo) or FILE.svg (svg) */
  int width, height;       /* pixels; <= 0: CGM_PLOT_WIDTH x CGM_PLOT_HEIGHT */
  const char *scripts_dir; /* where the templates are (':'-separated, searched in order) */
  const char *search_path; /* where gnuplot is looked for, as $PATH; NULL: /usr/bin:/bin */
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

/* The format of an output name by its extension (.png, .svg, any case). */
CGM_API cgm_status cgm_plot_format_of(const char *path, cgm_plot_format *fmt, cgm_error *err);

/* True when drawing the picture `out` would write the file `path`: the picture, its script or one
 * of the data files a picture may have is the same file (cgm_path_aliases). */
CGM_API bool cgm_plot_writes(const char *out, const char *path);

/* The full path of gnuplot found in search_path (as $PATH; NULL or empty:
 * /usr/bin:/bin); CGM_ERUNTIME naming its Debian package when there is none. */
CGM_API cgm_status cgm_plot_find_gnuplot(const char *search_path, char *path, size_t size,
                                         cgm_error *err);

/* ------------------------------------------------------- calibration --- */

typedef struct cgm_calplot_opts {
  int precision; /* cgm_precision; -1: double when calibrated, else single */
  unsigned fits; /* bit (1 << cgm_fit_kind) of the fits to draw; 0: avg and max */
  int gpus;      /* the GPU count of the transfers panel; 0: the largest measured */
} cgm_calplot_opts;

/* The samples of calibration `cal_id` (GB/s over m) and their converged Eq. 3 fits, a panel per
 * kernel family with data (loads, CG vector kernels, SpMV per block size, transfers). Data:
 * FILE-samples.dat, FILE-curves.dat, FILE-fits.dat. CGM_EINPUT when the calibration has no samples
 * of the precision. */
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

/* Fig. 8 for one calibrated device: predicted raw performance (Eqs. 6-7, T the refined model's on
 * cgm_plan_uniform) on one device and on G, and the speed-up T_1 / T_G, over x and e between the
 * diagonal and dense matrices; with G = 1 or without G's curves the one-device panel alone
 * (files->note says why). Data: FILE-grid.dat, FILE-contour.dat (S = 1), FILE-isolines.dat,
 * FILE-isolabels.dat, FILE-marks.dat. CGM_EINPUT when the device has no curves for the block size
 * and precision. */
CGM_API cgm_status cgm_plot_map(const cgm_tuner_device *dev, const cgm_map_opts *mo,
                                const cgm_plot_opts *o, cgm_plot_files *files, cgm_error *err);

/* --------------------------------------------------------- accuracy --- */

typedef struct cgm_accplot_opts {
  int64_t calibration_id; /* > 0: only the solves predicted from this calibration */
  int label_worst;        /* label the K points of largest relative error with their matrix */
} cgm_accplot_opts;

/* Predicted against measured time per iteration of every solve in the database with a prediction,
 * log-log with y = x: a colour per block size, a marker per backend, precision and GPU count, each
 * keyed with its count and average relative error. Data: FILE-solves.dat, FILE-worst.dat.
 * CGM_EINPUT when no solve has a prediction. ao may be NULL. */
CGM_API cgm_status cgm_plot_accuracy(cgm_db *db, const cgm_accplot_opts *ao, const cgm_plot_opts *o,
                                     cgm_plot_files *files, cgm_error *err);

CGM_END_DECLS
