/* libFuzzer harness for the Matrix Market reader (docs/reliability.md).
 *
 * Each input is a file's bytes. They are read
 *   - as a matrix (cgm_mm_read_csr) from a memfd, a regular file of known
 *     size, and again from a pipe (size unknown: the reader's other path);
 *     both must agree (status, and the exact matrix on success);
 *   - as a vector (cgm_mm_read_vector) from the memfd.
 * On success the CSR must satisfy its contract (rowptr[0] == 0, monotone,
 * rowptr[nrows] == nnz, columns in range and strictly increasing in a row,
 * finite values), a symmetric file must give a symmetric matrix, the info
 * must be consistent, and a write + read round trip must give the same bits.
 * On failure the outputs must be empty and the message set. Anything else
 * traps. */
#include "fuzz_common.h"

static fuzz_memfile in_file, out_file;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_memfile_open(&in_file, "cgm_fuzz_in");
  fuzz_memfile_open(&out_file, "cgm_fuzz_out");
  return 0;
}

/* Rows up to which the write + read round trip is run (the writer walks
 * every row). */
#define ROUND_TRIP_MAX_ROWS (1 << 16)

static void check_matrix(const uint8_t *data, size_t size) {
  cgm_csr A;
  cgm_mm_info info;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_csr(in_file.path, &A, &info, &err);

  /* the same bytes through a pipe */
  char ppath[64];
  int pfd = fuzz_pipe_with(data, size, ppath, sizeof ppath);
  cgm_csr P;
  cgm_error perr = {0};
  cgm_status pst = CGM_OK;
  if (pfd >= 0) {
    pst = cgm_mm_read_csr(ppath, &P, NULL, &perr);
    close(pfd);
  }

  if (st != CGM_OK) {
    fuzz_check_failure(st, &err);
    FUZZ_REQUIRE(fuzz_csr_is_zeroed(&A));
    /* A regular file is checked for resources the pipe path cannot check
     * up front (the entry count against the file size); the verdict on the
     * content must be the same. */
    if (pfd >= 0) {
      FUZZ_REQUIRE(pst != CGM_OK);
      fuzz_check_failure(pst, &perr);
      FUZZ_REQUIRE(fuzz_csr_is_zeroed(&P));
    }
    return;
  }

  fuzz_check_csr(&A);
  FUZZ_REQUIRE(info.file_bytes == (int64_t)size);
  FUZZ_REQUIRE(info.entries_in_file >= 0 && info.duplicates_summed >= 0);
  FUZZ_REQUIRE(info.duplicates_summed <= info.entries_in_file);
  if (info.symmetry == CGM_MM_SYMMETRIC) {
    FUZZ_REQUIRE(A.nrows == A.ncols);
    FUZZ_REQUIRE(A.nnz <= 2 * info.entries_in_file);
    FUZZ_REQUIRE(cgm_csr_is_symmetric(&A));
  } else {
    FUZZ_REQUIRE(A.nnz <= info.entries_in_file);
  }
  if (info.field == CGM_MM_PATTERN)
    for (int64_t k = 0; k < A.nnz; k++) FUZZ_REQUIRE(A.val[k] >= 1.0);

  if (pfd >= 0) {
    FUZZ_REQUIRE(pst == CGM_OK);
    FUZZ_REQUIRE(fuzz_csr_equal(&A, &P));
    cgm_csr_free(&P);
  }

  /* exact round trip through the writer (general, and symmetric when the
   * matrix is) */
  if (A.nrows <= ROUND_TRIP_MAX_ROWS) {
    for (int sym = 0; sym < 2; sym++) {
      if (sym && !cgm_csr_is_symmetric(&A)) break;
      cgm_error werr = {0};
      if (ftruncate(out_file.fd, 0) != 0) abort();
      cgm_status wst = cgm_mm_write_csr(out_file.path, &A, sym, &werr);
      FUZZ_REQUIRE(wst == CGM_OK);
      cgm_csr B;
      cgm_error rerr = {0};
      cgm_status rst = cgm_mm_read_csr(out_file.path, &B, NULL, &rerr);
      if (rst != CGM_OK) fprintf(stderr, "round trip read: %s\n", rerr.msg);
      FUZZ_REQUIRE(rst == CGM_OK);
      FUZZ_REQUIRE(fuzz_csr_equal(&A, &B));
      cgm_csr_free(&B);
    }
  }
  cgm_csr_free(&A);
}

static void check_vector(void) {
  double *v = (double *)1;
  int32_t n = -1;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_vector(in_file.path, &v, &n, &err);
  if (st != CGM_OK) {
    fuzz_check_failure(st, &err);
    FUZZ_REQUIRE(v == NULL && n == 0);
    return;
  }
  FUZZ_REQUIRE(v != NULL && n >= 1);
  for (int32_t i = 0; i < n; i++) FUZZ_REQUIRE(isfinite(v[i]));
  if (n <= ROUND_TRIP_MAX_ROWS) {
    cgm_error werr = {0};
    if (ftruncate(out_file.fd, 0) != 0) abort();
    FUZZ_REQUIRE(cgm_mm_write_vector(out_file.path, v, n, &werr) == CGM_OK);
    double *w = NULL;
    int32_t m = 0;
    cgm_error rerr = {0};
    FUZZ_REQUIRE(cgm_mm_read_vector(out_file.path, &w, &m, &rerr) == CGM_OK);
    FUZZ_REQUIRE(m == n);
    for (int32_t i = 0; i < n; i++) FUZZ_REQUIRE(fuzz_same_bits(v[i], w[i]));
    free(w);
  }
  free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_memfile_set(&in_file, data, size);
  check_matrix(data, size);
  check_vector();
  return 0;
}
