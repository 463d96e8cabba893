/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cgmodel database: one embedded SQLite file holding devices, calibrations with their samples
 * and fits, matrices (features) and solves. Writes happen in transactions (WAL journal), so an
 * interrupted calibration never damages earlier ones. Holds no model logic. */
#pragma once

#include "cgmodel/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/sample.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

typedef struct cgm_db cgm_db;

/* The schema version this build writes and reads. */
#define CGM_DB_SCHEMA_VERSION 11

/* How cgm_db_open opens the file (flags, or'ed; 0: read and write an existing file). */
enum {
  CGM_DB_CREATE = 1u,   /* create the file and its directory when absent, as calibrate does */
  CGM_DB_READONLY = 2u, /* read-only whatever the file's permissions (root ignores them): the
                           CLI's $CGMODEL_DB_READONLY; writes are refused naming the file */
  CGM_DB_UNCHECKED = 4u /* no page-by-page check on open (SQLite's quick_check, 1-2 ms a MB: a
                           recorded solve's database grows by every solve): a solve or prediction
                           reads a few pages and SQLite reports damage on those it touches */
};

/* Opens and migrates an older schema; flags are CGM_DB_* (true and false still mean create or not).
 * Errors: not a database / corrupt file, a schema newer than this build, read-only file when
 * writing is needed. path NULL means the default path. */
CGM_API cgm_status cgm_db_open(const char *path, unsigned flags, cgm_db **db, cgm_error *err);
CGM_API void cgm_db_close(cgm_db *db);
CGM_API const char *cgm_db_path(const cgm_db *db);
/* SQLite's data version: it changes when another connection commits (not this one); -1: error. */
CGM_API int64_t cgm_db_data_version(cgm_db *db);

/* Explicit transactions; a calibration is one transaction. */
CGM_API cgm_status cgm_db_begin(cgm_db *db, cgm_error *err);
CGM_API cgm_status cgm_db_commit(cgm_db *db, cgm_error *err);
CGM_API void cgm_db_rollback(cgm_db *db);
/* The transaction ended as st says: committed where it is CGM_OK (the commit's status), else rolled
 * back (st). */
CGM_API cgm_status cgm_db_end(cgm_db *db, cgm_status st, cgm_error *err);

/* ------------------------------------------------------------- devices --- */

typedef struct cgm_db_device {
  int64_t id;
  char name[256];  /* "cpu", "cuda:0", ... at calibration time */
  char model[256]; /* "NVIDIA H200", "AMD EPYC 7B13 (2 threads)" */
  char kind[16];   /* "cpu" or "cuda" */
  int cc_major, cc_minor, sms, threads;
  int64_t mem_total;
  int clock_khz, mem_clock_khz, bus_width_bits;
  int driver_version, runtime_version;
  char host[128];
} cgm_db_device;

/* Finds a device with the same kind, model and host, else inserts it. */
CGM_API cgm_status cgm_db_device_get_or_add(cgm_db *db, cgm_db_device *dev, cgm_error *err);

/* -------------------------------------------------------- calibrations --- */

typedef struct cgm_db_calibration {
  int64_t id;
  int64_t device_id;
  char created[32]; /* UTC, ISO 8601 */
  char tool_version[32];
  char options[512]; /* JSON of the options used */
  double seconds;    /* wall time of the calibration */
  int complete;      /* 1 once all its fits were stored */
  /* The interconnect profile its exchange fits make, named after what measured it ("peer:NVIDIA
   * H200": GPUs of one node with peer access); "" for a calibration of one device (schema 10). */
  char interconnect[272];
} cgm_db_calibration;

CGM_API cgm_status cgm_db_calibration_add(cgm_db *db, cgm_db_calibration *cal, cgm_error *err);
CGM_API cgm_status cgm_db_calibration_finish(cgm_db *db, int64_t cal_id, double seconds,
                                             cgm_error *err);

/* One measured throughput point (cgmodel/sample.h). */
typedef cgm_sample cgm_db_sample;

CGM_API cgm_status cgm_db_sample_add(cgm_db *db, int64_t cal_id, const cgm_db_sample *s,
                                     cgm_error *err);
/* Calls fn for every sample of a calibration (stops early when fn returns non-zero). */
CGM_API cgm_status cgm_db_samples(cgm_db *db, int64_t cal_id,
                                  int (*fn)(const cgm_db_sample *s, void *ctx), void *ctx,
                                  cgm_error *err);

/* A fitted curve. */
typedef struct cgm_db_fit {
  char kernel[32];
  char variant[32];
  int precision;
  int block;
  int kind; /* cgm_fit_kind */
  double mu, sigma, nu;
  double se_mu, se_sigma, se_nu;
  double r2, rms;
  int n;
  int converged;
  char message[160];
  double m_lo, m_hi; /* transactions the fit covers (NaN: unbounded) */
} cgm_db_fit;

CGM_API cgm_status cgm_db_fit_add(cgm_db *db, int64_t cal_id, const cgm_db_fit *f, cgm_error *err);
/* A scalar coefficient of a calibration's model (schema version 5): the
 * locality term's CGM_DB_COEF_X_SECTOR per precision, and the row-scatter
 * terms' per block size and precision (CGM_DB_COEF_ROW_SCATTER and
 * CGM_DB_COEF_BAND_SCATTER "1", "2", "4", "8": "row_scatter_1" ...). */
