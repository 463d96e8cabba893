/* A growing array of samples: what a calibration's sweeps, a refit and the
 * calibration picture collect before they fit or draw. */
#include <stdlib.h>

#include "cgmodel/sample.h"

int cgm_sample_vec_push(void *vec, const cgm_sample *s) {
  cgm_sample_vec *sv = vec;
  if (sv->n == sv->cap) {
    int nc = sv->cap ? 2 * sv->cap : 1024;
    cgm_sample *nv = realloc(sv->v, sizeof *nv * (size_t)nc);
    if (!nv) return 1;
    sv->v = nv;
    sv->cap = nc;
  }
  sv->v[sv->n++] = *s;
  return 0;
}
