/* Device memory of one solve, counted from what the CUDA solver allocates
 * (solver/cuda/cg_cuda.cu keeps the same list), and the multi-GPU geometry
 * the solver and the model share. */
#include "cgmodel/solver.h"

int64_t cgm_footprint_bytes(int64_t rows_padded, int64_t blocks_padded, int64_t slots, int n,
                            cgm_precision prec, int64_t halo_rows) {
  const int64_t w = prec == CGM_PREC_SINGLE ? 4 : 8;
  int64_t matrix = blocks_padded * (n * n * w + 4) /* values + block columns */
                   + slots * 4                     /* result row of each slot */
                   + (slots + 1) * 8;              /* slice offsets (upper bound) */
  /* x, r, v (with room for the halo), u, D^-1, s (the single-reduction CG) */
  int64_t vectors = 6 * rows_padded * w + halo_rows * w;
  int64_t scratch = 1 << 20; /* reduction partials and device scalars */
  return matrix + vectors + scratch;
}

int cgm_partition_align(int n) {
  return n >= 4 ? 1 : 4 / n;
}

int64_t cgm_chunk_rows(const int32_t *bounds, int gpus, int n) {
  int64_t q = n >= 4 ? n : 4, chunk = 0;
  for (int g = 0; g < gpus; g++) {
    int64_t rows = (int64_t)(bounds[g + 1] - bounds[g]) * n;
    rows = (rows + q - 1) / q * q;
    if (rows > chunk) chunk = rows;
  }
  return chunk;
}

int64_t cgm_exchange_elements(cgm_exchange mode, int gpus, int64_t rows_total, int64_t chunk_rows,
                              int64_t halo_elems) {
  if (gpus <= 1) return 0;
  switch (mode) {
  case CGM_EXCHANGE_P2P:
    return (int64_t)(gpus - 1) * rows_total;
  case CGM_EXCHANGE_NCCL:
    return (int64_t)(gpus - 1) * gpus * chunk_rows;
  case CGM_EXCHANGE_HOST:
    return (int64_t)gpus * rows_total;
  case CGM_EXCHANGE_HALO:
    return halo_elems;
  }
  return 0;
}
