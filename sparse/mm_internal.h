/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals shared by the Matrix Market reader and writer (sparse/mm_read.c,
 * sparse/mm_write.c) and their tests. Not part of the public API. The
 * number conversion both use (cgm_mm_parse_double, cgm_mm_format_double) is
 * its own unit, sparse/mm_number.h. */
#ifndef CGMODEL_SPARSE_MM_INTERNAL_H
#define CGMODEL_SPARSE_MM_INTERNAL_H

#include "cgmodel/sparse.h"
#include "sparse/mm_number.h"

/* Tests only: called by the reader after a file's header, with its path
 * (a test truncates or rewrites the file there, to see the reader notice). */
extern void (*mm_test_after_header)(const char *path);

/* A equals its transpose entry for entry, the pattern included (a stored
 * zero needs its mirror): what a symmetric file written from A keeps.
 * cgm_csr_is_symmetric compares values only. sparse/csr.c */
bool mm_csr_symmetric_pattern(const cgm_csr *A);

#endif
