/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness for what follows the reader (docs/reliability.md):
 * Matrix Market bytes -> CSR -> for N in {1, 2, 4, 8} and several (B_x, B_y):
 * cgm_bcsr_build (layout invariants checked), cgm_bcsr_count (must agree
 * with the build), cgm_features_compute (must agree with the counts), and,
 * for square matrices with enough block rows, cgm_partition + cgm_halo_build
 * for 2 and 3 segments (bounds and halos checked) and the plans of 2 and 3
 * GPUs with the halo exchange, against the segments the CUDA solver's
 * host-side set-up builds from them. Matrices above
 * PIPE_MAX_ROWS rows or PIPE_MAX_NNZ nonzeros are read (the reader sees every
 * input) but not taken further, so that one input stays well under 100 ms.
 * Any violated invariant traps. */
#include "fuzz_common.h"
#include "plan/partition.h"
#include "tests/partition_util.h"
#include "solver/cuda/segments.h"
#include "sparse/bcsr_internal.h"

#define PIPE_MAX_ROWS 20000
#define PIPE_MAX_NNZ 200000

static fuzz_memfile in_file;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_memfile_open(&in_file, "cgm_fuzz_pipe");
  return 0;
}

static int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/* Does block row br of A hold a nonzero (stored) entry in block column bc? */
static bool has_block(const cgm_csr *A, int n, int32_t br, int32_t bc) {
  for (int r = 0; r < n; r++) {
    int64_t i = (int64_t)br * n + r;
    if (i >= A->nrows) break;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] / n == bc) return true;
  }
  return false;
}

