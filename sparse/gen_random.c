/* placeholder: being written */
#include "cgmodel/sparse.h"
cgm_status cgm_gen_random_spd(int32_t n, double avg, cgm_rowdist dist, double alpha,
                              int32_t maxlen, uint64_t seed, cgm_csr *A, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "random generator not implemented yet");
}
