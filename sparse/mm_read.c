/* placeholder: being written */
#include "cgmodel/sparse.h"
cgm_status cgm_mm_read_csr(const char *path, cgm_csr *A, cgm_mm_info *info, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "%s: reader not implemented yet", path);
}
cgm_status cgm_mm_read_vector(const char *path, double **v, int32_t *n, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "%s: reader not implemented yet", path);
}