/* Checks layout B of the whole matrix A (docs/bcsr-layout.md). */
static void check_layout(const cgm_csr *A, const cgm_bcsr *B, cgm_bcsr_params p) {
  const int n = p.n;
  const int64_t nbrows = ceil_div(A->nrows, n);
  FUZZ_REQUIRE(B->p.n == n && B->p.bx == p.bx && B->p.by == p.by);
  FUZZ_REQUIRE(B->nrows == A->nrows && B->ncols == A->ncols);
  FUZZ_REQUIRE(B->nbrows == nbrows && B->nbcols == ceil_div(A->ncols, n));
  FUZZ_REQUIRE(B->nslices == ceil_div(nbrows, p.by));
  FUZZ_REQUIRE(B->brow_span == nbrows);
  FUZZ_REQUIRE(B->slice_ptr[0] == 0);
  FUZZ_REQUIRE(B->slice_ptr[B->nslices] == B->nblocks_padded);
  const int64_t step = (int64_t)p.by * p.bx;
  for (int32_t k = 0; k < B->nslices; k++) {
    FUZZ_REQUIRE(B->slice_ptr[k] <= B->slice_ptr[k + 1]);
    FUZZ_REQUIRE((B->slice_ptr[k + 1] - B->slice_ptr[k]) % step == 0);
  }
  for (int64_t q = 0; q < B->nblocks_padded; q++)
    FUZZ_REQUIRE(B->bcol[q] >= 0 && B->bcol[q] < B->nbcols);

  /* brow: a permutation of the block rows, then -1 padding only at the end;
   * sorted by length, longest first */
  const int64_t nslots = (int64_t)B->nslices * p.by;
  unsigned char *seen = calloc((size_t)nbrows + 1, 1);
  FUZZ_REQUIRE(seen != NULL);
  int64_t total = 0;
  for (int64_t s = 0; s < nslots; s++) {
    int32_t b = B->brow[s];
    if (s < nbrows) {
      FUZZ_REQUIRE(b >= 0 && b < nbrows && !seen[b]);
      seen[b] = 1;
      if (s > 0) FUZZ_REQUIRE(B->brow_len[B->brow[s - 1]] >= B->brow_len[b]);
      total += B->brow_len[b];
    } else {
      FUZZ_REQUIRE(b == -1);
    }
  }
  free(seen);
  FUZZ_REQUIRE(total == B->nblocks);

  /* every slice is as long as its longest (first) row needs */
  for (int32_t k = 0; k < B->nslices; k++) {
    int32_t first = B->brow[(int64_t)k * p.by];
    int64_t steps = (B->slice_ptr[k + 1] - B->slice_ptr[k]) / step;
    FUZZ_REQUIRE(first >= 0 && steps == ceil_div(B->brow_len[first], p.bx));
  }

  /* values: every stored entry of A is found where the layout says, padded
   * rows hold a 1 on the diagonal, and the stored blocks of each row are
   * blocks A actually has (or the diagonal block of a padded block row). */
  const int nn = n * n;
  int64_t entries_seen = 0;
  for (int32_t k = 0; k < B->nslices; k++) {
    int64_t steps = (B->slice_ptr[k + 1] - B->slice_ptr[k]) / step;
    for (int32_t j = 0; j < p.by; j++) {
      int32_t br = B->brow[(int64_t)k * p.by + j];
      for (int64_t t = 0; t < steps * p.bx; t++) {
        int64_t q = B->slice_ptr[k] + (t / p.bx) * step + (int64_t)j * p.bx + t % p.bx;
        const double *blk = B->val + q * nn;
        if (br < 0 || t >= B->brow_len[br]) { /* padding block: zero */
          for (int e = 0; e < nn; e++) FUZZ_REQUIRE(blk[e] == 0.0 && !signbit(blk[e]));
          continue;
        }
        int32_t bc = B->bcol[q];
        if (t > 0) {
          int64_t qp =
              B->slice_ptr[k] + ((t - 1) / p.bx) * step + (int64_t)j * p.bx + (t - 1) % p.bx;
          FUZZ_REQUIRE(B->bcol[qp] < bc); /* ascending block columns in a row */
        }
        bool padded_rows = (int64_t)(br + 1) * n > A->nrows;
        FUZZ_REQUIRE(has_block(A, n, br, bc) || (padded_rows && A->nrows == A->ncols && bc == br));
        for (int r = 0; r < n; r++) {
          int64_t i = (int64_t)br * n + r;
          int64_t m = 0, mend = 0;
          if (i < A->nrows) { /* first entry of row i at or after column bc * n */
            int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
            while (lo < hi) {
              int64_t mid = lo + (hi - lo) / 2;
              if (A->colidx[mid] < (int64_t)bc * n)
                lo = mid + 1;
              else
                hi = mid;
            }
            m = lo;
            mend = A->rowptr[i + 1];
          }
          for (int c = 0; c < n; c++) {
            double v = blk[r * n + c];
            int64_t col = (int64_t)bc * n + c;
            if (i >= A->nrows) { /* padded row: identity on the diagonal */
              FUZZ_REQUIRE(v == (col == i && A->nrows == A->ncols ? 1.0 : 0.0));
              continue;
            }
            if (m < mend && A->colidx[m] == col) { /* stored: the same bits */
              FUZZ_REQUIRE(fuzz_same_bits(v, A->val[m]));
              entries_seen++;
              m++;
            } else {
              FUZZ_REQUIRE(v == 0.0 && !signbit(v));
            }
          }
        }
      }
    }
  }
  FUZZ_REQUIRE(entries_seen == A->nnz);
}

