/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the libFuzzer harnesses (tests/fuzz, docs/reliability.md):
 * handing the input to the Matrix Market reader through a memfd (no disk
 * I/O; the reader opens /proc/self/fd/N like any path and sees a regular
 * file) or through a pipe (the reader's unknown-size path), and the CSR
 * invariants every successful read must satisfy. A violated invariant calls
 * __builtin_trap(): a silently wrong matrix is a bug. */
#ifndef CGM_FUZZ_COMMON_H
#define CGM_FUZZ_COMMON_H

#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgmodel/sparse.h"

/* Abort with a one-line reason (libFuzzer then saves the input). */
#define FUZZ_REQUIRE(cond)                                                                         \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz invariant violated at %s:%d: %s\n", __FILE__, __LINE__, #cond);        \
      __builtin_trap();                                                                            \
    }                                                                                              \
  } while (0)

/* A memfd holding the current input, reachable as a path. */
typedef struct {
  int fd;
  char path[64];
} fuzz_memfile;

static inline void fuzz_memfile_open(fuzz_memfile *m, const char *name) {
  m->fd = memfd_create(name, 0);
  if (m->fd < 0) {
    fprintf(stderr, "memfd_create: %s\n", strerror(errno));
    abort();
  }
  snprintf(m->path, sizeof m->path, "/proc/self/fd/%d", m->fd);
}

/* Replaces the memfd's content with data[0, size). */
static inline void fuzz_memfile_set(fuzz_memfile *m, const uint8_t *data, size_t size) {
  if (ftruncate(m->fd, 0) != 0) abort();
  size_t off = 0;
  while (off < size) {
    ssize_t k = pwrite(m->fd, data + off, size - off, (off_t)off);
    if (k <= 0) abort();
    off += (size_t)k;
  }
}

/* A pipe whose read end holds data[0, size) followed by EOF: the reader
 * opens *path and sees a FIFO of unknown size. Returns the read end (close
 * it afterwards) or -1. */
static inline int fuzz_pipe_with(const uint8_t *data, size_t size, char *path, size_t pn) {
  int p[2];
  if (pipe(p) != 0) return -1;
  if (size > 65536 && fcntl(p[1], F_SETPIPE_SZ, (int)(size + 4096)) < 0) {
    close(p[0]);
    close(p[1]);
    return -1;
  }
  size_t off = 0;
  while (off < size) {
    ssize_t k = write(p[1], data + off, size - off);
    if (k <= 0) {
      close(p[0]);
      close(p[1]);
      return -1;
    }
    off += (size_t)k;
  }
  close(p[1]);
  snprintf(path, pn, "/proc/self/fd/%d", p[0]);
  return p[0];
}

/* The CSR contract of include/cgmodel/sparse.h. */
static inline void fuzz_check_csr(const cgm_csr *A) {
  FUZZ_REQUIRE(A->nrows >= 1 && A->ncols >= 1 && A->nnz >= 0);
  FUZZ_REQUIRE(A->rowptr != NULL && A->colidx != NULL && A->val != NULL);
  FUZZ_REQUIRE(A->rowptr[0] == 0);
  FUZZ_REQUIRE(A->rowptr[A->nrows] == A->nnz);
  for (int32_t i = 0; i < A->nrows; i++) {
    FUZZ_REQUIRE(A->rowptr[i] <= A->rowptr[i + 1]);
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      FUZZ_REQUIRE(A->colidx[k] >= 0 && A->colidx[k] < A->ncols);
      if (k > A->rowptr[i]) FUZZ_REQUIRE(A->colidx[k - 1] < A->colidx[k]);
      FUZZ_REQUIRE(isfinite(A->val[k]));
    }
  }
}

static inline bool fuzz_same_bits(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

/* Exact equality: shape, pattern and value bits. */
static inline bool fuzz_csr_equal(const cgm_csr *A, const cgm_csr *B) {
  if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return false;
  if (memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr) != 0) return false;
  for (int64_t k = 0; k < A->nnz; k++)
    if (A->colidx[k] != B->colidx[k] || !fuzz_same_bits(A->val[k], B->val[k])) return false;
  return true;
}

/* What a failed call must leave behind (docs/matrix-market.md). */
static inline void fuzz_check_failure(cgm_status st, const cgm_error *err) {
  FUZZ_REQUIRE(st == CGM_EINPUT || st == CGM_ERUNTIME);
  FUZZ_REQUIRE(err->code == st);
  FUZZ_REQUIRE(err->msg[0] != '\0');
  FUZZ_REQUIRE(memchr(err->msg, '\0', sizeof err->msg) != NULL);
}

static inline bool fuzz_csr_is_zeroed(const cgm_csr *A) {
  return A->nrows == 0 && A->ncols == 0 && A->nnz == 0 && !A->rowptr && !A->colidx && !A->val;
}

#endif
