/* Shared by the layout builder and the partitioner. */
#ifndef CGM_SPARSE_BCSR_INTERNAL_H
#define CGM_SPARSE_BCSR_INTERNAL_H

#include "cgmodel/sparse.h"

/* The sorted block columns of block row br (written to out when non-NULL);
 * returns their count. Block rows holding padded rows of a square matrix
 * include their diagonal block. */
int32_t cgm_block_row_columns(const cgm_csr *A, int32_t br, int n, int32_t *out);

#endif