static void check_partition(const cgm_csr *A, int n, int parts) {
  const int align = n >= 4 ? 1 : 4 / n; /* as the multi-GPU solver calls it */
  const int32_t nb = (int32_t)ceil_div(A->nrows, n);
  int32_t bounds[CGM_MAX_GPUS + 1];
  cgm_error err = {0};
  cgm_status st = cgm_partition(A, n, parts, align, bounds, &err);
  if (st != CGM_OK) {
    fuzz_check_failure(st, &err);
    /* refused only when there are too few block rows */
    FUZZ_REQUIRE((int64_t)nb < (int64_t)(parts - 1) * align + 1);
    return;
  }
  FUZZ_REQUIRE(bounds[0] == 0 && bounds[parts] == nb);
  for (int k = 0; k < parts; k++) {
    FUZZ_REQUIRE(bounds[k] < bounds[k + 1]);
    if (k > 0) FUZZ_REQUIRE(bounds[k] % align == 0);
  }
  const int32_t nbcols = (int32_t)ceil_div(A->ncols, n);
  for (int seg = 0; seg < parts; seg++) {
    cgm_halo h;
    st = cgm_halo_build(A, n, bounds, parts, seg, &h, &err);
    FUZZ_REQUIRE(st == CGM_OK);
    FUZZ_REQUIRE(h.b0 == bounds[seg] && h.b1 == bounds[seg + 1]);
    FUZZ_REQUIRE(h.ninterior >= 0 && h.nboundary >= 0 && h.ninterior + h.nboundary == h.b1 - h.b0);
    for (int32_t c = 0; c < h.nhalo; c++) {
      FUZZ_REQUIRE(h.cols[c] >= 0 && h.cols[c] < nbcols);
      FUZZ_REQUIRE(h.cols[c] < h.b0 || h.cols[c] >= h.b1);
      if (c > 0) FUZZ_REQUIRE(h.cols[c - 1] < h.cols[c]);
    }
    FUZZ_REQUIRE(h.owner[0] == 0 && h.owner[parts] <= h.nhalo);
    for (int j = 0; j < parts; j++) FUZZ_REQUIRE(h.owner[j] <= h.owner[j + 1]);
    /* interior and boundary rows: ascending, disjoint, covering [b0, b1) */
    int32_t a = 0, b = 0;
    for (int32_t r = h.b0; r < h.b1; r++) {
      if (a < h.ninterior && h.interior[a] == r)
        a++;
      else if (b < h.nboundary && h.boundary[b] == r)
        b++;
      else
        FUZZ_REQUIRE(!"block row neither interior nor boundary");
    }
    /* an interior row reads only own block columns */
    for (int32_t m = 0; m < h.ninterior; m++) {
      int32_t br = h.interior[m];
      for (int r = 0; r < n; r++) {
        int64_t i = (int64_t)br * n + r;
        if (i >= A->nrows) break;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
          int32_t bc = A->colidx[k] / n;
          FUZZ_REQUIRE(bc >= h.b0 && bc < h.b1);
        }
      }
    }
    cgm_halo_free(&h);
  }
}

/* The plan of `parts` GPUs with the halo exchange (balanced or not) counts
 * what the solver builds: every segment's layouts and halo. */
