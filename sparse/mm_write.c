/* placeholder: being written */
#include "cgmodel/sparse.h"
cgm_status cgm_mm_write_csr(const char *path, const cgm_csr *A, bool symmetric, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "%s: writer not implemented yet", path);
}
cgm_status cgm_mm_write_vector(const char *path, const double *v, int32_t n, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "%s: writer not implemented yet", path);
}
