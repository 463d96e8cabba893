/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which rows each rank owns: contiguous blocks (the paper's cut, Sec. 4.1, here by rows rather than
 * block rows), or METIS parts renumbered into contiguous blocks, so that the rest of the
 * distributed solve knows one kind of partition. */
#include <stdlib.h>
#include <string.h>

#ifdef CGM_HAVE_METIS
#include <metis.h>
#endif

#include "common/grow.h"
#include "dist/split.h"

cgm_status cgm_dist_split_rows(const cgm_csr *A, int parts, int32_t *bounds, cgm_error *err) {
  const int32_t n = A->nrows;
  if (parts < 1 || parts > n)
    return cgm_fail(err, CGM_EINPUT, "the matrix has %d rows: too few for %d MPI ranks", n, parts);
  const int64_t total = A->nnz + n;
  bounds[0] = 0;
  int32_t i = 0;
  for (int k = 1; k < parts; k++) {
    const int64_t target = total * k / parts;
    /* the first row whose work passes the target, leaving one row at least
     * for this part and each one after it */
    while (i < n && A->rowptr[i] + i < target) i++;
    int32_t lo = bounds[k - 1] + 1, hi = n - (parts - k);
    bounds[k] = i < lo ? lo : i > hi ? hi : i;
    i = bounds[k];
  }
  bounds[parts] = n;
  return CGM_OK;
}

#ifdef CGM_HAVE_METIS
cgm_status cgm_dist_split_metis(const cgm_csr *A, int parts, int32_t *bounds, int32_t *perm,
                                cgm_error *err) {
  const int32_t n = A->nrows;
  if (parts < 1 || parts > n)
    return cgm_fail(err, CGM_EINPUT, "the matrix has %d rows: too few for %d MPI ranks", n, parts);
  idx_t *part = malloc(((size_t)n + 1) * sizeof *part);
  idx_t *xadj = malloc(((size_t)n + 1) * sizeof *xadj);
  idx_t *adj = malloc(((size_t)A->nnz + 1) * sizeof *adj);
  int32_t *count = calloc((size_t)parts + 1, sizeof *count);
  cgm_status st = CGM_OK;
  if (!part || !xadj || !adj || !count) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory partitioning %d rows with METIS", n);
    goto done;
  }
  /* The graph of A without its diagonal (METIS takes no self-loops). */
  int64_t m = 0;
  xadj[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] != i) adj[m++] = A->colidx[k];
    xadj[i + 1] = (idx_t)m;
  }
  if (parts == 1) {
    memset(part, 0, (size_t)n * sizeof *part);
  } else {
    idx_t nv = n, ncon = 1, np = parts, cut = 0;
    idx_t opt[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opt);
    opt[METIS_OPTION_SEED] = 1; /* the same parts every run */
    int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, opt,
                                 &cut, part);
    if (rc != METIS_OK) {
      st = cgm_fail(err, rc == METIS_ERROR_MEMORY ? CGM_ERUNTIME : CGM_EINPUT,
                    "METIS_PartGraphKway failed (%d) on %d rows in %d parts", rc, n, parts);
      goto done;
    }
  }
  /* Renumber part by part, keeping the order of the rows within a part. */
  for (int32_t i = 0; i < n; i++) count[part[i]]++;
  bounds[0] = 0;
  for (int k = 0; k < parts; k++) bounds[k + 1] = bounds[k] + count[k];
  for (int k = 0; k < parts; k++) count[k] = bounds[k];
  for (int32_t i = 0; i < n; i++) perm[count[part[i]]++] = i;
done:
  CGM_FREE(part, xadj, adj, count);
  return st;
}
#else
cgm_status cgm_dist_split_metis(const cgm_csr *A, int parts, int32_t *bounds, int32_t *perm,
                                cgm_error *err) {
  return cgm_fail(err, CGM_EINPUT,
                  "partition metis: this build of cgmodel has no METIS (Debian: libmetis-dev)");
}
#endif