static void check_plan(const cgm_csr *A, int n, int parts, bool balance) {
  cgm_plan_opts o = cgm_plan_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  o.layout.n = n;
  o.gpus = parts;
  o.balance = balance;
  cgm_plan p;
  cgm_error err = {0};
  cgm_status st = cgm_plan_make(A, &o, &p, &err);
  if (st != CGM_OK) {
    fuzz_check_failure(st, &err);
    return;
  }
  for (int g = 0; g < parts; g++) {
    cgm_seg_host s;
    FUZZ_REQUIRE(cgm_seg_build(A, &p, g, &s, &err) == CGM_OK);
    const cgm_bcsr *L[2] = {&s.A, &s.B};
    for (int k = 0; k < 2; k++)
      FUZZ_REQUIRE(L[k]->nbrows == p.seg[g].part[k].brows &&
                   L[k]->nblocks == p.seg[g].part[k].blocks &&
                   L[k]->nblocks_padded == p.seg[g].part[k].blocks_padded &&
                   L[k]->nslices == p.seg[g].part[k].nslices);
    FUZZ_REQUIRE(s.h.nhalo == p.seg[g].nhalo && s.v_len == p.seg[g].v_len);
    cgm_seg_free(&s);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_memfile_set(&in_file, data, size);
  cgm_csr A;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_csr(in_file.path, &A, NULL, &err);
  if (st != CGM_OK) {
    fuzz_check_failure(st, &err);
    return 0;
  }
  fuzz_check_csr(&A);
  if (A.nrows > PIPE_MAX_ROWS || A.ncols > PIPE_MAX_ROWS || A.nnz > PIPE_MAX_NNZ) {
    cgm_csr_free(&A);
    return 0;
  }

  /* a few layouts per block size: the solver's choice, B_x > 1, B_y = 1,
   * and one picked by the input's last byte */
  const uint8_t pick = size ? data[size - 1] : 0;
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    cgm_bcsr_params ps[4] = {cgm_plan_layout_params(&A, n, 1),
                             {n, 2, 32 / n},
                             {n, 4, 1},
                             {n, 1 + (pick & 7), 1 + (pick >> 3)}};
    for (int pi = 0; pi < 4; pi++) {
      cgm_bcsr_params p = ps[pi];
      cgm_bcsr_params pc = p;
      if (cgm_bcsr_params_check(&pc, &err) != CGM_OK) continue; /* too many threads */
      const int32_t nb = (int32_t)ceil_div(A.nrows, n);
      cgm_bcsr B;
      st = cgm_bcsr_build(&A, 0, nb, p, &B, &err);
      FUZZ_REQUIRE(st == CGM_OK);
      check_layout(&A, &B, p);
      int64_t nblocks = -1, npadded = -1;
      int32_t maxrow = -1;
      st = cgm_bcsr_count(&A, 0, nb, p, &nblocks, &npadded, &maxrow, &err);
      FUZZ_REQUIRE(st == CGM_OK);
      FUZZ_REQUIRE(nblocks == B.nblocks && npadded == B.nblocks_padded);
      int32_t longest = 0;
      for (int32_t b = 0; b < nb; b++)
        if (B.brow_len[b] > longest) longest = B.brow_len[b];
      FUZZ_REQUIRE(maxrow == longest);
      /* the row-block lengths the partitioner uses agree too */
      int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
      FUZZ_REQUIRE(len != NULL);
      FUZZ_REQUIRE(cgm_bcsr_row_blocks(&A, n, len, &err) == CGM_OK);
      for (int32_t b = 0; b < nb; b++) FUZZ_REQUIRE(len[b] == B.brow_len[b]);
      free(len);
      cgm_bcsr_free(&B);
    }
  }

  cgm_features f;
  st = cgm_plan_features(&A, &f, &err);
  if (A.nrows != A.ncols) {
    FUZZ_REQUIRE(st == CGM_EINPUT);
  } else {
    FUZZ_REQUIRE(st == CGM_OK);
    FUZZ_REQUIRE(f.x == A.nrows && f.nnz == A.nnz);
    FUZZ_REQUIRE(f.row_min >= 0 && f.row_min <= f.row_max && f.row_max <= A.ncols);
    FUZZ_REQUIRE(f.empty_rows >= 0 && f.empty_rows <= A.nrows);
    FUZZ_REQUIRE(isfinite(f.row_avg) && isfinite(f.row_cv) && f.row_cv >= 0);
    FUZZ_REQUIRE(f.positive_diagonal == (f.first_bad_diagonal == -1));
    FUZZ_REQUIRE(f.symmetric == cgm_csr_is_symmetric(&A));
    for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
      const cgm_block_features *bf = &f.block[bi];
      const int n = cgm_block_sizes[bi];
      int64_t nblocks, npadded;
      int32_t maxrow;
      /* the features describe the layout the solver picks on one GPU */
      const cgm_bcsr_params lp = cgm_plan_layout_params(&A, n, 1);
      FUZZ_REQUIRE(lp.n == n && lp.bx >= 1 && lp.bx <= 8 && lp.by >= 1 && bf->bx == lp.bx);
      FUZZ_REQUIRE(cgm_bcsr_count(&A, 0, (int32_t)ceil_div(A.nrows, n), lp, &nblocks, &npadded,
                                  &maxrow, &err) == CGM_OK);
      FUZZ_REQUIRE(bf->n == n && bf->blocks == nblocks && bf->padded_blocks == npadded);
      FUZZ_REQUIRE(bf->max_blocks_per_row == maxrow);
      FUZZ_REQUIRE(bf->elements == nblocks * n * n && bf->padded_elements == npadded * n * n);
      FUZZ_REQUIRE(bf->blocks <= bf->padded_blocks && bf->elements >= A.nnz);
      FUZZ_REQUIRE(isfinite(bf->density) && bf->density >= 0 && bf->density <= 1.0);
    }
    /* multi-GPU partitions, when there are enough block rows to split */
    for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++)
      for (int parts = 2; parts <= 3; parts++) {
        check_partition(&A, cgm_block_sizes[bi], parts);
        check_plan(&A, cgm_block_sizes[bi], parts, parts == 3);
      }
  }
  cgm_csr_free(&A);
  return 0;
}
