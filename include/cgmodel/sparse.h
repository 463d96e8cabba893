/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sparse matrices: Matrix Market I/O, CSR, the BCSR multiple-block-row (MBR) layout of Verschoor &
 * Jalba (2012), Sec. 3.3-3.7, matrix features and synthetic generators. Nothing here knows about
 * GPUs, configurations or the database. */
#pragma once

#include "cgmodel/export.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/options.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* ---------------------------------------------------------------- CSR --- */

/* Compressed sparse row, 0-based, columns sorted and unique within a row. Row and column counts fit
 * in int32 (the GPU kernels index with int32); offsets into the nonzeros are int64. */
typedef struct cgm_csr {
  int32_t nrows, ncols;
  int64_t nnz;
  int64_t *rowptr; /* nrows + 1 */
  int32_t *colidx; /* nnz */
  double *val;     /* nnz */
} cgm_csr;

/* Allocates rowptr (zeroed), colidx and val for the given sizes. */
CGM_API cgm_status cgm_csr_alloc(cgm_csr *A, int32_t nrows, int32_t ncols, int64_t nnz,
                                 cgm_error *err);
CGM_API void cgm_csr_free(cgm_csr *A);
/* y = A x (double, straightforward reference; OpenMP over rows). */
CGM_API void cgm_csr_spmv(const cgm_csr *A, const double *x, double *y);
/* A(i,i): row i's last stored entry in column i, 0 where none. */
static inline double cgm_csr_diagonal_at(const cgm_csr *A, int32_t i) {
  double d = 0.0;
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->colidx[k] == i) d = A->val[k];
  return d;
}
/* d[i] = A(i,i) (cgm_csr_diagonal_at) on every core. */
CGM_API void cgm_csr_diagonal(const cgm_csr *A, double *d);
/* Returns true when A equals its transpose as a matrix: values compared,
 * a missing entry being 0 (an explicit zero needs no mirror). */
CGM_API bool cgm_csr_is_symmetric(const cgm_csr *A);
/* Checks a CSR made elsewhere (a binding's arrays) before anything reads it: sizes >= 0, rowptr
 * starting at 0, non-decreasing and ending at nnz, columns in range and strictly increasing within
 * each row. CGM_EINPUT names the first row at fault; values are the solver's to check. */
CGM_API cgm_status cgm_csr_check(const cgm_csr *A, cgm_error *err);
/* Builds a CSR from coordinate triplets: sorts, sums duplicates (counted in
 * *ndup if non-NULL). Indices must be in range (checked by the caller). */
CGM_API cgm_status cgm_csr_from_coo(int32_t nrows, int32_t ncols, int64_t n, const int32_t *ri,
                                    const int32_t *ci, const double *v, cgm_csr *A, int64_t *ndup,
                                    cgm_error *err);

/* A CSR matrix in the memory of a CUDA device (a CuPy matrix's arrays), read
 * where it is. Columns sorted and unique within each row (checked). */
typedef struct cgm_csr_device {
  int device; /* the CUDA device ordinal that holds the arrays */
  int32_t nrows, ncols;
  int64_t nnz;
  const void *rowptr; /* nrows + 1 offsets: int32 (CuPy's), or int64 when rowptr64 */
  bool rowptr64;
  const int32_t *colidx; /* nnz */
  const double *val;     /* nnz */
} cgm_csr_device;

/* ------------------------------------------------------- Matrix Market --- */

typedef enum { CGM_MM_REAL, CGM_MM_INTEGER, CGM_MM_PATTERN } cgm_mm_field;
typedef enum { CGM_MM_GENERAL, CGM_MM_SYMMETRIC } cgm_mm_symmetry;

/* What the reader saw in the file, for `cgmodel info` and error messages. */
typedef struct cgm_mm_info {
  cgm_mm_field field;
  cgm_mm_symmetry symmetry;
  int64_t entries_in_file;   /* the count on the size line */
  int64_t duplicates_summed; /* coordinate entries that hit an earlier (i,j) */
  int64_t file_bytes;
  bool sorted; /* read by the sorted path (cgm_mm_read_opts.general_only) */
} cgm_mm_info;

