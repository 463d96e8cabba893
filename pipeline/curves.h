/* Where a stored fit goes in a device model (shared by the loader and by
 * calibrate's own overhead model, so the two read fits the same way). */
#ifndef CGM_PIPELINE_CURVES_H
#define CGM_PIPELINE_CURVES_H

#include <stdbool.h>

#include "cgmodel/db.h"
#include "cgmodel/model.h"

/* The kernel curve of a spmv ("all" variant), cg4 or cg5 fit: its sigmoid,
 * its second regime and, for SpMV, its have flag (NULL for cg4/cg5). NULL
 * for another kernel. */
cgm_sigmoid *pipeline_kernel_curve(cgm_device_model *m, const cgm_db_fit *f, cgm_regime **hi,
                                   bool **have);

#endif
