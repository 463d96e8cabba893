/* placeholder: being written */
#include "cgmodel/sparse.h"
cgm_status cgm_gen_elasticity3d(int32_t n, cgm_csr *A, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "elasticity generator not implemented yet");
}