/* Reads a coordinate matrix (real | integer | pattern; general | symmetric, the mirrored half
 * expanded) into CSR. Duplicate entries are summed. Errors name the file and the line. info may be
 * NULL. Parallel (OpenMP's default thread count); a gzip file is read directly. */
CGM_API cgm_status cgm_mm_read_csr(const char *path, cgm_csr *A, cgm_mm_info *info, cgm_error *err);

/* Reads a dense vector: `array real|integer general` with one column, or a
 * coordinate n x 1 matrix. *v is malloc'ed. A gzip file is read directly. */
CGM_API cgm_status cgm_mm_read_vector(const char *path, double **v, int32_t *n, cgm_error *err);

/* Reading options (docs/matrix-market.md, "Reading in parallel"): whatever
 * they are, the result is the same CSR bit for bit, or the same error. */
typedef struct cgm_mm_read_opts {
  int threads;          /* threads that parse and assemble; <= 0: OpenMP's default (one for a
                           file under 256 KiB) */
  int64_t chunk_bytes;  /* text one task parses (whole lines, one at least); <= 0: from the
                           size and the threads */
  int64_t stream_bytes; /* text read from a pipe or inflated from gzip at a time; <= 0: 16 MiB */
  bool general_only;    /* never the sorted path (a general file row by row, columns increasing,
                           parsed straight into the CSR): tests compare the two */
  bool square;          /* refuse a matrix that is not square (CG's) at its size line */
} cgm_mm_read_opts;

/* threads 0, chunk_bytes 0, stream_bytes 0, general_only and square false: the defaults. */
CGM_API cgm_mm_read_opts cgm_mm_read_opts_default(void);
/* cgm_mm_read_csr and cgm_mm_read_vector with options (NULL: the defaults). */
CGM_API cgm_status cgm_mm_read_csr_opts(const char *path, const cgm_mm_read_opts *opts, cgm_csr *A,
                                        cgm_mm_info *info, cgm_error *err);
CGM_API cgm_status cgm_mm_read_vector_opts(const char *path, const cgm_mm_read_opts *opts,
                                           double **v, int32_t *n, cgm_error *err);
/* Whether this build reads gzip-compressed files (recognised by their first bytes, whatever their
 * name); without zlib they are refused with a message saying so. */
CGM_API bool cgm_mm_have_gzip(void);

/* Writes A as `coordinate real general` (or symmetric lower half if
 * symmetric is true). Values round-trip exactly. */
CGM_API cgm_status cgm_mm_write_csr(const char *path, const cgm_csr *A, bool symmetric,
                                    cgm_error *err);
/* Writes v as `array real general`, n x 1. Values round-trip exactly. */
CGM_API cgm_status cgm_mm_write_vector(const char *path, const double *v, int32_t n,
                                       cgm_error *err);

/* ------------------------------------------------ BCSR in the MBR layout --- */

/* The layout the SpMV kernels read (docs/bcsr-layout.md). The matrix is cut into N x N blocks.
 * Block rows are sorted by their number of blocks (longest first, stable), then grouped into slices
 * of `by` consecutive sorted block rows (B_y of the paper, Table 1). Inside a slice, step s holds
 * the s-th group of `bx` blocks (B_x, Sec. 3.6) of every block row of the slice, so that all blocks
 * processed in one step are contiguous in memory (block reordering, Sec. 3.4); shorter block rows
 * are padded with empty blocks to the length of the longest one in their slice (Sec. 3.5).
 *
 *   slot q of step s of slice k: block row  j = q / bx  (0 <= j < by)
 *                                  block     t = s * bx + q % bx of that row
 *   block index:  slice_ptr[k] + s * (by * bx) + q
 *   values:       val[block index * N*N + r * N + c]   (row-major in a block)
 *   block column: bcol[block index]    (in block units, times N for x)
 *   result row:   brow[k * by + j] * N + r   (-1: padding row, no result)
 *
 * Rows beyond nrows in the last block row (nrows not a multiple of N) get a 1 on the diagonal so
 * that the padded system stays SPD; their b is 0. */
