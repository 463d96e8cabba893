/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The root's side of the distributed solve: which rows each rank owns. Every partition ends as
 * contiguous blocks of a (possibly renumbered) matrix, so each rank's rows are [bounds[k],
 * bounds[k+1]). Internal to the project; no MPI here (the unit tests run it without). */
#pragma once

#include "cgmodel/dist.h"
#include "cgmodel/sparse.h"

/* Contiguous row blocks of similar work (stored entries plus one per row
 * for the vector updates); every block non-empty (parts <= A->nrows). */
cgm_status cgm_dist_split_rows(const cgm_csr *A, int parts, int32_t *bounds, cgm_error *err);

/* METIS_PartGraphKway parts of A's graph (the off-diagonal pattern), rows renumbered part by part
 * (perm[new] = old; the matrix then by cgm_csr_permute): bounds[k] the first new row of part k (a
 * part may be empty). CGM_EINPUT in a build without METIS. */
cgm_status cgm_dist_split_metis(const cgm_csr *A, int parts, int32_t *bounds, int32_t *perm,
                                cgm_error *err);
