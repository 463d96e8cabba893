/* Device memory of one solve, counted from what the CUDA solver allocates
 * (solver/cuda/cg_cuda.cu keeps the same list). */
#include "cgmodel/solver.h"

int64_t cgm_footprint_bytes(int64_t rows_padded, int64_t blocks_padded, int64_t slots, int n,
                            cgm_precision prec, int64_t halo_rows) {
  const int64_t w = prec == CGM_PREC_SINGLE ? 4 : 8;
  int64_t matrix = blocks_padded * (n * n * w + 4) /* values + block columns */
                   + slots * 4                      /* result row of each slot */
                   + (slots + 1) * 8;               /* slice offsets (upper bound) */
  /* x, r, v (with room for the halo), u, D^-1 */
  int64_t vectors = 5 * rows_padded * w + halo_rows * w;
  int64_t scratch = 1 << 20; /* reduction partials and device scalars */
  return matrix + vectors + scratch;
}