typedef struct cgm_bcsr_params {
  int n;  /* block dimension N: 1, 2, 4 or 8 */
  int bx; /* B_x >= 1: blocks of one block row processed together per step */
  int by; /* B_y >= 1: block rows per slice */
} cgm_bcsr_params;

/* The parameters the CUDA kernels use by default for block size n: one warp
 * per slice, one thread per (block, row-in-block): by * bx * n = 32. */
CGM_API cgm_bcsr_params cgm_bcsr_default_params(int n);
typedef struct cgm_bcsr {
  cgm_bcsr_params p;
  int32_t nrows;          /* rows of the matrix described (unpadded) */
  int32_t ncols;          /* columns (unpadded) */
  int32_t nbrows;         /* block rows: ceil(nrows / N) */
  int32_t nbcols;         /* block columns: ceil(ncols / N) */
  int32_t nslices;        /* ceil(nbrows / by) */
  int64_t nblocks;        /* nonzero blocks stored (before padding) */
  int64_t nblocks_padded; /* blocks after MBR padding = slice_ptr[nslices] */
  int64_t *slice_ptr;     /* nslices + 1, offsets in blocks */
  int32_t *bcol;          /* nblocks_padded */
  double *val;            /* nblocks_padded * N * N */
  int32_t *brow;          /* nslices * by; -1 for padding slots */
  int32_t brow_span;      /* entries of brow_len (= nbrows unless built from a row list) */
  int32_t *brow_len;      /* brow_span: blocks of each block row, by its brow number */
} cgm_bcsr;

/* A layout's values as stored (docs/perf.md, "Storage formats"): in the arithmetic's type; in
 * float, widened on load; or none, a code in each column index's spare high bits picking one of the
 * matrix's few distinct values (block size 1; the padding's 0 among them). */
typedef enum { CGM_VALUES_FULL = 0, CGM_VALUES_F32 = 1, CGM_VALUES_DICT = 2 } cgm_values;
#define CGM_DICT_MAX 16
typedef struct cgm_value_set {
  cgm_values fmt;
  bool exact; /* the values as stored are A's (DICT always; F32 when every one is a float) */
  int ndict;  /* DICT: the code of a value is its index in dict */
  int shift;  /* DICT: bits of a column; the code sits above them */
  double dict[CGM_DICT_MAX];
} cgm_value_set;
/* The format `storage` gives the values val[0..nnz) of a layout of block size n and nbcols block
 * columns in arithmetic prec: full unless double; compact: DICT where it fits, else F32; auto:
 * compact where exact and the full values and columns pass CGM_COMPACT_MIN_BYTES (below, a cache
 * holds them and DICT's lookup costs more than it saves: docs/perf.md). */
#define CGM_COMPACT_MIN_BYTES (16.0 * 1048576.0)
CGM_API cgm_value_set cgm_values_choose(const double *val, int64_t nnz, int n, int32_t nbcols,
                                        cgm_storage storage, cgm_precision prec);
/* cgm_values_choose's answer with its passes over the values made by pass (a GPU's where it holds
 * them; cgm_values_choose's on every core): pass(ctx, s, outside) reads every value and returns
 * CGM_VALUES_OUTSIDE where one lies outside s's dictionary (s->fmt DICT; one such in *outside) |
 * CGM_VALUES_NOT_F32 where one is not a float, < 0 when it failed (then false, *out full). */
#define CGM_VALUES_OUTSIDE 1
#define CGM_VALUES_NOT_F32 2
/* | CGM_VALUES_FAR where one lies outside float's normal range (CGM_FLOAT_NEAR): a float would make
 * it infinite or keep few of its digits, so compact storage keeps full values there. */