#define CGM_DB_COEF_X_SECTOR "x_sector"
/* the gather rate of x's sectors (bytes/s, cgm_device_model.gather_bw) */
#define CGM_DB_COEF_GATHER "gather_bw"
/* the same of the gather sweep's smaller matrix (cgm_device_model.gather_bw_small) */
#define CGM_DB_COEF_GATHER_SMALL "gather_bw_small"
/* the band-load fraction per block size ("band_load_1" ...) */
#define CGM_DB_COEF_BAND_LOAD "band_load_"
#define CGM_DB_COEF_ROW_SCATTER "row_scatter_"
#define CGM_DB_COEF_BAND_SCATTER "band_scatter_"
typedef struct cgm_db_coef {
  char name[32];
  int precision;
  double value;
  double rms; /* relative rms error of the fit (NaN: unknown) */
  int n;      /* samples fitted */
} cgm_db_coef;
/* Stores (or replaces) one coefficient of a calibration. */
CGM_API cgm_status cgm_db_coef_add(cgm_db *db, int64_t cal_id, const cgm_db_coef *c,
                                   cgm_error *err);
/* Calls fn for every coefficient of a calibration, by precision and name
 * (stops early when fn returns non-zero). */
CGM_API cgm_status cgm_db_coefs(cgm_db *db, int64_t cal_id,
                                int (*fn)(const cgm_db_coef *c, void *ctx), void *ctx,
                                cgm_error *err);
/* Removes every fit of a calibration (cgm_refit stores new ones). */
CGM_API cgm_status cgm_db_fits_delete(cgm_db *db, int64_t cal_id, cgm_error *err);
CGM_API cgm_status cgm_db_fits(cgm_db *db, int64_t cal_id,
                               int (*fn)(const cgm_db_fit *f, void *ctx), void *ctx,
                               cgm_error *err);

/* ------------------------------------------------------ matrices, solves --- */

typedef struct cgm_db_matrix {
  int64_t id;
  char name[128]; /* file name without directory, or generator spec */
  char path[512];
  int64_t file_bytes; /* with name: identifies the matrix */
  int32_t x;
  int64_t nnz;
  char features[4096]; /* JSON of cgm_features */
  int64_t content_id;  /* the matrix by content (cgm_cache_report.content_id as bits); 0: unknown */
} cgm_db_matrix;

/* Finds by (name, file_bytes, x, nnz): m->id, 0 when absent (nothing added). */
CGM_API cgm_status cgm_db_matrix_find(cgm_db *db, cgm_db_matrix *m, cgm_error *err);
/* Finds by (name, file_bytes, x, nnz), else inserts; a content_id given
 * is recorded where the matrix had none. */
CGM_API cgm_status cgm_db_matrix_get_or_add(cgm_db *db, cgm_db_matrix *m, cgm_error *err);

typedef struct cgm_db_solve {
  int64_t id;
  int64_t matrix_id;
  int64_t calibration_id; /* the calibration the prediction used, 0 if none */
  char created[32];
  char backend[16];
  char precision[8];
  char exchange[8];
  char devices[64]; /* "cpu", "cuda:0", "cuda:0,1,2,3" */
  int block, bx, gpus;
  int iterations, converged;
  double relative_residual;
  double time_per_iter_s;           /* measured */
  double predicted_time_per_iter_s; /* NaN when no calibration existed */
  char model[16];                   /* "refined" or "paper" */
  char options[1024];     /* JSON: tolerance, iteration cap, GPU options (cgm_solve_opts_json) */
  double time_setup_s;    /* measured layout build + upload (NaN: not known) */
  int64_t layout_bytes;   /* the layout's bytes (cgm_solve_result.device_bytes; 0: not known) */
  char matrix[128];       /* read by cgm_db_solves: the matrix's name (cgm_db_matrix.name) */
  char precond[8];        /* "jacobi" (empty: jacobi) or "block" (cgm_precond_name) */
  int64_t matrix_content; /* read by cgm_db_solves: the matrix's content_id (0: unknown) */
  bool layout_on_device;  /* the GPU built the layout (cgm_solve_result.layout_on_device) */
  bool disturbed;         /* its time is implausible: other work held it up (schema 9) */
} cgm_db_solve;

CGM_API cgm_status cgm_db_solve_add(cgm_db *db, cgm_db_solve *s, cgm_error *err);
CGM_API cgm_status cgm_db_solves(cgm_db *db, int (*fn)(const cgm_db_solve *s, void *ctx), void *ctx,
                                 cgm_error *err);
/* The newest CGM_DB_SOLVES_OF solves of a matrix (matrix_id, or each matrix of content content_id;
 * 0: not known), newest first for each, or the newest CGM_DB_SOLVES_RECENT of all with both 0:
 * what a solve's analysis reads, bounded however large the database grows (reading every solve
 * took 60-95 ms at 5,000); matrix_id negative: every solve, oldest first. */
#define CGM_DB_SOLVES_RECENT "1024"
#define CGM_DB_SOLVES_OF "64"
CGM_API cgm_status cgm_db_solves_of(cgm_db *db, int64_t matrix_id, int64_t content_id,
                                    int (*fn)(const cgm_db_solve *s, void *ctx), void *ctx,
                                    cgm_error *err);

/* ------------------------------------------------------------ listing --- */

/* Every calibration (newest first) with its device. */
CGM_API cgm_status cgm_db_calibrations(cgm_db *db,
                                       int (*fn)(const cgm_db_calibration *c,
                                                 const cgm_db_device *d, void *ctx),
                                       void *ctx, cgm_error *err);
CGM_API cgm_status cgm_db_device_get(cgm_db *db, int64_t id, cgm_db_device *d, cgm_error *err);
CGM_API cgm_status cgm_db_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c,
                                          cgm_error *err);

CGM_END_DECLS
