/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals shared by the Matrix Market reader and writer (sparse/mm_read.c,
 * sparse/mm_write.c) and their unit test. Not part of the public API. The
 * number conversion both use (cgm_mm_parse_double, cgm_mm_format_double) is
 * its own unit, sparse/mm_number.h. */
#ifndef CGMODEL_SPARSE_MM_INTERNAL_H
#define CGMODEL_SPARSE_MM_INTERNAL_H

#include "sparse/mm_number.h"

#endif