#define CGM_VALUES_FAR 4
#define CGM_FLOAT_NEAR(v) ((v) == 0.0 || (fabs(v) >= FLT_MIN && fabs(v) <= FLT_MAX))
CGM_API bool cgm_values_choose_by(cgm_value_set *out, const double *val, int64_t nnz, int n,
                                  int32_t nbcols, cgm_storage storage, cgm_precision prec,
                                  int (*pass)(void *ctx, const cgm_value_set *s, double *outside),
                                  void *ctx);
/* What A's values allow (one pass over them): bit CGM_CAN_DICT, a
 * dictionary at N = 1; bit CGM_CAN_F32, every value a float; bit
 * CGM_CAN_F32_NEAR, every value within float's normal range (compact's
 * rounded floats). */
#define CGM_CAN_DICT 1u
#define CGM_CAN_F32 2u
#define CGM_CAN_F32_NEAR 4u
CGM_API unsigned cgm_values_class(const double *val, int64_t nnz, int32_t ncols);
/* cgm_values_class of CGM_VALUES_SAMPLE of them, 32 runs evenly spaced (all where fewer): what a
 * whole pass would say of a stencil's or an integer-valued matrix's values, without the pass
 * (--auto by the matrix's size alone); it may allow what one value outside the sample forbids. */
#define CGM_VALUES_SAMPLE 1024
CGM_API unsigned cgm_values_class_sampled(const double *val, int64_t nnz, int32_t ncols);
/* The format `storage` gives values of that class (nnz of them, block size
 * n, arithmetic prec): cgm_values_choose's rule, for the model. */
CGM_API cgm_values cgm_values_pick(unsigned cls, int64_t nnz, int n, cgm_storage storage,
                                   cgm_precision prec);
/* DICT: B's columns with the codes of B's values above them. */
CGM_API void cgm_values_encode(const cgm_bcsr *B, const cgm_value_set *s, int32_t *ccol);
/* Bytes of one block's values as stored (prec's width when full). */
CGM_API int cgm_values_block_bytes(cgm_values fmt, int n, cgm_precision prec);
/* The format's name: full, f32 or dict. */
CGM_API const char *cgm_values_name(cgm_values fmt);

/* Builds the layout of block rows [brow_begin, brow_end) of A (whole matrix:
 * 0, ceil(nrows/N)). Block rows are numbered from brow_begin in `brow`, so a
 * segment's result rows are local to it; columns stay global. */
CGM_API cgm_status cgm_bcsr_build(const cgm_csr *A, int32_t brow_begin, int32_t brow_end,
                                  cgm_bcsr_params p, cgm_bcsr *B, cgm_error *err);
CGM_API void cgm_bcsr_free(cgm_bcsr *B);
/* Counts the blocks of block rows [brow_begin, brow_end) without building the layout: stored
 * blocks, blocks after MBR padding, longest block row. Any output pointer may be NULL. */
CGM_API cgm_status cgm_bcsr_count(const cgm_csr *A, int32_t brow_begin, int32_t brow_end,
                                  cgm_bcsr_params p, int64_t *nblocks, int64_t *nblocks_padded,
                                  int32_t *max_row_blocks, cgm_error *err);
/* Checks n in {1,2,4,8}, bx >= 1, by >= 1 and fills bx/by <= 0 with defaults. */
CGM_API cgm_status cgm_bcsr_params_check(cgm_bcsr_params *p, cgm_error *err);

/* ------------------------------------------------------------ Features --- */

/* The x locality's element widths: [0] 8 bytes (double), [1] 4 (single, mixed). */
#define CGM_NSECTOR_WIDTHS 2

typedef struct cgm_block_features {
  int n;                   /* N */
  int64_t blocks;          /* nonzero N x N blocks */
  int64_t elements;        /* e_N = blocks * N^2 (stored zeros included) */
  double density;          /* d_N = nnz / e_N (Table 4/5 of the paper) */
  int64_t padded_blocks;   /* blocks after MBR sorting + padding, in the layout given */
  int64_t padded_elements; /* padded_blocks * N^2 */
  int32_t max_blocks_per_row;
  int bx, by; /* B_x and B_y of that layout */
  /* The x locality of that layout (docs/model.md): the distinct 32-byte
   * sectors of x each slice (one warp) reads, summed; the minimum, every
   * distinct x entry read once; their ratio (>= 1, 1 = contiguous). */
  int64_t x_sectors[CGM_NSECTOR_WIDTHS];
  int64_t x_sectors_min[CGM_NSECTOR_WIDTHS];
  double x_locality[CGM_NSECTOR_WIDTHS];
} cgm_block_features;

