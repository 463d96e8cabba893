/* JSON forms of the library's records (cJSON), shared by the CLI's --json
 * output and the database's stored features. */
#ifndef CGM_PIPELINE_JSON_H
#define CGM_PIPELINE_JSON_H

#include <cjson/cJSON.h>

#include "cgmodel/cgmodel.h"

/* mm may be NULL. */
cJSON *cgm_features_json(const cgm_features *f, const cgm_mm_info *mm);

/* The GPU solver's options, as recorded with calibrations and solves; the
 * parse takes the defaults for what is absent (older records). */
cJSON *cgm_gpu_opts_json(const cgm_gpu_opts *g);
cgm_gpu_opts cgm_gpu_opts_from_json(const cJSON *j);
/* What a solve ran with beyond its configuration: the tolerance, the
 * iteration cap, the convergence test's interval, CPU threads and, on our
 * CUDA kernels, the GPU options. */
cJSON *cgm_solve_opts_json(const cgm_solve_opts *o);

#endif
