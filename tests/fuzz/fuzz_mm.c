/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness for the Matrix Market reader (docs/reliability.md).
 *
 * Each input is a file's bytes. They are read
 *   - as a matrix (cgm_mm_read_csr) from a memfd, a regular file of known
 *     size, and again from a pipe (size unknown: the reader's other path);
 *     both must agree (status, and the exact matrix on success);
 *   - from the memfd again by the parallel reader, with several threads and
 *     tiny chunks chosen by the input's first byte, and with one thread and
 *     one-line chunks, and by the general path alone (a file row by row is
 *     otherwise read by the sorted path); from the pipe with tiny pieces; and wrapped in a gzip
 *     member (when the build reads gzip): each must give the same status and
 *     message (the same line) or the same matrix, bit for bit, as the plain
 *     read of the same kind of file;
 *   - as a vector (cgm_mm_read_vector) from the memfd, and in parallel.
 * On success the CSR must satisfy its contract (rowptr[0] == 0, monotone,
 * rowptr[nrows] == nnz, columns in range and strictly increasing in a row,
 * finite values), a symmetric file must give a symmetric matrix, the info
 * must be consistent, and a write + read round trip must give the same bits.
 * On failure the outputs must be empty and the message set. Anything else
 * traps. */
#include "fuzz_common.h"
#include "sparse/mm_internal.h"
#include "tests/gzip_stored.h"

static fuzz_memfile in_file, gz_file;
/* The writer's output: a real file in a private directory, since the
 * writer creates a temporary file beside its target and renames it (a memfd's
 * /proc/self/fd path has no directory to write into). */
static char out_dir[32], out_path[64];

static void remove_out(void) {
  unlink(out_path);
  rmdir(out_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  /* The parallel reads use 2-4 threads; idle OpenMP threads that spin after
   * each read take the core the next input needs (half the executions on 2
   * cores). Read by the OpenMP runtime when it starts, after this. */
  setenv("OMP_WAIT_POLICY", "passive", 0);
  fuzz_memfile_open(&in_file, "cgm_fuzz_in");
  snprintf(out_dir, sizeof out_dir, "/tmp/cgm-fuzz-out-XXXXXX");
  if (!mkdtemp(out_dir)) abort();
  snprintf(out_path, sizeof out_path, "%s/out.mtx", out_dir);
  atexit(remove_out);
  fuzz_memfile_open(&gz_file, "cgm_fuzz_gz");
  return 0;
}

/* Rows up to which the write + read round trip is run (the writer walks
 * every row). */
#define ROUND_TRIP_MAX_ROWS (1 << 16)

/* The parallel reader's settings for an input: from its first byte, so that
 * the fuzzer steers them too. */
static cgm_mm_read_opts opts_for(const uint8_t *data, size_t size, int which) {
  unsigned b = size ? data[0] : 0;
  cgm_mm_read_opts o = cgm_mm_read_opts_default();
  if (which == 0) { /* several threads, chunks of 1 to 32 bytes */
    o.threads = 2 + (int)(b % 3);
    o.chunk_bytes = 1 + (int64_t)((b >> 2) % 32);
  } else if (which == 1) { /* one thread, a line per chunk */
    o.threads = 1;
    o.chunk_bytes = 1;
  } else { /* a stream in pieces of 1 to 8 bytes */
    o.threads = 1 + (int)(b % 2);
    o.chunk_bytes = 1 + (int64_t)((b >> 1) % 16);
    o.stream_bytes = 1 + (int64_t)((b >> 5) % 8);
  }
  return o;
}

/* The message without its "PATH:" (pipes and files have different paths). */
static const char *after_path(const cgm_error *e, const char *path) {
  size_t n = strlen(path);
  return strncmp(e->msg, path, n) == 0 ? e->msg + n : e->msg;
}

/* Reading path with o gives what (st, A, err) records. */
static void require_same_csr(const char *path, const cgm_mm_read_opts *o, cgm_status st,
                             const cgm_csr *A, const cgm_mm_info *info, const cgm_error *err,
                             const char *err_path) {
  cgm_csr B;
  cgm_mm_info bi;
  cgm_error e = {0};
  cgm_status bst = cgm_mm_read_csr_opts(path, o, &B, info ? &bi : NULL, &e);
  if (bst != st || (st != CGM_OK && strcmp(after_path(&e, path), after_path(err, err_path)) != 0))
    fprintf(stderr, "parallel read: status %d '%s', plain read %d '%s'\n", bst, e.msg, st,
            err->msg);
  FUZZ_REQUIRE(bst == st);
  if (st != CGM_OK) {
    FUZZ_REQUIRE(strcmp(after_path(&e, path), after_path(err, err_path)) == 0);
    FUZZ_REQUIRE(fuzz_csr_is_zeroed(&B));
    return;
  }
  FUZZ_REQUIRE(fuzz_csr_equal(A, &B));
  if (info) FUZZ_REQUIRE(memcmp(info, &bi, sizeof bi) == 0);
  cgm_csr_free(&B);
}

static void check_matrix(const uint8_t *data, size_t size) {
  cgm_csr A;
  cgm_mm_info info;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_csr(in_file.path, &A, &info, &err);

  /* the same bytes through a pipe */
  char ppath[64], qpath[64];
  int pfd = fuzz_pipe_with(data, size, ppath, sizeof ppath);
  cgm_csr P;
  cgm_error perr = {0};
  cgm_status pst = CGM_OK;
  if (pfd >= 0) {
    pst = cgm_mm_read_csr(ppath, &P, NULL, &perr);
    close(pfd);
  }

  /* the parallel reader: the same verdict, to the byte */
  for (int w = 0; w < 2; w++) {
    cgm_mm_read_opts o = opts_for(data, size, w);
    require_same_csr(in_file.path, &o, st, &A, st == CGM_OK ? &info : NULL, &err, in_file.path);
  }
  /* the general path alone, never the sorted one: the same verdict too */
  {
    cgm_mm_read_opts g = opts_for(data, size, 0);
    g.general_only = true;
    require_same_csr(in_file.path, &g, st, &A, NULL, &err, in_file.path);
  }
  if (pfd >= 0) { /* a stream in tiny pieces: what the plain pipe read gave */
    cgm_mm_read_opts o = opts_for(data, size, 2);
    int qfd = fuzz_pipe_with(data, size, qpath, sizeof qpath);
    if (qfd >= 0) {
      require_same_csr(qpath, &o, pst, &P, NULL, &perr, ppath);
      close(qfd);
    }
  }
  /* wrapped in gzip: a stream too (its size is known only at its end) */
  if (pfd >= 0 && cgm_mm_have_gzip() && (size < 2 || data[0] != 0x1f || data[1] != 0x8b)) {
    uint8_t *z = malloc(gzip_stored_bound(size));
    if (z) {
      size_t zn = gzip_stored(z, data, size);
      fuzz_memfile_set(&gz_file, z, zn);
      free(z);
      cgm_mm_read_opts o = opts_for(data, size, 0);
      require_same_csr(gz_file.path, NULL, pst, &P, NULL, &perr, ppath);
      require_same_csr(gz_file.path, &o, pst, &P, NULL, &perr, ppath);
    }
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
      if (sym && !mm_csr_symmetric_pattern(&A)) break; /* what the writer asks */
      cgm_error werr = {0};
      cgm_status wst = cgm_mm_write_csr(out_path, &A, sym, &werr);
      if (wst != CGM_OK) fprintf(stderr, "round trip write: %s\n", werr.msg);
      FUZZ_REQUIRE(wst == CGM_OK);
      cgm_csr B;
      cgm_error rerr = {0};
      cgm_status rst = cgm_mm_read_csr(out_path, &B, NULL, &rerr);
      if (rst != CGM_OK) fprintf(stderr, "round trip read: %s\n", rerr.msg);
      FUZZ_REQUIRE(rst == CGM_OK);
      FUZZ_REQUIRE(fuzz_csr_equal(&A, &B));
      cgm_csr_free(&B);
    }
  }
  cgm_csr_free(&A);
}

static void check_vector(const uint8_t *data, size_t size) {
  double *v = (double *)1;
  int32_t n = -1;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_vector(in_file.path, &v, &n, &err);
  { /* the parallel reader: the same verdict, to the byte */
    cgm_mm_read_opts o = opts_for(data, size, 0);
    double *w = (double *)1;
    int32_t m = -1;
    cgm_error e = {0};
    cgm_status wst = cgm_mm_read_vector_opts(in_file.path, &o, &w, &m, &e);
    FUZZ_REQUIRE(wst == st);
    if (st != CGM_OK) {
      FUZZ_REQUIRE(strcmp(e.msg, err.msg) == 0 && w == NULL && m == 0);
    } else {
      FUZZ_REQUIRE(m == n);
      for (int32_t i = 0; i < n; i++) FUZZ_REQUIRE(fuzz_same_bits(v[i], w[i]));
      free(w);
    }
  }
  if (st != CGM_OK) {
    fuzz_check_failure(st, &err);
    FUZZ_REQUIRE(v == NULL && n == 0);
    return;
  }
  FUZZ_REQUIRE(v != NULL && n >= 1);
  for (int32_t i = 0; i < n; i++) FUZZ_REQUIRE(isfinite(v[i]));
  if (n <= ROUND_TRIP_MAX_ROWS) {
    cgm_error werr = {0};
    FUZZ_REQUIRE(cgm_mm_write_vector(out_path, v, n, &werr) == CGM_OK);
    double *w = NULL;
    int32_t m = 0;
    cgm_error rerr = {0};
    FUZZ_REQUIRE(cgm_mm_read_vector(out_path, &w, &m, &rerr) == CGM_OK);
    FUZZ_REQUIRE(m == n);
    for (int32_t i = 0; i < n; i++) FUZZ_REQUIRE(fuzz_same_bits(v[i], w[i]));
    free(w);
  }
  free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_memfile_set(&in_file, data, size);
  check_matrix(data, size);
  check_vector(data, size);
  return 0;
}