typedef struct cgm_features {
  int32_t x; /* dimension */
  int64_t nnz;
  int32_t row_min, row_max;
  double row_avg, row_cv; /* mean and coefficient of variation of row lengths */
  int32_t empty_rows;
  bool symmetric;
  bool positive_diagonal;     /* every diagonal entry present and > 0 */
  int32_t first_bad_diagonal; /* first row whose diagonal is missing or <= 0, or -1 */
  unsigned value_class;       /* cgm_values_class */
  cgm_block_features block[CGM_NBLOCKSIZES];
} cgm_features;

/* The features of A; each block size's padded counts are those of the layout layouts[i] (block size
 * cgm_block_sizes[i]; NULL: the default parameters, B_x = 1). cgm_plan_features gives the layout
 * the solver builds. */
CGM_API cgm_status cgm_features_compute(const cgm_csr *A, const cgm_bcsr_params *layouts,
                                        cgm_features *f, cgm_error *err);
/* The same for the block sizes of `blocks` alone (bit i: cgm_block_sizes[i]);
 * the others' block features stay zero (their n is 0). */
CGM_API cgm_status cgm_features_compute_blocks(const cgm_csr *A, const cgm_bcsr_params *layouts,
                                               unsigned blocks, cgm_features *f, cgm_error *err);

/* ---------------------------------------------------------- Orderings --- */

/* A permutation is perm[new] = old throughout. */

/* B = P A P^T: row i of B is row perm[i] of A, its columns renumbered and
 * sorted. CGM_EINPUT when A is not square or perm is not a permutation. */
CGM_API cgm_status cgm_csr_permute(const cgm_csr *A, const int32_t *perm, cgm_csr *B,
                                   cgm_error *err);
/* Reverse Cuthill-McKee of A's pattern (taken as symmetric): each connected component from a
 * pseudo-peripheral node (George-Liu), breadth first with neighbours by increasing degree, the
 * whole order reversed. perm has nrows entries. O(nnz) per search, a few searches per component. */
CGM_API cgm_status cgm_rcm(const cgm_csr *A, int32_t *perm, cgm_error *err);
/* The bandwidth max |to[i] - to[j]| and the mean of |to[i] - to[j]| over the stored entries (i, j)
 * (to: new numbers by old; NULL: as numbered); either output may be NULL. */
CGM_API void cgm_csr_spread(const cgm_csr *A, const int32_t *to, int64_t *max, double *mean);
/* A numbering shuffled inside consecutive windows of `window` entries (<= 1: the identity; >= n: a
 * uniformly random permutation), deterministic in seed: the locality sweep's numberings. */
CGM_API void cgm_perm_shuffle(int32_t n, int32_t window, uint64_t seed, int32_t *perm);

/* ---------------------------------------------------------- Generators --- */

typedef enum { CGM_ROWDIST_UNIFORM, CGM_ROWDIST_POWERLAW } cgm_rowdist;

/* 2D Poisson, 5-point stencil on an n x n grid (Dirichlet): n^2 rows. */
CGM_API cgm_status cgm_gen_poisson2d(int32_t n, cgm_csr *A, cgm_error *err);
/* 3D Poisson, 7-point stencil on an n x n x n grid (Dirichlet): n^3 rows. */
CGM_API cgm_status cgm_gen_poisson3d(int32_t n, cgm_csr *A, cgm_error *err);
/* Either of the two by dimension (2 or 3). */
CGM_API cgm_status cgm_gen_poisson(int dim, int32_t n, cgm_csr *A, cgm_error *err);
/* 3D linear elasticity, trilinear hexahedra on an n x n x n element grid,
 * 3 unknowns per node, clamped at the x = 0 face: 3 n (n+1)^2 rows. */
CGM_API cgm_status cgm_gen_elasticity3d(int32_t n, cgm_csr *A, cgm_error *err);
/* Random SPD (symmetric, strictly diagonally dominant, positive diagonal)
 * with rows of about `avg` nonzeros: uniform in [1, 2 avg - 1] or a power law
 * with exponent `alpha` (> 1), capped at `maxlen`. Deterministic in seed. */
CGM_API cgm_status cgm_gen_random_spd(int32_t n, double avg, cgm_rowdist dist, double alpha,
                                      int32_t maxlen, uint64_t seed, cgm_csr *A, cgm_error *err);

/* The arrow: a tridiagonal of n rows (2 + 2/64 on the diagonal, -1 beside) whose row and column 0
 * also touch columns 2 .. len - 1 (1/64 each): one row of len entries; SPD (strictly diagonally
 * dominant) with a condition number near 129. 1 <= len <= n. */
CGM_API cgm_status cgm_gen_arrow(int32_t n, int32_t len, cgm_csr *A, cgm_error *err);
/* The scattered arrow: the same, but row 0's len - 2 entries beyond the tridiagonal are at distinct
 * random multiples of `unit` (>= 2), so that at block size N = unit its longest block row reads a
 * block of x far from the last one at every step (the plain arrow's reads x in order).
 * Deterministic in seed. */
CGM_API cgm_status cgm_gen_arrow_scattered(int32_t n, int32_t len, int32_t unit, uint64_t seed,
                                           cgm_csr *A, cgm_error *err);

/* The band: every row i touches columns i - h .. i + h (clipped at the edges): -1 beside the
 * diagonal, -c/h farther, 2 + 2c + 2 (h - 1) c/h on it (c = 1/64); SPD (strictly diagonally
 * dominant) with a condition number under 131. 1 <= h < n. */
CGM_API cgm_status cgm_gen_band(int32_t n, int32_t h, cgm_csr *A, cgm_error *err);

/* The Kronecker sum A (+) T_k = A (x) I_k + I (x) T_k of a square A with
 * the 1D Laplacian T_k = tridiag(-1, 2, -1) of k rows: row i k + a is
 * unknown a of A's row i. SPD when A is (its eigenvalues are sums). */
CGM_API cgm_status cgm_gen_kron_sum(const cgm_csr *A, int32_t k, cgm_csr *B, cgm_error *err);

typedef enum { CGM_NUMBERING_SORTED, CGM_NUMBERING_RANDOM } cgm_numbering;
/* A random geometric mesh: `points` points uniform in the unit cube, each joined to its k nearest
 * neighbours (the graph symmetrised), 3 unknowns a point; every edge adds a spring block K = d d^T
 * + I / 4 (d the unit direction) as [K -K; -K K], and the diagonal gets a shift of 1e-2: symmetric
 * positive definite by construction. Points are numbered by their cell of a grid (sorted:
 * neighbours get near numbers) or at random. Deterministic in seed. */
CGM_API cgm_status cgm_gen_mesh3d(int32_t points, int k, cgm_numbering numbering, uint64_t seed,
                                  cgm_csr *A, cgm_error *err);
/* The same with varying stiffness: the cube in 4 x 4 x 4 regions, each of coefficient 10^(t log10
 * contrast), t uniform in [0, 1] from the seed; an edge's springs scaled by the harmonic mean of
 * its ends' coefficients. contrast in [1, 1e15]; 1 is cgm_gen_mesh3d. */
CGM_API cgm_status cgm_gen_mesh3d_coef(int32_t points, int k, cgm_numbering numbering,
                                       uint64_t seed, double contrast, cgm_csr *A, cgm_error *err);

/* A = P (x) (J + I): every N x N block dense (d_N = 1), SPD when P is. */
CGM_API cgm_status cgm_gen_kron(const cgm_csr *P, int n, cgm_csr *A, cgm_error *err);

CGM_END_DECLS
